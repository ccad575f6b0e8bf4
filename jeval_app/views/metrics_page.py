"""The Metrics page's part: one evaluator documented from jeval_core itself, never by hand."""

from __future__ import annotations

import json

import streamlit as st

from jeval_core import evaluator_docs
from jeval_core.evaluators import Evaluator


def evaluator_card(evaluator: Evaluator) -> None:
    with st.container(border=True):
        st.subheader(evaluator.name)
        st.write(evaluator.purpose)
        rule = "at or above" if evaluator.higher_is_better else "at or below"
        aliases = (f"- **also accepted as:** {', '.join(f'`{a}`' for a in evaluator.aliases)}\n"
                   if evaluator.aliases else "")
        st.markdown(
            f"- **needs:** {', '.join(f'`{n}`' for n in evaluator.needs)}\n"
            f"- **passes when:** score {evaluator.direction} {evaluator.threshold:.2f} by "
            f"default ({rule} the threshold; "
            f"{'higher' if evaluator.higher_is_better else 'lower'} is better)\n"
            f"- **score:** {evaluator.score_rule}\n"
            f"- **verdicts:** {evaluator.verdicts[0]} / {evaluator.verdicts[1]}\n" + aliases)
        st.caption("Question template, verbatim")
        st.code(evaluator.template, language=None, wrap_lines=True)
        cols = st.columns(3)
        docs = evaluator.docs
        for col, title, items in zip(
            cols,
            ("Reach for it when", "Not the right tool when", "Watch out for"),
            (docs.reach_for_it_when, docs.not_the_right_tool_when, docs.watch_out_for),
            strict=True,
        ):
            col.markdown(f"**{title}**")
            col.markdown("\n".join(f"- {item}" for item in items))
        more = evaluator_docs.docs(evaluator)
        st.markdown("**What to send**")
        st.write(more.result_shape)
        st.code(json.dumps(more.example_request, indent=2, ensure_ascii=False), language="json",
                wrap_lines=True)
        st.caption(evaluator_docs.asks(more.example_questions))
        st.markdown("**Aggregate with**")
        st.markdown("\n".join(f"- **{a.name}**: {a.says}" for a in more.aggregate_with))
        st.markdown("**FAQ**")
        st.markdown("\n".join(f"- **{q}**  \n  {a}" for q, a in more.faq))

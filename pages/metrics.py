"""Metrics: every evaluator documented from jeval_core itself, never by hand."""

import streamlit as st

from jeval_core.evaluators import EVALUATORS

st.title("Metrics")
st.caption("Generated from the evaluator modules in jeval_core: the question templates below "
           "are the exact texts the judge receives, with {i} standing for the item's index.")

for evaluator in EVALUATORS.values():
    with st.container(border=True):
        st.subheader(evaluator.name)
        st.write(evaluator.purpose)
        rule = "at or above" if evaluator.higher_is_better else "at or below"
        st.markdown(
            f"- **needs:** {', '.join(f'`{n}`' for n in evaluator.needs)}\n"
            f"- **passes when:** score {evaluator.direction} {evaluator.threshold:.2f} "
            f"({rule} the threshold; {'higher' if evaluator.higher_is_better else 'lower'} "
            "is better)\n"
            f"- **score:** {evaluator.score_rule}\n"
            f"- **verdicts:** {evaluator.verdicts[0]} / {evaluator.verdicts[1]}")
        st.caption("Question template, verbatim")
        st.code(evaluator.question_template, language=None, wrap_lines=True)
        if evaluator.criteria:
            st.caption("Criteria sent with it: true / false")
            st.code(f"true:  {evaluator.criteria[0]}\nfalse: {evaluator.criteria[1]}",
                    language=None, wrap_lines=True)
        cols = st.columns(3)
        for col, title, items in zip(
            cols,
            ("Reach for it when", "Not the right tool when", "Watch out for"),
            (evaluator.reach_for_it_when, evaluator.not_the_right_tool_when,
             evaluator.watch_out_for),
            strict=True,
        ):
            col.markdown(f"**{title}**")
            col.markdown("\n".join(f"- {item}" for item in items))

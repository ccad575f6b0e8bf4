"""Drawing a Report: evaluator cards, per-question bars and tables, the request itself.

Everything the user typed is shown through inert elements (dataframes, code blocks, chart
tooltips, st.text): never markdown or HTML, so `<script>` or `**bold**` stays literal text.
"""

from __future__ import annotations

import json
import re

import altair as alt
import pandas as pd
import streamlit as st

from jeval_core import Report, export
from jeval_core.evaluators import EVALUATORS, Evaluator
from jeval_core.request import one_call_per_question
from jeval_core.results import Result

GOOD, BAD, NEUTRAL = "#2e9e5b", "#d9534f", "#8a94a6"
_MARKDOWN = re.compile(r"([\\`*_{}\[\]()#+\-.!|~<>$:])")


def inert(text: str) -> str:
    """Text for st.error/st.warning (which render markdown) that shows exactly as written.

    Messages can quote a server's error body or a file's content: never let them format.
    """
    return _MARKDOWN.sub(r"\\\1", text)


def cards(report: Report, stale: bool) -> None:
    """One card per evaluator: score, label, confidence, pass/fail, threshold, reason."""
    names = list(report.results)
    per_row = 2 if len(names) > 1 else 1
    for start in range(0, len(names), per_row):
        for col, name in zip(st.columns(per_row), names[start:start + per_row], strict=False):
            with col.container(border=True):
                card(name, report.results[name], stale)


def card(name: str, result: Result, stale: bool) -> None:
    head, badge_col = st.columns([3, 1], vertical_alignment="center")
    head.markdown(f"**{name}**")
    if result.skipped:
        badge_col.badge("skipped", color="gray")
        st.text(result.reason)
        return
    passed = "PASS" if result.passed else "FAIL"
    badge_col.badge(passed + (" · stale" if stale else ""),
                    color=("green" if result.passed else "red") if not stale else "gray")
    rule = "≥" if result.higher_is_better else "≤"
    score_col, label_col = st.columns(2)
    score = result.score if result.score is not None else 0.0
    score_col.metric("score", f"{score:.2f}")
    label_col.metric("label", result.label)
    st.caption(f"passes at score {rule} {result.threshold:.2f} · confidence "
               f"{result.confidence or 0.0:.2f} (|score − 0.5| × 2)")
    st.text(result.reason)


def details(report: Report) -> None:
    """Per evaluator: the bars with the 0.5 line, then the same rows as a table."""
    scored = [n for n, r in report.results.items() if not r.skipped]
    if not scored:
        return
    for tab, name in zip(st.tabs(scored), scored, strict=True):
        with tab:
            rows = pd.DataFrame(report.rows(name))
            st.altair_chart(chart(rows, EVALUATORS[name]), width="stretch")
            columns = ["judged", "p", "verdict", "text", "id"]
            if any(r["evidence"] for r in report.rows(name)):
                rows["why"] = [", ".join(t for _, _, t in ev) for ev in rows["evidence"]]
                columns.insert(3, "why")
            st.dataframe(
                rows[columns], hide_index=True, width="stretch",
                column_config={"p": st.column_config.NumberColumn("p(yes)", format="%.2f"),
                               "text": st.column_config.TextColumn("text", width="large")},
            )
            st.download_button(
                "Download these rows (CSV)", export.to_csv(report.rows(name), columns),
                file_name=f"{name}.csv", mime="text/csv", key=f"csv_{name}",
                help="text cells that would run as spreadsheet formulas are made inert")
            why(report.rows(name))


def why(rows: list[dict]) -> None:
    """Each judged text with the words that drove its p highlighted (offline judges say)."""
    shown = [r for r in rows if r["evidence"] and r["text"]]
    if not shown:
        return
    with st.expander("Why: the words that drove each p", expanded=len(shown) <= 8):
        for r in shown:
            st.markdown(f"**{inert(r['judged'])}** · p {r['p']:.2f} · {inert(r['verdict'])}  \n"
                        + highlighted(r["text"], r["evidence"]))


def highlighted(text: str, spans: tuple[tuple[int, int, str], ...]) -> str:
    """Markdown of `text`, inert, with each span on an orange background."""
    out, at = [], 0
    for start, end, _ in sorted(spans):
        if start < at or end > len(text):
            continue
        out.append(inert(text[at:start]))
        out.append(f":orange-background[{inert(text[start:end])}]")
        at = end
    out.append(inert(text[at:]))
    return "".join(out)


def questions(report: Report) -> None:
    """Every question exactly as sent (shared ones once), with its id and the judge's p(yes)."""
    lines = [f"{q['id']}  p={q['p']:.2f}  {q['question']}" if q["p"] is not None
             else f"{q['id']}  {q['question']}" for q in report.questions()]
    st.code("\n".join(lines), language=None, wrap_lines=True)


def chart(rows: pd.DataFrame, evaluator: Evaluator) -> alt.LayerChart:
    """Bars of p(yes) per judged item, coloured by verdict, with the 0.5 line."""
    yes_colour = GOOD if evaluator.higher_is_better else BAD
    bars = alt.Chart(rows).mark_bar().encode(
        x=alt.X("judged:N", sort=None, title=None, axis=alt.Axis(labelAngle=0)),
        y=alt.Y("p:Q", scale=alt.Scale(domain=[0, 1]), title="p(yes)"),
        color=alt.Color("verdict:N", legend=alt.Legend(orient="top", title=None),
                        scale=alt.Scale(domain=list(evaluator.verdicts),
                                        range=[yes_colour, NEUTRAL])),
        tooltip=[alt.Tooltip("judged:N"), alt.Tooltip("p:Q", format=".2f"),
                 alt.Tooltip("verdict:N"), alt.Tooltip("text:N")],
    )
    line = alt.Chart(pd.DataFrame({"p": [0.5]})).mark_rule(
        strokeDash=[5, 4], color="#f0ad4e").encode(y="p:Q")
    return (bars + line).properties(height=220)


def request_panel(report: Report) -> None:
    """The one request: JSON to copy, tokens, cost, and what one call per question would cost."""
    packed = report.packed
    calls, alone = one_call_per_question(packed)
    used = report.usage.input_tokens
    tokens = f"{used:,}" if used else f"~{packed.tokens.total:,}"
    cost = report.cost_usd if used else packed.cost_usd
    a, b = st.columns(2)
    c, d = st.columns(2)
    a.metric("requests", "1" if packed.asked else "0",
             help="every question of every evaluator in one request")
    b.metric("input tokens" + ("" if used else " (estimate)"), tokens)
    c.metric("cost on Jev", f"${cost:.8f}", help="$42 per billion input tokens; output free")
    saved = 1 - packed.tokens.total / alone if alone else 0.0
    d.metric("one call per question", f"{calls} calls", f"{saved:.0%} fewer tokens here",
             delta_color="off",
             help="the same questions asked one by one with just their operands (as RAGAS "
                  "and DeepEval do), before their prompt templates")
    st.code(json.dumps(packed.body, indent=2, ensure_ascii=False), language="json",
            height=360, wrap_lines=True)

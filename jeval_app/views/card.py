"""The one result card: an evaluator's verdict, score, label and reason, wherever a result
is drawn (the Playground's cards, a stored case on the Dashboard and the Dataset page)."""

from __future__ import annotations

from collections.abc import Mapping

import streamlit as st

from jeval_app import state
from jeval_app.views import verdict
from jeval_app.views.text import inert
from jeval_core.results import Result
from jeval_core.runs.records import CaseRow

NBSP = "\u00a0"  # "label 50% yes" and "score 0.50" each stay on one line
GLYPHS = {state.PASS: "✓", state.FAIL: "✗"}  # the verdict label's buttons: narrow
APPROXIMATE = ("Your own question, answered offline from its wording and the texts it names "
               "(not read as a language model reads it): a rough guide; the hosted judge or "
               "your labels decide.")


def result_card(name: str, result: Result, stale: bool = False, labelled: bool = False) -> None:
    """Name, verdict, score and label on one line, the reason under it: two elements (an
    edit redraws every card; with metrics and columns a card was six). `labelled`: the
    person's verdict (pass / fail) beside the first line, the truth it is measured by; the
    line is then that control's label, so the card stays two elements (was a row of two)."""
    if result.skipped:
        st.markdown(f"**{inert(name)}** {verdict.badge(verdict.SKIPPED)}")
        st.caption(inert(result.reason.replace("`", "")))
        return
    word = verdict.of_result(result)
    rule = "≥" if result.higher_is_better else "≤"
    score = result.score if result.score is not None else 0.0
    mark = ""
    if labelled:
        truth = {state.PASS: True, state.FAIL: False}.get(state.get(state.truth_key(name)))
        if truth is not None and result.passed is not None and truth != result.passed:
            mark = f" :red-badge[✗ you: {state.PASS if truth else state.FAIL}]"
    approx = " :violet-badge[≈ approximate]" if result.approximate else ""
    head = (f"**{inert(name)}** {verdict.badge(word, stale, ' · stale' if stale else '')}"
            f"{mark}{approx} :gray[score]{NBSP}**{score:.2f}** :gray[· label]{NBSP}"
            f"**{inert(result.label)}**")
    if labelled:  # the header is the ✓/✗ control's own label, drawn beside it (jeval_app/style.css)
        # ✓ it should pass, ✗ fail; again: clear
        # persist_state: a judge with no result to draw (Jev before it is asked) leaves the
        # card out, and the label must still be there when the card comes back
        st.segmented_control(head, [state.PASS, state.FAIL], key=state.truth_key(name),
                             format_func=GLYPHS.get, on_change=state.remember_labelled_texts,
                             persist_state="session")
    else:
        st.markdown(head)
    st.caption(inert(f"{result.reason.replace('`', '')} Passes at score {rule} "
                     f"{result.threshold:.2f}; confidence {result.confidence or 0.0:.2f}."
                     + (f" {APPROXIMATE}" if result.approximate else "")))


def result_cards(results: Mapping[str, Result], stale: bool = False,
                 labelled: bool = False) -> None:
    """One bordered card per evaluator, one per row so that nothing is cut off; `labelled`:
    each card also takes the person's verdict (pass / fail), the truth it is measured by."""
    for name, result in results.items():
        with st.container(border=True, key=f"card_{name}"):
            result_card(name, result, stale, labelled)


def case_card(row: CaseRow | None, title: str) -> None:
    """One stored case: its verdict, then a result card per evaluator. Every text from the
    case or the judge is drawn inert."""
    with st.container(border=True):
        if row is None:
            st.markdown(f"**{inert(title)}** :gray-badge[not in this run]")
            return
        st.markdown(f"**{inert(title)}** {verdict.badge(verdict.of_case(row.passed, row.error))}")
        if row.report is None:
            st.caption(inert(row.error or "not scored"))
            return
        for name, result in row.results.items():
            result_card(name, result)

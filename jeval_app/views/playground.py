"""The Playground's workbench: the case editor (case_editor.py), the link (case_link.py), the
scoring policy (jeval_app/scoring_policy.py) and the results (case_results.py), put together.

`panel` draws what changes only with the case's shape; `live_panel` what a committed edit
changes, in a fragment of its own. Which judge is which, the catalog says.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from jeval_app import case as editing
from jeval_app import hosted, resources, state, style
from jeval_app.scoring_policy import hosted_running, is_stale, run_scoring, score_offline
from jeval_app.views import evaluator_editor
from jeval_app.views import report as draw
from jeval_app.views.boundary import boundary
from jeval_app.views.case_editor import (
    LIVE,
    download_case,
    editor,
    example_questions,
    on_example,
    origin_line,
    rerun_live,
    upload,
)
from jeval_app.views.case_link import copy_link, follow_in_url, on_copy
from jeval_app.views.case_results import chunk_verdict, focused_chunk, presentation, scored
from jeval_app.views.hosted_live import (
    HostedView,
    hosted_live,
    live_cap,
    live_notices,
    live_status,
    live_toggle,
    stop_live,
)
from jeval_app.views.text import inert
from jeval_core import JevalError, judges
from jeval_core.evaluators import EVALUATORS
from jeval_core.request import pack

KEPT = "Your text is kept."
STOP_HELP = "stop waiting for the server: nothing is scored, your case stays as it is"



@st.fragment
def workbench() -> None:
    with boundary(KEPT):
        panel()



def panel() -> None:
    """What changes only with the case's shape (the example picker, the editor's widgets);
    the live panel draws the rest, and an edit reruns only the live panel."""
    present = bool(state.get(state.PRESENT))
    pick, share_col = st.columns([5, 1], vertical_alignment="center")
    if not present:
        descriptions = resources.descriptions()
        pick.selectbox("example", list(descriptions), key=state.EXAMPLE, on_change=on_example,
                       format_func=descriptions.get, index=None,
                       placeholder="Load an example…", label_visibility="collapsed")
    share_col.button("Copy link", width="stretch", on_click=on_copy,
                     help="puts a link to this case on the clipboard; never the key")
    notice = state.said(state.NOTICE)
    if notice:  # a damaged link: said on the first screen
        st.warning(inert(notice))
    if not present:
        example_questions()
    top = st.container()
    if present:
        live(Slots(top, st.container(), None, {}))
        return
    inputs, column = st.columns([4, 6], gap="large")
    with inputs:
        chunks = editor()
        download = st.container()
        upload()
    # hidden while the case's text areas wait for their code (jeval_app/style.py): a reloaded page
    # draws the case and its results together, never the results first
    results = column.container(key=style.RESULTS)
    draft = None
    if evaluator_editor.is_open():
        with results:
            evaluator_editor.widgets(rerun_live)
            draft = st.container()
    live(Slots(top, results, download, chunks, draft))



@dataclass(frozen=True)
class Slots:
    """Where the live panel draws: the bar under the picker, the results (or presentation),
    the case download, and beside each chunk (by id) its p and verdict."""

    top: DeltaGenerator
    body: DeltaGenerator
    download: DeltaGenerator | None
    chunks: dict[str, DeltaGenerator]
    draft: DeltaGenerator | None = None  # the custom evaluator editor's questions, when open



@st.fragment(key=LIVE)
def live(slots: Slots) -> None:
    with boundary(KEPT, where=slots.body):  # this part reruns on its own: its boundary too
        live_panel(slots)



def live_panel(slots: Slots) -> None:
    """Everything a committed edit changes: the link, the origin line, the Jev button and its
    error (or the live toggle, its status, error and cap), each chunk's verdict, the results."""
    started = time.perf_counter()
    present = bool(state.get(state.PRESENT))
    case = editing.current()
    chosen = editing.chosen_evaluators()
    judge = state.judge_name()
    kind = judges.entry(judge) if judges.known(judge) else judges.entry(judges.DEFAULT)
    token = follow_in_url()

    asked, packed = False, None
    view: HostedView | None = None
    # each slot gets its one container on every run: a fragment may only write again where it
    # wrote before
    with slots.top.container():
        offered = (bool(chosen) and judges.hosted_name() is not None and hosted.key_ready()
                   and not judges.entry(hosted.name()).per_question)  # live: the Jev judge
        live_on = offered and bool(state.get(state.HOSTED_LIVE))
        shown_origin = not present and (editing.modified() or (
            state.origin() and not state.get(state.EXAMPLE)))
        button = kind.hosted and bool(chosen)
        if shown_origin or button or (offered and not present):
            row = st.container(horizontal=True, vertical_alignment="center", wrap=False)
            if shown_origin:
                with row:
                    origin_line()
            if offered and not present:
                with row:
                    live_on = live_toggle()
            if button and not live_on:
                try:  # packed once: for the button, the staleness check and the request
                    packed = pack(case, chosen, hosted.model() or "")
                    label = (f"Score with {kind.title} ({len(packed.asked)} requests, one "
                             "per question)" if kind.per_question else
                             f"Score with {kind.title} (1 request, ~{packed.tokens.total:,} "
                             f"tokens, ~${packed.cost_usd:.6f})")
                except JevalError:
                    label = f"Score with {kind.title}"
                asked = row.button(label, type="primary", disabled=hosted_running())
            if live_on:
                with row:
                    live_cap()
        if live_on:
            view = hosted_live(case, chosen)
            live_status(view)
        else:
            stop_live()
        if view is not None and view.report is not None:
            report, error = view.report, None
        elif live_on:  # the offline judge's verdicts until the hosted answer arrives
            report, error = run_scoring(case, chosen,
                                        judge if kind.offline else judges.DEFAULT, False)
        else:
            report, error = (run_scoring(case, chosen, judge, asked, packed) if chosen
                             else (None, None))
            if asked and hosted_running():  # the page again: the button disabled, the poller on
                st.rerun()
            if hosted_running():  # the page stays live meanwhile; Cancel lets the server go
                hosted_waiting()
        if state.asked("copy"):
            copy_link(token)
        if error:  # next to the button that caused it, on the first screen
            st.error(inert(error))
        if view is not None:
            live_notices(view)

    thresholds = {k: v for k, v in state.thresholds().items()
                  if k in EVALUATORS or any(e.name == k for e in chosen)}
    if report is not None and thresholds:
        report = report.with_thresholds(thresholds)
    # offline results are scored from the case on screen, and so is a live hosted answer:
    # only the hosted judge's pressed-for results can lag
    stale = (report is not None and kind.hosted and not live_on
             and (packed is None or is_stale(report, packed)))
    standing_in = view.standing_in(report) if view is not None else None
    per_chunk = draw.chunk_rows(report) if report is not None and not stale else {}
    ids = state.chunk_ids()
    focus = focused_chunk(len(ids))
    draw.chunk_edges({uid: (per_chunk[pos].yes if pos in per_chunk else None)
                      for pos, uid in enumerate(ids)},
                     ids[focus] if focus is not None and not present else None)
    marks = state.chunk_labels()
    for pos, uid in enumerate(ids):
        if uid in slots.chunks:
            with slots.chunks[uid]:
                chunk_verdict(case.context[pos], per_chunk.get(pos),
                              report.judge if standing_in and report is not None else None,
                              marks[pos] if pos < len(marks) else None, case.chunk_meta(pos))
    if slots.download is not None:
        with slots.download:
            download_case(case, chosen)
    if slots.draft is not None:
        with slots.draft:
            evaluator_editor.preview(case, judge if judges.known(judge) else judges.DEFAULT,
                                     state.calibration_for(judge), score_offline)

    with slots.body:
        if present:
            presentation(case, report, stale, per_chunk, standing_in)
            return
        if not chosen:
            st.info("Pick at least one evaluator.")
            return
        if report is None:
            if kind.hosted and not error and hosted_running():
                st.info(f"Waiting for {kind.title}: its verdicts show here when they come "
                        "(edit meanwhile, or Cancel to stop waiting).")
            elif kind.hosted and not error:
                st.info(f"Press the button to score this case with {kind.title} (the "
                        "offline judges' results are not shown under its name).")
            return
        scored(case, chosen, report, stale, time.perf_counter() - started, focus, standing_in)


def hosted_waiting() -> None:
    """While the server judge is asked in the background: what is asked, and Cancel (the
    server is let go at once; what it may still send is not shown)."""
    job = state.get(state.HOSTED_JOB)
    row = st.container(horizontal=True, vertical_alignment="center", key="hosted_waiting")
    with row:
        st.caption(inert(job.line()))
        st.button("Cancel", key="hosted_job_cancel", on_click=job.stop, help=STOP_HELP)


@st.fragment(run_every=0.5)
def hosted_poller() -> None:
    """Draws nothing: twice a second, looks whether the server judge's answer came, and
    then draws the page with it (only while one is awaited)."""
    job = state.get(state.HOSTED_JOB)
    if job is not None and job.done and not job.noticed:
        job.noticed = True
        st.rerun()

"""The Dataset page's parts: score a whole file of cases, watch it run, then read the run.

Read the widgets, call jeval_core (`runs.run_dataset`, in a background job so the page
stays live and Cancel works), draw the stored run. Every run lands in the run store, so the
Dashboard lists it too.
"""

from __future__ import annotations

import streamlit as st

from jeval_app import custom, jobs, resources, state
from jeval_app.views import datasets, progress, stored_run
from jeval_app.views.boundary import error_line
from jeval_app.views.text import inert
from jeval_core import judges
from jeval_core.errors import JevalError
from jeval_core.evaluators import BY_NAME_ONLY, BY_NAME_ONLY_NAMES, EVALUATORS, NAMES, Evaluator
from jeval_core.inputs.datasets import Dataset
from jeval_core.runs import run as runs
from jeval_core.runs.records import RunSummary
from jeval_core.runs.store import Store
from jeval_core.text import one_line

KEYS = state.DATASET
JOB, ERROR, RUN = KEYS("job"), KEYS("error"), KEYS("run")  # the job, its problem, its run


def start(dataset: Dataset, judge_name: str, chosen: tuple[Evaluator, ...] | None,
          thresholds: dict[str, float], name: str | None, resume: RunSummary | None = None,
          ) -> None:
    """Start (or continue) the run in the background; a problem before it starts is one
    line."""
    try:
        db = resources.store()
        judge, owned = resources.run_judge(judge_name,
                                           resume.judge_settings if resume else None)
    except JevalError as err:
        state.put(ERROR, str(err))
        return

    def work(job: jobs.Job) -> str:
        run_id = resume.id if resume else runs.open_run(dataset, judge, db, chosen=chosen,
                                         thresholds=thresholds, name=name)
        job.result = run_id  # known even if Cancel stops the run (stored as cancelled)
        runs.run_dataset(dataset, jobs.StopsWhenCancelled(judge, job.cancel), db, chosen=chosen,
                         thresholds=thresholds, resume=run_id,
                         concurrency=judges.entry(judge_name).concurrency,
                         on_progress=job.report, cancel=job.cancel)
        return run_id

    title = f"{len(dataset.rows)} cases with the {judge_name} judge"
    state.put(JOB, jobs.start(title, work, owned))
    state.drop(RUN)


def settings(dataset: Dataset) -> None:
    """Evaluators, thresholds, a name, and Run (with what goes wrong said beside it)."""
    judge_name = state.judge_name()
    # chunk_support after the metrics: a server judge's supported@k in the run's Which k?
    known = {**EVALUATORS, **{e.name: e for e in BY_NAME_ONLY}, **custom.known()}
    picked = st.multiselect(
        "Evaluators", [*NAMES, *BY_NAME_ONLY_NAMES, *custom.names()],
        key=KEYS("evaluators"), persist_state="session",
        placeholder="each row's own (else every evaluator its fields allow)",
        help="leave empty to run what each row names, or the defaults for its fields")
    names = picked or list(NAMES)
    with st.expander("Thresholds (each evaluator's default unless you move it)"):
        cols = st.columns(2)
        for i, name in enumerate(names):
            rule = "≥" if known[name].higher_is_better else "≤"
            cols[i % 2].slider(f"{name} passes at score {rule}", 0.0, 1.0,
                               value=float(known[name].threshold), step=0.05,
                               key=KEYS("th", name), format="%.2f", persist_state="session")
    moved = {n: float(state.get(KEYS("th", n))) for n in names if state.has(KEYS("th", n))}
    thresholds = {n: value for n, value in moved.items() if value != known[n].threshold}
    default_name = f"{dataset.name} · {judge_name}"
    name = st.text_input("Run name", key=KEYS("name"), placeholder=default_name,
                         persist_state="session",
                         help="how the run is listed on the Dashboard")
    busy = progress.running(JOB)
    left, right = st.columns([1, 3], vertical_alignment="center")
    if left.button(f"Run {len(dataset.rows)} cases", type="primary", disabled=busy,
                   key=KEYS("run_button"), width="stretch"):
        chosen = tuple(known[n] for n in picked) if picked else None
        start(dataset, judge_name, chosen, thresholds, one_line(name, 120) or None)
        st.rerun()  # draw the page for a running job: preview folded, progress in view
    right.caption(inert(
        f"judge: {judges.labels().get(judge_name, judge_name)} (change it in the sidebar) · "
        "every run is kept in the run store and listed on the Dashboard"))
    problem = state.take(ERROR)
    if problem:
        error_line(problem)


def body() -> None:
    progress.collect_into(JOB, ERROR, RUN)
    dataset = datasets.pick_dataset(KEYS)
    if dataset is not None:
        quiet = state.get(RUN) is None and not progress.running(JOB)
        with st.expander(inert(f"Preview: {dataset.name}"), expanded=quiet):
            datasets.preview(dataset)
        settings(dataset)
    if progress.awaited(JOB):  # a job that ended since collect_into: its poller reruns
        progress.progress(JOB)
    elif dataset is not None and not state.get(RUN):
        stopped = stopped_run(dataset)
        if stopped is not None:
            st.info(inert(f"A stopped run of this file is stored: {stopped.name} "
                               f"({stopped.status}, {stopped.done} of {stopped.cases} cases)."))
            resume_button(resources.store(), stopped.id, dataset)
    run_id = state.get(RUN)
    if run_id and not progress.running(JOB):
        st.header("Results")
        try:
            db = resources.store()
        except JevalError as err:
            error_line(str(err))
            return
        if dataset is not None:
            resume_button(db, run_id, dataset)
        stored_run.run_view(db, run_id, KEYS)


def stopped_run(dataset: Dataset) -> RunSummary | None:
    """The newest run of this very file that stopped before its end (cancelled, failed, or
    left "running" by a crash), if any: the page offers to continue it."""
    try:
        found = resources.store().runs(dataset.name)
    except JevalError:
        return None
    for run in found:
        if (run.dataset_hash == dataset.sha256 and not run.seeded and run.done < run.cases
                and run.status in ("cancelled", "failed", "running")):
            return run
    return None


def resume_button(db: Store, run_id: str, dataset: Dataset) -> None:
    """A stopped run of this very file can be continued: finished cases are not rescored."""
    try:
        run = db.run(run_id)
    except JevalError:
        return
    if run.status not in ("cancelled", "failed", "running") or (
            run.dataset_hash != dataset.sha256):
        return
    if not judges.known(run.judge) or run.done >= run.cases:
        return
    if st.button(f"Continue this run ({run.cases - run.done} cases left)", key=KEYS("resume"),
                 help="scores only the cases that are not stored yet (and those the judge "
                      "could not answer), with the run's judge, evaluators and thresholds; a "
                      "run still going in another process would be scored twice"):
        try:  # the run's own evaluators (a custom one from the definition it recorded)
            chosen, thresholds = runs.stored_settings(run)
        except JevalError as err:
            error_line(str(err))
            return
        start(dataset, run.judge, chosen, thresholds, None, resume=run)
        st.rerun()

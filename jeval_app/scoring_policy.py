"""Which judge scores the Playground's case, and when: offline judges on every commit
(cached by the case, not by the thresholds: a threshold is a what-if that re-reduces the
answers already given); a hosted judge only when its button is pressed (or live, in
views/hosted_live.py), and never the other judge's results under its name. No drawing."""

from __future__ import annotations

import streamlit as st

from jeval_app import custom, hosted, jobs, resources, state
from jeval_core import Case, JevalError, Report, evaluators, judges
from jeval_core.analysis import k_sweep
from jeval_core.evaluators import Evaluator
from jeval_core.judges import Judge
from jeval_core.request import Packed
from jeval_core.scoring import prepare, run


def offline_judge(name: str, calibration: str | None = None) -> Judge:
    if resources.offline_judge_ready(name, calibration):
        return resources.offline_judge(name, calibration)
    with st.spinner("Loading the offline judge…"):
        return resources.offline_judge(name, calibration)



@st.cache_data(max_entries=256, show_spinner=False)
def score_offline(case: Case, names: tuple[str, ...], judge: str,
                  calibration: str | None = None, definitions: tuple[str, ...] = ()) -> Report:
    """Pure in its arguments (plain names, not objects, so Streamlit can hash them; a
    profile by name and fingerprint; a custom evaluator by its definition's text): the same
    case and evaluators are never judged twice (thresholds re-reduce the answers)."""
    offline = resources.offline_judge(judge, calibration)
    chosen = evaluators.resolve(names, custom=custom.from_texts(definitions))
    return run(prepare(case, chosen, offline), offline)



# ---- scoring ----

def run_scoring(case: Case, chosen: tuple[Evaluator, ...], judge: str, asked: bool,
                packed: Packed | None = None) -> tuple[Report | None, str | None]:
    """Offline judges score on every commit; the hosted one only when asked, with the request
    packed for its button when there is one. Never the other judge's results under this
    judge's name."""
    if judges.entry(judge).offline:
        try:
            calibration = state.calibration_for(judge)
            offline_judge(judge, calibration)  # loaded outside the cached function (spinner)
            return score_offline(case, tuple(e.name for e in chosen), judge, calibration,
                                 custom.texts(chosen)), None
        except JevalError as err:
            return None, str(err)
    error = None
    if asked and not hosted_running():
        error = start_hosted(case, chosen, judge, packed)
    finished = state.get(state.HOSTED_JOB)
    # a stopped request is let go at once: its thread may wait on the server a while longer,
    # and whatever it brings back is not shown
    if finished is not None and (finished.done or finished.cancel.is_set()):
        state.drop(state.HOSTED_JOB)
        if finished.cancel.is_set():
            error = (f"Stopped: {judges.entry(judge).title} was not waited for; nothing was "
                     "scored (the server may still finish the request on its side).")
        elif finished.error:
            error = finished.error
        elif finished.result is not None:
            state.set_hosted_report(finished.result)
    return state.hosted_report(), error


def hosted_running() -> bool:
    job = state.get(state.HOSTED_JOB)
    return job is not None and not job.done and not job.cancel.is_set()


def hosted_awaited() -> bool:
    """An answer no run has drawn yet, coming or just come: the page's poller stays on until
    one run has. The job can end between the panel's look ("Waiting for ...") and the page's:
    a page that polled only while it was running then waited forever (seen under load)."""
    job = state.get(state.HOSTED_JOB)
    return job is not None and not job.noticed and not job.cancel.is_set()


def start_hosted(case: Case, chosen: tuple[Evaluator, ...], judge: str,
                 packed: Packed | None) -> str | None:
    """The server judge asked in the background (the page stays live, Cancel lets go of a
    server that never answers); an error line when the request cannot even be made."""
    try:
        judge_now = hosted.from_settings()
    except JevalError as err:
        return str(err)
    try:
        request = packed if packed is not None else prepare(case, chosen, judge_now)
        request.check_budget()
    except JevalError as err:
        judge_now.close()
        return str(err)
    kind = judges.entry(judge)
    asked = len(request.asked)
    title = (f"Asking {kind.title} {asked} question{'s' if asked != 1 else ''}"
             + (f" in {asked} requests" if kind.per_question and asked > 1 else " in 1 request"))
    job = jobs.start(title, lambda job: run(request, judge_now), close=(judge_now,))
    job.interrupt.append(judge_now.close)
    state.put(state.HOSTED_JOB, job)
    return None



def supported_at_k(case: Case, judge: str, calibration: str | None,
                   ks: list[int]) -> list[float | None] | None:
    """supported@k: the answer's faithfulness against the first k chunks, for each k, read by
    an offline judge (no request; cached per cut case); None for a server judge, a case
    without an answer, or a judge that cannot read it."""
    if not (judges.known(judge) and judges.entry(judge).offline and case.output.strip()):
        return None
    try:
        return [k_sweep.supported_share(score_offline(
            k_sweep.cut(case, k), ("faithfulness",), judge, calibration).results.get(
                "faithfulness")) for k in ks]
    except JevalError:
        return None


def is_stale(report: Report, now: Packed) -> bool:
    """Whether a hosted result was scored from another case or other evaluators than `now`."""
    return (report.packed.state != now.state
            or [e.name for e in report.packed.selected] != [e.name for e in now.selected])

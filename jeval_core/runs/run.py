"""A dataset run: score every row, keep each finished row in the store as it lands, summarise.

The CLI's `jeval run` and the Dataset page both call `run_dataset`. Every finished case is
written before the next slice starts, so a run stopped by Ctrl+C, a crash or a storm of 429s
is continued by `resume=` without rescoring or losing a finished row; the summary is computed
from the stored rows and the new ones alike.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from .. import evaluators as registry
from ..analysis.aggregate import Summary, summarise
from ..analysis.labels import Labels
from ..errors import JevalError, StoreFull, StoreUnavailable
from ..evaluators import Evaluator
from ..inputs import bundled, evaluator_files
from ..inputs.casefile import CaseFile
from ..inputs.datasets import Dataset
from ..judges import is_hosted
from ..judges.base import Answers, ForwardingJudge, Judge
from ..request import Packed
from ..results import Result
from ..scoring import Report
from ..text import one_line
from .batch import Outcome, score_many
from .records import RunSummary, StoredReport
from .store import Store

SLICE = 64  # cases scored between two checks for "cancel"; each lands in the store at once


@dataclass(frozen=True)
class StoredOutcome:
    """A finished case as a run keeps it: what the summary reads, nothing more."""

    index: int
    report: StoredReport | None
    error: str | None = None


@dataclass(frozen=True)
class Progress:
    """How far a run is: for progress bars."""

    done: int  # cases with an outcome, including those finished before a resume
    total: int
    failed: int  # cases that did not pass
    errored: int  # cases the judge could not answer
    last: Outcome | None = None  # the case that just landed


@dataclass
class RunOutcome:
    """What a run left: its stored summary, the aggregates, and each case's outcome."""

    run: RunSummary
    summary: Summary
    outcomes: dict[int, StoredOutcome] = field(default_factory=dict)
    judge_errors: int = 0  # cases the judge could not answer (worth a resume)
    retried: int = 0  # cases a resume scored again because they had no report


PER_CASE = "per case"  # the evaluators of a run where each row runs its own
# A server judge's settings that say how fast or how long it asks, not what: a resume may
# give them anew (more in flight, a longer deadline for a slow model).
PACING = ("concurrency", "case_deadline")


def open_run(dataset: Dataset, judge: Judge, store: Store, *,
             chosen: Sequence[Evaluator] | None = None,
             thresholds: Mapping[str, float] | None = None, name: str | None = None,
             seeded: bool = False) -> str:
    """Record a run before its first case and return its id: `run_dataset(..., resume=id)`
    then scores it, and the id is known even if that pass is interrupted."""
    return store.start_run(
        name=name or f"{dataset.name} · {judge.name}", dataset=dataset.name,
        dataset_hash=dataset.sha256, judge=judge.name, model=judge.model,
        evaluators=[e.name for e in chosen] if chosen is not None else [PER_CASE],
        thresholds=dict(thresholds or {}), cases=len(dataset.rows), seeded=seeded,
        base_url=judge.base_url, calibration=judge.calibration,
        definitions=evaluator_files.definitions(chosen or ()), judge_settings=judge.settings)


def stored_settings(run: RunSummary) -> tuple[tuple[Evaluator, ...] | None, dict[str, float]]:
    """The evaluators (None: each row's own) and thresholds a stored run was started with; a
    custom evaluator is rebuilt from the definition the run recorded."""
    if run.evaluators == [PER_CASE]:
        return None, dict(run.thresholds)
    custom = evaluator_files.evaluators(
        evaluator_files.from_data(run.definitions, f"run {run.id[:8]}"))
    return tuple(registry.resolve(list(run.evaluators), custom=custom)), dict(run.thresholds)


def check_resumable(run: RunSummary, judge: Judge,
                    chosen: Sequence[Evaluator] | None,
                    thresholds: Mapping[str, float] | None) -> None:
    """A resume asks what the run's first part asked: its judge, model, server, evaluators
    and thresholds. Anything else is refused, naming the stored value."""
    short = run.id[:8]
    if run.damaged:
        raise JevalError(f"run {short} is damaged in the run store ({run.damaged}): it cannot "
                         "be resumed; start a new run")
    if judge.name != run.judge:
        raise JevalError(f"run {short} is scored by the {run.judge} judge, not {judge.name}: "
                         f"resume it with --judge {run.judge} (or leave --judge out)")
    if is_hosted(run.judge) and (judge.model or None) != (run.model or None):
        raise JevalError(f"run {short} is scored by the model {one_line(run.model, 60)}, not "
                         f"{one_line(judge.model, 60)}: resume it with that model (or leave "
                         "--model out)")
    if run.base_url and judge.base_url != run.base_url:
        raise JevalError(f"run {short} is scored by {one_line(run.base_url, 100)}, not "
                         f"{one_line(judge.base_url, 100)}: resume it against that "
                         "server (or leave --base-url out)")
    if (judge.calibration or None) != (run.calibration or None):
        stored = f"the calibration profile {run.calibration}" if run.calibration else (
            "no calibration profile")
        raise JevalError(f"run {short} is judged with {stored}: resume it with that (or leave "
                         "--calibration out)")
    now = judge.settings
    for setting, value in run.judge_settings.items():  # runs before migration 5 kept none
        if setting not in PACING and now.get(setting) != value:
            raise JevalError(f"run {short} was asked with {setting} {one_line(str(value), 40)}"
                             f", not {one_line(str(now.get(setting)), 40)}: resume it the "
                             "same way (leave the flag that sets it out)")
    stored_chosen, stored_thresholds = stored_settings(run)
    if chosen is not None and (stored_chosen is None or [e.name for e in chosen]
                               != [e.name for e in stored_chosen]):
        names = "each row's own" if stored_chosen is None else ",".join(
            e.name for e in stored_chosen)
        raise JevalError(f"run {short} runs the evaluators {names}: resume it with those "
                         "(or leave --evaluators out)")
    for given in chosen or ():
        kept = next((e for e in stored_chosen or () if e.name == given.name), None)
        if given.custom and kept is not None and kept.definition != given.definition:
            raise JevalError(f"run {short} asked another question for {given.name} (the "
                             "run keeps the definition it started with): resume it without "
                             "--evaluators-file, or start a new run")
    if thresholds and dict(thresholds) != stored_thresholds:
        shown = ", ".join(f"{n}={v:g}" for n, v in stored_thresholds.items()) or "the defaults"
        raise JevalError(f"run {short} uses the thresholds {shown}: resume it with those (or "
                         "leave --threshold out)")


class _StoreGone(BaseException):
    """The store stopped answering mid-run: stop scoring (nothing more could be kept)."""


class _Stopping(ForwardingJudge):
    """A judge that stops the run once the store has gone away (no case is scored that could
    not be kept)."""

    def __init__(self, inner: Judge, gone: threading.Event) -> None:
        super().__init__(inner)
        self.gone = gone

    def answer(self, packed: Packed) -> Answers:
        if self.gone.is_set():
            raise _StoreGone
        return self.inner.answer(packed)


def run_dataset(
    dataset: Dataset,
    judge: Judge,
    store: Store,
    *,
    chosen: Sequence[Evaluator] | None = None,
    thresholds: Mapping[str, float] | None = None,
    name: str | None = None,
    resume: str | None = None,
    concurrency: int = 8,
    seeded: bool = False,
    on_progress: Callable[[Progress], None] | None = None,
    cancel: threading.Event | None = None,
) -> RunOutcome:
    """Score `dataset` with `judge` into `store`; continue run `resume` if given.

    `chosen` None: each row's own evaluators (or the defaults for its case). Thresholds given
    here win over a row's own. A resume takes the run's own evaluators and thresholds (any
    given must match them, as must the judge), keeps every finished case and scores again
    those that have no report. A KeyboardInterrupt or `cancel` ends the run as "cancelled"
    with every finished case kept. A store that stops answering raises StoreUnavailable
    (exit 3), one that is full StoreFull (exit 2): what landed is kept, and a resume
    continues.
    """
    if not dataset.rows:
        raise JevalError(f"{dataset.name} has no case that could be read: nothing to run")
    chosen = None if chosen is None else registry.resolve(list(chosen))
    thresholds = dict(thresholds or {})
    outcomes: dict[int, StoredOutcome] = {}
    labelled: dict[int, Labels] = {}  # the stored labels of the cases scored again
    retried = 0
    if resume:
        previous = store.run(resume)
        if previous.dataset_hash != dataset.sha256:
            raise JevalError(f"run {resume[:8]} scored another version of {previous.dataset}: "
                             "resume it with the same file, or start a new run")
        check_resumable(previous, judge, chosen, thresholds)
        chosen, thresholds = stored_settings(previous)
        run_id = resume
        for row in store.cases(run_id):
            if row.index >= len(dataset.rows):
                continue
            if row.report is None:  # the judge could not answer it: ask again, keeping the
                retried += 1        # labels a person gave it in the store over the file's
                labelled[row.index] = Labels.from_extra(
                    row.data, len(dataset.rows[row.index].case.context))
            else:
                outcomes[row.index] = StoredOutcome(row.index, row.report, row.error)
        if previous.status == "finished" and len(outcomes) == len(dataset.rows):
            # Nothing to do: the run stays as it ended (its end time included).
            return RunOutcome(previous, summarise(dataset.rows, outcomes.values()), outcomes)
        store.reopen(run_id)
    else:
        run_id = open_run(dataset, judge, store, chosen=chosen, thresholds=thresholds,
                          name=name, seeded=seeded)
    todo = [i for i in range(len(dataset.rows)) if i not in outcomes]
    counts = {"failed": sum(1 for o in outcomes.values() if o.report and not o.report.passed),
              "errored": sum(1 for o in outcomes.values() if o.report is None)}
    judge_errors = 0
    lock = threading.Lock()
    gone = threading.Event()
    lost: list[JevalError] = []
    asking = _Stopping(judge, gone)

    def landed(outcome: Outcome) -> None:
        nonlocal judge_errors
        row = dataset.rows[outcome.index]
        report = outcome.report
        if gone.is_set():
            raise _StoreGone
        try:
            kept = labelled.get(outcome.index)
            store.add_case(
                run_id, outcome.index, case_id=row.id,
                case=row.to_dict() if kept is None else kept.to_extra(row.to_dict()),
                report=report.to_dict() if isinstance(report, Report) else None,
                error=outcome.error, passed=None if report is None else report.passed,
                scores={} if report is None else {n: r.score for n, r in report.results.items()},
                input_tokens=0 if report is None else report.usage.input_tokens,
                cost_usd=0.0 if report is None else report.cost_usd)
        except (StoreUnavailable, StoreFull) as err:  # nothing more could be kept
            lost.append(err)
            gone.set()
            raise _StoreGone from None
        with lock:
            # Only what the summary reads stays in memory (not the request, not the case):
            # a long run's memory stays flat.
            outcomes[outcome.index] = StoredOutcome(
                outcome.index, None if report is None else StoredReport(
                    {n: _slim(r) for n, r in report.results.items()}, report.usage,
                    report.cost_usd), outcome.error)
            if report is None:
                counts["errored"] += 1
                judge_errors += outcome.judge_error
            elif report.passed is not True:
                counts["failed"] += 1
            if on_progress is not None:
                on_progress(Progress(len(outcomes), len(dataset.rows), counts["failed"],
                                     counts["errored"], outcome))

    status = "finished"
    try:
        if on_progress is not None:
            on_progress(Progress(len(outcomes), len(dataset.rows), counts["failed"],
                                 counts["errored"]))
        for start in range(0, len(todo), SLICE):
            if cancel is not None and cancel.is_set():
                status = "cancelled"
                break
            part = todo[start:start + SLICE]
            cases = [dataset.rows[i].case for i in part]

            def done(o: Outcome, part: list[int] = part) -> None:
                landed(_at(o, part[o.index]))

            score_many(cases, chosen, asking, thresholds=thresholds, concurrency=concurrency,
                       on_done=done,
                       each=None if chosen is not None
                       else [dataset.rows[i].casefile.chosen() for i in part],
                       each_thresholds=[{**dataset.rows[i].casefile.thresholds, **thresholds}
                                        for i in part])
    except _StoreGone:
        _finish_quietly(store, run_id, dataset, outcomes, "failed")
        raise lost[0] if lost else StoreUnavailable("the run store stopped answering") from None
    except KeyboardInterrupt:
        _finish_quietly(store, run_id, dataset, outcomes, "cancelled")
        raise
    except BaseException:
        _finish_quietly(store, run_id, dataset, outcomes, "failed")
        raise
    summary = _finish(store, run_id, dataset, outcomes, status)
    return RunOutcome(store.run(run_id), summary, outcomes, judge_errors, retried)


def _slim(result: Result) -> Result:
    """The result without what the summary never reads (question texts, evidence): those
    are in the store."""
    return replace(result, details=tuple(replace(d, question="", evidence=())
                                         for d in result.details))


def _at(outcome: Outcome, index: int) -> Outcome:
    """The outcome re-indexed from its slice to its row in the dataset."""
    return Outcome(index, outcome.report, outcome.error, outcome.internal, outcome.judge_error)


def _finish_quietly(store: Store, run_id: str, dataset: Dataset,
                    outcomes: Mapping[int, StoredOutcome], status: str) -> None:
    """Record how a stopped run ended, if the store still answers: the reason it stopped
    is what the caller must hear, not a second error (the run stays resumable either way)."""
    with contextlib.suppress(JevalError):
        _finish(store, run_id, dataset, outcomes, status)


def _finish(store: Store, run_id: str, dataset: Dataset,
            outcomes: Mapping[int, StoredOutcome],
            status: str) -> Summary:
    summary = summarise(dataset.rows, outcomes.values())
    store.finish_run(run_id, status=status, aggregates=summary,
                     input_tokens=summary.input_tokens, cost_usd=summary.cost_usd)
    return summary


SAMPLE = bundled.path("datasets", "sample.jsonl")
# The example runs a new history starts with: scored once by `python bench/example_runs.py`
# (which says the judge and the commit in the file) and loaded from here, never rescored.
# Gzipped: every question, p and evidence of 180 cases is ~1.1 MB of JSON, ~0.12 MB so.
EXAMPLES = bundled.path("runs", "examples.json.gz")
ANSWER_QUALITY = ("faithfulness", "answer_relevancy", "hallucination", "toxicity")
RETRIEVAL = ("chunk_relevance", "contextual_precision")
# (name, judge, evaluators, thresholds) of each example run, as bench/example_runs.py scores it.
SEEDS: tuple[tuple[str, str, tuple[str, ...], dict[str, float]], ...] = (
    ("Example · answer quality · devx-ai scorer", "devx", ANSWER_QUALITY, {}),
    ("Example · answer quality · lexical judge", "lexical", ANSWER_QUALITY, {}),
    ("Example · answer quality · local judge", "local", ANSWER_QUALITY, {}),
    # contextual precision needs `expected`: the cases without one are incomplete
    ("Example · retrieval · local judge", "local", RETRIEVAL, {}),
)
_seeding = threading.Lock()


def export_runs(store: Store, run_ids: Sequence[str]) -> list[dict[str, Any]]:
    """Ended runs as the examples' fixture keeps them: every field and every case, so that
    `Store.import_run` brings each back as it was."""
    out = []
    for run_id in run_ids:
        run = store.run(run_id)
        if run.started_at is None or run.damaged:
            raise JevalError(f"run {run_id[:8]} is damaged in the run store ({run.damaged}): "
                             "it cannot be exported")
        out.append({
            "name": run.name, "dataset": run.dataset, "dataset_hash": run.dataset_hash,
            "judge": run.judge, "model": run.model, "evaluators": run.evaluators,
            "thresholds": run.thresholds, "started_at": run.started_at.isoformat(),
            "finished_at": (run.finished_at or run.started_at).isoformat(),
            "status": run.status, "cases": run.cases,
            "aggregates": run.summary.to_dict(), "input_tokens": run.input_tokens,
            "cost_usd": run.cost_usd, "seeded": run.seeded, "base_url": run.base_url,
            "calibration": run.calibration, "definitions": run.definitions,
            "judge_settings": run.judge_settings,
            "rows": [{"index": c.index, "case_id": c.case_id, "case": c.data,
                      "report": None if c.report is None else c.report.to_dict(),
                      "error": c.error, "passed": c.passed, "scores": c.scores,
                      "input_tokens": c.input_tokens, "cost_usd": c.cost_usd}
                     for c in store.cases(run_id)]})
    return out


def read_examples(fixture: Path = EXAMPLES) -> dict[str, Any]:
    """The example runs' fixture as bench/example_runs.py wrote it."""
    import gzip
    import json

    return dict(json.loads(gzip.decompress(fixture.read_bytes()).decode("utf-8")))


def seed(store: Store, fixture: Path = EXAMPLES) -> list[str]:
    """On an empty store, load the example runs from their fixture (scored once, by the judge
    each names; see bench/example_runs.py), so the history and the Dashboard have something
    to show at once; ids of the runs made."""
    with _seeding:
        if not store.is_empty() or not fixture.is_file():
            return []
        data = read_examples(fixture)
        return [store.import_run(run, run["rows"]) for run in data["runs"]]


PLAYGROUND = "playground"  # the dataset name of cases saved from the Playground


def save_case(store: Store, loaded: CaseFile, report: Report, name: str | None = None) -> str:
    """Keep a case scored in the Playground as a run of one case (nothing is asked again);
    the id of the run."""
    import hashlib
    import json

    from ..inputs.datasets import DatasetRow

    marks = Labels.from_extra(loaded.extra, len(loaded.case.context))
    row = DatasetRow(line=1, id="case", casefile=loaded,
                     labels=marks.chunks if any(c is not None for c in marks.chunks) else None)
    data = row.to_dict()
    digest = hashlib.sha256(json.dumps(data, sort_keys=True, ensure_ascii=False)
                            .encode("utf-8", "surrogatepass")).hexdigest()
    title = name or loaded.description or loaded.case.input
    run_id = store.start_run(
        name=one_line(title, 160) or "Playground case", dataset=PLAYGROUND, dataset_hash=digest,
        judge=report.judge, model=report.model, evaluators=list(report.results),
        thresholds=dict(report.thresholds), cases=1,
        definitions=evaluator_files.definitions(report.packed.selected))
    store.add_case(run_id, 0, case_id=row.id, case=data, report=report.to_dict(), error=None,
                   passed=report.passed,
                   scores={n: r.score for n, r in report.results.items()},
                   input_tokens=report.usage.input_tokens, cost_usd=report.cost_usd)
    summary = summarise([row], [Outcome(0, report)])
    store.finish_run(run_id, status="finished", aggregates=summary,
                     input_tokens=summary.input_tokens, cost_usd=summary.cost_usd)
    return run_id

"""Judges side by side on one dataset.

`run_judges` scores a dataset once per judge with `runs.run_dataset`, so every judge's pass is
also a stored run (on the Dashboard, resumable, with the same summary as the Dataset page);
the store costs a few writes per case, nothing next to a judge's answer. `from_outcomes` then
reads the outcomes only: per pair of judges, how often their verdicts agree question by question
(matched by evaluator and question id), the Pearson correlation of their p, and the questions
where their p are furthest apart; per judge, the chunk verdicts against human labels
(`aggregate.summarise`); and for the dataset, the retriever's ranking against the reranked one
by precision@k and by rank position (`ranking.precision_by_rank`, from the labels, so no
judge is needed for it). Two stored runs case by case are `run_diff`'s.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from itertools import combinations

from .. import evaluators as registry
from ..address import Address
from ..analysis.aggregate import KS, RankingSummary, Scoring, Summary, summarise
from ..analysis.ranking import RankPrecision, orders_of_rows, precision_by_rank
from ..errors import JevalError
from ..evaluators import Evaluator
from ..inputs.datasets import Dataset, DatasetRow
from ..judges.base import Judge
from ..results import Result, is_yes
from .run import Progress, StoredOutcome, open_run, run_dataset
from .store import Store

DISAGREEMENTS = 20  # questions kept per pair of judges, largest gap in p first


def pearson(xs: Sequence[float], ys: Sequence[float]) -> float | None:
    """Pearson's r of two equally long series; None with fewer than two points or when
    either series is constant (r is undefined then, not 0)."""
    if len(xs) != len(ys):
        raise JevalError(f"{len(xs)} values against {len(ys)}: the series must pair up")
    n = len(xs)
    if n < 2:
        return None
    mx, my = sum(xs) / n, sum(ys) / n
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True))
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    if sxx <= 0 or syy <= 0:
        return None
    return max(-1.0, min(1.0, sxy / math.sqrt(sxx * syy)))


# --- judges side by side --------------------------------------------------------------------


@dataclass(frozen=True)
class PairDisagreement:
    """One question two judges answered far apart."""

    index: int  # the row in the dataset
    case_id: str
    evaluator: str
    question_id: str
    address: Address  # what the question is about: chunk 2, a sentence of the output...
    question: str  # verbatim
    p_a: float
    p_b: float

    @property
    def gap(self) -> float:
        return abs(self.p_a - self.p_b)

    @property
    def verdicts_differ(self) -> bool:
        return is_yes(self.p_a) != is_yes(self.p_b)

@dataclass(frozen=True)
class PairAgreement:
    """How far two judges agree on the questions both answered."""

    a: str
    b: str
    questions: int  # (case, evaluator, question id) answered by both
    same: int  # of those, with the same yes/no verdict
    correlation: float | None  # Pearson r of the two judges' p over those questions
    cases: int = 0  # cases both gave a verdict on
    same_cases: int = 0  # of those, with the same pass/fail
    by_evaluator: dict[str, tuple[int, int]] = field(default_factory=dict)  # (questions, same)
    disagreements: list[PairDisagreement] = field(default_factory=list)  # largest gap first

    @property
    def rate(self) -> float | None:
        """Share of questions with the same verdict."""
        return self.same / self.questions if self.questions else None

    @property
    def case_rate(self) -> float | None:
        """Share of cases with the same overall pass/fail."""
        return self.same_cases / self.cases if self.cases else None

@dataclass(frozen=True)
class JudgeRun:
    """One judge's pass over the dataset: its stored run and its summary (chunk verdicts
    against the labels are `summary.chunks`)."""

    judge: str
    summary: Summary
    run_id: str | None = None
    status: str = "finished"
    first_error: str | None = None  # why the first case it could not answer was not scored

@dataclass(frozen=True)
class Comparison:
    """A dataset scored by several judges, side by side."""

    dataset: str
    judges: list[JudgeRun]
    pairs: list[PairAgreement]
    ranking: RankingSummary | None  # retriever vs reranked precision@k, from the labels
    by_rank: list[RankPrecision] = field(default_factory=list)
    cancelled: bool = False  # stopped early: the numbers cover the cases that finished

def _answers(result: Result) -> dict[str, tuple[float, Address, str]]:
    """A result's questions by id: (p, what it judged, the question verbatim)."""
    return {d.id: (d.p, d.address, d.question) for d in result.details}


def pair_agreement(rows: Sequence[DatasetRow], a: str, outcomes_a: Mapping[int, Scoring],
                   b: str, outcomes_b: Mapping[int, Scoring],
                   keep: int = DISAGREEMENTS) -> PairAgreement:
    """Two judges' answers matched case by case, evaluator by evaluator, question by
    question id; questions only one judge answered (a skipped evaluator, an errored case)
    are left out of every number."""
    pa: list[float] = []
    pb: list[float] = []
    same = cases = same_cases = 0
    by_evaluator: dict[str, list[int]] = {}
    found: list[PairDisagreement] = []
    for index in sorted(set(outcomes_a) & set(outcomes_b)):
        ra, rb = outcomes_a[index].report, outcomes_b[index].report
        if ra is None or rb is None or index >= len(rows):
            continue
        if ra.passed is not None and rb.passed is not None:
            cases += 1
            same_cases += ra.passed == rb.passed
        for name in ra.results.keys() & rb.results.keys():
            first, second = ra.results[name], rb.results[name]
            if first.skipped or second.skipped:
                continue
            theirs = _answers(second)
            for qid, (p, judged, question) in _answers(first).items():
                if qid not in theirs:
                    continue
                q = theirs[qid][0]
                pa.append(p)
                pb.append(q)
                agree = is_yes(p) == is_yes(q)
                same += agree
                tally = by_evaluator.setdefault(name, [0, 0])
                tally[0] += 1
                tally[1] += agree
                found.append(PairDisagreement(index, rows[index].id, name, qid, judged,
                                              question, p, q))
    found.sort(key=lambda d: (-d.gap, d.index, d.evaluator, d.question_id))
    return PairAgreement(a, b, len(pa), same, pearson(pa, pb), cases, same_cases,
                     {name: (q, s) for name, (q, s) in sorted(by_evaluator.items())},
                     [d for d in found[:keep] if d.gap > 0])


def _first_error(outcomes: Mapping[int, Scoring]) -> str | None:
    for index in sorted(outcomes):
        found = outcomes[index]
        if found.report is None:
            return getattr(found, "error", None) or "not scored"
    return None


def from_outcomes(dataset: Dataset, outcomes: Mapping[str, Mapping[int, Scoring]],
                  runs: Mapping[str, tuple[str | None, str]] | None = None,
                  cancelled: bool = False, keep: int = DISAGREEMENTS) -> Comparison:
    """Judges side by side from their outcomes (by judge name, then row index). `runs` gives
    each judge's (stored run id, status) when the outcomes came from a run."""
    if len(outcomes) < 2:
        raise JevalError("comparing judges needs at least two of them")
    runs = runs or {}
    judged = [JudgeRun(name, summarise(dataset.rows, list(found.values())),
                       *runs.get(name, (None, "finished")), _first_error(found))
              for name, found in outcomes.items()]
    pairs = [pair_agreement(dataset.rows, a, outcomes[a], b, outcomes[b], keep)
             for a, b in combinations(outcomes, 2)]
    orders = orders_of_rows(dataset.rows)
    return Comparison(dataset.name, judged, pairs, summarise(dataset.rows, []).ranking,
                      precision_by_rank(orders), cancelled)


def run_judges(
    dataset: Dataset,
    judges: Sequence[Judge],
    store: Store,
    *,
    chosen: Sequence[Evaluator] | None = None,
    thresholds: Mapping[str, float] | None = None,
    concurrency: int = 8,
    on_progress: Callable[[str, Progress], None] | None = None,
    cancel: threading.Event | None = None,
    keep: int = DISAGREEMENTS,
) -> Comparison:
    """Score `dataset` with each judge in turn (each pass a stored run named after the
    comparison), then compare them (`from_outcomes`). Judge names must differ.

    Once `cancel` is set the comparison stops and covers the cases that finished. A judge may
    stop its pass at once by raising KeyboardInterrupt when `cancel` is set (`run_dataset`
    itself looks at `cancel` only between slices of cases); a KeyboardInterrupt without
    `cancel` set is a real Ctrl+C and goes on up.
    """
    names = [j.name for j in judges]
    if len(names) < 2:
        raise JevalError("comparing judges needs at least two of them")
    if len(set(names)) != len(names):
        raise JevalError(f"each judge can be compared once: {', '.join(names)}")
    chosen = None if chosen is None else registry.resolve(list(chosen))
    label = " vs ".join(names)
    outcomes: dict[str, Mapping[int, Scoring]] = {}
    runs: dict[str, tuple[str | None, str]] = {}
    stopped = False
    for judge in judges:
        if cancel is not None and cancel.is_set():
            stopped = True
            break
        run_id = open_run(dataset, judge, store, chosen=chosen, thresholds=thresholds,
                          name=f"Compare · {label} · {judge.name}")

        def progress(p: Progress, name: str = judge.name) -> None:
            if on_progress is not None:
                on_progress(name, p)

        try:
            done = run_dataset(dataset, judge, store, chosen=chosen, thresholds=thresholds,
                               resume=run_id, concurrency=concurrency, on_progress=progress,
                               cancel=cancel)
        except KeyboardInterrupt:
            if cancel is None or not cancel.is_set():
                raise
            stopped = True
            outcomes[judge.name] = {row.index: StoredOutcome(row.index, row.report, row.error)
                                    for row in store.cases(run_id)}
            runs[judge.name] = (run_id, "cancelled")
            break
        outcomes[judge.name] = dict(done.outcomes)
        runs[judge.name] = (run_id, done.run.status)
        stopped = stopped or done.run.status == "cancelled"
    for judge in judges:  # judges that never ran still get a column, with nothing in it
        outcomes.setdefault(judge.name, {})
        runs.setdefault(judge.name, (None, "not run"))
    found = from_outcomes(dataset, outcomes, runs, cancelled=stopped, keep=keep)
    return _with_questions(found, store)


def _with_questions(found: Comparison, store: Store) -> Comparison:
    """Fill in the verbatim questions of the disagreements kept: a run keeps only what its
    summary reads in memory, the question texts stay in the store."""
    runs = {j.judge: j.run_id for j in found.judges}
    wanted: dict[str, set[int]] = {}
    for pair in found.pairs:
        for d in pair.disagreements:
            if not d.question and runs.get(pair.a):
                wanted.setdefault(pair.a, set()).add(d.index)
    texts: dict[tuple[str, int, str, str], str] = {}
    for judge, indices in wanted.items():
        run_id = runs[judge]
        if run_id is None:
            continue
        for row in store.cases(run_id):
            if row.index not in indices:
                continue
            for name, result in row.results.items():
                for detail in result.details:
                    texts[(judge, row.index, name, detail.id)] = detail.question
    pairs = [replace(pair, disagreements=[
        d if d.question else replace(d, question=texts.get(
            (pair.a, d.index, d.evaluator, d.question_id), ""))
        for d in pair.disagreements]) for pair in found.pairs]
    return replace(found, pairs=pairs)


__all__ = ["DISAGREEMENTS", "KS", "Comparison", "JudgeRun", "PairAgreement", "PairDisagreement",
           "from_outcomes", "pair_agreement", "pearson", "run_judges"]

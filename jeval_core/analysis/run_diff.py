"""Two stored runs compared case by case: which cases flipped between pass and fail, and the
reasons each side gave (the Dashboard's "Run A against run B", `jeval diff`); per metric, the
mean score and pass rate on the cases both scored and which way each moved (a retriever that
keeps fewer chunks can fail no case overall yet lose grounding); per case, the chunks one
run retrieved and the other did not, relevant or noise by each run's own verdicts."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .. import verdicts
from ..results import Result
from ..runs.records import CaseRow


@dataclass(frozen=True)
class Flip:
    """A case whose overall verdict changed between two runs, with each side's reasons."""

    case_id: str
    input: str
    before: bool | None  # run A's verdict (None: not scored there)
    after: bool | None
    why_before: str
    why_after: str

@dataclass(frozen=True)
class RunDiff:
    """Run A against run B, matched by case id."""

    matched: int  # cases in both runs
    same: int  # of those, with the same verdict
    flips: list[Flip]  # the others, pass -> fail first
    only_a: int = 0
    only_b: int = 0

    @property
    def to_fail(self) -> int:
        return sum(1 for f in self.flips if f.before is True and f.after is False)

    @property
    def to_pass(self) -> int:
        return sum(1 for f in self.flips if f.before is False and f.after is True)

def _verdict_line(name: str, result: Result) -> str:
    verdict = verdicts.of_result(result)
    if result.skipped:
        return f"{name} {verdict}: {result.reason}".strip()
    return f"{name} {result.score:.2f} {verdict}: {result.reason}".strip()


def _why(mine: CaseRow, other: CaseRow | None) -> str:
    """The reasons that explain a verdict: evaluators whose verdict differs from the other
    run's, else the failing ones, else every one; an error when the case was not scored."""
    if mine.report is None:
        return f"not scored: {mine.error or 'no result'}"
    results = mine.results
    theirs = other.results if other is not None else {}
    changed = [n for n, r in results.items() if n in theirs and r.passed != theirs[n].passed]
    failing = [n for n, r in results.items() if r.passed is False]
    names = changed or failing or list(results)
    return " · ".join(_verdict_line(n, results[n]) for n in names)


def diff_runs(a: Sequence[CaseRow], b: Sequence[CaseRow]) -> RunDiff:
    """Which cases flipped between run A and run B (matched by case id), and why."""
    first = {row.case_id: row for row in a}
    second = {row.case_id: row for row in b}
    both = [cid for cid in first if cid in second]
    flips = []
    for cid in both:
        x, y = first[cid], second[cid]
        if x.passed == y.passed:
            continue
        flips.append(Flip(cid, x.case.input, x.passed, y.passed,
                          _why(x, y), _why(y, x)))
    order: dict[tuple[bool | None, bool | None], int] = {(True, False): 0, (False, True): 1}
    flips.sort(key=lambda f: order.get((f.before, f.after), 2))  # stable: dataset order kept
    return RunDiff(len(both), len(both) - len(flips), flips,
                   only_a=sum(1 for cid in first if cid not in second),
                   only_b=sum(1 for cid in second if cid not in first))


@dataclass(frozen=True)
class MetricDelta:
    """One evaluator on the cases both runs scored with it."""

    name: str
    cases: int
    mean_a: float
    mean_b: float
    pass_a: float  # pass rate, over the cases with a verdict
    pass_b: float
    to_fail: int  # cases this metric passed in A and fails in B
    to_pass: int
    higher_is_better: bool
    mean_interval: tuple[float, float] = (0.0, 0.0)  # 95% bootstrap of mean B - mean A
    pass_interval: tuple[float, float] = (0.0, 0.0)  # the same for the pass rate

    @property
    def worse(self) -> bool:
        """B reads worse than A: its pass rate fell, or its mean moved the wrong way."""
        moved = self.mean_b - self.mean_a
        return self.pass_b < self.pass_a - 1e-9 or (
            (moved < -1e-9) if self.higher_is_better else (moved > 1e-9))


def metric_deltas(a: Sequence[CaseRow], b: Sequence[CaseRow]) -> list[MetricDelta]:
    """Per evaluator both runs have, on the cases both scored with it (matched by case id)."""
    second = {row.case_id: row for row in b}
    pairs: dict[str, list[tuple[Result, Result]]] = {}
    for x in a:
        y = second.get(x.case_id)
        if x.report is None or y is None or y.report is None:
            continue
        for name, mine in x.results.items():
            theirs = y.results.get(name)
            if theirs is None or mine.skipped or theirs.skipped \
                    or mine.score is None or theirs.score is None:
                continue
            pairs.setdefault(name, []).append((mine, theirs))
    out = []
    for name, both in pairs.items():
        decided = [(m, t) for m, t in both if m.passed is not None and t.passed is not None]
        scores_a = np.array([float(m.score or 0.0) for m, _ in both])
        scores_b = np.array([float(t.score or 0.0) for _, t in both])
        flipped = np.array([float(bool(t.passed)) - float(bool(m.passed)) for m, t in decided])
        out.append(MetricDelta(
            name, len(both), float(scores_a.mean()), float(scores_b.mean()),
            sum(bool(m.passed) for m, _ in decided) / len(decided) if decided else 0.0,
            sum(bool(t.passed) for _, t in decided) / len(decided) if decided else 0.0,
            sum(1 for m, t in decided if m.passed and not t.passed),
            sum(1 for m, t in decided if not m.passed and t.passed),
            both[0][0].higher_is_better, _interval(scores_b - scores_a), _interval(flipped)))
    return out


def _interval(paired: np.ndarray, resamples: int = 1000, seed: int = 0) -> tuple[float, float]:
    """95% bootstrap interval of the mean of per-case differences (cases resampled)."""
    if not len(paired):
        return (0.0, 0.0)
    picks = np.random.default_rng(seed).integers(0, len(paired), (resamples, len(paired)))
    lo, hi = np.quantile(paired[picks].mean(axis=1), [0.025, 0.975])
    return (float(lo), float(hi))


@dataclass(frozen=True)
class ChunkChange:
    """One case's retrieval in A against B: chunks (matched by the pipeline's chunk id, else
    by text) only one run retrieved, each with that run's verdict (True relevant, False noise,
    None not judged)."""

    case_id: str
    only_a: tuple[tuple[str, bool | None], ...]
    only_b: tuple[tuple[str, bool | None], ...]

    @property
    def relevant_lost(self) -> int:
        return sum(1 for _, yes in self.only_a if yes)

    @property
    def noise_added(self) -> int:
        return sum(1 for _, yes in self.only_b if yes is False)


def _chunk_verdicts(row: CaseRow) -> dict[str, tuple[str, bool | None]]:
    """Per chunk, keyed by the pipeline's chunk id where it gave one, else by its text: the
    text and this run's verdict."""
    case = row.case
    keys = [(m.id if (m := case.chunk_meta(i)) is not None and m.id else f"text:{t}")
            for i, t in enumerate(case.context)]
    out: dict[str, tuple[str, bool | None]] = {
        k: (t, None) for k, t in zip(keys, case.context, strict=True) if t.strip()}
    result = row.results.get("chunk_relevance") if row.report is not None else None
    if result is not None and not result.skipped:
        for d in result.details:
            chunk = d.address.chunk
            if d.address.whole_chunk and chunk is not None and chunk < len(keys) \
                    and keys[chunk] in out:
                out[keys[chunk]] = (case.context[chunk], d.yes)
    return out


def chunk_changes(a: Sequence[CaseRow], b: Sequence[CaseRow]) -> list[ChunkChange]:
    """The cases whose retrieved chunks differ between the runs, in A's order."""
    second = {row.case_id: row for row in b}
    out = []
    for x in a:
        y = second.get(x.case_id)
        if y is None:
            continue
        mine, theirs = _chunk_verdicts(x), _chunk_verdicts(y)
        only_a = tuple(v for k, v in mine.items() if k not in theirs)
        only_b = tuple(v for k, v in theirs.items() if k not in mine)
        if only_a or only_b:
            out.append(ChunkChange(x.case_id, only_a, only_b))
    return out


__all__ = ["ChunkChange", "Flip", "MetricDelta", "RunDiff", "chunk_changes", "diff_runs",
           "metric_deltas"]

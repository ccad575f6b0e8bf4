"""Two stored runs compared case by case: which cases flipped between pass and fail, and the
reasons each side gave (the Dashboard's "Run A against run B")."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

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


__all__ = ["Flip", "RunDiff", "diff_runs"]

"""Score many cases concurrently (one request each).

The hosted judge holds its own rate limits on every attempt (`limits.RateLimiter`), so
concurrency here never turns into a storm of 429s. One failing case never stops the others,
whatever it raised: its outcome carries a one-line message instead of a report.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from ..case import Case
from ..errors import JevalError, JudgeError
from ..evaluators import Evaluator
from ..judges import Judge
from ..scoring import Report, score
from ..text import one_line


@dataclass(frozen=True)
class Outcome:
    """One case's fate in a batch: a report, or the one-line reason it has none."""

    index: int
    report: Report | None
    error: str | None = None
    internal: bool = False  # the error was a bug, not bad input or an unreachable judge
    judge_error: bool = False  # the judge could not answer (a resume may succeed)


def score_many(
    cases: Sequence[Case],
    chosen: Sequence[Evaluator] | None,
    judge: Judge,
    *,
    thresholds: Mapping[str, float] | None = None,
    concurrency: int = 8,
    on_done: Callable[[Outcome], None] | None = None,
    each: Sequence[Sequence[Evaluator] | None] | None = None,
    each_thresholds: Sequence[Mapping[str, float]] | None = None,
) -> list[Outcome]:
    """Score every case, `concurrency` at a time; outcomes in input order. `each` and
    `each_thresholds`, when given, are per case and take the place of `chosen` and
    `thresholds` (a dataset's rows may each name their own)."""

    def one(index: int) -> Outcome:
        mine = chosen if each is None else each[index]
        limits = thresholds if each_thresholds is None else each_thresholds[index]
        try:
            outcome = Outcome(index, score(cases[index], mine, judge, limits))
        except JudgeError as err:
            outcome = Outcome(index, None, str(err), judge_error=True)
        except JevalError as err:
            outcome = Outcome(index, None, str(err))
        except Exception as err:  # a bug on one case must not throw away the others' results
            outcome = Outcome(index, None, f"internal error ({type(err).__name__}: "
                              f"{one_line(err, 200)}); please report it", internal=True)
        if on_done is not None:
            on_done(outcome)
        return outcome

    if cases:
        judge.warm_up()  # models load once, here, not once per worker as the cases start
    with ThreadPoolExecutor(max_workers=max(1, concurrency)) as pool:
        return list(pool.map(one, range(len(cases))))

"""Score many cases concurrently, under the hosted judge's rate limits (seed 000).

Jev allows 1,200 requests per minute and 250,000 input tokens per second. The limiter keeps
a batch inside both on the client side, so a dataset run does not turn into a storm of 429s.
One failing case never stops the others: its outcome carries the one-line message instead.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from .case import Case
from .errors import JevalError
from .judges import Judge
from .request import DEFAULT_MODEL, default_evaluators, pack
from .scoring import Report, score

REQUESTS_PER_MINUTE = 1_200
TOKENS_PER_SECOND = 250_000


class RateLimiter:
    """Two token buckets, each holding one second's worth: requests and input tokens."""

    def __init__(
        self,
        requests_per_minute: float = REQUESTS_PER_MINUTE,
        tokens_per_second: float = TOKENS_PER_SECOND,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if requests_per_minute <= 0 or tokens_per_second <= 0:
            raise JevalError("rate limits must be positive numbers")
        self._rate = (requests_per_minute / 60.0, float(tokens_per_second))
        self._capacity = (max(1.0, self._rate[0]), self._rate[1])
        self._level = list(self._capacity)
        self._clock, self._sleep = clock, sleep
        self._last = clock()
        self._lock = threading.Lock()

    def acquire(self, tokens: int) -> float:
        """Block until one request of `tokens` input tokens may go; returns seconds waited."""
        want = (1.0, float(min(max(tokens, 0), self._capacity[1])))
        waited = 0.0
        while True:
            with self._lock:
                now = self._clock()
                elapsed, self._last = now - self._last, now
                for i in (0, 1):
                    self._level[i] = min(self._capacity[i],
                                         self._level[i] + elapsed * self._rate[i])
                short = [(want[i] - self._level[i]) / self._rate[i] for i in (0, 1)]
                delay = max(short)
                if delay <= 0:
                    self._level = [self._level[i] - want[i] for i in (0, 1)]
                    return waited
            self._sleep(delay)
            waited += delay


@dataclass(frozen=True)
class Outcome:
    """One case's fate in a batch: a report, or the one-line reason it has none."""

    index: int
    report: Report | None
    error: str | None = None


def score_many(
    cases: Sequence[Case],
    names: Sequence[str] | None,
    judge: Judge,
    *,
    concurrency: int = 8,
    limiter: RateLimiter | None = None,
    model: str = DEFAULT_MODEL,
    on_done: Callable[[Outcome], None] | None = None,
) -> list[Outcome]:
    """Score every case (one request each), `concurrency` at a time; outcomes in input order."""
    limiter = limiter or RateLimiter()

    def one(index: int) -> Outcome:
        case = cases[index]
        try:
            chosen = list(names) if names else default_evaluators(case)
            if getattr(judge, "approximates", True) is False:  # only the hosted judge is billed
                tokens = pack(case, chosen, getattr(judge, "model", model)).tokens.total
                limiter.acquire(tokens)
            outcome = Outcome(index, score(case, chosen, judge, model))
        except JevalError as err:
            outcome = Outcome(index, None, str(err))
        if on_done is not None:
            on_done(outcome)
        return outcome

    with ThreadPoolExecutor(max_workers=max(1, concurrency)) as pool:
        return list(pool.map(one, range(len(cases))))

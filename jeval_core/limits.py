"""The hosted judge's rate limits, held on the client side (seed 000).

Jev allows 1,200 requests per minute and 250,000 input tokens per second. The limiter keeps
a log of what it let through and grants a request only when it fits in EVERY window: no
60-second window holds more than the request limit, no 1-second window more than the token
limit. Every attempt asks it, retries included.
"""

from __future__ import annotations

import math
import threading
import time
from collections import deque
from collections.abc import Callable

REQUESTS_PER_MINUTE = 1_200
TOKENS_PER_SECOND = 250_000


class RateLimiter:
    """Sliding-window limits on requests per minute and input tokens per second."""

    def __init__(
        self,
        requests_per_minute: float = REQUESTS_PER_MINUTE,
        tokens_per_second: float = TOKENS_PER_SECOND,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        for what, value in (("requests_per_minute", requests_per_minute),
                            ("tokens_per_second", tokens_per_second)):
            if (isinstance(value, bool) or not isinstance(value, (int, float))
                    or not math.isfinite(value) or value < 1):
                raise ValueError(f"{what} must be a finite number >= 1, not {value!r}")
        self.requests_per_minute = int(requests_per_minute)
        self.tokens_per_second = int(tokens_per_second)
        self._clock, self._sleep = clock, sleep
        self._requests: deque[float] = deque()  # grant times, last 60 s
        self._tokens: deque[tuple[float, int]] = deque()  # (grant time, tokens), last 1 s
        self._tokens_in_window = 0
        self._lock = threading.Lock()

    def _delay(self, now: float, tokens: int) -> float:
        """Seconds until a request of `tokens` fits both windows (0: it fits now)."""
        while self._requests and self._requests[0] <= now - 60.0:
            self._requests.popleft()
        while self._tokens and self._tokens[0][0] <= now - 1.0:
            self._tokens_in_window -= self._tokens.popleft()[1]
        delay = 0.0
        if len(self._requests) >= self.requests_per_minute:
            delay = self._requests[len(self._requests) - self.requests_per_minute] + 60.0 - now
        excess = self._tokens_in_window + tokens - self.tokens_per_second
        if excess > 0:
            freed = 0
            for at, n in self._tokens:  # wait until enough old grants leave the window
                freed += n
                if freed >= excess:
                    delay = max(delay, at + 1.0 - now)
                    break
        return max(delay, 0.0)

    def acquire(self, tokens: int, timeout: float | None = None) -> float | None:
        """Block until a request of `tokens` may go; the seconds waited, or None when it
        could not go within `timeout` seconds (nothing is granted then)."""
        tokens = min(max(int(tokens), 0), self.tokens_per_second)
        waited = 0.0
        while True:
            with self._lock:
                now = self._clock()
                delay = self._delay(now, tokens)
                if delay <= 0:
                    self._requests.append(now)
                    self._tokens.append((now, tokens))
                    self._tokens_in_window += tokens
                    return waited
            if timeout is not None and waited + delay > timeout:
                return None
            step = delay + 1e-6  # a hair past the window edge, so the old grant has left
            self._sleep(step)
            waited += step

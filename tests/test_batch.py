"""Batch scoring: concurrency, order, per-case errors, and the client-side rate limiter."""

from conftest import load_case
from jevcompat.mock import MockConfig, Running

from jeval_core import Case
from jeval_core.batch import RateLimiter, score_many
from jeval_core.judges.jev import JevJudge, RetryPolicy
from jeval_core.judges.lexical import LexicalJudge


class FakeClock:
    """Time that moves only when the limiter sleeps."""

    def __init__(self) -> None:
        self.now = 0.0
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


def test_requests_beyond_the_per_minute_rate_wait():
    clock = FakeClock()
    limiter = RateLimiter(requests_per_minute=120, tokens_per_second=1e9, clock=clock,
                          sleep=clock.sleep)
    waits = [limiter.acquire(10) for _ in range(4)]
    assert waits[:2] == [0.0, 0.0]  # a burst of one second's worth (2 requests)
    assert waits[2] == 0.5 and waits[3] == 0.5  # then one every 0.5 s
    assert clock.now == 1.0


def test_tokens_beyond_the_per_second_rate_wait():
    clock = FakeClock()
    limiter = RateLimiter(requests_per_minute=1e6, tokens_per_second=1000, clock=clock,
                          sleep=clock.sleep)
    assert limiter.acquire(1000) == 0.0
    assert limiter.acquire(500) == 0.5


def test_a_batch_keeps_input_order_and_reports_bad_cases_alone():
    good = load_case("jev_pricing")
    huge = Case(good.input, good.output, None, ("word " * 40_000,))
    outcomes = score_many([good, huge, good], ["chunk_relevance"], LexicalJudge(),
                          concurrency=2)
    assert [o.index for o in outcomes] == [0, 1, 2]
    assert outcomes[0].report is not None and outcomes[2].report is not None
    assert outcomes[1].report is None and "request too large" in outcomes[1].error


def test_a_batch_against_the_peer_server_makes_one_request_per_case():
    config = MockConfig()
    cases = [load_case(n) for n in ("jev_pricing", "clean_retrieval", "noisy_retrieval",
                                    "with_expected", "toxic_answer")] * 2
    seen = []
    with Running(config) as server:
        judge = JevJudge(base_url=server.url, retry=RetryPolicy(attempts=2, base_delay=0.01))
        outcomes = score_many(cases, None, judge, concurrency=4, on_done=seen.append)
    assert config.requests == len(cases)
    assert all(o.report is not None and o.report.usage.requests == 1 for o in outcomes)
    assert sorted(o.index for o in seen) == list(range(len(cases)))


def test_the_limiter_paces_a_real_batch():
    clock = FakeClock()
    limiter = RateLimiter(requests_per_minute=60, clock=clock, sleep=clock.sleep)
    with Running(MockConfig()) as server:
        judge = JevJudge(base_url=server.url)
        score_many([load_case("jev_pricing")] * 3, ["chunk_relevance"], judge,
                   concurrency=1, limiter=limiter)
    assert clock.sleeps == [1.0, 1.0]

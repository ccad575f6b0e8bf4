"""Batch scoring (concurrency, order, per-case errors) and the client-side rate limiter."""

import math
import random
import zlib

import pytest
from conftest import load_case
from jevcompat.mock import MockConfig, Running

from jeval_core import Case, evaluators
from jeval_core.judges.jev import JevJudge, RetryPolicy
from jeval_core.judges.lexical import LexicalJudge
from jeval_core.limits import RateLimiter
from jeval_core.runs.batch import score_many

KEY = "sk-batch-test-0123456789"
CHUNK_RELEVANCE = evaluators.resolve("chunk_relevance")


class FakeClock:
    """Time that moves only when the limiter sleeps or the test advances it."""

    def __init__(self) -> None:
        self.now = 0.0
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


def limiter_on(clock: FakeClock, **limits) -> RateLimiter:
    return RateLimiter(clock=clock, sleep=clock.sleep, **limits)


def heaviest_window(grants: list[tuple[float, int]], width: float, weigh) -> int:
    """The most any window [t, t + width) holds; windows start at each grant (the worst
    window can always be slid right until it starts at one)."""
    return max(sum(weigh(tokens) for at, tokens in grants if start <= at < start + width)
               for start, _ in grants)


# --- the rate limiter ---------------------------------------------------------------------


def test_requests_beyond_the_per_minute_limit_wait_for_the_oldest_to_leave_the_minute():
    clock = FakeClock()
    limiter = limiter_on(clock, requests_per_minute=3, tokens_per_second=1e9)
    waits = [limiter.acquire(10) for _ in range(4)]
    assert waits[:3] == [0.0, 0.0, 0.0]
    assert waits[3] == pytest.approx(60.0, abs=1e-3)


def test_tokens_beyond_the_per_second_limit_wait_for_the_window_to_clear():
    clock = FakeClock()
    limiter = limiter_on(clock, requests_per_minute=1e6, tokens_per_second=1000)
    assert limiter.acquire(1000) == 0.0
    assert limiter.acquire(500) == pytest.approx(1.0, abs=1e-3)


@pytest.mark.parametrize("seed", range(6))
def test_no_window_ever_holds_more_than_the_limits(seed):
    rpm, tps = 30, 1000
    rng = random.Random(seed)
    clock = FakeClock()
    limiter = limiter_on(clock, requests_per_minute=rpm, tokens_per_second=tps)
    grants: list[tuple[float, int]] = []
    for _ in range(25):  # bursts of requests sent at once, with gaps of varied length between
        clock.now += rng.choice([0.0, 0.3, 0.999, 1.0, 2.5, 30.0, 59.9, 61.0])
        for _ in range(rng.randint(1, 40)):
            tokens = rng.choice([0, 1, 10, 250, 333, 500, 999, tps])
            assert limiter.acquire(tokens) is not None
            grants.append((clock.now, tokens))  # single-threaded: granted at this instant
    assert heaviest_window(grants, 60.0, lambda tokens: 1) == rpm  # reached, never passed
    assert heaviest_window(grants, 1.0, lambda tokens: tokens) <= tps


@pytest.mark.parametrize("setting", ["requests_per_minute", "tokens_per_second"])
@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf, 0, -1, -0.5])
def test_a_limit_that_is_not_a_finite_positive_number_is_refused(setting, value):
    with pytest.raises(ValueError, match=setting):
        RateLimiter(**{setting: value})


def test_acquire_gives_up_at_once_when_it_could_not_go_within_the_timeout():
    clock = FakeClock()
    limiter = limiter_on(clock, requests_per_minute=1)
    assert limiter.acquire(1) == 0.0
    assert limiter.acquire(1, timeout=5) is None
    assert clock.sleeps == [] and clock.now == 0.0


def test_a_request_that_timed_out_took_no_place_in_the_window():
    clock = FakeClock()
    limiter = limiter_on(clock, requests_per_minute=2)
    limiter.acquire(1)
    clock.now = 30.0
    assert limiter.acquire(1) == 0.0
    assert limiter.acquire(1, timeout=5) is None
    clock.now = 60.0  # the first grant leaves the minute; the refused one never entered it
    assert limiter.acquire(1) == 0.0
    assert limiter.acquire(1, timeout=5) is None


def test_acquire_waits_when_the_wait_fits_the_timeout():
    clock = FakeClock()
    limiter = limiter_on(clock, requests_per_minute=1)
    limiter.acquire(1)
    assert limiter.acquire(1, timeout=61) == pytest.approx(60.0, abs=1e-3)


# --- score_many ---------------------------------------------------------------------------


class ExplodesOn(LexicalJudge):
    """The lexical judge, except that it raises a non-jeval error for one input."""

    def __init__(self, trigger: str) -> None:
        super().__init__()
        self.trigger = trigger

    def answer(self, packed):
        if packed.state.get("input") == self.trigger:
            raise zlib.error("Error -3 while decompressing data: invalid block type")
        return super().answer(packed)


class AsksAServer(LexicalJudge):
    """The lexical judge's answers, for a judge whose requests go to a server (so Jev's token
    budgets hold them)."""

    base_url = "http://127.0.0.1:9"


def test_a_batch_keeps_input_order_and_reports_bad_cases_alone():
    good = load_case("jev_pricing")
    huge = Case(good.input, good.output, None, ("word " * 60_000,))
    outcomes = score_many([good, huge, good], CHUNK_RELEVANCE, AsksAServer(), concurrency=2)
    assert [o.index for o in outcomes] == [0, 1, 2]
    assert outcomes[0].report is not None and outcomes[2].report is not None
    assert outcomes[1].report is None and "request too large" in outcomes[1].error
    assert outcomes[1].internal is False


def test_a_bug_on_one_case_is_that_cases_internal_error_and_the_others_keep_their_reports():
    good = load_case("jev_pricing")
    cursed = Case("boom", good.output, None, good.context)
    outcomes = score_many([good, cursed, good, good], CHUNK_RELEVANCE, ExplodesOn("boom"),
                          concurrency=2)
    bad = outcomes[1]
    assert bad.report is None and bad.internal is True
    assert "invalid block type" in bad.error and "\n" not in bad.error
    others = [outcomes[i] for i in (0, 2, 3)]
    assert all(o.report is not None and o.error is None and not o.internal for o in others)


def test_a_batch_against_the_peer_server_makes_one_request_per_case():
    config = MockConfig()
    cases = [load_case(n) for n in ("jev_pricing", "clean_retrieval", "noisy_retrieval",
                                  "with_expected", "toxic_answer")] * 2
    seen = []
    with Running(config) as server:
        judge = JevJudge(api_key=KEY, base_url=server.url,
                         retry=RetryPolicy(attempts=2, base_delay=0.01))
        outcomes = score_many(cases, None, judge, concurrency=4, on_done=seen.append)
    assert config.requests == len(cases)
    assert all(o.report is not None and o.report.usage.requests == 1 for o in outcomes)
    assert sorted(o.index for o in seen) == list(range(len(cases)))


def test_the_judges_limiter_paces_a_real_batch():
    clock = FakeClock()
    limiter = limiter_on(clock, requests_per_minute=2)
    with Running(MockConfig()) as server:
        judge = JevJudge(api_key=KEY, base_url=server.url, limiter=limiter)
        outcomes = score_many([load_case("jev_pricing")] * 3, CHUNK_RELEVANCE, judge,
                              concurrency=1)
    assert all(o.report is not None for o in outcomes)
    assert clock.sleeps == [pytest.approx(60.0, abs=1e-3)]  # the third waits out the minute


def test_sentences_split_alike_from_many_threads():
    from concurrent.futures import ThreadPoolExecutor

    from jeval_core import sentences

    texts = [f"Case {i} says one thing. It says a second thing about item {i}! Does it end?"
             for i in range(400)]
    sentences.split.cache_clear()
    with ThreadPoolExecutor(max_workers=4) as pool:
        found = list(pool.map(sentences.split, texts))
    assert all(len(parts) == 3 and parts[0].startswith(f"Case {i} ")
               for i, parts in enumerate(found))

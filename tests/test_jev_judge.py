"""The jev judge against real servers: the jevcompat peer, its fault modes, a fault injector."""

import json

import httpx
import pytest
from conftest import load_case
from jev_servers import FaultyServer, MockProcess, down_url, hang_up
from jevcompat.mock import MockConfig, Running
from typesafe_sdk._schemas.models import SystemOneRequest

from jeval_core import CaseError, JudgeError, evaluators, score, wire
from jeval_core.judges.jev import (
    DEFAULT_BASE_URL,
    JevJudge,
    RetryPolicy,
    key_from_env,
    normalise_base_url,
)
from jeval_core.limits import RateLimiter

KEY = "sk-test-0123456789abcdef"
FAST = RetryPolicy(attempts=3, base_delay=0.01, max_delay=0.05, timeout=5, total_seconds=30)
CHUNK_RELEVANCE = evaluators.resolve("chunk_relevance")
KEY_VARIABLES = ("TYPESAFE_API_KEY", "TYPESAFE_BASE_URL", "OPENROUTER_API_KEY")


@pytest.fixture(autouse=True)
def no_keys_in_the_environment(monkeypatch):
    """Each test sets the key variables it means; none leak in from the developer's shell."""
    for name in KEY_VARIABLES:
        monkeypatch.delenv(name, raising=False)


class Recording(httpx.HTTPTransport):
    """A real HTTP transport that also keeps every request body it sends."""

    def __init__(self) -> None:
        super().__init__()
        self.bodies: list[dict] = []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        if request.content:
            self.bodies.append(json.loads(request.content))
        return super().handle_request(request)


class CountingLimiter(RateLimiter):
    """The real limiter, counting the tokens of every acquire call."""

    def __init__(self) -> None:
        super().__init__()
        self.acquired: list[int] = []

    def acquire(self, tokens, timeout=None):
        self.acquired.append(tokens)
        return super().acquire(tokens, timeout)


class RefusingLimiter(RateLimiter):
    """A limiter that would hold every request past any deadline."""

    def acquire(self, tokens, timeout=None):
        return None


@pytest.fixture(scope="module")
def mock():
    with Running(MockConfig()) as server:
        yield server


@pytest.fixture(scope="module")
def keyed_mock():
    server = MockProcess("--key", KEY)
    yield server
    server.stop()


def judge_for(url, **kw):
    kw.setdefault("retry", FAST)
    kw.setdefault("api_key", KEY)
    return JevJudge(base_url=url, **kw)


def test_scores_the_seed_case_through_the_peer_server(mock, seed_case):
    report = score(seed_case, CHUNK_RELEVANCE, judge_for(mock.url))
    details = report.results["chunk_relevance"].details
    assert len(details) == 4 and all(0 <= d.p <= 1 for d in details)
    assert report.judge == "jev" and report.approximates is False


def test_usage_comes_from_the_response_not_the_estimate(mock, seed_case):
    report = score(seed_case, CHUNK_RELEVANCE, judge_for(mock.url))
    assert report.usage.requests == 1
    assert report.usage.input_tokens > 0
    assert report.cost_usd == pytest.approx(report.usage.input_tokens * 42e-9)
    assert report.request_id == "req_mock"


def test_all_evaluators_cost_one_request():
    config = MockConfig()
    with Running(config) as server:
        score(load_case("with_expected"), evaluators.ALL, judge_for(server.url))
    assert config.requests == 1


@pytest.mark.parametrize("name", ["jev_pricing", "with_expected", "whole_document"])
def test_every_request_body_validates_against_the_official_sdk(mock, name):
    transport = Recording()
    score(load_case(name), evaluators.ALL, judge_for(mock.url, transport=transport))
    assert len(transport.bodies) == 1
    SystemOneRequest.model_validate(transport.bodies[0])


def test_the_body_sent_is_the_body_shown(mock, seed_case):
    transport = Recording()
    chosen = evaluators.resolve("chunk_relevance,toxicity")
    report = score(seed_case, chosen, judge_for(mock.url, transport=transport))
    assert transport.bodies == [report.packed.body]


def test_models_are_listed(mock):
    listed = judge_for(mock.url).models()
    assert all(isinstance(m, wire.Model) for m in listed)
    assert "jev-latest" in [m.name for m in listed]


def test_the_right_key_is_accepted(keyed_mock, seed_case):
    report = score(seed_case, CHUNK_RELEVANCE, judge_for(keyed_mock.url, api_key=KEY))
    assert not report.results["chunk_relevance"].skipped


def test_a_wrong_key_is_one_clear_message_without_the_key(keyed_mock, seed_case):
    wrong = "sk-wrong-fedcba9876543210"
    with pytest.raises(JudgeError, match=r"rejected the API key \(401\)") as caught:
        score(seed_case, CHUNK_RELEVANCE, judge_for(keyed_mock.url, api_key=wrong))
    message = str(caught.value)
    assert wrong not in message and f"check the key for {keyed_mock.url}" in message


def test_the_key_never_shows_in_repr_or_url(keyed_mock):
    judge = judge_for(keyed_mock.url, api_key=KEY)
    assert KEY not in repr(judge) and "********" in repr(judge)
    assert KEY not in judge.base_url


def test_the_key_travels_only_in_the_authorization_header(mock, seed_case):
    with FaultyServer(mock.url, []) as proxy:
        score(seed_case, CHUNK_RELEVANCE, judge_for(proxy.url, api_key=KEY))
    (seen,) = proxy.seen
    assert seen["headers"]["Authorization"] == f"Bearer {KEY}"
    assert KEY not in seen["path"] and KEY.encode() not in seen["body"]


def test_a_base_url_with_credentials_is_refused():
    with pytest.raises(CaseError, match="never in a URL"):
        normalise_base_url(f"https://user:{KEY}@api.typesafe.ai")


def test_with_no_key_at_all_nothing_is_sent(mock, seed_case):
    with FaultyServer(mock.url, []) as proxy, pytest.raises(JudgeError, match="no API key"):
        score(seed_case, CHUNK_RELEVANCE, judge_for(proxy.url, api_key=None))
    assert proxy.seen == []


def test_the_environment_key_is_sent_to_the_configured_base_url(mock, seed_case, monkeypatch):
    with FaultyServer(mock.url, []) as proxy:
        monkeypatch.setenv("TYPESAFE_API_KEY", KEY)
        monkeypatch.setenv("TYPESAFE_BASE_URL", proxy.url)
        score(seed_case, CHUNK_RELEVANCE, judge_for(proxy.url, api_key=None))
    (seen,) = proxy.seen
    assert seen["headers"]["Authorization"] == f"Bearer {KEY}"


@pytest.mark.parametrize("configured", [None, DEFAULT_BASE_URL, "http://127.0.0.1:9"])
def test_the_environment_key_is_not_sent_to_another_base_url(mock, seed_case, monkeypatch,
                                                             configured):
    monkeypatch.setenv("TYPESAFE_API_KEY", KEY)
    if configured:
        monkeypatch.setenv("TYPESAFE_BASE_URL", configured)
    with FaultyServer(mock.url, []) as proxy, pytest.raises(JudgeError, match="no API key"):
        score(seed_case, CHUNK_RELEVANCE, judge_for(proxy.url, api_key=None))
    assert proxy.seen == []


def test_the_openrouter_key_goes_to_openrouter(monkeypatch):
    monkeypatch.setenv("OPENROUTER_API_KEY", KEY)
    key = key_from_env("https://openrouter.ai")
    assert key is not None and key.reveal() == KEY


@pytest.mark.parametrize("url", ["https://openrouter.ai.evil.example",
                                 "https://evil.example/openrouter.ai",
                                 "https://api.openrouter.ai",
                                 "http://openrouter.ai"])
def test_the_openrouter_key_goes_nowhere_else(monkeypatch, url):
    monkeypatch.setenv("OPENROUTER_API_KEY", KEY)
    assert key_from_env(url) is None


def test_the_typesafe_key_is_not_sent_to_openrouter(monkeypatch):
    monkeypatch.setenv("TYPESAFE_API_KEY", KEY)
    assert key_from_env("https://openrouter.ai") is None


def test_every_attempt_retries_included_passes_through_the_limiter(mock, seed_case):
    limiter = CountingLimiter()
    with FaultyServer(mock.url, [(429, {"retry-after-ms": "0"}, "slow down")]) as proxy:
        report = score(seed_case, CHUNK_RELEVANCE,
                       judge_for(proxy.url, limiter=limiter, sleep=lambda s: None))
    assert len(proxy.seen) == 2
    assert limiter.acquired == [report.packed.tokens.total] * 2


def test_listing_models_passes_through_the_limiter(mock):
    limiter = CountingLimiter()
    judge_for(mock.url, limiter=limiter).models()
    assert len(limiter.acquired) == 1


def test_a_request_the_limiter_would_hold_past_the_budget_is_not_sent(mock, seed_case):
    with FaultyServer(mock.url, []) as proxy, \
            pytest.raises(JudgeError, match="client-side rate limit"):
        score(seed_case, CHUNK_RELEVANCE, judge_for(proxy.url, limiter=RefusingLimiter()))
    assert proxy.seen == []


@pytest.mark.parametrize("attempts", [0, -1, 1.5, True])
def test_a_retry_policy_needs_at_least_one_whole_attempt(attempts):
    with pytest.raises(ValueError, match="attempts"):
        RetryPolicy(attempts=attempts)


@pytest.mark.parametrize(
    ("fault", "says"),
    [
        ("xssi-200", "not valid JSON"),
        ("nan", "not valid JSON"),
        ("no-usage", "usage.input_tokens"),
        ("float-usage", "usage.input_tokens"),
        ("noul-range", "not a probability between 0 and 1"),
        ("extra-answer", "nobody asked"),
        ("boolean-type", "not a noul answer"),
        ("first-question-only", "did not answer 3 of 4"),
    ],
)
def test_broken_responses_are_refused_with_a_clear_message(fault, says, seed_case):
    with Running(MockConfig(faults=frozenset({fault}))) as server, \
            pytest.raises(JudgeError, match=says):
        score(seed_case, CHUNK_RELEVANCE, judge_for(server.url))


def test_plain_text_errors_still_give_one_clear_line(seed_case):
    says = r"rejected the request \(400\): the server said 'Unknown model: no-such-model'"
    with Running(MockConfig(faults=frozenset({"text-errors"}))) as server, \
            pytest.raises(JudgeError, match=says) as caught:
        score(seed_case, CHUNK_RELEVANCE, judge_for(server.url, model="no-such-model"))
    assert "\n" not in str(caught.value)


def test_429_is_retried_after_the_time_the_server_asks(mock, seed_case):
    waits = []
    faults = [(429, {"retry-after-ms": "250"}, {"detail": {"error_type": "rate_limit",
                                                           "message": "slow down"}})]
    with FaultyServer(mock.url, faults) as proxy:
        report = score(seed_case, CHUNK_RELEVANCE, judge_for(proxy.url, sleep=waits.append))
    assert waits == [0.25]
    assert len(proxy.seen) == 2 and not report.results["chunk_relevance"].skipped


def test_retry_after_in_seconds_is_honoured(mock, seed_case):
    waits = []
    with FaultyServer(mock.url, [(503, {"retry-after": "2"}, "busy")]) as proxy:
        score(seed_case, CHUNK_RELEVANCE, judge_for(proxy.url, sleep=waits.append))
    assert waits == [2.0]


def test_5xx_without_a_hint_backs_off_with_jitter_then_succeeds(mock, seed_case):
    waits = []
    faults = [(500, {}, "oops"), (502, {}, "bad gateway")]
    with FaultyServer(mock.url, faults) as proxy:
        score(seed_case, CHUNK_RELEVANCE, judge_for(proxy.url, sleep=waits.append))
    assert len(waits) == 2 and all(0 <= w <= FAST.max_delay for w in waits)


def test_a_connection_closed_without_a_reply_is_retried(mock, seed_case):
    with FaultyServer(mock.url, [hang_up]) as proxy:
        report = score(seed_case, CHUNK_RELEVANCE, judge_for(proxy.url, sleep=lambda s: None))
    assert len(proxy.seen) == 2 and not report.results["chunk_relevance"].skipped


def test_an_overloaded_server_gives_up_after_the_attempts(mock, seed_case):
    faults = [(529, {}, {"error": {"message": "overloaded"}})] * 5
    says = r"overloaded \(529\): the server said 'overloaded'; gave up after 3 tries"
    with FaultyServer(mock.url, faults) as proxy, pytest.raises(JudgeError, match=says):
        score(seed_case, CHUNK_RELEVANCE, judge_for(proxy.url, sleep=lambda s: None))
    assert len(proxy.seen) == 3


def test_a_wait_beyond_the_time_budget_gives_up_at_once(mock, seed_case):
    with FaultyServer(mock.url, [(429, {"retry-after": "600"}, "later")]) as proxy, \
            pytest.raises(JudgeError, match=r"rate limited \(429\).*30 s budget"):
        score(seed_case, CHUNK_RELEVANCE, judge_for(proxy.url, sleep=lambda s: None))
    assert len(proxy.seen) == 1


def test_a_timeout_is_retried_then_reported(mock, seed_case):
    policy = RetryPolicy(attempts=2, base_delay=0.01, max_delay=0.01, timeout=0.3,
                         total_seconds=30)
    with FaultyServer(mock.url, [("sleep", 1.0), ("sleep", 1.0)]) as proxy, \
            pytest.raises(JudgeError, match=r"no answer from .* within 0.3 s"):
        score(seed_case, CHUNK_RELEVANCE, judge_for(proxy.url, retry=policy))
    assert len(proxy.seen) == 2


def test_nothing_listening_is_a_clear_message(seed_case):
    with pytest.raises(JudgeError, match=r"cannot reach http://127\.0\.0\.1"):
        score(seed_case, CHUNK_RELEVANCE, judge_for(down_url(), sleep=lambda s: None))


@pytest.mark.parametrize(
    ("status", "body", "says"),
    [
        (422, {"detail": [{"loc": ["body", "questions", "q1"], "msg": "field required",
                           "type": "missing"}]},
         r"\(422\): the server said 'field required at questions\.q1'"),
        (400, {"detail": {"error_type": "invalid_request", "message": "state too large"}},
         r"\(400\): the server said 'state too large \(invalid_request\)'"),
        (403, {"error": {"message": "plan does not include jev", "field": "model"}},
         r"\(403\): the server said 'plan does not include jev \(field model\)'"),
    ],
)
def test_client_errors_are_not_retried_and_read_all_three_body_shapes(mock, seed_case, status,
                                                                       body, says):
    with FaultyServer(mock.url, [(status, {}, body)]) as proxy, \
            pytest.raises(JudgeError, match=says):
        score(seed_case, CHUNK_RELEVANCE, judge_for(proxy.url))
    assert len(proxy.seen) == 1


def test_with_no_key_anywhere_the_message_says_how_to_give_one(mock, seed_case, monkeypatch):
    """No TYPESAFE_API_KEY at all: the message does not talk of where that key would go."""
    monkeypatch.delenv("TYPESAFE_API_KEY", raising=False)
    with FaultyServer(mock.url, []) as proxy, pytest.raises(JudgeError) as caught:
        score(seed_case, CHUNK_RELEVANCE, judge_for(proxy.url, api_key=None))
    message = str(caught.value)
    assert message == (f"no API key for {proxy.url}: type a key for this server (or set "
                       f"TYPESAFE_API_KEY with TYPESAFE_BASE_URL={proxy.url}). Nothing was sent")
    assert "only sent to" not in message


def test_with_a_key_for_another_server_the_message_says_where_it_goes(mock, seed_case,
                                                                      monkeypatch):
    monkeypatch.setenv("TYPESAFE_API_KEY", KEY)
    monkeypatch.delenv("TYPESAFE_BASE_URL", raising=False)
    with FaultyServer(mock.url, []) as proxy, pytest.raises(JudgeError) as caught:
        score(seed_case, CHUNK_RELEVANCE, judge_for(proxy.url, api_key=None))
    assert f"is only sent to {DEFAULT_BASE_URL} (TYPESAFE_BASE_URL)" in str(caught.value)

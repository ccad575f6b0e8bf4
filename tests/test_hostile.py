"""The hostile suite: servers that lie, stall and echo the key; inputs built to crash jeval.

Every fault must end in ONE JudgeError (or, through the CLI, one line and exit 3), whose text
is a single line of bounded length with no control or escape characters and no piece of the
key; deadlines hold against drip and hang; a gzip bomb does not inflate; redirects are not
followed; every retry passes through the rate limiter. Bad input is exit 2 (or 3 for a base
URL), never 70 and never a traceback. Property tests check that case files and share links
raise nothing but the documented error, and fail if every generated case was refused.
"""

from __future__ import annotations

import base64
import email.utils
import json
import os
import subprocess
import sys
import threading
import time
import tracemalloc
import unicodedata
import zlib
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pytest
from hostile_server import (
    HostileServer,
    Reply,
    answer_all,
    answers_for,
    drip,
    gzip_bomb,
    hang,
    hang_up,
    raw_bytes,
    truncated,
    with_answer,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jeval_core import evaluators, judges, text, wire
from jeval_core.case import Case
from jeval_core.commands.cli import render_text
from jeval_core.errors import CaseError, JevalError, JudgeError
from jeval_core.inputs import casefile, share
from jeval_core.judges.jev import JevJudge, RetryPolicy, Secret, key_from_env
from jeval_core.limits import RateLimiter
from jeval_core.runs.batch import score_many
from jeval_core.scoring import score

KEY = "sk-hostile-0123456789abcdef"
PIECES = tuple(KEY[i:i + 8] for i in range(len(KEY) - 7))
POLICY = RetryPolicy(attempts=2, base_delay=0.01, max_delay=0.05, timeout=2, total_seconds=4)
MARGIN = 3.0  # a correctness bound on the deadline, not a speed benchmark
LIMIT = 600
PATH = "/v1/systemone"
MODELS = "/v1/models"
ROOT = Path(__file__).resolve().parent.parent
# the interpreter running the tests and its environment's jeval, whatever venv that is
PYTHON = Path(sys.executable)
JEVAL = PYTHON.parent / "jeval"
BIDI = set("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
KEY_VARIABLES = ("TYPESAFE_API_KEY", "TYPESAFE_BASE_URL", "OPENROUTER_API_KEY")

CASE = Case(
    input="How do I rotate an API key without downtime?",
    output="Create a second key. Then revoke the old one once nothing uses it.",
    context=("Create a second key alongside the first one.",
             "Revoke the old key after the rollout is complete."),
)
CASE_JSON = json.dumps(CASE.to_dict())


@pytest.fixture(autouse=True)
def no_keys_in_the_environment(monkeypatch):
    for name in KEY_VARIABLES:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(scope="module", autouse=True)
def bomb_built_before_any_clock_starts():
    """The bomb takes seconds to build: never inside a timed request."""
    gzip_bomb()


# ---- the checks every message must pass -----------------------------------------------------

def leaked(s: str) -> bool:
    """The key, or any 8+ character piece of it, is in `s`."""
    return KEY in s or any(p in s for p in PIECES)


def assert_safe_line(s: str, limit: int = LIMIT) -> None:
    """One line, bounded, no control/escape/bidi characters, no surrogates, no key."""
    assert s, "empty message"
    assert len(s) <= limit, f"{len(s)} chars"
    assert len(s.splitlines()) == 1 and "\n" not in s and "\r" not in s, repr(s[:300])
    bad = sorted({c for c in s if unicodedata.category(c) in ("Cc", "Cs") or c in BIDI})
    assert not bad, f"control characters {bad!r} in {s[:200]!r}"
    assert not leaked(s), "the key leaked"


def assert_one_judge_error(err: BaseException) -> str:
    assert type(err) is JudgeError, f"{type(err).__name__}: {err}"
    assert err.__cause__ is None
    message = str(err)
    assert_safe_line(message)
    assert not leaked(repr(err)) and not any(leaked(str(a)) for a in err.args)
    return message


def judge_for(server: HostileServer, policy: RetryPolicy = POLICY, **kw) -> JevJudge:
    return JevJudge(api_key=KEY, base_url=server.url, retry=policy, **kw)


# ---- what hostile servers send ---------------------------------------------------------------

def said(request) -> str:
    return f"Incorrect API key provided: {request.key}. You can find your API key at https://x."


def echo_detail_list(request):
    return {"detail": [{"loc": ["body", "api_key", request.key], "msg": said(request),
                        "type": request.key}]}


def echo_detail_object(request):
    return {"detail": {"error_type": f"invalid_key:{request.key}", "message": said(request)}}


def echo_error_object(request):
    return {"error": {"message": said(request), "field": request.key}}


def echo_html(request):
    return (f"<!DOCTYPE html><html><head><title>401</title></head><body>\n<h1>Unauthorized"
            f"</h1>\n<p>{said(request)}</p>\n<pre>Authorization: Bearer {request.key}</pre>"
            "</body></html>")


def echo_partial(request):
    k = request.key
    return {"error": {"message": f"Incorrect API key provided: {k[:8]}...{k[-4:]} (also "
                                 f"shown as {k[:3]}***{k[-8:]} and ...{k[4:14]}...)",
                      "field": "authorization"}}


def echo_at_the_cut(request):
    # The key straddles the 200-character cut of a server's detail: a piece would remain.
    return {"error": {"message": "x" * 190 + request.key + " tail", "field": "key"}}


ANSI_CLEAR = "\x1b[2J\x1b[H\x1b[31mYOUR DISK IS ERASED\x1b[0m"
ANSI_LINK = ("\x1b]8;;https://evil.example/\x1b\\click here\x1b]8;;\x1b\\ and "
             "\x1b]8;;http://evil.example/2\x07there\x1b]8;;\x07")
C1_BIDI = ("\x9b2J\x9d0;pwned\x07 \u202eevil\u202c \x00nul \x7fdel \x08\x08bs "
           "\rjeval: scored, all passed")
MULTI_LINE = "first\nsecond\r\nthird\u2028fourth\u2029fifth\x85sixth\x0bseventh\x0ceighth"
FAKE_TRACEBACK = ("oops\nTraceback (most recent call last):\n  File \"/srv/jeval/cli.py\", "
                  "line 1, in <module>\nKeyError: 'TYPESAFE_API_KEY'")
TWO_MB = "A" * (2 * 1024 * 1024)
DEEP = "[" * 100_000 + "]" * 100_000
DIGITS = "9" * 5000


def huge_answer_id(request):
    return answers_for(request) | {"answers": {**answers_for(request)["answers"],
                                               TWO_MB: {"type": "noul", "noul": 0.5}}}


def key_as_answer_id(request):
    return {"answers": {**answers_for(request)["answers"],
                        request.key: {"type": "noul", "noul": 0.5}},
            "usage": {"input_tokens": 10}}


def key_as_noul(request):
    reply = answers_for(request)
    first = next(iter(reply["answers"]))
    reply["answers"][first]["noul"] = f"{request.key}{ANSI_CLEAR}"
    return reply


def deep_answer(request):
    reply = answers_for(request)
    first = next(iter(reply["answers"]))
    return json.dumps(reply).replace(f'"{first}": {{', f'"{first}": {DEEP[:50_000]}{{', 1)


def header_flood() -> Reply:
    return Reply(200, {f"X-Flood-{i}": "y" * 1000 for i in range(256)}, answer_all)


@dataclass(frozen=True)
class Fault:
    id: str
    responses: tuple
    says: str = ""  # a piece the message must contain
    slow: bool = False  # retries or stalls: through the CLI, run with a short retry policy
    bug: str = ""  # a known core bug: the test is a strict xfail


def noul(raw: str) -> Reply:
    return Reply(200, {}, with_answer("noul", raw))


def usage(raw: str) -> Reply:
    return Reply(200, {}, with_answer("input_tokens", raw))


def status(code: int, body, **headers) -> Reply:
    return Reply(code, {k.replace("_", "-"): v for k, v in headers.items()}, body)


FAULTS = [
    # The key, echoed back in every shape a server uses.
    Fault("key-401-detail-list", (status(401, echo_detail_list),), "401"),
    Fault("key-401-detail-object", (status(401, echo_detail_object),), "401"),
    Fault("key-401-error-object", (status(401, echo_error_object),), "401"),
    Fault("key-401-html-page", (status(401, echo_html, Content_Type="text/html"),), "401"),
    Fault("key-401-partial-forms", (status(401, echo_partial),), "401"),
    Fault("key-401-at-the-cut", (status(401, echo_at_the_cut),), "401"),
    Fault("key-403-detail-string", (status(403, lambda r: {"detail": f"{r.key} is not "
                                                            "allowed"}),), "403"),
    Fault("key-404-plain-text", (status(404, lambda r: f"no route for Bearer {r.key}",
                                        Content_Type="text/plain"),), "404"),
    Fault("key-500-plain-text-retried", (status(500, lambda r: f"upstream died, key={r.key}",
                                                Retry_After="0"),), "500"),
    Fault("key-in-redirect-location", (status(302, answer_all,
                                              Location=f"http://127.0.0.1:9/x?key={KEY}"),),
          "302"),
    Fault("key-as-answer-id", (status(200, key_as_answer_id),), "nobody asked"),
    Fault("key-as-noul-with-ansi", (status(200, key_as_noul),), "not a probability"),
    # Terminal attacks and oversized text.
    Fault("ansi-clear-screen", (status(400, {"detail": ANSI_CLEAR}),), "400"),
    Fault("ansi-osc8-hyperlinks", (status(400, {"detail": {"error_type": ANSI_LINK,
                                                           "message": ANSI_LINK}}),), "400"),
    Fault("c1-bidi-nul-cr", (status(400, {"error": {"message": C1_BIDI, "field": C1_BIDI}}),),
          "400"),
    Fault("multi-line-detail", (status(422, {"detail": [{"loc": ["body", MULTI_LINE],
                                                         "msg": MULTI_LINE, "type": "x"}]}),),
          "422"),
    Fault("fake-traceback", (status(422, {"detail": FAKE_TRACEBACK}),), "422"),
    Fault("detail-2mb", (status(400, {"error": {"message": TWO_MB}}),), "400"),
    Fault("answer-id-2mb", (status(200, huge_answer_id),), "nobody asked"),
    Fault("plain-body-5mb", (status(200, "{" + " " * (5 * 1024 * 1024) + "}"),), "larger"),
    # Numbers no JSON reader should trust.
    Fault("noul-1e400", (noul("1e400"),), "not valid JSON"),
    Fault("noul-10**400", (noul(str(10**400)),), "noul"),
    Fault("noul-NaN", (noul("NaN"),), "not valid JSON"),
    Fault("noul-Infinity", (noul("-Infinity"),), "not valid JSON"),
    Fault("noul-true", (noul("true"),), "not a probability"),
    Fault("noul-string", (noul('"0.9"'),), "not a probability"),
    Fault("noul-1.5", (noul("1.5"),), "not a probability"),
    Fault("noul-5000-digits", (noul(DIGITS),), "not valid JSON"),
    Fault("usage-10**308", (usage(str(10**308)),), "usage.input_tokens"),
    Fault("usage-10**400", (usage(str(10**400)),), "usage.input_tokens"),
    Fault("usage-1e308-float", (usage("1e308"),), "usage.input_tokens"),
    Fault("usage-minus-1", (usage("-1"),), "usage.input_tokens"),
    Fault("usage-string-12", (usage('"12"'),), "usage.input_tokens"),
    Fault("usage-5000-digits", (usage(DIGITS),), "not valid JSON"),
    Fault("deep-json-100k-arrays", (status(200, DEEP),), "nested"),
    Fault("deep-json-100k-objects", (status(200, '{"a":' * 100_000),), "nested"),
    Fault("deep-json-in-an-answer", (status(200, deep_answer),), "nested"),
    Fault("deep-json-error-body", (status(400, DEEP),), "400"),
    # Bodies that are not what they claim.
    Fault("bad-gzip", (status(200, b"this is not gzip", Content_Encoding="gzip"),),
          "compressed"),
    Fault("gzip-bomb-300mb", (status(200, lambda r: gzip_bomb(), Content_Encoding="gzip"),),
          "larger"),
    Fault("unknown-encoding-br", (status(200, b"\x8b\x00garbage", Content_Encoding="br"),),
          "compressed"),
    Fault("invalid-utf8", (status(200, b'{"answers": "\xff\xfe\xed\xa0\x80"}'),),
          "not valid JSON"),
    Fault("empty-200", (status(200, b""),), "not valid JSON"),
    Fault("null-200", (status(200, "null"),), '"answers"'),
    Fault("answers-as-list", (status(200, {"answers": [], "usage": {"input_tokens": 1}}),),
          '"answers"'),
    Fault("no-answer-at-all", (status(200, {"answers": {}, "usage": {"input_tokens": 1}}),),
          "did not answer"),
    Fault("answer-of-another-type", (status(200, lambda r: {
        "answers": {q: {"type": "text", "text": "yes"} for q in r.json()["questions"]},
        "usage": {"input_tokens": 1}}),), "not a noul answer"),
    # Broken HTTP.
    Fault("not-http-at-all", (raw_bytes(b"SSH-2.0-OpenSSH_9.6\r\n"),), "cannot reach",
          slow=True),
    Fault("hang-up-without-a-byte", (hang_up(),), "cannot reach", slow=True),
    Fault("truncated-body", (truncated(1000, b'{"answers": {'),), "cannot reach", slow=True),
    Fault("header-flood-256kb", (header_flood(),), "cannot reach", slow=True),
    Fault("status-999", (status(999, {"detail": "what"}, Retry_After="0"),), "999"),
    # Retry-After values a parser can choke on.
    Fault("retry-after-neither-seconds-nor-date", (status(429, {"detail": "slow down"},
                                                          Retry_After="soon, maybe"),),
          "429", slow=True),
    Fault("retry-after-bad-date", (status(429, "{}", Retry_After="Mon, 99 Foo 2025 "
                                                                  "99:99:99 GMT"),),
          "429", slow=True),
    Fault("retry-after-1e999", (status(429, "{}", Retry_After="1e999"),), "429", slow=True),
    Fault("retry-after-nan", (status(503, "{}", Retry_After="nan"),), "503", slow=True),
    Fault("retry-after-ms-inf", (status(503, "{}", retry_after_ms="inf"),), "503", slow=True),
    Fault("retry-after-negative", (status(503, "{}", Retry_After="-5"),), "503"),
    Fault("retry-after-year-9999", (status(503, "{}", Retry_After="Fri, 31 Dec 9999 "
                                                                   "23:59:59 GMT"),), "budget"),
    Fault("retry-after-date-0000-past", (status(503, "{}", Retry_After="Mon, 01 Jan 2001 "
                                                                       "00:00:00 -0000"),),
          "503"),
    # Redirects are errors, with or without a plausible body.
    Fault("302-with-json-answer", (status(302, answer_all,
                                          Location="http://127.0.0.1:9/v1/systemone"),), "302"),
    Fault("307-with-json-answer", (status(307, answer_all, Location="/v1/elsewhere"),), "307"),
    Fault("308-to-https", (status(308, answer_all, Location="https://evil.example/v1/"),),
          "308"),
    # Deadlines.
    Fault("drip-one-byte-a-second", (drip(answer_all),), "in time", slow=True),
    Fault("hang-forever", (hang(),), "", slow=True),
]


def fault_params(faults=FAULTS, only=None):
    out = []
    for f in faults:
        if only is not None and not only(f):
            continue
        marks = [pytest.mark.xfail(strict=True, reason=f"core bug: {f.bug}")] if f.bug else []
        out.append(pytest.param(f, id=f.id, marks=marks))
    return out


# ---- the jev judge, in process ---------------------------------------------------------------

@pytest.mark.parametrize("fault", fault_params())
def test_each_fault_ends_in_one_safe_judge_error_within_the_deadline(fault, caplog):
    caplog.set_level("INFO")  # what logging.basicConfig(level=INFO) would show a user
    with HostileServer() as server:
        server.script("POST", PATH, *fault.responses)
        judge = judge_for(server)
        started = time.monotonic()
        try:
            with pytest.raises(JevalError) as caught:
                score(CASE, None, judge)
        finally:
            elapsed = time.monotonic() - started
            judge.close()
    message = assert_one_judge_error(caught.value)
    assert fault.says in message
    assert elapsed < POLICY.total_seconds + MARGIN, f"{elapsed:.1f} s"
    sent = server.received("POST", PATH)
    assert 1 <= len(sent) <= POLICY.attempts
    assert all(r.key == KEY for r in sent)  # the server had the key to echo
    assert not leaked(caplog.text)


def test_a_hang_ends_at_the_total_budget_not_at_the_read_timeout():
    policy = RetryPolicy(attempts=3, base_delay=0.01, max_delay=0.05, timeout=30,
                         total_seconds=3)
    with HostileServer() as server:
        server.script("POST", PATH, hang())
        judge = judge_for(server, policy)
        started = time.monotonic()
        with pytest.raises(JevalError) as caught:
            score(CASE, None, judge)
        elapsed = time.monotonic() - started
        judge.close()
    assert_one_judge_error(caught.value)
    assert elapsed < policy.total_seconds + MARGIN, f"{elapsed:.1f} s"


def test_drip_and_hang_really_stall():
    """The deadline tests above could not fail if drip sent fast: it takes seconds a byte."""
    with HostileServer() as server:
        server.script("POST", PATH, drip(lambda r: b'{"answers": {}}', interval=0.5))
        started = time.monotonic()
        with pytest.raises(JudgeError):
            score(CASE, None, judge_for(server, RetryPolicy(attempts=1, timeout=1,
                                                            total_seconds=2)))
        assert time.monotonic() - started >= 1.5


def test_a_gzip_bomb_does_not_inflate_in_memory():
    bomb = gzip_bomb()
    assert len(bomb) < 1024 * 1024  # small on the wire...
    with HostileServer() as server:
        server.script("POST", PATH, status(200, bomb, Content_Encoding="gzip"))
        judge = judge_for(server)
        tracemalloc.start()
        try:
            with pytest.raises(JudgeError, match="larger than"):
                score(CASE, None, judge)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
            judge.close()
    assert peak < 200 * 1024 * 1024, f"peak {peak / 2**20:.0f} MB"
    # ...and really a bomb: it inflates to hundreds of MB.
    inflater = zlib.decompressobj(31)
    inflated = sum(len(inflater.decompress(bomb[i:i + 4096], 64 * 1024 * 1024))
                   for i in range(0, len(bomb), 4096))
    assert inflated > 100 * 1024 * 1024


@pytest.mark.parametrize("code", [301, 302, 303, 307, 308])
def test_a_redirect_is_an_error_and_the_key_never_goes_to_the_location(code):
    with HostileServer() as evil, HostileServer() as server:
        evil.script("POST", PATH, status(200, answer_all))
        server.script("POST", PATH, status(code, answer_all, Location=f"{evil.url}{PATH}"))
        with pytest.raises(JudgeError) as caught:
            score(CASE, None, judge_for(server))
    message = assert_one_judge_error(caught.value)
    assert str(code) in message
    assert evil.requests == [], "the redirect was followed"
    assert len(server.received("POST")) == 1


@pytest.mark.parametrize("location", ["http://[::1", "http://[bad]/", "http://host:port/"])
def test_a_redirect_to_a_malformed_location_is_refused_at_once_as_any_redirect(location):
    with HostileServer() as server:
        server.script("POST", PATH, status(302, answer_all, Location=location))
        with pytest.raises(JudgeError) as caught:
            score(CASE, None, judge_for(server))
        asked = len(server.received("POST"))
    message = assert_one_judge_error(caught.value)
    assert "redirected to" in message and "(302)" in message and "cannot reach" not in message
    assert asked == 1, "a redirect is refused, not retried"


def test_hostile_metadata_on_a_good_answer_is_cleaned():
    request_id = f"{ANSI_CLEAR}{KEY}\x1b]8;;http://e\x07" + "r" * 8000

    def reply(request):
        return answers_for(request, model=f"{ANSI_LINK}{MULTI_LINE}{request.key}{TWO_MB}")

    with HostileServer() as server:
        server.script("POST", PATH, Reply(200, {"X-TypeSafe-Request-Id": request_id}, reply))
        report = score(CASE, None, judge_for(server))
    assert_safe_line(report.request_id, 100)
    assert_safe_line(report.model, 80)
    shown = render_text(report)
    assert not leaked(shown) and "\x1b" not in shown
    dumped = json.dumps(report.to_dict(), allow_nan=False, ensure_ascii=False)
    assert not leaked(dumped) and "\x1b" not in dumped


def test_an_http_date_with_zone_minus_0000_is_read_as_utc():
    """Under a zone of UTC-12, a -0000 date read as local time would mean a 12 h wait."""
    before = os.environ.get("TZ")
    os.environ["TZ"] = "XXX+12"
    time.tzset()
    try:
        assert time.timezone == 12 * 3600  # the test can fail: local time is not UTC
        when = email.utils.formatdate(time.time() + 3)  # "..., HH:MM:SS -0000"
        assert when.endswith("-0000")
        waits: list[float] = []
        with HostileServer() as server:
            server.script("POST", PATH, status(503, "{}", Retry_After=when),
                          status(200, answer_all))
            report = score(CASE, None, judge_for(server, RetryPolicy(
                attempts=2, timeout=2, total_seconds=8), sleep=waits.append))
    finally:
        if before is None:
            os.environ.pop("TZ", None)
        else:
            os.environ["TZ"] = before
        time.tzset()
    assert report.usage.input_tokens == 123
    assert len(waits) == 1 and 1.0 <= waits[0] <= 3.5, waits


# ---- GET /v1/models --------------------------------------------------------------------------

def test_models_with_a_release_date_object_and_hostile_text_are_listed_cleanly():
    listed = {"models": [
        {"name": "jev-latest", "description": f"{ANSI_CLEAR} best", "release_date":
         {"year": 2025, "month": 1}},
        {"name": f"jev-{KEY}\n2", "description": TWO_MB, "release_date": [DIGITS]},
        {"name": "jev-old", "release_date": "2024-01-01"},
    ]}
    with HostileServer() as server:
        server.script("GET", MODELS, status(200, listed))
        judge = judge_for(server)
        try:
            models = judge.models()
        finally:
            judge.close()
    assert [m.release_date for m in models] == ["", "", "2024-01-01"]
    for m in models:
        for value in (m.name, m.description):
            if value:
                assert_safe_line(value, 120)


MODEL_FAULTS = [
    Fault("models-401-echo", (status(401, echo_error_object),), "401"),
    Fault("models-deep-json", (status(200, DEEP),), "nested"),
    Fault("models-5000-digits", (status(200, '{"models": ' + DIGITS + "}"),), "not valid"),
    Fault("models-not-a-list", (status(200, {"models": {"name": "x"}}),), "did not list"),
    Fault("models-gzip-bomb", (status(200, lambda r: gzip_bomb(), Content_Encoding="gzip"),),
          "larger"),
    Fault("models-302", (status(302, {"models": [{"name": "x"}]},
                                Location="http://127.0.0.1:9/v1/models"),), "302"),
]


@pytest.mark.parametrize("fault", fault_params(MODEL_FAULTS))
def test_each_models_fault_ends_in_one_safe_judge_error(fault):
    with HostileServer() as server:
        server.script("GET", MODELS, *fault.responses)
        judge = judge_for(server)
        try:
            with pytest.raises(JevalError) as caught:
                judge.models()
        finally:
            judge.close()
    assert fault.says in assert_one_judge_error(caught.value)


# ---- keys go only where they belong ----------------------------------------------------------

def test_with_no_key_nothing_is_sent():
    with HostileServer() as server:
        server.script("POST", PATH, status(200, answer_all))
        with pytest.raises(JudgeError, match="no API key") as caught:
            score(CASE, None, JevJudge(base_url=server.url, retry=POLICY))
    assert_one_judge_error(caught.value)
    assert server.requests == []


def test_the_environment_key_is_not_sent_to_a_typed_base_url(monkeypatch):
    with HostileServer() as server:
        monkeypatch.setenv("TYPESAFE_API_KEY", KEY)
        monkeypatch.setenv("TYPESAFE_BASE_URL", "https://api.typesafe.ai")
        server.script("POST", PATH, status(200, answer_all))
        with pytest.raises(JudgeError, match="no API key"):
            score(CASE, None, JevJudge(base_url=server.url, retry=POLICY))
    assert server.requests == []


@pytest.mark.parametrize("url", ["https://openrouter.ai.evil.example", "http://openrouter.ai",
                                 "https://evil.example/openrouter.ai", "https://xopenrouter.ai"])
def test_the_openrouter_key_is_matched_on_the_exact_host(monkeypatch, url):
    monkeypatch.setenv("OPENROUTER_API_KEY", KEY)
    assert key_from_env(url) is None


# ---- the rate limiter under a 429 storm ------------------------------------------------------

class CountingLimiter(RateLimiter):
    """The real limiter, counting every acquire call."""

    def __init__(self, *args, **kw) -> None:
        super().__init__(*args, **kw)
        self.calls = 0
        self._count = threading.Lock()

    def acquire(self, tokens, timeout=None):
        with self._count:
            self.calls += 1
        return super().acquire(tokens, timeout)


STORM = status(429, {"detail": {"error_type": "rate_limit", "message": "slow down"}},
               Retry_After="0")


def test_every_attempt_in_a_429_storm_passes_through_the_limiter():
    limiter = CountingLimiter()
    policy = RetryPolicy(attempts=25, base_delay=0.0, max_delay=0.0, timeout=2,
                         total_seconds=20)
    with HostileServer() as server:
        server.script("POST", PATH, STORM)
        with pytest.raises(JudgeError, match="429") as caught:
            score(CASE, None, judge_for(server, policy, limiter=limiter))
    assert_one_judge_error(caught.value)
    assert len(server.received("POST")) == 25
    assert limiter.calls == 25


def test_a_batch_in_a_429_storm_counts_every_retry_and_loses_no_case():
    limiter = CountingLimiter()
    policy = RetryPolicy(attempts=8, base_delay=0.0, max_delay=0.0, timeout=2,
                         total_seconds=30)
    cases = [Case(input=f"question {i}?", output="An answer.", context=(f"chunk {i}.",))
             for i in range(12)]
    with HostileServer() as server:
        server.script("POST", PATH, STORM)
        judge = judge_for(server, policy, limiter=limiter)
        outcomes = score_many(cases, None, judge, concurrency=4)
        judge.close()
    requests = len(server.received("POST"))
    assert requests == 12 * 8
    assert limiter.calls == requests
    assert [o.index for o in outcomes] == list(range(12))
    for o in outcomes:
        assert o.report is None and not o.internal and "429" in o.error
        assert_safe_line(o.error)


def test_the_limiter_holds_retries_to_its_request_limit():
    limiter = CountingLimiter(requests_per_minute=3)
    policy = RetryPolicy(attempts=10, base_delay=0.0, max_delay=0.0, timeout=2,
                         total_seconds=4)
    with HostileServer() as server:
        server.script("POST", PATH, STORM)
        started = time.monotonic()
        with pytest.raises(JudgeError, match="rate limit") as caught:
            score(CASE, None, judge_for(server, policy, limiter=limiter))
    assert_one_judge_error(caught.value)
    assert len(server.received("POST")) == 3
    assert time.monotonic() - started < policy.total_seconds + MARGIN


def test_one_poisoned_case_never_costs_the_others_their_results():
    def route(handler, request):
        from hostile_server import send
        body = request.json()
        poisoned = "POISON" in json.dumps(body["state"])
        reply = (status(200, b"not gzip", Content_Encoding="gzip") if poisoned
                 else status(200, answer_all))
        send(handler, reply, request)

    cases = [Case(input=f"question {i}?", output="An answer.",
                  context=("POISON" if i == 13 else f"chunk {i}.",)) for i in range(20)]
    with HostileServer() as server:
        server.script("POST", PATH, route)
        judge = judge_for(server)
        outcomes = score_many(cases, None, judge, concurrency=4)
        judge.close()
    assert [o.index for o in outcomes] == list(range(20))
    assert [o.index for o in outcomes if o.report is None] == [13]
    assert not outcomes[13].internal
    assert_safe_line(outcomes[13].error)


# ---- the CLI, as a subprocess ----------------------------------------------------------------

@dataclass
class Run:
    code: int
    out: str
    err: str
    elapsed: float
    max_rss_mb: float


# The real CLI entry point with a short retry policy, for faults that retry or stall (the
# default policy allows 180 s).
SHORT_POLICY_CLI = (
    "import functools, sys\n"
    "from jeval_core.judges import http\n"  # where a server judge's connection makes its policy
    "http.RetryPolicy = functools.partial(http.RetryPolicy, attempts=2, base_delay=0.01, "
    "max_delay=0.05, timeout=2, total_seconds=4)\n"
    "from jeval_core.commands.cli import main\n"
    "sys.argv[0] = 'jeval'\n"
    "raise SystemExit(main())\n"
)


def run_cli(args, env=None, stdin: bytes | None = None, short_policy=False,
            timeout=120.0) -> Run:
    """Run jeval; its exit code, output, wall time and peak memory (from wait4)."""
    command = ([str(PYTHON), "-c", SHORT_POLICY_CLI] if short_policy else [str(JEVAL)])
    full_env = {k: v for k, v in os.environ.items() if k not in KEY_VARIABLES}
    full_env.update(env or {})
    started = time.monotonic()
    proc = subprocess.Popen([*command, *args], env=full_env, cwd=ROOT,
                            stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    streams: dict[str, bytes] = {}

    def read(name, pipe):
        streams[name] = pipe.read()

    readers = [threading.Thread(target=read, args=(n, p))
               for n, p in (("out", proc.stdout), ("err", proc.stderr))]
    if stdin is not None:
        def feed():
            try:
                proc.stdin.write(stdin)
                proc.stdin.close()
            except OSError:
                pass
        readers.append(threading.Thread(target=feed))
    for t in readers:
        t.start()
    done = threading.Event()
    killer = threading.Timer(timeout, lambda: None if done.is_set() else proc.kill())
    killer.start()
    _, wait_status, usage = os.wait4(proc.pid, 0)
    done.set()
    killer.cancel()
    proc.returncode = os.waitstatus_to_exitcode(wait_status)
    for t in readers:
        t.join()
    return Run(proc.returncode, streams["out"].decode("utf-8"), streams["err"].decode("utf-8"),
               time.monotonic() - started, usage.ru_maxrss / 1024)


def assert_one_line_failure(run: Run, codes: tuple[int, ...]) -> str:
    assert run.code in codes, f"exit {run.code}: {run.err[:300]!r}"
    assert run.err.endswith("\n") and run.err.count("\n") == 1, repr(run.err[:500])
    line = run.err[:-1]
    assert line.startswith("jeval: ")
    assert_safe_line(line, LIMIT + len("jeval: "))
    assert not leaked(run.out)
    if "Traceback" in line:  # only as quoted server text, never as our own
        assert line.index("Traceback") > line.index("the server said")
    return line


@pytest.fixture(scope="module")
def case_file(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("hostile") / "case.json"
    path.write_text(CASE_JSON)
    return path


def jev_env(server: HostileServer) -> dict[str, str]:
    return {"TYPESAFE_BASE_URL": server.url, "TYPESAFE_API_KEY": KEY}


@pytest.mark.parametrize("fault", fault_params())
def test_each_fault_through_the_cli_is_one_line_exit_3(fault, case_file):
    with HostileServer() as server:
        server.script("POST", PATH, *fault.responses)
        run = run_cli(["score", str(case_file), "--judge", "jev", "--base-url", server.url],
                      env=jev_env(server), short_policy=fault.slow)
    line = assert_one_line_failure(run, (3,))
    assert fault.says in line
    assert all(r.key == KEY for r in server.received("POST"))
    if fault.slow:
        startup = 3.0  # interpreter and imports, on a loaded machine
        assert run.elapsed < POLICY.total_seconds + MARGIN + startup, f"{run.elapsed:.1f} s"


def test_a_gzip_bomb_does_not_blow_up_the_cli(case_file):
    with HostileServer() as server:
        server.script("POST", PATH, status(401, echo_error_object))
        baseline = run_cli(["score", str(case_file), "--judge", "jev", "--base-url",
                            server.url], env=jev_env(server))
    with HostileServer() as server:
        server.script("POST", PATH, status(200, gzip_bomb(), Content_Encoding="gzip"))
        run = run_cli(["score", str(case_file), "--judge", "jev", "--base-url", server.url],
                      env=jev_env(server))
    assert_one_line_failure(run, (3,))
    growth = run.max_rss_mb - baseline.max_rss_mb
    assert growth < 200, f"max RSS grew {growth:.0f} MB"


def test_the_cli_never_sends_the_environment_key_to_a_typed_base_url(case_file):
    with HostileServer() as server, HostileServer() as configured:
        server.script("POST", PATH, status(200, answer_all))
        run = run_cli(["score", str(case_file), "--judge", "jev", "--base-url", server.url],
                      env=jev_env(configured))
    line = assert_one_line_failure(run, (3,))
    assert "no API key" in line
    assert server.requests == [] and configured.requests == []


def test_the_cli_with_no_key_says_so_and_sends_nothing(case_file):
    with HostileServer() as server:
        server.script("POST", PATH, status(200, answer_all))
        run = run_cli(["score", str(case_file), "--judge", "jev"],
                      env={"TYPESAFE_BASE_URL": server.url})
    assert "no API key" in assert_one_line_failure(run, (3,))
    assert server.requests == []


def test_models_through_the_cli_with_a_release_date_object(case_file):
    listed = {"models": [{"name": "jev-latest", "description": f"{ANSI_CLEAR}{KEY}",
                          "release_date": {"y": 2025}}]}
    with HostileServer() as server:
        server.script("GET", MODELS, status(200, listed))
        run = run_cli(["models", "--base-url", server.url], env=jev_env(server))
    assert run.code == 0 and run.err == ""
    assert "jev-latest" in run.out and "\x1b" not in run.out and not leaked(run.out)


@pytest.mark.parametrize("fault", fault_params(MODEL_FAULTS))
def test_models_faults_through_the_cli_are_one_line_exit_3(fault):
    with HostileServer() as server:
        server.script("GET", MODELS, *fault.responses)
        run = run_cli(["models", "--base-url", server.url], env=jev_env(server))
    assert fault.says in assert_one_line_failure(run, (3,))


def test_a_good_answer_with_hostile_metadata_prints_cleanly(case_file):
    def reply(request):
        return answers_for(request, model=f"{ANSI_CLEAR}{request.key}")

    with HostileServer() as server:
        server.script("POST", PATH, Reply(200, {"X-TypeSafe-Request-Id": f"{ANSI_LINK}{KEY}"},
                                          reply))
        for fmt in ("text", "json"):
            run = run_cli(["score", str(case_file), "--judge", "jev", "--base-url", server.url,
                           "--format", fmt], env=jev_env(server))
            assert run.code == 0, run.err
            assert not leaked(run.out + run.err)
            assert "\x1b" not in run.out and "\x07" not in run.out


# ---- bad input through the CLI -----------------------------------------------------------------

SURROGATE_CASE = ('{"input": "why \\ud800?", "output": "Because \\udfff. Yes \\ud800.", '
                  '"context": ["a \\ud800 chunk.", "\\udc00"]}')


@pytest.mark.parametrize("judge,fmt", [("local", "json"), ("lexical", "text"),
                                       ("lexical", "json")])
def test_lone_surrogates_score_fine(tmp_path, judge, fmt):
    path = tmp_path / "surrogates.json"
    path.write_text(SURROGATE_CASE)
    run = run_cli(["score", str(path), "--judge", judge, "--format", fmt])
    assert run.code == 0, run.err
    assert run.err == ""
    if fmt == "json":
        assert "\ufffd" in json.loads(run.out)["request"]["state"]["input"]


def test_lone_surrogates_reach_the_hosted_judge_as_valid_utf8(tmp_path):
    path = tmp_path / "surrogates.json"
    path.write_text(SURROGATE_CASE)
    with HostileServer() as server:
        server.script("POST", PATH, status(200, answer_all))
        run = run_cli(["score", str(path), "--judge", "jev", "--base-url", server.url],
                      env=jev_env(server))
    assert run.code == 0, run.err
    sent = server.received("POST")[0].body.decode("utf-8")  # strict: valid UTF-8
    assert "\ufffd" in sent


def _bad_files(tmp: Path, write_them: bool = True) -> dict[str, tuple[list[str], bytes | None]]:
    """name -> (argv after `score`, stdin bytes); the files are written under `tmp`."""
    def write(name: str, data: bytes) -> str:
        path = tmp / name
        if write_them:
            path.write_bytes(data)
        return str(path)

    def case_with(**fields) -> bytes:
        return json.dumps({"input": "q?", "context": ["c."], **fields}).encode()

    return {
        "deep-array-100k": ([write("deep.json", DEEP.encode())], None),
        "deep-object-100k": ([write("deepo.json", b'{"a":' * 100_000)], None),
        "deep-in-a-field": ([write("deepf.json", b'{"input": ' + DEEP.encode() + b"}")], None),
        "deep-unclosed": ([write("open.json", b"[" * 100_000)], None),
        "deep-on-stdin": (["-"], DEEP.encode()),
        "5000-digit-integer": ([write("digits.json", DIGITS.encode())], None),
        "5000-digit-threshold": ([write("digt.json", b'{"input": "q?", "context": ["c."], '
                                        b'"thresholds": {"toxicity": ' + DIGITS.encode()
                                        + b"}}")], None),
        "threshold-1e400": ([write("t400.json", b'{"input": "q?", "context": ["c."], '
                                   b'"thresholds": {"toxicity": 1e400}}')], None),
        "threshold-NaN": ([write("tnan.json", b'{"input": "q?", "context": ["c."], '
                                 b'"thresholds": {"toxicity": NaN}}')], None),
        "threshold-10**400-int": ([write("tint.json", b'{"input": "q?", "context": ["c."], '
                                         b'"thresholds": {"toxicity": '
                                         + str(10**400).encode() + b"}}")], None),
        "over-the-size-cap-9mb": ([write("big.json", case_with(output="x" * (9 * 2**20)))],
                                  None),
        "dev-zero": (["/dev/zero"], None),
        "binary-file": ([write("bin.json", bytes(range(256)) * 64)], None),
        "utf8-with-nul": ([write("nul.json", b'{"input": "a\x00b"}')], None),
        "surrogate-as-raw-bytes": ([write("cesu.json", b'{"input": "\xed\xa0\x80"}')], None),
        "empty-file": ([write("empty.json", b"")], None),
        "only-a-bom": ([write("bom.json", b"\xef\xbb\xbf")], None),
        "top-level-list": ([write("list.json", b"[]")], None),
        "top-level-null": ([write("null.json", b"null")], None),
        "unknown-key-typo": ([write("typo.json", case_with(contxt=["x"]))], None),
        "ansi-in-a-key": ([write("ansi.json", json.dumps({ANSI_CLEAR + MULTI_LINE: 1})
                                 .encode())], None),
        "two-keys-one-field": ([write("two.json", case_with(question="again?"))], None),
        "only-zero-width-input": ([write("zw.json", json.dumps(
            {"input": "\u200b\u200b\ufeff", "output": "o.", "context": ["c."]}).encode())],
            None),
        "a-folder": ([str(tmp)], None),
        "no-such-file": ([str(tmp / "missing.json")], None),
        "invalid-utf8-path": ([os.fsdecode(bytes(tmp / "x") + b"\xff\x1b[2J.json")], None),
        "empty-evaluator-list": ([write("noev.json", case_with(evaluators=[]))], None),
        "evaluators-flag-empty": ([write("ok1.json", case_with()), "--evaluators", ""], None),
        "threshold-flag-nan": ([write("ok2.json", case_with()), "--threshold",
                                "toxicity=nan"], None),
        "threshold-flag-inf": ([write("ok3.json", case_with()), "--threshold",
                                "toxicity=1e999"], None),
        "unknown-judge": ([write("ok4.json", case_with()), "--judge", "gpt"], None),
        "key-pasted-as-an-option": ([write("ok5.json", case_with()), f"--api-key={KEY}"],
                                    None),
        "key-pasted-as-an-argument": ([write("ok6.json", case_with()), KEY], None),
    }


BAD_FILES = list(_bad_files(Path("/nonexistent"), write_them=False))


@pytest.mark.parametrize("name", BAD_FILES)
def test_bad_input_is_one_line_exit_2(tmp_path, name):
    argv, stdin = _bad_files(tmp_path)[name]
    run = run_cli(["score", *argv, "--judge", "lexical"] if "--judge" not in argv
                  else ["score", *argv], stdin=stdin, env={"TYPESAFE_API_KEY": KEY})
    assert_one_line_failure(run, (2,))


BAD_URLS = ["http://127.0.0.1:abc", "http://[::1", "http://a..b", "http://127.0.0.1:99999",
            "ftp://127.0.0.1", f"http://user:{KEY}@127.0.0.1", "http://\x1b[2J", "http://",
            "http:///v1", f"http://127.0.0.1/?key={KEY}", "http://[::1]:-1",
            "http://" + "a" * 5000 + ".example"]


@pytest.mark.parametrize("url", BAD_URLS, ids=range(len(BAD_URLS)))
def test_a_malformed_base_url_is_one_line_exit_2_or_3(case_file, url):
    with HostileServer() as server:
        run = run_cli(["score", str(case_file), "--judge", "jev", "--base-url", url],
                      env=jev_env(server))
        assert server.requests == []
    assert_one_line_failure(run, (2, 3))


@pytest.mark.parametrize("url", ["http://127.0.0.1:abc", "http://[::1", "http://a..b"])
def test_a_malformed_configured_base_url_is_one_line_too(case_file, url):
    run = run_cli(["score", str(case_file), "--judge", "jev"],
                  env={"TYPESAFE_BASE_URL": url, "TYPESAFE_API_KEY": KEY})
    assert_one_line_failure(run, (2, 3))


# ---- properties ------------------------------------------------------------------------------

SPICE = ["\ud800", "\udfff", "\udc00", "\u200b", "\ufeff", "\u202e", "\x1b[2J", "\x00", "[",
         "{", "\n", "1.", "e.g.", "$4.50"]
ANY_CHAR = st.characters(exclude_categories=())  # surrogates included
TEXT = st.lists(ANY_CHAR | st.sampled_from(SPICE), max_size=30).map("".join)
WORDY = st.lists(st.sampled_from(["Keys", "rotate", "fast.", "The", "old", "key", "\u200b",
                                  "\ud800", "is", "revoked.", "\n\n", "idiot", "1."]),
                 max_size=12).map(" ".join)
LEAF = (st.none() | st.booleans() | st.integers(-2**70, 2**70)
        | st.floats(allow_nan=True, allow_infinity=True) | TEXT)
JSONISH = st.recursive(LEAF, lambda inner: st.lists(inner, max_size=4)
                       | st.dictionaries(TEXT, inner, max_size=4), max_leaves=10)
KEYS = st.sampled_from([*casefile.KNOWN, "contexts ", "contxt", "Input", "judge"]) | TEXT
EVALUATOR_NAMES = st.sampled_from([*evaluators.NAMES, "contextual_relevancy", "nope", ""])
CASE_LIKE = st.fixed_dictionaries(
    {"input": WORDY | TEXT},
    optional={
        "output": WORDY | TEXT | JSONISH,
        "expected": WORDY | TEXT | st.none(),
        "context": st.lists(WORDY | TEXT, max_size=4) | JSONISH,
        "evaluators": st.lists(EVALUATOR_NAMES, max_size=3) | JSONISH,
        "thresholds": st.dictionaries(EVALUATOR_NAMES, st.floats(0, 1) | LEAF, max_size=2)
        | JSONISH,
        "description": TEXT | JSONISH,
        "truth": JSONISH,
        "actual_output": WORDY,
    },
)
CASE_DICTS = CASE_LIKE | st.dictionaries(KEYS, JSONISH, max_size=5)
LEXICAL = judges.get("lexical")


def test_casefile_parse_raises_only_case_errors_and_scores_when_it_parses():
    seen: Counter[str] = Counter()

    @settings(max_examples=400, deadline=None, derandomize=True,
              suppress_health_check=[HealthCheck.too_slow])
    @given(CASE_DICTS)
    def parse_then_score(data):
        try:
            loaded = casefile.parse(data)
        except CaseError as err:
            assert_safe_line(str(err))
            seen["refused"] += 1
            return
        try:
            report = score(loaded.case, loaded.chosen(), LEXICAL, loaded.thresholds)
        except JevalError as err:
            assert_safe_line(str(err))
            seen["not scored"] += 1
            return
        json.dumps(report.to_dict(), allow_nan=False, ensure_ascii=False).encode("utf-8")
        render_text(report).encode("utf-8")
        seen["scored"] += 1

    parse_then_score()
    assert seen["scored"] >= 40, seen  # a property where everything raised proves nothing
    assert seen["refused"] >= 40, seen


def test_casefile_decode_of_arbitrary_bytes_raises_only_case_errors():
    seen: Counter[str] = Counter()

    @settings(max_examples=300, deadline=None, derandomize=True)
    @given(st.binary(max_size=200) | JSONISH.map(lambda v: json.dumps(v).encode())
           | CASE_LIKE.map(lambda v: json.dumps(v).encode()))
    def decode(raw):
        try:
            casefile.decode(raw, "case.json")
            seen["ok"] += 1
        except CaseError as err:
            assert_safe_line(str(err))
            seen["refused"] += 1

    decode()
    assert seen["ok"] >= 20, seen


def _token(raw: bytes) -> str:
    return "v1." + base64.urlsafe_b64encode(zlib.compress(raw)).rstrip(b"=").decode()


TOKENS = st.one_of(
    TEXT,
    TEXT.map(lambda t: "v1." + t),
    st.integers(1, 400).map(lambda n: "v1." + "[" * n),
    st.integers(1, 120_000).map(lambda n: _token(b"[" * n)),
    JSONISH.map(lambda v: _token(json.dumps(v).encode())),  # \ud800 escapes: lone surrogates
    CASE_LIKE.map(lambda v: _token(json.dumps(v).encode())),
    st.binary(max_size=100).map(_token),
    st.binary(max_size=100).map(lambda b: "v1." + base64.urlsafe_b64encode(b).decode()),
    st.sampled_from([None, 0, b"v1.", ["v1."], "v1.", "v1.====", "v1." + "A" * 200_001,
                     _token(b" " * (2 * 2**20)), _token(b"[" * 297), "v1.\ud800"]),
)


def test_share_decode_raises_only_case_errors():
    seen: Counter[str] = Counter()

    @settings(max_examples=500, deadline=None, derandomize=True,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(TOKENS)
    def decode(token):
        try:
            share.decode(token)
            seen["ok"] += 1
        except CaseError as err:
            assert_safe_line(str(err))
            seen["refused"] += 1

    decode()
    assert seen["ok"] >= 10, seen


def test_share_links_round_trip():
    @settings(max_examples=150, deadline=None, derandomize=True)
    @given(WORDY | TEXT, WORDY | TEXT, st.lists(WORDY | TEXT, max_size=4),
           st.lists(st.sampled_from(evaluators.ALL), max_size=3, unique=True))
    def round_trip(question, answer, chunks, chosen):
        case = Case(input=question, output=answer, context=chunks)
        shared = share.decode(share.encode(case, chosen, "lexical"))
        assert shared.file.case == case and shared.judge == "lexical"
        assert shared.file.evaluators == (tuple(chosen) or None)

    round_trip()


def test_server_bodies_raise_only_judge_errors():
    asked = ["cr0", "fa0"]

    def shaped(v):
        return {"answers": {"cr0": {"type": "noul", "noul": v}, "fa0": v}, "usage": {
            "input_tokens": v}}

    @settings(max_examples=300, deadline=None, derandomize=True)
    @given(st.binary(max_size=200) | JSONISH.map(lambda v: json.dumps(v).encode())
           | JSONISH.map(lambda v: json.dumps(shaped(v)).encode()))
    def read(raw):
        detail = wire.error_detail(raw)
        if detail:
            assert_safe_line(detail, 200)
        try:
            data = wire.loads(raw, "http://127.0.0.1")
            wire.answers(data, asked, "http://127.0.0.1")
            wire.input_tokens(data, "http://127.0.0.1")
            wire.models(data, "http://127.0.0.1")
        except JudgeError as err:
            assert_safe_line(str(err))

    read()


def test_one_line_never_shows_the_key_or_an_escape():
    text.remember_secret(KEY)

    @settings(max_examples=300, deadline=None, derandomize=True)
    @given(TEXT, TEXT, st.integers(0, 2000), st.sampled_from(
        [KEY, KEY[:8] + "..." + KEY[-4:], KEY[5:20], KEY[-8:], f"Bearer {KEY}"]))
    def shown(before, after, pad, secret):
        line = text.one_line(before + "x" * pad + secret + after, 400)
        assert len(line) <= 400
        assert not leaked(line)
        assert not any(unicodedata.category(c) in ("Cc", "Cs") or c in BIDI for c in line)

    shown()


def test_a_requests_own_echoed_key_is_redacted_whatever_other_sessions_registered():
    # Visitor A's judge is made first; then a busy server sees 200 other visitors' keys.
    with HostileServer() as server:
        server.script("POST", PATH, status(401, echo_error_object))
        judge = judge_for(server)
        for i in range(200):
            Secret(f"sk-other-visitor-{i:04d}-zzzzzzzz")
        try:
            with pytest.raises(JevalError) as caught:
                score(CASE, None, judge)
        finally:
            judge.close()
    assert_one_judge_error(caught.value)
    assert server.received("POST", PATH)[0].key == KEY

"""The hosted Jev judge: TypeSafe System One over httpx (and any Jev-compatible server).

One POST per case, whatever the number of evaluators. Retries 408/429/5xx, timeouts and
connection errors with backoff and jitter, honouring retry-after-ms / retry-after, inside a
total time budget; every failure ends in one clear JudgeError. The API key lives only in the
Authorization header: never in a URL, a log line, a message or a repr.
"""

from __future__ import annotations

import email.utils
import json
import math
import os
import random
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import httpx

from ..errors import JudgeError
from ..questions import Question
from ..request import DEFAULT_MODEL
from .base import Answers, Usage

DEFAULT_BASE_URL = "https://api.typesafe.ai"
KEY_ENV = "TYPESAFE_API_KEY"
BASE_URL_ENV = "TYPESAFE_BASE_URL"
OPENROUTER_KEY_ENV = "OPENROUTER_API_KEY"
REQUEST_ID_HEADER = "x-typesafe-request-id"


@dataclass(frozen=True)
class RetryPolicy:
    """How hard to try: attempts, backoff, per-request timeout and a total time budget."""

    attempts: int = 5
    base_delay: float = 0.5
    max_delay: float = 8.0
    timeout: float = 60.0
    total_seconds: float = 180.0


class Secret:
    """An API key that will not print itself."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def reveal(self) -> str:
        return self._value

    def __repr__(self) -> str:
        return "Secret('********')"

    __str__ = __repr__

    def __bool__(self) -> bool:
        return bool(self._value)


def key_from_env(base_url: str) -> Secret | None:
    """TYPESAFE_API_KEY, or OPENROUTER_API_KEY when the base URL is OpenRouter's."""
    names = [KEY_ENV]
    if "openrouter.ai" in (urlsplit(base_url).hostname or ""):
        names.insert(0, OPENROUTER_KEY_ENV)
    for name in names:
        value = os.environ.get(name, "").strip()
        if value:
            return Secret(value)
    return None


def normalise_base_url(url: str | None) -> str:
    """The server root without a trailing slash; refuses anything that is not plain http(s)."""
    url = (url or os.environ.get(BASE_URL_ENV) or DEFAULT_BASE_URL).strip().rstrip("/")
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise JudgeError(f"the base URL {url!r} is not an http(s) address; "
                         f"use e.g. {DEFAULT_BASE_URL}")
    if parts.username or parts.password or parts.query or parts.fragment:
        raise JudgeError("the base URL must be a plain server address (no user, password, "
                         "query or fragment): the key goes in TYPESAFE_API_KEY, never in a URL")
    return url


class JevJudge:
    """The real judge: answers come from a Jev-compatible server, billed per input token."""

    name = "jev"
    approximates = False
    note = "The hosted Jev judge answered every question in one request."

    def __init__(
        self,
        api_key: str | Secret | None = None,
        base_url: str | None = None,
        model: str = DEFAULT_MODEL,
        retry: RetryPolicy = RetryPolicy(),
        transport: httpx.BaseTransport | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.base_url = normalise_base_url(base_url)
        if isinstance(api_key, str):
            api_key = Secret(api_key.strip()) if api_key.strip() else None
        self._key = api_key if api_key is not None else key_from_env(self.base_url)
        self.model = model
        self.retry = retry
        self._sleep = sleep
        headers = {"Content-Type": "application/json", "Accept": "application/json",
                   "User-Agent": "jeval-playground"}
        if self._key:
            headers["Authorization"] = f"Bearer {self._key.reveal()}"
        self._client = httpx.Client(base_url=self.base_url, headers=headers,
                                    timeout=retry.timeout, transport=transport)

    def __repr__(self) -> str:
        key = "********" if self._key else "none"
        return f"JevJudge(base_url={self.base_url!r}, model={self.model!r}, key={key})"

    @property
    def has_key(self) -> bool:
        return bool(self._key)

    def close(self) -> None:
        self._client.close()

    def answer(self, state: Mapping[str, Any], questions: Mapping[str, Question]) -> Answers:
        body = {"model": self.model, "state": state,
                "questions": {qid: q.wire() for qid, q in questions.items()}}
        response = self._send("POST", "/v1/systemone", body)
        data = _json(response, self.base_url)
        return Answers(
            p=_answers(data, questions, self.base_url),
            usage=Usage(_input_tokens(data, self.base_url), 1),
            model=data.get("model") if isinstance(data.get("model"), str) else None,
            request_id=response.headers.get(REQUEST_ID_HEADER),
        )

    def models(self) -> list[dict[str, Any]]:
        """GET /v1/models: [{name, description, release_date}, ...]."""
        data = _json(self._send("GET", "/v1/models", None), self.base_url)
        models = data.get("models") if isinstance(data, dict) else None
        if not isinstance(models, list) or not all(
                isinstance(m, dict) and isinstance(m.get("name"), str) for m in models):
            raise JudgeError(f"{self.base_url}/v1/models did not list models as "
                             '{"models": [{"name": ...}]}; is this a Jev-compatible server?')
        return models

    def _send(self, method: str, path: str, body: Any) -> httpx.Response:
        started = time.monotonic()
        policy = self.retry
        for attempt in range(1, policy.attempts + 1):
            problem, wait = None, None
            try:
                response = self._client.request(
                    method, path, content=None if body is None else json.dumps(body))
            except httpx.TimeoutException:
                problem = f"no answer from {self.base_url} within {policy.timeout:g} s"
            except httpx.TransportError as err:
                problem = f"cannot reach {self.base_url} ({_reason(err)})"
            else:
                if response.status_code < 400:
                    return response
                if not _retryable(response.status_code):
                    raise JudgeError(_failure(response, self.base_url, self.model))
                problem = _failure(response, self.base_url, self.model)
                wait = _retry_after(response)
            if attempt == policy.attempts:
                break
            delay = wait if wait is not None else random.uniform(
                0, min(policy.max_delay, policy.base_delay * 2 ** (attempt - 1)))
            if time.monotonic() - started + delay > policy.total_seconds:
                raise JudgeError(f"{problem}; gave up after {attempt} tries within the "
                                 f"{policy.total_seconds:g} s budget, try again later")
            self._sleep(delay)
        raise JudgeError(f"{problem}; gave up after {policy.attempts} tries, try again later")


def _retryable(status: int) -> bool:
    return status in (408, 429) or status >= 500


def _retry_after(response: httpx.Response) -> float | None:
    """Seconds the server asked us to wait, from retry-after-ms or retry-after."""
    ms = response.headers.get("retry-after-ms")
    if ms:
        try:
            return max(0.0, float(ms) / 1000)
        except ValueError:
            pass
    after = response.headers.get("retry-after")
    if after:
        try:
            return max(0.0, float(after))
        except ValueError:
            when = email.utils.parsedate_to_datetime(after) if after.strip() else None
            if when is not None:
                return max(0.0, when.timestamp() - time.time())
    return None


def _failure(response: httpx.Response, base_url: str, model: str) -> str:
    """One line for a failed response, built from any of the three error-body shapes."""
    status = response.status_code
    detail = _detail(response)
    said = f": {detail}" if detail else ""
    if status == 401:
        return (f"the server rejected the API key (401){said}; set {KEY_ENV} to a valid key")
    if status == 403:
        return f"the API key is not allowed to do this (403){said}; check the key's access"
    if status == 404:
        return (f"not found (404){said}; check the base URL ({base_url}) and the model "
                f"name ({model})")
    if status == 429:
        return f"rate limited (429){said}"
    if status == 408:
        return f"the server timed out reading the request (408){said}"
    if status >= 500:
        busy = "overloaded" if status == 529 else "failing"
        return f"the server is {busy} ({status}){said}"
    return f"the server rejected the request ({status}){said}"


def _detail(response: httpx.Response) -> str:
    try:
        data = json.loads(response.text)
    except ValueError:
        text = " ".join(response.text.split())
        return text[:200]
    if isinstance(data, dict):
        detail = data.get("detail")
        if isinstance(detail, list) and detail and isinstance(detail[0], dict):
            first = detail[0]
            loc = ".".join(str(x) for x in first.get("loc", []) if x != "body")
            more = f" (and {len(detail) - 1} more)" if len(detail) > 1 else ""
            return f"{first.get('msg', 'invalid')}{f' at {loc}' if loc else ''}{more}"
        if isinstance(detail, dict):
            kind = detail.get("error_type")
            return f"{detail.get('message', '')}{f' ({kind})' if kind else ''}".strip()
        if isinstance(detail, str):
            return detail[:200]
        error = data.get("error")
        if isinstance(error, dict):
            field = error.get("field")
            return f"{error.get('message', '')}{f' (field {field})' if field else ''}".strip()
        if isinstance(error, str):
            return error[:200]
    return " ".join(response.text.split())[:200]


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _json(response: httpx.Response, base_url: str) -> Any:
    try:
        return json.loads(response.text, parse_constant=_reject_constant)
    except ValueError as err:
        raise JudgeError(f"{base_url} answered with a body that is not valid JSON ({err}); "
                         "check the base URL points at a Jev-compatible server") from None


def _answers(data: Any, questions: Mapping[str, Question], base_url: str) -> dict[str, float]:
    answers = data.get("answers") if isinstance(data, dict) else None
    if not isinstance(answers, dict):
        raise JudgeError(f"{base_url} sent no \"answers\" object; is it a Jev-compatible server?")
    extra = sorted(set(answers) - set(questions))
    if extra:
        raise JudgeError(f"{base_url} answered questions nobody asked ({', '.join(extra[:3])}); "
                         "its answers cannot be trusted, try again or report the server")
    missing = [qid for qid in questions if qid not in answers]
    if missing:
        raise JudgeError(f"{base_url} did not answer {len(missing)} of {len(questions)} "
                         f"questions ({missing[0]}, ...); try again")
    p = {}
    for qid in questions:
        answer = answers[qid]
        if not isinstance(answer, dict) or answer.get("type") != "noul":
            kind = answer.get("type") if isinstance(answer, dict) else type(answer).__name__
            raise JudgeError(f"{base_url} answered {qid} as {kind!r}, not a noul answer")
        value = answer.get("noul")
        if (isinstance(value, bool) or not isinstance(value, (int, float))
                or not math.isfinite(value) or not 0.0 <= value <= 1.0):
            raise JudgeError(f"{base_url} answered {qid} with noul={value!r}, not a "
                             "probability between 0 and 1")
        p[qid] = float(value)
    return p


def _input_tokens(data: Any, base_url: str) -> int:
    usage = data.get("usage")
    tokens = usage.get("input_tokens") if isinstance(usage, dict) else None
    if isinstance(tokens, bool) or not isinstance(tokens, int) or tokens < 0:
        raise JudgeError(f"{base_url} sent no usable usage.input_tokens (got {tokens!r}); "
                         "without it the cost is unknown, so the answer is refused")
    return tokens


def _reason(err: httpx.TransportError) -> str:
    text = str(err) or type(err).__name__
    return text.split("\n")[0][:120]

"""The hosted Jev judge: TypeSafe System One over httpx (and any Jev-compatible server).

One POST per case, whatever the number of evaluators: the packed body, as built by
`request.pack`, sent as it is. Retries 408/429/5xx, timeouts and connection errors with
backoff and jitter, honouring retry-after-ms / retry-after, under the client-side rate
limiter, all inside ONE deadline that covers connecting, every read and every retry.
Replies are read with a size cap and validated by `wire`. The API key lives only in the
Authorization header: never in a URL, a log line, a message or a repr, and it is sent only
to the server it was configured for.
"""

from __future__ import annotations

import email.utils
import math
import os
import random
import threading
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import httpx

from .. import wire
from ..errors import CaseError, JudgeError
from ..limits import RateLimiter
from ..text import one_line, own_secrets, remember_secret
from .base import Answers, Usage

if TYPE_CHECKING:
    from ..request import Packed

DEFAULT_BASE_URL = "https://api.typesafe.ai"
KEY_ENV = "TYPESAFE_API_KEY"
BASE_URL_ENV = "TYPESAFE_BASE_URL"
OPENROUTER_KEY_ENV = "OPENROUTER_API_KEY"
OPENROUTER_HOST = "openrouter.ai"
REQUEST_ID_HEADER = "x-typesafe-request-id"


@dataclass(frozen=True)
class RetryPolicy:
    """How hard to try: attempts, backoff, per-read timeout and ONE total deadline."""

    attempts: int = 5
    base_delay: float = 0.5
    max_delay: float = 8.0
    timeout: float = 60.0
    total_seconds: float = 180.0

    def __post_init__(self) -> None:
        if isinstance(self.attempts, bool) or not isinstance(self.attempts, int) or (
                self.attempts < 1):
            raise ValueError(f"attempts must be a whole number >= 1, not {self.attempts!r}")
        for name in ("base_delay", "max_delay", "timeout", "total_seconds"):
            value = getattr(self, name)
            if not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
                raise ValueError(f"{name} must be a finite number >= 0, not {value!r}")


class Secret:
    """An API key that will not print itself; every message made afterwards is redacted of it."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value.strip()
        remember_secret(self._value)

    def reveal(self) -> str:
        return self._value

    def __repr__(self) -> str:
        return "Secret('********')"

    __str__ = __repr__

    def __bool__(self) -> bool:
        return bool(self._value)


def normalise_base_url(url: str | None) -> str:
    """The server root without a trailing slash, or a CaseError (bad input, exit 2) saying
    what is wrong."""
    raw = url if url is not None and url.strip() else (
        os.environ.get(BASE_URL_ENV) or DEFAULT_BASE_URL)
    raw = raw.strip().rstrip("/")
    shown = one_line(raw, 80)
    example = f"use e.g. {DEFAULT_BASE_URL}"
    try:
        parts = urlsplit(raw)
        _ = parts.port  # raises on a port that is not a number
        host = parts.hostname or ""
        httpx.URL(raw)
    except (ValueError, httpx.InvalidURL) as err:
        raise CaseError(f"the base URL {shown!r} is not a valid address "
                         f"({one_line(err, 60)}); {example}") from None
    if parts.scheme not in ("http", "https") or not host:
        raise CaseError(f"the base URL {shown!r} is not an http(s) address; {example}")
    if ":" not in host and any(not label for label in host.split(".")):
        raise CaseError(f"the base URL {shown!r} has an empty part in its host name; {example}")
    if parts.username or parts.password or parts.query or parts.fragment:
        raise CaseError("the base URL must be a plain server address (no user, password, "
                         "query or fragment): the key goes in TYPESAFE_API_KEY, never in a URL")
    return raw


def configured_base_url() -> str:
    """The server the environment's key belongs to: TYPESAFE_BASE_URL or the default."""
    return normalise_base_url(os.environ.get(BASE_URL_ENV) or DEFAULT_BASE_URL)


def key_from_env(base_url: str) -> Secret | None:
    """The environment's key for `base_url`, only if it was configured for that server.

    TYPESAFE_API_KEY goes only to TYPESAFE_BASE_URL (or the default server); OPENROUTER_API_KEY
    only to https://openrouter.ai itself. Any other server gets a key typed for it, or none.
    """
    url = normalise_base_url(base_url)
    parts = urlsplit(url)
    if parts.scheme == "https" and parts.hostname == OPENROUTER_HOST:
        value = os.environ.get(OPENROUTER_KEY_ENV, "").strip()
        if value:
            return Secret(value)
    if url == configured_base_url():
        value = os.environ.get(KEY_ENV, "").strip()
        if value:
            return Secret(value)
    return None


class _Late(Exception):
    """The deadline passed while reading."""


class _TooLarge(Exception):
    """The reply grew past wire.MAX_REPLY_BYTES."""


class Cancelled(JudgeError):
    """`cancel()` was called while the request was in flight: its answer will not be read."""


@dataclass(frozen=True)
class _Reply:
    status: int
    headers: httpx.Headers
    body: bytes


class JevJudge:
    """The real judge: answers come from a Jev-compatible server, billed per input token."""

    name = "jev"
    approximates = False
    calibration: str | None = None  # the hosted judge takes no calibration profile
    note = "The hosted Jev judge answered every question in one request."
    price_per_billion_input_tokens = wire.PRICE_PER_BILLION_INPUT_TOKENS_USD

    def __init__(
        self,
        api_key: str | Secret | None = None,
        base_url: str | None = None,
        model: str = wire.DEFAULT_MODEL,
        retry: RetryPolicy | None = None,
        transport: httpx.BaseTransport | None = None,
        sleep: Callable[[float], None] = time.sleep,
        limiter: RateLimiter | None = None,
    ) -> None:
        self.base_url = normalise_base_url(base_url)
        if isinstance(api_key, str):
            api_key = Secret(api_key) if api_key.strip() else None
        self._key = api_key if api_key else key_from_env(self.base_url)
        self.model: str | None = (model or "").strip() or wire.DEFAULT_MODEL
        self.retry = retry or RetryPolicy()
        self.limiter = limiter or RateLimiter()
        self._sleep = sleep
        self._cancelled = threading.Event()
        headers = {"Content-Type": "application/json", "Accept": "application/json",
                   "Accept-Encoding": "gzip, deflate"}
        if self._key:
            headers["Authorization"] = f"Bearer {self._key.reveal()}"
        self._client = httpx.Client(base_url=self.base_url, headers=headers,
                                    timeout=self.retry.timeout, transport=transport,
                                    follow_redirects=False)

    def __repr__(self) -> str:
        key = "********" if self._key else "none"
        return f"JevJudge(base_url={self.base_url!r}, model={self.model!r}, key={key})"

    @property
    def has_key(self) -> bool:
        return bool(self._key)

    def warm_up(self) -> None:
        return None

    def close(self) -> None:
        self._client.close()

    def cancel(self) -> None:
        """Stop a request in flight from another thread: the caller of `answer` gets
        `Cancelled` at once (no retry follows), and the reply is not read any further. A
        request already sent may still be billed by the server."""
        self._cancelled.set()

    def _check_cancelled(self) -> None:
        if self._cancelled.is_set():
            raise Cancelled("cancelled: a newer request superseded this one")

    def answer(self, packed: Packed) -> Answers:
        with own_secrets(self._key.reveal() if self._key else ""):
            return self._answer(packed)

    def _answer(self, packed: Packed) -> Answers:
        self._require_key()
        reply = self._send("POST", "/v1/systemone", wire.encode(packed.body),
                           packed.tokens.total)
        data = wire.loads(reply.body, self.base_url)
        request_id = reply.headers.get(REQUEST_ID_HEADER)
        return Answers(
            p=wire.answers(data, packed.asked, self.base_url),
            usage=Usage(wire.input_tokens(data, self.base_url), 1),
            model=wire.model_of(data),
            request_id=one_line(request_id, 100) or None if request_id else None,
        )

    def models(self) -> list[wire.Model]:
        """GET /v1/models: the models this server offers."""
        with own_secrets(self._key.reveal() if self._key else ""):
            self._require_key()
            reply = self._send("GET", "/v1/models", None, 0)
            return wire.models(wire.loads(reply.body, self.base_url), self.base_url)

    def _require_key(self) -> None:
        if self._key:
            return
        configured = configured_base_url()
        if self.base_url == configured:
            hint = f"set {KEY_ENV}"
        elif not os.environ.get(KEY_ENV, "").strip():
            # no key in the environment at all: where one would go is beside the point
            hint = (f"type a key for this server (or set {KEY_ENV} with {BASE_URL_ENV}="
                    f"{self.base_url})")
        else:
            hint = (f"type a key for this server; the key in {KEY_ENV} is only sent to "
                    f"{configured} ({BASE_URL_ENV})")
        raise JudgeError(f"no API key for {self.base_url}: {hint}. Nothing was sent")

    def _send(self, method: str, path: str, content: bytes | None, tokens: int) -> _Reply:
        policy = self.retry
        deadline = time.monotonic() + policy.total_seconds
        problem = "no attempt was made"
        for attempt in range(1, policy.attempts + 1):
            self._check_cancelled()
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                break
            if self.limiter.acquire(tokens, timeout=remaining) is None:
                raise JudgeError(f"the client-side rate limit would hold this request past "
                                 f"the {policy.total_seconds:g} s budget; try again later")
            wait = None
            try:
                reply = self._attempt(method, path, content, deadline)
            except _Late:
                problem = f"no complete answer from {self.base_url} in time"
                break
            except _TooLarge:
                raise JudgeError(f"{self.base_url} sent a reply larger than "
                                 f"{wire.MAX_REPLY_BYTES // (1024 * 1024)} MB; is it a "
                                 "Jev-compatible server?") from None
            except httpx.TimeoutException:
                problem = f"no answer from {self.base_url} within {policy.timeout:g} s"
            except httpx.DecodingError:
                raise JudgeError(f"{self.base_url} sent a broken compressed reply; try again "
                                 "or check the server") from None
            except httpx.TransportError as err:
                problem = f"cannot reach {self.base_url} ({one_line(err, 120) or 'no reason'})"
            else:
                if 200 <= reply.status < 300:
                    return reply
                if 300 <= reply.status < 400:
                    where = one_line(reply.headers.get("location", "elsewhere"), 100)
                    raise JudgeError(f"{self.base_url} redirected to {where} ({reply.status}); "
                                     "use the final address as the base URL (redirects are "
                                     "not followed, so the key goes nowhere else)")
                problem = _failure(reply, self.base_url, self.model or wire.DEFAULT_MODEL)
                if not _retryable(reply.status):
                    raise JudgeError(problem)
                wait = _retry_after(reply.headers)
            if attempt == policy.attempts:
                raise JudgeError(f"{problem}; gave up after {attempt} tries, try again later")
            delay = wait if wait is not None else random.uniform(
                0, min(policy.max_delay, policy.base_delay * 2 ** (attempt - 1)))
            if time.monotonic() + delay >= deadline:
                raise JudgeError(f"{problem}; gave up after {attempt} tries within the "
                                 f"{policy.total_seconds:g} s budget, try again later")
            self._sleep(delay)
            self._check_cancelled()
        raise JudgeError(f"{problem}; gave up at the {policy.total_seconds:g} s budget, "
                         "try again later")

    def _attempt(
        self, method: str, path: str, content: bytes | None, deadline: float
    ) -> _Reply:
        """One exchange, cut off at the deadline however slowly the server sends."""
        outcome: list[Any] = []
        cancelled = threading.Event()

        def run() -> None:
            try:
                outcome.append(self._exchange(method, path, content, deadline, cancelled))
            except BaseException as err:  # handed to the caller's thread below
                outcome.append(err)

        worker = threading.Thread(target=run, name="jeval-jev", daemon=True)
        worker.start()
        while worker.is_alive():  # join returns the moment the exchange ends
            left = deadline - time.monotonic()
            if left <= 0 or self._cancelled.is_set():
                break
            worker.join(min(left, 0.05))
        if worker.is_alive():
            cancelled.set()
            self._check_cancelled()
            raise _Late()
        result = outcome[0]
        if isinstance(result, BaseException):
            raise result
        return result

    def _exchange(
        self, method: str, path: str, content: bytes | None, deadline: float,
        cancelled: threading.Event,
    ) -> _Reply:
        remaining = max(0.01, deadline - time.monotonic())
        timeout = httpx.Timeout(min(self.retry.timeout, remaining))
        with self._client.stream(method, path, content=content, timeout=timeout) as response:
            decode = _decoder(response.headers.get("content-encoding", ""))
            chunks, size = [], 0
            for raw in response.iter_raw():
                if cancelled.is_set() or time.monotonic() > deadline:
                    raise _Late()
                data = decode(raw, wire.MAX_REPLY_BYTES - size)
                size += len(data)
                chunks.append(data)
            data = decode(b"", wire.MAX_REPLY_BYTES - size)
            chunks.append(data)
            return _Reply(response.status_code, response.headers, b"".join(chunks))


def _decoder(encoding: str) -> Callable[[bytes, int], bytes]:
    """Bounded decompression: a small gzip reply cannot inflate past the size cap."""
    encoding = encoding.strip().lower()
    if encoding in ("", "identity"):
        def plain(data: bytes, room: int) -> bytes:
            if len(data) > room:
                raise _TooLarge()
            return data
        return plain
    if encoding not in ("gzip", "x-gzip", "deflate"):
        raise httpx.DecodingError(f"unsupported content-encoding {encoding[:20]!r}")
    inflater = zlib.decompressobj(zlib.MAX_WBITS | 32 if encoding != "deflate" else zlib.MAX_WBITS)

    def inflate(data: bytes, room: int) -> bytes:
        try:
            out = inflater.decompress(data, room + 1) if data else inflater.flush()
        except zlib.error:
            raise httpx.DecodingError("broken compressed body") from None
        if len(out) > room or inflater.unconsumed_tail:
            raise _TooLarge()
        return out
    return inflate


def _retryable(status: int) -> bool:
    return status in (408, 429) or status >= 500


def _retry_after(headers: httpx.Headers) -> float | None:
    """Seconds the server asked us to wait, from retry-after-ms or retry-after; None if unsaid
    or unreadable (then our own backoff applies)."""
    ms = headers.get("retry-after-ms", "").strip()
    if ms:
        try:
            value = float(ms) / 1000
            if math.isfinite(value):
                return max(0.0, value)
        except ValueError:
            pass
    after = headers.get("retry-after", "").strip()
    if not after:
        return None
    try:
        value = float(after)
        return max(0.0, value) if math.isfinite(value) else None
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(after)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if when.tzinfo is None:  # "-0000" means UTC with no zone known (RFC 5322), not local time
        when = when.replace(tzinfo=UTC)
    return max(0.0, when.timestamp() - time.time())


def _failure(reply: _Reply, base_url: str, model: str) -> str:
    """One line for a failed reply, built from any of the three error-body shapes."""
    status = reply.status
    detail = wire.error_detail(reply.body)
    said = f": the server said {detail!r}" if detail else ""
    if status == 401:
        return f"the server rejected the API key (401){said}; check the key for {base_url}"
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

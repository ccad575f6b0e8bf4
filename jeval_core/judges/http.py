"""What every judge that asks a server shares: the key, the base URL, and one HTTP exchange
with retries under one deadline.

Retries 408/429/5xx, timeouts and connection errors with backoff and jitter, honouring
retry-after-ms / retry-after, under the client-side rate limiter, all inside ONE deadline that
covers connecting, every read and every retry (the jev judge's per request, the openai
judge's per case). Replies are read with a size cap, compressed ones inflated with the same
cap. Redirects are never followed: the key would follow them. The key lives only in the
Authorization header: never in a URL, a log line, a message or a repr.
"""

from __future__ import annotations

import email.utils
import math
import random
import threading
import time
import zlib
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import UTC
from typing import Any
from urllib.parse import urlsplit

import httpx

from .. import wire
from ..errors import CaseError, JudgeError
from ..limits import RateLimiter
from ..text import one_line, own_secrets, remember_secret

MAX_REPLY_BYTES = wire.MAX_REPLY_BYTES


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


def as_secret(key: str | Secret | None) -> Secret | None:
    """A key given as text or as a Secret; None for none or blank."""
    if isinstance(key, str):
        return Secret(key) if key.strip() else None
    return key if key else None


def check_base_url(raw: str, example: str, key_variable: str) -> str:
    """`raw` as a server root without a trailing slash, or a CaseError (bad input, exit 2)
    saying what is wrong; `example` is a good address, `key_variable` where keys go."""
    raw = raw.strip().rstrip("/")
    shown = one_line(raw, 80)
    hint = f"use e.g. {example}"
    try:
        parts = urlsplit(raw)
        _ = parts.port  # raises on a port that is not a number
        host = parts.hostname or ""
        httpx.URL(raw)
    except (ValueError, httpx.InvalidURL) as err:
        raise CaseError(f"the base URL {shown!r} is not a valid address "
                         f"({one_line(err, 60)}); {hint}") from None
    if parts.scheme not in ("http", "https") or not host:
        raise CaseError(f"the base URL {shown!r} is not an http(s) address; {hint}")
    if ":" not in host and any(not label for label in host.split(".")):
        raise CaseError(f"the base URL {shown!r} has an empty part in its host name; {hint}")
    if parts.username or parts.password or parts.query or parts.fragment:
        raise CaseError("the base URL must be a plain server address (no user, password, "
                         f"query or fragment): the key goes in {key_variable}, never in a URL")
    return raw


class RequestCancelled(JudgeError):
    """`cancel()` was called while the request was in flight: its answer will not be read."""


class _Late(Exception):
    """The deadline passed while reading."""


class _TooLarge(Exception):
    """The reply grew past MAX_REPLY_BYTES."""


class _Redirected(Exception):
    """A 3xx reply: refused as it arrives, before httpx reads its Location (a malformed one
    would otherwise be an error of the transport, retried as a server out of reach)."""

    def __init__(self, status: int, location: str) -> None:
        super().__init__(status)
        self.status, self.location = status, location


def _refuse_redirect(response: httpx.Response) -> None:
    if 300 <= response.status_code < 400:
        raise _Redirected(response.status_code, response.headers.get("location", "elsewhere"))


@dataclass(frozen=True)
class Reply:
    status: int
    headers: httpx.Headers
    body: bytes


Failure = Callable[[Reply], str]  # one line for a reply that is not 2xx


class Connection:
    """One server, one client: `send` makes an exchange with retries inside a deadline.

    `what` names the kind of server in messages ("a Jev-compatible server"); `failure` says
    in one line why a reply that is not 2xx failed (each protocol knows its own errors).
    """

    def __init__(
        self,
        base_url: str,
        headers: Mapping[str, str],
        failure: Failure,
        what: str,
        retry: RetryPolicy | None = None,
        transport: httpx.BaseTransport | None = None,
        sleep: Callable[[float], None] = time.sleep,
        limiter: RateLimiter | None = None,
        limits: httpx.Limits | None = None,
    ) -> None:
        self.base_url = base_url
        self.retry = retry or RetryPolicy()
        self.limiter = limiter or RateLimiter()
        self._failure, self._what, self._sleep = failure, what, sleep
        self._cancelled = threading.Event()
        more: dict[str, Any] = {"limits": limits} if limits is not None else {}
        self._client = httpx.Client(base_url=base_url, headers=dict(headers),
                                    timeout=self.retry.timeout, transport=transport,
                                    follow_redirects=False,
                                    event_hooks={"response": [_refuse_redirect]}, **more)

    def close(self) -> None:
        self._client.close()

    def cancel(self) -> None:
        self._cancelled.set()

    def check_cancelled(self) -> None:
        if self._cancelled.is_set():
            raise RequestCancelled("cancelled: a newer request superseded this one")

    def loads(self, reply: Reply) -> Any:
        """The reply's body as JSON, or one line naming this server and the kind it should be
        (`what`: a Jev-compatible server, an OpenAI-compatible one)."""
        return wire.loads(reply.body, self.base_url, self._what)

    def deadline(self) -> float:
        """The monotonic time by which a whole exchange (retries included) must end."""
        return time.monotonic() + self.retry.total_seconds

    def send(self, method: str, path: str, content: bytes | None, tokens: int,
             deadline: float | None = None) -> Reply:
        """A 2xx reply to `method path`, or ONE JudgeError in one line."""
        policy = self.retry
        deadline = self.deadline() if deadline is None else deadline
        problem = "no attempt was made"
        for attempt in range(1, policy.attempts + 1):
            self.check_cancelled()
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
                                 f"{MAX_REPLY_BYTES // (1024 * 1024)} MB; is it "
                                 f"{self._what}?") from None
            except httpx.TimeoutException:  # the read timeout, or the deadline it was cut to
                problem = (f"no complete answer from {self.base_url} in time"
                           if time.monotonic() >= deadline - 0.05 else
                           f"no answer from {self.base_url} within {policy.timeout:g} s")
            except _Redirected as moved:
                raise JudgeError(_redirect_line(self.base_url, moved.status,
                                                moved.location)) from None
            except httpx.DecodingError:
                raise JudgeError(f"{self.base_url} sent a broken compressed reply; try again "
                                 "or check the server") from None
            except httpx.TransportError as err:
                problem = f"cannot reach {self.base_url} ({one_line(err, 120) or 'no reason'})"
            else:
                if 200 <= reply.status < 300:
                    return reply
                if 300 <= reply.status < 400:  # refused by _refuse_redirect already
                    raise JudgeError(_redirect_line(self.base_url, reply.status,
                                                    reply.headers.get("location", "elsewhere")))
                problem = self._failure(reply)
                if not retryable(reply.status):
                    raise JudgeError(problem)
                wait = retry_after(reply.headers)
            if attempt == policy.attempts:
                raise JudgeError(f"{problem}; gave up after {attempt} tries, try again later")
            delay = wait if wait is not None else random.uniform(
                0, min(policy.max_delay, policy.base_delay * 2 ** (attempt - 1)))
            if time.monotonic() + delay >= deadline:
                raise JudgeError(f"{problem}; gave up after {attempt} tries within the "
                                 f"{policy.total_seconds:g} s budget, try again later")
            self._sleep(delay)
            self.check_cancelled()
        raise JudgeError(f"{problem}; gave up at the {policy.total_seconds:g} s budget, "
                         "try again later")

    def _attempt(self, method: str, path: str, content: bytes | None, deadline: float) -> Reply:
        """One exchange, cut off at the deadline however slowly the server sends."""
        outcome: list[Any] = []
        cancelled = threading.Event()

        def run() -> None:
            try:
                outcome.append(self._exchange(method, path, content, deadline, cancelled))
            except BaseException as err:  # handed to the caller's thread below
                outcome.append(err)

        worker = threading.Thread(target=run, name="jeval-http", daemon=True)
        worker.start()
        while worker.is_alive():  # join returns the moment the exchange ends
            left = deadline - time.monotonic()
            if left <= 0 or self._cancelled.is_set():
                break
            worker.join(min(left, 0.05))
        if worker.is_alive():
            cancelled.set()
            self.check_cancelled()
            raise _Late()
        result = outcome[0]
        if isinstance(result, BaseException):
            raise result
        return result

    def _exchange(self, method: str, path: str, content: bytes | None, deadline: float,
                  cancelled: threading.Event) -> Reply:
        remaining = max(0.01, deadline - time.monotonic())
        timeout = httpx.Timeout(min(self.retry.timeout, remaining))
        with self._client.stream(method, path, content=content, timeout=timeout) as response:
            decode = _decoder(response.headers.get("content-encoding", ""))
            chunks, size = [], 0
            for raw in response.iter_raw():
                if cancelled.is_set() or time.monotonic() > deadline:
                    raise _Late()
                data = decode(raw, MAX_REPLY_BYTES - size)
                size += len(data)
                chunks.append(data)
            data = decode(b"", MAX_REPLY_BYTES - size)
            chunks.append(data)
            return Reply(response.status_code, response.headers, b"".join(chunks))


def _redirect_line(base_url: str, status: int, location: str) -> str:
    return (f"{base_url} redirected to {one_line(location, 100)} ({status}); use the final "
            "address as the base URL (redirects are not followed, so the key goes nowhere "
            "else)")


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


class ServerJudge:
    """What the judges that ask a server share: a key sent only in the Authorization header
    of their one Connection, a repr without it, closing and cancelling."""

    base_url: str
    model: str | None
    _key: Secret | None
    _http: Connection

    def _connect(self, key: Secret | None, failure: Failure, what: str,
                 retry: RetryPolicy | None, transport: httpx.BaseTransport | None,
                 sleep: Callable[[float], None], limiter: RateLimiter | None,
                 limits: httpx.Limits | None = None) -> None:
        self._key = key
        headers = {"Content-Type": "application/json", "Accept": "application/json",
                   "Accept-Encoding": "gzip, deflate"}
        if key:
            headers["Authorization"] = f"Bearer {key.reveal()}"
        self._http = Connection(self.base_url, headers, failure, what, retry, transport, sleep,
                                limiter, limits)

    def __repr__(self) -> str:
        key = "********" if self._key else "none"
        return f"{type(self).__name__}(base_url={self.base_url!r}, model={self.model!r}, key={key})"

    @property
    def has_key(self) -> bool:
        return bool(self._key)

    @property
    def settings(self) -> dict[str, Any]:
        return {}

    def warm_up(self) -> None:
        return None

    def close(self) -> None:
        self._http.close()

    def cancel(self) -> None:
        """Stop a request in flight from another thread: the caller of `answer` gets
        `RequestCancelled` at once (no retry follows), and the reply is not read any further. A
        request already sent may still be billed by the server."""
        self._http.cancel()

    def _own_key(self) -> AbstractContextManager[None]:
        """While answering: messages are redacted of this judge's own key, whatever else."""
        return own_secrets(self._key.reveal() if self._key else "")


def retryable(status: int) -> bool:
    return status in (408, 429) or status >= 500


def retry_after(headers: httpx.Headers) -> float | None:
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


def status_line(status: int, said: str, base_url: str, model: str) -> str:
    """One line for a failed status, with what the server said: a wrong key, a wrong model
    or address, a limit, a failing server."""
    said = f": the server said {said!r}" if said else ""
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

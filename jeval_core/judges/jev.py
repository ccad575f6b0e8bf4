"""The hosted Jev judge: TypeSafe System One over httpx (and any Jev-compatible server).

One POST per case, whatever the number of evaluators: the packed body, as built by
`request.pack`, sent as it is. Retries, the one deadline and the size cap are
`http.Connection`'s (shared with the openai judge); replies are validated by `wire`. The API
key lives only in the Authorization header: never in a URL, a log line, a message or a repr,
and it is sent only to the server it was configured for.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

import httpx

from .. import wire
from ..errors import JudgeError
from ..limits import RateLimiter
from ..text import one_line
from .base import Answers, Usage
from .http import (  # noqa: F401  (RequestCancelled, RetryPolicy: imported from here by callers)
    Reply,
    RequestCancelled,
    RetryPolicy,
    Secret,
    ServerJudge,
    as_secret,
    check_base_url,
    status_line,
)

if TYPE_CHECKING:
    from ..request import Packed

DEFAULT_BASE_URL = "https://api.typesafe.ai"
KEY_ENV = "TYPESAFE_API_KEY"
BASE_URL_ENV = "TYPESAFE_BASE_URL"
OPENROUTER_KEY_ENV = "OPENROUTER_API_KEY"
OPENROUTER_HOST = "openrouter.ai"
REQUEST_ID_HEADER = "x-typesafe-request-id"


def normalise_base_url(url: str | None) -> str:
    """The server root without a trailing slash, or a CaseError (bad input, exit 2) saying
    what is wrong."""
    raw = url if url is not None and url.strip() else (
        os.environ.get(BASE_URL_ENV) or DEFAULT_BASE_URL)
    return check_base_url(raw, DEFAULT_BASE_URL, KEY_ENV)


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


class JevJudge(ServerJudge):
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
        self.model: str | None = (model or "").strip() or wire.DEFAULT_MODEL
        self._connect(as_secret(api_key) or key_from_env(self.base_url), self._failure,
                      "a Jev-compatible server", retry or RetryPolicy(), transport, sleep,
                      limiter)
        self.retry, self.limiter = self._http.retry, self._http.limiter

    def answer(self, packed: Packed) -> Answers:
        with self._own_key():
            return self._answer(packed)

    def _answer(self, packed: Packed) -> Answers:
        self._require_key()
        reply = self._http.send("POST", "/v1/systemone", wire.encode(packed.body),
                                packed.tokens.total)
        data = self._http.loads(reply)
        request_id = reply.headers.get(REQUEST_ID_HEADER)
        return Answers(
            p=wire.answers(data, packed.asked, self.base_url),
            usage=Usage(wire.input_tokens(data, self.base_url), 1),
            model=wire.model_of(data),
            request_id=one_line(request_id, 100) or None if request_id else None,
        )

    def models(self) -> wire.ModelList:
        """GET /v1/models: the models this server offers."""
        with self._own_key():
            self._require_key()
            reply = self._http.send("GET", "/v1/models", None, 0)
            return wire.models(self._http.loads(reply), self.base_url)

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

    def _failure(self, reply: Reply) -> str:
        """One line for a failed reply, built from any of the three error-body shapes."""
        return status_line(reply.status, wire.error_detail(reply.body), self.base_url,
                           self.model or wire.DEFAULT_MODEL)

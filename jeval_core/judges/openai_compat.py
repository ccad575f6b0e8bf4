"""Your own LLM as the judge: any OpenAI-compatible server (Ollama, vLLM, llama.cpp, SGLang,
LM Studio, OpenAI itself), answering every question with a probability.

Each question is one request for a one-token answer (temperature 0, max_tokens 1, logprobs
with top_logprobs) and p(yes) comes from the token probabilities (`logprobs`), never from
parsed text. A question is sent with the texts it names (`openai_prompt`), or with
`prompt="case"` after the whole case as an identical prefix that a prefix cache reads once;
a case's requests go out concurrently within `concurrency`, all inside ONE
deadline for the case. On `/completions` a case's prompts go as one list in one request
(llama.cpp, vLLM). A question the model gave no yes/no probability for is an error that
names it, never a silent 0.5. Retries, backoff, the size cap and redirects are
`http.Connection`'s, as for the jev judge. The key (OPENAI_API_KEY) goes only to the server it
was configured for (OPENAI_BASE_URL, else OpenAI's): never in a URL, a message or a repr.
"""

from __future__ import annotations

import contextvars
import hashlib
import os
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import httpx

from .. import wire
from ..errors import CaseError, JudgeError
from ..limits import RateLimiter
from ..questions import Question
from ..text import one_line
from . import http, logprobs, openai_prompt
from .base import Answers, Usage
from .http import RetryPolicy, Secret, ServerJudge

if TYPE_CHECKING:
    from ..request import Packed

DEFAULT_BASE_URL = "https://api.openai.com/v1"
KEY_ENV = "OPENAI_API_KEY"
BASE_URL_ENV = "OPENAI_BASE_URL"
ENDPOINTS = ("chat", "completions")
TOP_LOGPROBS = 20  # OpenAI's and Ollama's most; llama.cpp and vLLM take more
CONCURRENCY = 4  # a case's questions in flight at once
MAX_CONCURRENCY = 64
CASE_DEADLINE_S = RetryPolicy().total_seconds  # a case's questions, retries included (180 s)
MAX_CASE_DEADLINE_S = 3600.0  # an hour for one case is already far past any model's answer
UNSURE_BELOW = 0.5  # yes + no under this share of the answer: the verdict reads unsure
# Fields that switch a reasoning model's thinking off; a server that refuses one (a 400 or
# 422 naming it) is asked again without it, and not sent it again.
THINKING_OFF: dict[str, Any] = {"reasoning_effort": "none",
                                "chat_template_kwargs": {"enable_thinking": False}}
_OPENAI_HOST = "api.openai.com"


def normalise_base_url(url: str | None) -> str:
    """The server's OpenAI-style root (most end in /v1), or a CaseError saying what is wrong."""
    raw = url if url is not None and url.strip() else (
        os.environ.get(BASE_URL_ENV) or DEFAULT_BASE_URL)
    return http.check_base_url(raw, "http://127.0.0.1:11434/v1 (Ollama)", KEY_ENV)


def configured_base_url() -> str:
    """The server the environment's key belongs to: OPENAI_BASE_URL, else OpenAI's."""
    return normalise_base_url(os.environ.get(BASE_URL_ENV) or DEFAULT_BASE_URL)


def key_from_env(base_url: str) -> Secret | None:
    """OPENAI_API_KEY, only for the server it was configured for (OPENAI_BASE_URL, else
    OpenAI's); any other server gets a key typed for it, or none (local servers need none)."""
    if normalise_base_url(base_url) != configured_base_url():
        return None
    value = os.environ.get(KEY_ENV, "").strip()
    return Secret(value) if value else None


class QuestionsUnanswered(JudgeError):
    """The model gave no yes/no probability for some questions: each is named with why."""

    def __init__(self, problems: Mapping[str, str], asked: int) -> None:
        self.problems = dict(problems)
        first, why = next(iter(self.problems.items()))
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        super().__init__(f"{len(problems)} of {asked} questions have no answer: {first}: "
                         f"{why}{more}")


@dataclass(frozen=True)
class _Asked:
    """One request's outcome: a Reading per question it carried, and what it cost."""

    readings: dict[str, logprobs.Reading]
    input_tokens: int
    cached_tokens: int
    model: str | None


class OpenAIJudge(ServerJudge):
    """Answers from the user's own model through the OpenAI API's chat or completions."""

    name = "openai"
    approximates = False
    calibration: str | None = None  # your model's own p: no calibration profile refits it
    note = ("Your own model answered each question; p is its token probability of yes over "
            "yes + no. Measure it with bench/calibrate.py before trusting it.")

    def __init__(
        self,
        api_key: str | Secret | None = None,
        base_url: str | None = None,
        model: str | None = None,
        retry: RetryPolicy | None = None,
        transport: httpx.BaseTransport | None = None,
        sleep: Callable[[float], None] = time.sleep,
        limiter: RateLimiter | None = None,
        concurrency: int = CONCURRENCY,
        endpoint: str = "chat",
        price_per_million_input_tokens: float | None = None,
        top_logprobs: int = TOP_LOGPROBS,
        case_deadline: float | None = None,
        prompt: str = openai_prompt.PROMPTS[0],
    ) -> None:
        self.base_url = normalise_base_url(base_url)
        if prompt not in openai_prompt.PROMPTS:
            raise CaseError(f"prompt {one_line(str(prompt), 20)!r}: choose named (each question "
                            "with the texts it names) or case (the whole case before each)")
        self.prompt = prompt
        self.model: str | None = (model or "").strip() or None
        if endpoint not in ENDPOINTS:
            raise CaseError(f"endpoint {one_line(endpoint, 20)!r}: choose chat or completions")
        if isinstance(concurrency, bool) or not isinstance(concurrency, int) or not (
                1 <= concurrency <= MAX_CONCURRENCY):
            raise CaseError(f"concurrency must be a whole number from 1 to {MAX_CONCURRENCY}")
        price = price_per_million_input_tokens or 0.0
        if not 0 <= price < 1e6:
            raise CaseError("the price must be dollars per million input tokens, >= 0")
        if case_deadline is not None:  # one deadline for a case's questions, retries included
            if (isinstance(case_deadline, bool) or not isinstance(case_deadline, (int, float))
                    or not 0 < case_deadline <= MAX_CASE_DEADLINE_S):
                raise CaseError(f"the case deadline must be a number of seconds above 0 and "
                                f"at most {MAX_CASE_DEADLINE_S:g}, not "
                                f"{one_line(str(case_deadline), 20)}")
            retry = replace(retry or RetryPolicy(), total_seconds=float(case_deadline))
        self.endpoint, self.concurrency, self.top_logprobs = endpoint, concurrency, top_logprobs
        self.price_per_million_input_tokens = float(price)  # as given: a resume compares it
        self.price_per_billion_input_tokens = price * 1000
        self._openai = urlsplit(self.base_url).hostname == _OPENAI_HOST
        self._refused: set[str] = set()  # THINKING_OFF fields this server refused
        self._refused_lock = threading.Lock()
        self._connect(http.as_secret(api_key) or key_from_env(self.base_url), self._failure,
                      "an OpenAI-compatible server", retry, transport, sleep, limiter,
                      httpx.Limits(max_connections=MAX_CONCURRENCY * 2))

    @property
    def settings(self) -> dict[str, Any]:
        """How this judge asks, by its constructor's names: a resumed run asks the same way."""
        return {"endpoint": self.endpoint, "concurrency": self.concurrency,
                "price_per_million_input_tokens": self.price_per_million_input_tokens,
                "case_deadline": self._http.retry.total_seconds, "prompt": self.prompt}

    # ---- asking ----

    def answer(self, packed: Packed) -> Answers:
        return self.ask(packed.state, packed.asked)

    def ask(self, state: Mapping[str, Any], questions: Mapping[str, Question]) -> Answers:
        """p(yes) for each question (by id) about `state` (as `request.pack` builds it)."""
        with self._own_key():
            return self._ask(state, list(questions.items()))

    def _ask(self, state: Mapping[str, Any], asked: list[tuple[str, Question]]) -> Answers:
        model = self._require_model()
        deadline = self._http.deadline()  # one for the whole case, every question in it
        cache_key = hashlib.sha256(wire.encode(dict(state))).hexdigest()[:32]
        if self.endpoint == "completions":
            outcomes = [self._complete(model, state, asked, deadline)]
        else:
            outcomes = self._chat_all(model, state, asked, deadline, cache_key)
        readings: dict[str, logprobs.Reading] = {}
        for outcome in outcomes:
            readings.update(outcome.readings)
        problems = {qid: r.problem or "no answer" for qid, r in readings.items()
                    if r.p is None}
        if problems:
            raise QuestionsUnanswered(problems, len(asked))
        return Answers(
            p={qid: r.p for qid, r in readings.items() if r.p is not None},
            usage=Usage(sum(o.input_tokens for o in outcomes), len(outcomes),
                        sum(o.cached_tokens for o in outcomes)),
            model=next((o.model for o in outcomes if o.model), None),
            unsure=frozenset(qid for qid, r in readings.items() if r.coverage < UNSURE_BELOW),
        )

    def _chat_all(self, model: str, state: Mapping[str, Any],
                  asked: Sequence[tuple[str, Question]], deadline: float,
                  cache_key: str) -> list[_Asked]:
        """One chat request per question, `concurrency` at a time; the first error stops
        the rest (the case has no answer without them)."""
        def one(qid: str, question: Question) -> _Asked:
            body = self._chat_body(model, openai_prompt.messages(self._before(state, question),
                                                                 question), cache_key)
            data = self._post("/chat/completions", body, deadline)
            choice = _first_choice(data, self.base_url)
            message = choice.get("message")
            text = message.get("content") if isinstance(message, dict) else None
            _refuse_reasoning(data, choice, model)
            return _outcome(data, {qid: logprobs.read(choice, _text(text))})

        if len(asked) == 1:
            return [one(*asked[0])]
        with ThreadPoolExecutor(max_workers=min(self.concurrency, len(asked)),
                                thread_name_prefix="jeval-openai") as pool:
            futures = [pool.submit(contextvars.copy_context().run, one, qid, q)
                       for qid, q in asked]
            try:
                return [f.result() for f in futures]
            except BaseException:
                for f in futures:
                    f.cancel()
                raise

    def _complete(self, model: str, state: Mapping[str, Any],
                  asked: Sequence[tuple[str, Question]], deadline: float) -> _Asked:
        """Every question of the case as one list of prompts in one `/completions` request."""
        prompts = [openai_prompt.completion_prompt(self._before(state, q), q) for _, q in asked]
        body = {"model": model, "prompt": prompts, "max_tokens": 1, "temperature": 0,
                "logprobs": self.top_logprobs}
        data = self._post("/completions", body, deadline)
        choices = data.get("choices") if isinstance(data, dict) else None
        if not isinstance(choices, list) or len(choices) != len(prompts) or not all(
                isinstance(c, dict) for c in choices):
            got = len(choices) if isinstance(choices, list) else 0
            raise JudgeError(f"{self.base_url}/completions answered {got} of {len(prompts)} "
                             "prompts: this server may not take a list of prompts; use the "
                             "chat endpoint")
        by_index = _by_index(choices)
        if by_index is None:
            shown = one_line(", ".join(
                str(c.get("index")) if _is_index(c.get("index")) else "none"
                for c in choices[:8]) + (", …" if len(choices) > 8 else ""), 80)
            raise JudgeError(f"{self.base_url}/completions answered {len(prompts)} prompts with "
                             f"the choice indices {shown}, not each of 0 to {len(prompts) - 1} "
                             "once: which answer is whose cannot be told; use the chat endpoint")
        return _outcome(data, {qid: logprobs.read(c, _text(c.get("text")))
                               for (qid, _), c in zip(asked, by_index, strict=True)})

    def _before(self, state: Mapping[str, Any], question: Question) -> Mapping[str, Any]:
        """What is sent before `question`: the texts it names, or the whole case."""
        return state if self.prompt == "case" else openai_prompt.named_state(state, question)

    def _chat_body(self, model: str, messages: list[dict[str, str]],
                   cache_key: str) -> dict[str, Any]:
        body: dict[str, Any] = {"model": model, "messages": messages, "max_tokens": 1,
                                "temperature": 0, "logprobs": True,
                                "top_logprobs": self.top_logprobs}
        if self._openai:  # OpenAI's own prompt cache routes by this key: one per case
            body["prompt_cache_key"] = cache_key
        else:  # OpenAI refuses reasoning_effort for models without reasoning: only others
            with self._refused_lock:
                body.update({k: v for k, v in THINKING_OFF.items() if k not in self._refused})
        return body

    def _post(self, path: str, body: dict[str, Any], deadline: float) -> Any:
        """POST `body`; a server that refuses a thinking-off field is asked again without it."""
        while True:
            try:
                reply = self._http.send("POST", path, wire.encode(body),
                                        wire.estimate_tokens(body), deadline)
            except JudgeError:
                with self._refused_lock:
                    dropped = [k for k in THINKING_OFF if k in self._refused and k in body]
                if not dropped:
                    raise
                body = {k: v for k, v in body.items() if k not in dropped}
                continue
            return self._http.loads(reply)

    def _failure(self, reply: http.Reply) -> str:
        detail = wire.error_detail(reply.body)
        if reply.status in (400, 422):
            with self._refused_lock:
                self._refused.update(k for k in THINKING_OFF if k in detail)
        return http.status_line(reply.status, detail, self.base_url, self.model or "none named")

    def _require_model(self) -> str:
        if not self.model:
            raise CaseError(f"name the model to ask on {self.base_url}: --model M (`jeval "
                            "models --judge openai` lists the server's models)")
        return self.model

    # ---- the server's models ----

    def models(self) -> wire.ModelList:
        """GET /models: the models this server offers (the first wire.MAX_MODELS)."""
        with self._own_key():
            reply = self._http.send("GET", "/models", None, 0)
            data = self._http.loads(reply)
            listed = data.get("data") if isinstance(data, dict) else None
            if not isinstance(listed, list):
                raise JudgeError(f'{self.base_url}/models did not list models as {{"data": '
                                 '[{"id": ...}]}; is the base URL the server\'s /v1 root?')
            named = [m for m in listed
                     if isinstance(m, dict) and isinstance(m.get("id"), str) and m["id"].strip()]
            return wire.ModelList([wire.Model(one_line(m["id"], 80),
                                              one_line(m.get("owned_by") or "", 40))
                                   for m in named[:wire.MAX_MODELS]], len(named))


def _is_index(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _by_index(choices: list[dict[str, Any]]) -> list[dict[str, Any]] | None:
    """The choices in the order of their `index`, when they carry each of 0..n-1 once; None
    when an index is duplicated, missing or out of range (no answer can be placed)."""
    placed: list[dict[str, Any] | None] = [None] * len(choices)
    for choice in choices:
        index = choice.get("index")
        if (not isinstance(index, int) or isinstance(index, bool)
                or not 0 <= index < len(choices) or placed[index] is not None):
            return None
        placed[index] = choice
    return [c for c in placed if c is not None]


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _first_choice(data: Any, where: str) -> dict[str, Any]:
    choices = data.get("choices") if isinstance(data, dict) else None
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise JudgeError(f"{where} sent no choices; is it an OpenAI-compatible server?")
    return choices[0]


def _refuse_reasoning(data: Any, choice: Mapping[str, Any], model: str) -> None:
    """A model that thought before answering: its first token is no answer. One line."""
    message = choice.get("message")
    thought = isinstance(message, dict) and any(
        isinstance(message.get(k), str) and message[k].strip()
        for k in ("reasoning_content", "reasoning"))
    usage = data.get("usage") if isinstance(data, dict) else None
    details = usage.get("completion_tokens_details") if isinstance(usage, dict) else None
    tokens = details.get("reasoning_tokens") if isinstance(details, dict) else None
    if thought or (isinstance(tokens, int) and not isinstance(tokens, bool) and tokens > 0):
        raise JudgeError(f"the model {one_line(model, 60)} thinks before it answers, so its "
                         "first token is not a yes or a no: pick a model without reasoning, or "
                         "one that turns it off for reasoning_effort \"none\" or "
                         "enable_thinking false")


def _count(value: Any) -> int:
    ok = isinstance(value, int) and not isinstance(value, bool) and value >= 0
    return min(value, wire.MAX_USAGE_TOKENS) if ok else 0


def _outcome(data: Any, readings: dict[str, logprobs.Reading]) -> _Asked:
    """A reply's readings with its usage: prompt tokens and the cached part of them."""
    usage = data.get("usage") if isinstance(data, dict) else None
    usage = usage if isinstance(usage, dict) else {}
    details = usage.get("prompt_tokens_details")
    cached = _count(details.get("cached_tokens")) if isinstance(details, dict) else 0
    timings = data.get("timings") if isinstance(data, dict) else None
    if not cached and isinstance(timings, dict):  # llama.cpp says it here
        cached = _count(timings.get("cache_n"))
    return _Asked(readings, _count(usage.get("prompt_tokens")), cached, wire.model_of(data))

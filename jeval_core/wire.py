"""The System One wire contract in one place: budgets, price, the body, the reply, errors.

`request.pack` builds bodies with `body()`, the jev judge sends `encode()`d bytes and reads
replies with `loads()`, `answers()`, `input_tokens()` and `error_detail()`. Replies are
untrusted: they are size-capped, depth-checked and validated before anything uses them.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from .errors import JudgeError
from .text import one_line
from .token_estimate import estimate

DEFAULT_MODEL = "jev-latest"
TOTAL_BUDGET = 65_536  # tokens of state + all questions
STATE_PLUS_QUESTION_BUDGET = 32_768  # tokens of state + the longest question
PRICE_PER_BILLION_INPUT_TOKENS_USD = 42.0  # output tokens are free
MAX_REPLY_BYTES = 4 * 1024 * 1024  # a reply to 65k tokens of questions is ~100 KB
MAX_USAGE_TOKENS = 100 * TOTAL_BUDGET  # more than this for one request is not a real bill
MAX_DEPTH = 64  # nesting deeper than this is refused before json would recurse on it


def dumps(value: Any) -> str:
    """Compact JSON as sent: no spaces after separators, UTF-8 text instead of \\u escapes."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def encode(body: Mapping[str, Any]) -> bytes:
    """The request body's bytes on the wire."""
    return dumps(body).encode("utf-8")


REMEMBERED_CHARS = 4096  # chunks and questions; a whole request body is estimated afresh


def estimate_text(text: str) -> int:
    """Estimated tokens of a text as a modern BPE tokenizer (o200k) counts it: within ~2% on
    request bodies, where characters / 4 is off by ~8% (see token_estimate)."""
    return _remembered_estimate(text) if len(text) <= REMEMBERED_CHARS else estimate(text)


@lru_cache(maxsize=4096)  # at most ~16 MB of keys
def _remembered_estimate(text: str) -> int:
    """A Playground edit re-packs the same chunks and questions (30 chunks: ~450 texts)."""
    return estimate(text)


def estimate_tokens(value: Any) -> int:
    """Estimated tokens of a JSON value as sent (its compact JSON text)."""
    return estimate_text(value if isinstance(value, str) else dumps(value))


def cost_usd(input_tokens: int) -> float:
    """Dollars for `input_tokens` at $42 per billion input tokens."""
    return input_tokens * PRICE_PER_BILLION_INPUT_TOKENS_USD / 1e9


def noul(instructions: str, criteria: tuple[str, str] | None = None) -> dict[str, Any]:
    """One noul (yes/no) question object, exactly as sent. The built-in questions say what
    counts as yes in their instructions; a custom one may add criteria (true, false)."""
    question: dict[str, Any] = {"type": "noul", "instructions": instructions}
    if criteria is not None:
        question["criteria"] = {"true": criteria[0], "false": criteria[1]}
    return question


def body(model: str, state: Mapping[str, Any], questions: Mapping[str, Any]) -> dict[str, Any]:
    """The System One request: model, state, questions by id."""
    return {"model": model, "state": dict(state), "questions": dict(questions)}


def _depth_ok(text: str) -> bool:
    depth = deepest = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
            if deepest > MAX_DEPTH:
                return False
        elif ch in "]}":
            depth -= 1
    return True


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"the number {text[:20]} is too large")
    return value


# The same rules as a decoder object, for readers that decode value by value (datasets).
# Nesting too deep for the C scanner is a RecursionError, caught where it is used.
STRICT_DECODER = json.JSONDecoder(parse_constant=_no_constant, parse_float=_finite)


def parse_json(text: str) -> Any:
    """Strict JSON: no NaN/Infinity, no overflowing numbers, no absurd nesting.

    Raises ValueError with a short reason; callers turn it into their own error.
    """
    if not _depth_ok(text):
        raise ValueError(f"it is nested more than {MAX_DEPTH} levels deep")
    try:
        return json.loads(text, parse_constant=_no_constant, parse_float=_finite)
    except RecursionError:
        raise ValueError("it is nested too deeply") from None
    except json.JSONDecodeError as err:
        raise ValueError(f"{err.msg} at line {err.lineno}, column {err.colno}") from None
    except ValueError as err:  # e.g. integers past Python's 4,300-digit conversion limit
        raise ValueError(one_line(err, 120)) from None


def loads(raw: bytes, where: str, what: str = "a Jev-compatible server") -> Any:
    """A reply body as JSON, or a JudgeError naming the server and the kind it should be
    (`what`: the judge's own, as its `http.Connection` says it)."""
    try:
        return parse_json(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as err:
        raise JudgeError(f"{where} answered with a body that is not valid JSON ({err}); "
                         f"check the base URL points at {what}") from None


def answers(data: Any, asked: Iterable[str], where: str) -> dict[str, float]:
    """p(true) for every asked id, or a JudgeError: nothing missing, extra or out of range."""
    asked = list(asked)
    got = data.get("answers") if isinstance(data, dict) else None
    if not isinstance(got, dict):
        raise JudgeError(f'{where} sent no "answers" object; is it a Jev-compatible server?')
    extra = [k for k in got if k not in set(asked)]
    if extra:
        raise JudgeError(f"{where} answered {len(extra)} question(s) nobody asked "
                         f"({one_line(extra[0], 40)}, ...); its answers cannot be trusted")
    missing = [qid for qid in asked if qid not in got]
    if missing:
        raise JudgeError(f"{where} did not answer {len(missing)} of {len(asked)} questions "
                         f"({missing[0]}, ...); try again")
    p = {}
    for qid in asked:
        answer = got[qid]
        if not isinstance(answer, dict) or answer.get("type") != "noul":
            kind = answer.get("type") if isinstance(answer, dict) else type(answer).__name__
            raise JudgeError(f"{where} answered {qid} as {one_line(repr(kind), 40)}, "
                             "not a noul answer")
        value = answer.get("noul")
        number = _probability(value)
        if number is None:
            shown = one_line(repr(value), 40)
            raise JudgeError(f"{where} answered {qid} with noul={shown}, not a probability "
                             "between 0 and 1")
        p[qid] = number
    return p


def _probability(value: Any) -> float | None:
    """A JSON number in [0, 1] as a float; None for anything else (booleans, 10**400, NaN)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        number = float(value)
    except OverflowError:
        return None
    return number if math.isfinite(number) and 0.0 <= number <= 1.0 else None


def input_tokens(data: Any, where: str) -> int:
    """usage.input_tokens as a sane whole number, or a JudgeError (the cost must be known)."""
    usage = data.get("usage") if isinstance(data, dict) else None
    tokens = usage.get("input_tokens") if isinstance(usage, dict) else None
    if (isinstance(tokens, bool) or not isinstance(tokens, int)
            or not 0 <= tokens <= MAX_USAGE_TOKENS):
        shown = one_line(repr(tokens), 40)
        raise JudgeError(f"{where} sent no usable usage.input_tokens (got {shown}); without "
                         "it the cost is unknown, so the answer is refused")
    return tokens


def model_of(data: Any) -> str | None:
    """The model the server says answered, as a short clean string."""
    model = data.get("model") if isinstance(data, dict) else None
    return one_line(model, 80) or None if isinstance(model, str) else None


@dataclass(frozen=True)
class Model:
    """One entry of GET /v1/models."""

    name: str
    description: str = ""
    release_date: str = ""


MAX_MODELS = 500  # models kept from a server's list; more are counted, not listed


class ModelList(list[Model]):
    """The first MAX_MODELS models a server lists, and how many it listed in all (a server
    with 100,000 models says so rather than seeming to have 500)."""

    def __init__(self, models: list[Model], total: int) -> None:
        super().__init__(models)
        self.total = total

    @property
    def more(self) -> str:
        """A line for the models left out, or "" when every one is listed."""
        if self.total <= len(self):
            return ""
        return (f"the first {len(self):,} of the {self.total:,} models the server lists; "
                "type any other model's name")


def models(data: Any, where: str) -> ModelList:
    """The models a server lists; fields that are not strings are left out, not trusted."""
    listed = data.get("models") if isinstance(data, dict) else None
    if not isinstance(listed, list) or not all(
            isinstance(m, dict) and isinstance(m.get("name"), str) and m["name"].strip()
            for m in listed):
        raise JudgeError(f'{where}/v1/models did not list models as {{"models": [{{"name": '
                         '...}]}; is this a Jev-compatible server?')

    def text(value: Any, limit: int) -> str:
        return one_line(value, limit) if isinstance(value, str) else ""

    return ModelList([Model(text(m["name"], 80), text(m.get("description"), 120),
                            text(m.get("release_date"), 20)) for m in listed[:MAX_MODELS]],
                     len(listed))


def error_detail(raw: bytes) -> str:
    """What a failed reply says, from any of the three error-body shapes, as one clean line."""
    text = raw[:65536].decode("utf-8", "replace")
    try:
        data = parse_json(text)
    except ValueError:
        return one_line(text, 200)
    if isinstance(data, dict):
        detail = data.get("detail")
        if isinstance(detail, list) and detail and isinstance(detail[0], dict):
            first = detail[0]
            loc = first.get("loc")
            loc = loc if isinstance(loc, list) else []
            where = ".".join(str(x) for x in loc if x != "body")
            more = f" (and {len(detail) - 1} more)" if len(detail) > 1 else ""
            said = f"{first.get('msg', 'invalid')}{f' at {where}' if where else ''}{more}"
            return one_line(said, 200)
        if isinstance(detail, dict):
            kind = detail.get("error_type")
            return one_line(f"{detail.get('message', '')}{f' ({kind})' if kind else ''}", 200)
        if isinstance(detail, str):
            return one_line(detail, 200)
        error = data.get("error")
        if isinstance(error, dict):
            field = error.get("field")
            said = f"{error.get('message', '')}{f' (field {field})' if field else ''}"
            return one_line(said, 200)
        if isinstance(error, str):
            return one_line(error, 200)
    return one_line(text, 200)

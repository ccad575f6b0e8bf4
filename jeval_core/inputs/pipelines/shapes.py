"""What every pipeline format is read into (Chunk, Retrieval) and the pieces the formats
share: ids, sources, scores, texts, questions and answers, one-line descriptions of what was
found."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from ...errors import CaseError
from ...text import clean, clean_json, one_line

INPUT_KEYS = ("input", "question", "query", "user_input")
OUTPUT_KEYS = ("output", "answer", "result", "response", "text", "content")
CONTEXT_KEYS = ("context", "source_documents", "documents")
SOURCE_KEYS = ("title", "source", "url", "file_name", "file_path", "doc_id")
SCORE_KEYS = ("score", "relevance_score", "similarity_score")
CHUNK_ID_KEYS = ("id", "chunk_id")
_T = TypeVar("_T")
Doc = tuple[str, str | None, str | None, float | None, dict[str, Any]]  # a chunk, unranked


@dataclass(frozen=True)
class Chunk:
    """One retrieved chunk, as the pipeline ranked it."""

    text: str
    id: str | None
    source: str | None  # the document's title, else its URL, path or file name
    score: float | None
    rank: int  # 0-based position in the retrieval
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Retrieval:
    """A question, the pipeline's answer and the chunks it retrieved, in rank order."""

    input: str
    output: str
    chunks: tuple[Chunk, ...]
    id: str | None



def describe(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string" if value.strip() else "an empty string"
    if isinstance(value, Mapping):
        if not value:
            return "an empty JSON object"
        keys = [one_line(k, 30) for k in list(value)[:8]]
        more = ", …" if len(value) > 8 else ""
        return f"a JSON object with keys {', '.join(keys)}{more}"
    if isinstance(value, list):
        if not value:
            return "an empty list"
        first = value[0]
        inner = "" if isinstance(first, list) else f", the first {describe(first)}"
        return f"a list of {len(value)} item{'s' if len(value) != 1 else ''}{inner}"
    return f"a {type(value).__name__}"


# -- shared pieces ----------------------------------------------------------------------------


def first_present(obj: Mapping[str, Any], keys: Iterable[str]) -> Any:
    for key in keys:
        if key in obj and obj[key] is not None:
            return obj[key]
    return None


def finite_score(value: Any) -> float | None:
    """A finite number, else None (a non-numeric, huge or NaN score says nothing)."""
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        return None
    try:
        number = float(value.strip()) if isinstance(value, str) else float(value)
    except (ValueError, OverflowError):
        return None
    return number if math.isfinite(number) else None


def as_id(value: Any) -> str | None:
    """An id as text: a non-empty string, or an integer."""
    if isinstance(value, str):
        text = clean(value).strip()
        return text[:500] or None
    if isinstance(value, int) and not isinstance(value, bool):
        try:
            return str(value)
        except ValueError:  # past Python's integer-to-string digit limit
            return None
    return None


def source_of(metadata: Mapping[str, Any]) -> str | None:
    for key in SOURCE_KEYS:
        found = as_id(metadata.get(key))
        if found is not None:
            return found
    return None


def metadata_of(value: Any, what: str, at: str, expected: str) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise CaseError(f"{what} whose metadata is {describe(value)} at {at}: expected "
                        f"{expected}")
    return {clean(str(k)): clean_json(v) for k, v in value.items()}


def required_text(value: Any, what: str, key: str, at: str, expected: str) -> str:
    if value is None:
        raise CaseError(f"{what} without {key} at {at}: expected {expected}")
    if not isinstance(value, str):
        raise CaseError(f"{what} whose {key} is {describe(value)} at {at}: expected {expected}")
    return clean(value)


def message_text(value: Any) -> str | None:
    """The text of a message-like value: a string, {"content": str}, {"text": str}, or a
    LangChain-serialized message ({"lc": 1, "kwargs": {"content": str}})."""
    if isinstance(value, str):
        return clean(value)
    if isinstance(value, Mapping):
        if value.get("lc") == 1 and isinstance(value.get("kwargs"), Mapping):
            value = value["kwargs"]
        for key in ("content", "text"):
            if isinstance(value.get(key), str):
                return clean(value[key])
    return None


def upper(value: Any) -> str:
    return value.upper() if isinstance(value, str) else ""


def question_in(value: Any) -> str | None:
    """A question from a pipeline's input: a string, or the first of the usual keys."""
    if isinstance(value, str):
        return clean(value)
    if isinstance(value, Mapping):
        for key in INPUT_KEYS:
            found = message_text(value.get(key))
            if found is not None:
                return found
    return None


def answer_in(value: Any) -> str | None:
    """An answer from a pipeline's output: a string, a message, or the first usual key."""
    found = message_text(value)
    if found is not None:
        return found
    if isinstance(value, Mapping):
        for key in OUTPUT_KEYS:
            found = message_text(value.get(key))
            if found is not None:
                return found
    return None


def input_or_output(value: Any, what: str, key: str, at: str, expected: str) -> str:
    """A retrieval file's input or output: missing is empty; a message gives its text."""
    if value is None:
        return ""
    found = message_text(value)
    if found is None:
        raise CaseError(f"{what} whose {key} is {describe(value)} at {at}: expected {expected}")
    return found


def outermost(items: list[_T], ident: Callable[[_T], str | None],
              parent: Callable[[_T], str | None], parents: Mapping[str, str | None]
              ) -> list[_T]:
    """`items` less those inside another of them: a retriever that calls retrievers (a
    multi-query or ensemble one) returned what the pipeline used, its children did not.
    `parents` maps every step's id in the trace to its parent's."""
    ids = {i for item in items if (i := ident(item)) is not None}
    kept = []
    for item in items:
        up, seen = parent(item), set()
        while up is not None and up not in ids and up not in seen:
            seen.add(up)
            up = parents.get(up)
        if up is None or up not in ids:
            kept.append(item)
    return kept


def ranked(chunks: Iterable[Doc]) -> tuple[Chunk, ...]:
    return tuple(Chunk(text=text, id=id_, source=source, score=score, rank=rank,
                       metadata=metadata)
                 for rank, (text, id_, source, score, metadata) in enumerate(chunks))


def list_at(value: Any, what: str, at: str, expected: str) -> list[Any]:
    if not isinstance(value, list):
        raise CaseError(f"{what} is {describe(value)} at {at}: expected {expected}")
    return value


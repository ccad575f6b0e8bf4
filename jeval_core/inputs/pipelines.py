"""Retrievals from RAG pipelines' own exports, turned into jeval rows.

Five formats, recognised by their shape (never by the file name):

- ``langchain``: a list of LangChain ``Document``s (``Document.model_dump()`` or
  ``langchain_core.load.dumpd``), or retrievals ``{"input", "output" | "answer", "context":
  [documents]}``;
- ``llamaindex``: a ``Response``'s ``source_nodes`` (``NodeWithScore.to_dict()`` /
  ``model_dump()``), or ``{"query", "response", "source_nodes"}``;
- ``otlp``: an OTLP/JSON trace export (``resourceSpans``) holding OpenInference spans, one
  retrieval per trace with a ``RETRIEVER`` span;
- ``langfuse``: Langfuse traces with their observations (``GET /api/public/traces/{id}``),
  one retrieval per trace with a retriever observation;
- ``langsmith``: LangSmith runs (``client.list_runs`` as JSON or JSONL), one retrieval per
  trace with a ``retriever`` run.

Standard library only, on purpose: these files are JSON, and reading JSON needs none of the
pipelines' packages. Importing them would add hundreds of megabytes and their release churn
to jeval for nothing, and some of their loaders build whatever classes a file names
(``langchain_core.load.load``); a file from outside is data, so it is decoded with ``json``
(strictly, by ``wire.parse_json``) and nothing in it is executed or instantiated.

What is kept: every retrieval; per chunk its text, id, source (the document's title, else its
URL, path or file name), score and rank (its 0-based position in the retrieval), and its
metadata, which stays in ``Chunk.metadata`` and is never put into the chunk's text. The id is
the document's or node's own (else metadata ``id`` / ``chunk_id``); the source is the first of
metadata ``title``, ``source``, ``url``, ``file_name``, ``file_path``, ``doc_id``; the score is
the node's (LlamaIndex), ``document.score`` (OpenInference) or metadata ``score`` /
``relevance_score`` / ``similarity_score`` (LangChain keeps scores in metadata). A score
that is not a finite number is dropped (``None``); an answer missing from a trace is an empty
output; a retriever that found nothing is a retrieval with no chunks. Anything else that does
not fit the format is a ``CaseError`` of one line: what was found, where, and what was
expected.
"""

from __future__ import annotations

import base64
import binascii
import math
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from ..errors import CaseError
from ..text import clean, clean_json, one_line
from ..wire import parse_json
from .files import read_capped

FORMATS = ("langchain", "llamaindex", "otlp", "langfuse", "langsmith")
MAX_BYTES = 64 * 1024 * 1024  # a dataset's cap: thousands of traces

_LABELS = {
    "langchain": "a LangChain Document list",
    "llamaindex": "a LlamaIndex source_nodes list",
    "otlp": "an OTLP JSON trace (resourceSpans)",
    "langfuse": "a Langfuse trace export (observations)",
    "langsmith": "a LangSmith run export (run_type)",
}
_LC_DOC = '{"page_content": str, "metadata": {...}}'
_LC_RETRIEVAL = '{"input": str, "output": str, "context": [LangChain documents]}'
_LI_NODE = '{"node": {"text": str, "id_": str, "metadata": {...}}, "score": number}'
_LI_RESPONSE = '{"query": str, "response": str, "source_nodes": [nodes]}'
_OTLP_SPAN = '{"traceId": str, "spanId": str, "name": str, "attributes": [...]}'
_OTLP_ATTR = '[{"key": str, "value": {"stringValue" | "doubleValue" | "intValue": ...}}]'
_OI_DOC = "retrieval.documents.N.document.content (a string)"
_LF_TRACE = '{"id": str, "input": ..., "output": ..., "observations": [{...}]}'
_LF_OBS = '{"id": str, "traceId": str, "type": "SPAN" | "GENERATION" | ..., "output": ...}'
_LS_RUN = '{"id": str, "trace_id": str, "run_type": str, "inputs": {...}, "outputs": {...}}'
_ANY_DOC = '{"page_content": str, "metadata": {...}} (or "text"/"content")'

_INPUT_KEYS = ("input", "question", "query", "user_input")
_OUTPUT_KEYS = ("output", "answer", "result", "response", "text", "content")
_CONTEXT_KEYS = ("context", "source_documents", "documents")
_SOURCE_KEYS = ("title", "source", "url", "file_name", "file_path", "doc_id")
_SCORE_KEYS = ("score", "relevance_score", "similarity_score")
_CHUNK_ID_KEYS = ("id", "chunk_id")
_MAX_VALUE_DEPTH = 32  # OTLP arrayValue / kvlistValue nesting we convert
_HEX_ID = re.compile(r"[0-9a-fA-F]{16}(?:[0-9a-fA-F]{16})?")
_DOC_ATTR = re.compile(r"retrieval\.documents\.(\d{1,6})\.(.+)")
_T = TypeVar("_T")
_Doc = tuple[str, str | None, str | None, float | None, dict[str, Any]]  # a chunk, unranked


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


# -- reading ----------------------------------------------------------------------------------


def read(source: str | Path | bytes, fmt: str | None = None) -> list[Retrieval]:
    """The retrievals in a .json or .jsonl pipeline export (a path, or the file's bytes):
    JSONL (one JSON value a line) is read as the list of its lines' values."""
    if isinstance(source, (bytes, bytearray)):
        raw, name, lines = bytes(source), "the file", False
    else:
        path = Path(source)
        raw = read_capped(path, MAX_BYTES, f"is larger than {MAX_BYTES // (1024 * 1024)} MB; "
                          "export fewer traces per file", expected="a pipeline export (.json "
                          "or .jsonl)")
        name = one_line(path.name, 80)
        lines = path.suffix.lower() in (".jsonl", ".ndjson")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise CaseError(f"{name} is not UTF-8 text (byte {err.start}): expected a JSON or "
                        "JSONL pipeline export") from None
    if not text.strip():
        raise CaseError(f"{name} is empty: expected a JSON or JSONL pipeline export")
    return retrievals(_decode(text, name, lines), fmt)


def _decode(text: str, name: str, lines: bool) -> Any:
    """A .jsonl file's lines, else the whole text as JSON, else (several lines, the first
    valid JSON on its own) JSONL after all. Lines end at \\n only: a JSON string may hold
    U+2028, which str.splitlines would break on."""
    if not lines:
        try:
            return parse_json(text)
        except ValueError as whole:
            rows = [line for line in text.split("\n") if line.strip()]
            if len(rows) < 2 or not _parses(rows[0]):
                raise CaseError(f"{name} is not valid JSON ({whole}): expected a JSON or "
                                "JSONL pipeline export") from None
    values = []
    for n, line in enumerate(text.split("\n"), 1):
        if line.strip():
            try:
                values.append(parse_json(line))
            except ValueError as err:
                raise CaseError(f"{name} line {n} is not valid JSON ({err}): expected one "
                                "JSON value a line (JSONL)") from None
    return values


def _parses(line: str) -> bool:
    try:
        parse_json(line)
    except ValueError:
        return False
    return True


def retrievals(data: Any, fmt: str | None = None) -> list[Retrieval]:
    """The retrievals in a decoded pipeline export; `fmt` (one of FORMATS) is detected from
    the data's shape when None."""
    if fmt is None:
        fmt = detect(data)
        if fmt is None:
            raise CaseError(_unknown(data))
    elif fmt not in FORMATS:
        raise CaseError(f'unknown pipeline format "{one_line(fmt, 40)}": expected one of '
                        f"{', '.join(FORMATS)}")
    try:
        return _PARSERS[fmt](data)
    except RecursionError:
        raise CaseError(f"{_LABELS[fmt]} nested too deeply to read: expected the export as "
                        "the pipeline wrote it") from None


def to_rows(found: Iterable[Retrieval]) -> list[dict[str, Any]]:
    """jeval's own JSONL rows, one per retrieval: id (when known), input, output, context
    (the chunks' texts) and context_meta (each chunk's id, source, score and rank)."""
    rows = []
    for r in found:
        row: dict[str, Any] = {} if r.id is None else {"id": r.id}
        row["input"], row["output"] = r.input, r.output
        row["context"] = [c.text for c in r.chunks]
        row["context_meta"] = [
            {k: v for k, v in (("id", c.id), ("source", c.source), ("score", c.score),
                               ("rank", c.rank)) if v is not None}
            for c in r.chunks]
        rows.append(row)
    return rows


# -- detection --------------------------------------------------------------------------------


def detect(data: Any) -> str | None:
    """Which of FORMATS a decoded export is, from its shape; None when it is none of them."""
    if isinstance(data, Mapping):
        return _detect_object(data)
    if isinstance(data, list) and data and isinstance(data[0], Mapping):
        return _detect_item(data[0])
    return None


def _detect_object(obj: Mapping[str, Any]) -> str | None:
    if "resourceSpans" in obj or "resource_spans" in obj:
        return "otlp"
    if "observations" in obj:
        return "langfuse"
    if "run_type" in obj:
        return "langsmith"
    if "source_nodes" in obj:
        return "llamaindex"
    for key in ("data", "runs"):  # the APIs' list replies: {"data": [...]}, {"runs": [...]}
        inner = obj.get(key)
        if isinstance(inner, list) and inner and isinstance(inner[0], Mapping):
            found = _detect_item(inner[0])
            if found in ("langfuse", "langsmith"):
                return found
    if _is_lc_document(obj) or _is_lc_retrieval(obj):
        return "langchain"
    return None


def _detect_item(item: Mapping[str, Any]) -> str | None:
    if _is_lc_document(item) or _is_lc_retrieval(item):
        return "langchain"
    if _is_li_node(item) or "source_nodes" in item:
        return "llamaindex"
    if "run_type" in item:
        return "langsmith"
    if "observations" in item or ("traceId" in item and "type" in item
                                  and "spanId" not in item):
        return "langfuse"
    if "resourceSpans" in item or "resource_spans" in item:
        return "otlp"
    return None


def _is_lc_document(obj: Mapping[str, Any]) -> bool:
    if obj.get("lc") == 1 and isinstance(obj.get("id"), list):
        return bool(obj["id"]) and obj["id"][-1] == "Document"
    return "page_content" in obj


def _is_lc_retrieval(obj: Mapping[str, Any]) -> bool:
    """A retrieval whose context holds LangChain documents (or nothing: found none)."""
    docs = _first_present(obj, _CONTEXT_KEYS)
    if not isinstance(docs, list) or "source_nodes" in obj:
        return False
    if not docs:
        return any(key in obj for key in _INPUT_KEYS)
    return isinstance(docs[0], Mapping) and _is_lc_document(docs[0])


def _is_li_node(obj: Mapping[str, Any]) -> bool:
    return (isinstance(obj.get("node"), Mapping) or obj.get("class_name") == "NodeWithScore"
            or ("id_" in obj and ("text" in obj or "text_resource" in obj)))


def _unknown(data: Any) -> str:
    expected = ", ".join(_LABELS[f] for f in FORMATS)
    return f"not a known pipeline export: found {_describe(data)}; expected one of: {expected}"


def _describe(value: Any) -> str:
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
        inner = "" if isinstance(first, list) else f", the first {_describe(first)}"
        return f"a list of {len(value)} item{'s' if len(value) != 1 else ''}{inner}"
    return f"a {type(value).__name__}"


# -- shared pieces ----------------------------------------------------------------------------


def _first_present(obj: Mapping[str, Any], keys: Iterable[str]) -> Any:
    for key in keys:
        if key in obj and obj[key] is not None:
            return obj[key]
    return None


def _score(value: Any) -> float | None:
    """A finite number, else None (a non-numeric, huge or NaN score says nothing)."""
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        return None
    try:
        number = float(value.strip()) if isinstance(value, str) else float(value)
    except (ValueError, OverflowError):
        return None
    return number if math.isfinite(number) else None


def _ident(value: Any) -> str | None:
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


def _source(metadata: Mapping[str, Any]) -> str | None:
    for key in _SOURCE_KEYS:
        found = _ident(metadata.get(key))
        if found is not None:
            return found
    return None


def _metadata(value: Any, what: str, at: str, expected: str) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise CaseError(f"{what} whose metadata is {_describe(value)} at {at}: expected "
                        f"{expected}")
    return {clean(str(k)): clean_json(v) for k, v in value.items()}


def _text(value: Any, what: str, key: str, at: str, expected: str) -> str:
    if value is None:
        raise CaseError(f"{what} without {key} at {at}: expected {expected}")
    if not isinstance(value, str):
        raise CaseError(f"{what} whose {key} is {_describe(value)} at {at}: expected {expected}")
    return clean(value)


def _message_text(value: Any) -> str | None:
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


def _upper(value: Any) -> str:
    return value.upper() if isinstance(value, str) else ""


def _question(value: Any) -> str | None:
    """A question from a pipeline's input: a string, or the first of the usual keys."""
    if isinstance(value, str):
        return clean(value)
    if isinstance(value, Mapping):
        for key in _INPUT_KEYS:
            found = _message_text(value.get(key))
            if found is not None:
                return found
    return None


def _answer(value: Any) -> str | None:
    """An answer from a pipeline's output: a string, a message, or the first usual key."""
    found = _message_text(value)
    if found is not None:
        return found
    if isinstance(value, Mapping):
        for key in _OUTPUT_KEYS:
            found = _message_text(value.get(key))
            if found is not None:
                return found
    return None


def _io(value: Any, what: str, key: str, at: str, expected: str) -> str:
    """A retrieval file's input or output: missing is empty; a message gives its text."""
    if value is None:
        return ""
    found = _message_text(value)
    if found is None:
        raise CaseError(f"{what} whose {key} is {_describe(value)} at {at}: expected {expected}")
    return found


def _outermost(items: list[_T], ident: Callable[[_T], str | None],
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


def _ranked(chunks: Iterable[_Doc]) -> tuple[Chunk, ...]:
    return tuple(Chunk(text=text, id=id_, source=source, score=score, rank=rank,
                       metadata=metadata)
                 for rank, (text, id_, source, score, metadata) in enumerate(chunks))


def _list(value: Any, what: str, at: str, expected: str) -> list[Any]:
    if not isinstance(value, list):
        raise CaseError(f"{what} is {_describe(value)} at {at}: expected {expected}")
    return value


# -- LangChain --------------------------------------------------------------------------------


def _lc_document(obj: Any, at: str) -> _Doc:
    if not isinstance(obj, Mapping):
        raise CaseError(f"{_describe(obj)} where a LangChain document belongs at {at}: "
                        f"expected {_LC_DOC}")
    if "lc" in obj:
        names = obj.get("id")
        if (obj.get("type") != "constructor" or not isinstance(names, list) or not names
                or names[-1] != "Document" or not isinstance(obj.get("kwargs"), Mapping)):
            shown = ".".join(one_line(n, 40) for n in names) if isinstance(names, list) else "?"
            raise CaseError(f"a LangChain serialized object that is not a Document ({shown}) "
                            f"at {at}: expected a dumpd Document with kwargs {_LC_DOC}")
        obj = obj["kwargs"]
    text = _text(obj.get("page_content"), "a LangChain document", "page_content", at, _LC_DOC)
    metadata = _metadata(obj.get("metadata"), "a LangChain document", at, _LC_DOC)
    id_ = _ident(obj.get("id"))
    if id_ is None:
        id_ = _ident(_first_present(metadata, _CHUNK_ID_KEYS))
    return text, id_, _source(metadata), _score(_first_present(metadata, _SCORE_KEYS)), metadata


def _langchain(data: Any) -> list[Retrieval]:
    if isinstance(data, Mapping):
        if _is_lc_document(data):
            data = [data]
        else:
            return [_lc_retrieval(data, "the top level")]
    items = _list(data, "a LangChain export", "the top level",
                  f"a list of documents {_LC_DOC} or of retrievals {_LC_RETRIEVAL}")
    if not items:
        raise CaseError("an empty list at the top level: expected LangChain documents "
                        f"{_LC_DOC} or retrievals {_LC_RETRIEVAL}")
    first = items[0]
    if isinstance(first, Mapping) and _is_lc_document(first):
        chunks = _ranked(_lc_document(doc, f"[{i}]") for i, doc in enumerate(items))
        return [Retrieval(input="", output="", chunks=chunks, id=None)]
    return [_lc_retrieval(item, f"[{i}]") for i, item in enumerate(items)]


def _lc_retrieval(obj: Any, at: str) -> Retrieval:
    what = "a LangChain retrieval"
    if not isinstance(obj, Mapping):
        raise CaseError(f"{_describe(obj)} where a LangChain retrieval belongs at {at}: "
                        f"expected {_LC_RETRIEVAL}")
    docs_key = next((k for k in _CONTEXT_KEYS if obj.get(k) is not None), None)
    if docs_key is None:
        raise CaseError(f"{what} without context at {at}: expected {_LC_RETRIEVAL}")
    docs = _list(obj[docs_key], f"{what}'s {docs_key}", at, "a list of LangChain documents "
                 + _LC_DOC)
    input_key = next((k for k in _INPUT_KEYS if k in obj), "input")
    output_key = next((k for k in _OUTPUT_KEYS[:4] if k in obj), "output")
    return Retrieval(
        input=_io(obj.get(input_key), what, input_key, at, _LC_RETRIEVAL),
        output=_io(obj.get(output_key), what, output_key, at, _LC_RETRIEVAL),
        chunks=_ranked(_lc_document(d, f"{at}.{docs_key}[{i}]") for i, d in enumerate(docs)),
        id=_ident(obj.get("id")))


# -- LlamaIndex -------------------------------------------------------------------------------


def _li_node(obj: Any, at: str) -> _Doc:
    what = "a LlamaIndex node"
    if not isinstance(obj, Mapping):
        raise CaseError(f"{_describe(obj)} where a LlamaIndex node belongs at {at}: expected "
                        f"{_LI_NODE}")
    node, score = obj.get("node"), obj.get("score")
    if node is None and ("text" in obj or "text_resource" in obj):  # a bare node, no score
        node, score = obj, None
    if not isinstance(node, Mapping):
        raise CaseError(f"a LlamaIndex NodeWithScore whose node is {_describe(node)} at {at}: "
                        f"expected {_LI_NODE}")
    text = node.get("text")
    resource = node.get("text_resource")
    if text is None and isinstance(resource, Mapping):  # llama-index's newer Node
        text = resource.get("text")
    text = _text(text, what, "text", f"{at}.node", _LI_NODE)
    metadata = _metadata(node.get("metadata"), what, f"{at}.node", _LI_NODE)
    id_ = _ident(node.get("id_")) or _ident(node.get("id"))
    return text, id_, _source(metadata), _score(score), metadata


def _llamaindex(data: Any) -> list[Retrieval]:
    if isinstance(data, Mapping):
        return [_li_response(data, "the top level")]
    items = _list(data, "a LlamaIndex export", "the top level",
                  f"a source_nodes list {_LI_NODE} or responses {_LI_RESPONSE}")
    if not items:
        raise CaseError("an empty list at the top level: expected LlamaIndex source_nodes "
                        f"{_LI_NODE} or responses {_LI_RESPONSE}")
    first = items[0]
    if isinstance(first, Mapping) and "source_nodes" not in first:
        chunks = _ranked(_li_node(n, f"[{i}]") for i, n in enumerate(items))
        return [Retrieval(input="", output="", chunks=chunks, id=None)]
    return [_li_response(item, f"[{i}]") for i, item in enumerate(items)]


def _li_response(obj: Any, at: str) -> Retrieval:
    what = "a LlamaIndex response"
    if not isinstance(obj, Mapping):
        raise CaseError(f"{_describe(obj)} where a LlamaIndex response belongs at {at}: "
                        f"expected {_LI_RESPONSE}")
    if obj.get("source_nodes") is None:
        raise CaseError(f"{what} without source_nodes at {at}: expected {_LI_RESPONSE}")
    nodes = _list(obj["source_nodes"], f"{what}'s source_nodes", at, f"a list of {_LI_NODE}")
    input_key = next((k for k in ("query", "query_str", *_INPUT_KEYS) if k in obj), "query")
    output_key = next((k for k in ("response", *_OUTPUT_KEYS[:3]) if k in obj), "response")
    return Retrieval(
        input=_io(obj.get(input_key), what, input_key, at, _LI_RESPONSE),
        output=_io(obj.get(output_key), what, output_key, at, _LI_RESPONSE),
        chunks=_ranked(_li_node(n, f"{at}.source_nodes[{i}]") for i, n in enumerate(nodes)),
        id=_ident(obj.get("id")))


# -- OTLP / OpenInference ---------------------------------------------------------------------


def _otlp_get(obj: Mapping[str, Any], camel: str, snake: str) -> Any:
    return obj[camel] if camel in obj else obj.get(snake)


def _otlp_id(value: Any) -> str | None:
    """A trace or span id as lowercase hex: OTLP/JSON writes hex; protobuf's own JSON
    mapping writes base64, which is turned into hex so that either kind links up."""
    if not isinstance(value, str) or not value:
        return None
    if _HEX_ID.fullmatch(value):
        return value.lower()
    try:
        raw = base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        return clean(value)[:200]
    return raw.hex() if len(raw) in (8, 16) else clean(value)[:200]


def _any_value(value: Any, depth: int = 0) -> Any:
    """An OTLP AnyValue as a plain value (strings, numbers, lists, dicts)."""
    if not isinstance(value, Mapping) or depth > _MAX_VALUE_DEPTH:
        return None
    for camel, snake in (("stringValue", "string_value"), ("boolValue", "bool_value"),
                         ("doubleValue", "double_value"), ("bytesValue", "bytes_value")):
        if camel in value or snake in value:
            return _otlp_get(value, camel, snake)
    if "intValue" in value or "int_value" in value:
        number = _otlp_get(value, "intValue", "int_value")
        if isinstance(number, str):
            try:
                return int(number)
            except ValueError:
                return number
        return number
    if "arrayValue" in value or "array_value" in value:
        inner = _otlp_get(value, "arrayValue", "array_value")
        values = inner.get("values") if isinstance(inner, Mapping) else None
        return ([_any_value(v, depth + 1) for v in values] if isinstance(values, list)
                else [])
    if "kvlistValue" in value or "kvlist_value" in value:
        inner = _otlp_get(value, "kvlistValue", "kvlist_value")
        values = inner.get("values") if isinstance(inner, Mapping) else None
        return _kv(values, depth + 1) if isinstance(values, list) else {}
    return None


def _kv(pairs: list[Any], depth: int = 0) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for pair in pairs:
        if isinstance(pair, Mapping) and isinstance(pair.get("key"), str):
            out[clean(pair["key"])] = _any_value(pair.get("value"), depth)
    return out


@dataclass
class _Span:
    trace: str
    span: str | None
    parent: str | None
    name: str
    start: int
    attrs: dict[str, Any]
    at: str

    @property
    def kind(self) -> str:
        return _upper(self.attrs.get("openinference.span.kind"))


def _otlp_spans(data: Any) -> list[_Span]:
    requests = data if isinstance(data, list) else [data]
    spans: list[_Span] = []
    for r, request in enumerate(requests):
        where = f"[{r}]" if isinstance(data, list) else "the top level"
        prefix = f"[{r}]." if isinstance(data, list) else ""
        if not isinstance(request, Mapping) or ("resourceSpans" not in request
                                                and "resource_spans" not in request):
            raise CaseError(f"{_describe(request)} at {where}: expected an OTLP JSON export "
                            '{"resourceSpans": [...]}')
        resources = _list(_otlp_get(request, "resourceSpans", "resource_spans"),
                          "resourceSpans", where,
                          '[{"resource": {...}, "scopeSpans": [{"spans": [...]}]}]')
        for i, resource in enumerate(resources):
            at = f"{prefix}resourceSpans[{i}]"
            if not isinstance(resource, Mapping):
                raise CaseError(f"{_describe(resource)} at {at}: expected "
                                '{"resource": {...}, "scopeSpans": [...]}')
            scopes: Any = next((resource[k] for k in ("scopeSpans", "scope_spans",
                                                 "instrumentationLibrarySpans")
                           if k in resource), [])
            for j, scope in enumerate(_list(scopes, "scopeSpans", at, '[{"spans": [...]}]')):
                if not isinstance(scope, Mapping):
                    raise CaseError(f"{_describe(scope)} at {at}.scopeSpans[{j}]: expected "
                                    '{"scope": {...}, "spans": [...]}')
                items = _list(scope.get("spans", []), "spans", f"{at}.scopeSpans[{j}]",
                              f"a list of spans {_OTLP_SPAN}")
                for k, span in enumerate(items):
                    spans.append(_otlp_span(span, f"{at}.scopeSpans[{j}].spans[{k}]"))
    return spans


def _otlp_span(span: Any, at: str) -> _Span:
    if not isinstance(span, Mapping):
        raise CaseError(f"{_describe(span)} where an OTLP span belongs at {at}: expected "
                        f"{_OTLP_SPAN}")
    trace = _otlp_id(_otlp_get(span, "traceId", "trace_id"))
    if trace is None:
        raise CaseError(f"an OTLP span without traceId at {at}: expected {_OTLP_SPAN}")
    attrs = span.get("attributes", [])
    if not isinstance(attrs, list):
        raise CaseError(f"an OTLP span whose attributes are {_describe(attrs)} at {at}: "
                        f"expected {_OTLP_ATTR}")
    start = _otlp_get(span, "startTimeUnixNano", "start_time_unix_nano")
    try:
        start_ns = int(start) if isinstance(start, (int, str)) else 0
    except ValueError:
        start_ns = 0
    name = span.get("name")
    return _Span(trace=trace, span=_otlp_id(_otlp_get(span, "spanId", "span_id")),
                 parent=_otlp_id(_otlp_get(span, "parentSpanId", "parent_span_id")),
                 name=one_line(name, 80) if isinstance(name, str) else "?",
                 start=start_ns, attrs=_kv(attrs), at=at)


def _oi_documents(span: _Span) -> list[_Doc]:
    docs: dict[int, dict[str, Any]] = {}
    listed = span.attrs.get("retrieval.documents")
    if isinstance(listed, list):  # exporters that keep the list as an arrayValue
        docs = {i: dict(d) for i, d in enumerate(listed) if isinstance(d, Mapping)}
    for key, value in span.attrs.items():
        match = _DOC_ATTR.fullmatch(key)
        if match:
            docs.setdefault(int(match[1]), {})[match[2]] = value
    out = []
    for index in sorted(docs):
        doc = docs[index]
        at = f'span "{span.name}" ({span.at}) document {index}'
        text = _text(doc.get("document.content"), "an OpenInference retrieval document",
                     "document.content", at, _OI_DOC)
        metadata = doc.get("document.metadata")
        if isinstance(metadata, str):
            try:
                metadata = parse_json(metadata)
            except ValueError:
                metadata = None
        metadata = clean_json(dict(metadata)) if isinstance(metadata, Mapping) else {}
        out.append((text, _ident(doc.get("document.id")), _source(metadata),
                    _score(doc.get("document.score")), metadata))
    return out


def _oi_value(span: _Span, key: str, pick: Callable[[Any], str | None]) -> str | None:
    """`input.value` / `output.value`: plain text, or JSON (picked by `pick`) when its
    mime type says so or it reads as a JSON object."""
    value = span.attrs.get(f"{key}.value")
    if not isinstance(value, str):
        return None
    mime = span.attrs.get(f"{key}.mime_type")
    if mime == "application/json" or value.lstrip().startswith("{"):
        try:
            return pick(parse_json(value))
        except ValueError:
            if mime == "application/json":
                return None
    return clean(value)


def _oi_llm_output(span: _Span) -> str | None:
    content = span.attrs.get("llm.output_messages.0.message.content")
    if isinstance(content, str):
        return clean(content)
    return _oi_value(span, "output", _answer)


def _otlp(data: Any) -> list[Retrieval]:
    traces: dict[str, list[_Span]] = {}
    for span in _otlp_spans(data):
        traces.setdefault(span.trace, []).append(span)
    found = []
    for spans in traces.values():
        spans.sort(key=lambda s: s.start)
    # traces in the order they started, whatever order the exporter wrote them in
    for trace_id, spans in sorted(traces.items(), key=lambda t: t[1][0].start):
        parents = {s.span: s.parent for s in spans if s.span is not None}
        retrievers = _outermost([s for s in spans if s.kind == "RETRIEVER"],
                                lambda s: s.span, lambda s: s.parent, parents)
        if not retrievers:
            continue
        ids = {s.span for s in spans}
        roots = [s for s in spans if s.parent is None or s.parent not in ids]
        root = next((s for s in roots if s.kind != "RETRIEVER"), None)
        question = None if root is None else _oi_value(root, "input", _question)
        if question is None:
            question = _oi_value(retrievers[0], "input", _question)
        answer = None if root is None else _oi_value(root, "output", _answer)
        if answer is None:
            answer = next((a for s in reversed(spans) if s.kind == "LLM"
                           for a in (_oi_llm_output(s),) if a is not None), None)
        chunks = _ranked(doc for s in retrievers for doc in _oi_documents(s))
        found.append(Retrieval(input=question or "", output=answer or "", chunks=chunks,
                               id=trace_id))
    if not found:
        n = sum(len(s) for s in traces.values())
        raise CaseError(f"an OTLP trace export with no OpenInference RETRIEVER span ({n} "
                        f"span{'s' if n != 1 else ''} in {len(traces)} trace"
                        f"{'s' if len(traces) != 1 else ''}): expected spans with "
                        f"openinference.span.kind = RETRIEVER and {_OI_DOC}")
    return found


# -- documents in traces (Langfuse, LangSmith) ------------------------------------------------


def _any_document(obj: Any, at: str) -> _Doc:
    """A retrieved document as trace tools record it: a LangChain document (either shape), a
    LlamaIndex node, {"text" | "content", "id", "score", "metadata"}, or a bare string."""
    if isinstance(obj, str):
        return clean(obj), None, None, None, {}
    if isinstance(obj, Mapping):
        if _is_lc_document(obj) or "lc" in obj:
            return _lc_document(obj, at)
        if _is_li_node(obj):
            return _li_node(obj, at)
        key = next((k for k in ("text", "content") if k in obj), None)
        if key is not None:
            text = _text(obj[key], "a retrieved document", key, at, _ANY_DOC)
            metadata = _metadata(obj.get("metadata"), "a retrieved document", at, _ANY_DOC)
            id_ = _ident(obj.get("id")) or _ident(_first_present(metadata, _CHUNK_ID_KEYS))
            score = obj.get("score")
            if score is None:
                score = _first_present(metadata, _SCORE_KEYS)
            return text, id_, _source(metadata), _score(score), metadata
        raise CaseError(f"a retrieved document without page_content, text or content "
                        f"(found {_describe(obj)}) at {at}: expected {_ANY_DOC}")
    raise CaseError(f"{_describe(obj)} where a retrieved document belongs at {at}: expected "
                    f"{_ANY_DOC}")


def _documents_of(output: Any) -> list[Any] | None:
    """A retriever step's documents: a list, or {"documents": [...]}; None if neither."""
    if isinstance(output, list):
        return output
    if isinstance(output, Mapping) and isinstance(output.get("documents"), list):
        return output["documents"]
    return None


def _looks_like_documents(output: Any) -> bool:
    docs = _documents_of(output)
    return (docs is not None and bool(docs) and isinstance(docs[0], Mapping)
            and _is_lc_document(docs[0]))


# -- Langfuse ---------------------------------------------------------------------------------


def _langfuse_traces(data: Any) -> list[tuple[Mapping[str, Any], str]]:
    if isinstance(data, Mapping) and "observations" not in data and isinstance(
            data.get("data"), list):
        data = data["data"]  # the API's list reply
    if isinstance(data, Mapping):
        return [(data, "the top level")]
    items = _list(data, "a Langfuse export", "the top level", f"a trace {_LF_TRACE} or a list "
                  "of them")
    if items and isinstance(items[0], Mapping) and "observations" not in items[0]:
        if "traceId" not in items[0]:
            raise CaseError("a Langfuse trace without observations at [0]: expected "
                            f"{_LF_TRACE}")
        # a flat list of observations (the observations API): one trace per traceId
        grouped: dict[str, list[Any]] = {}
        for i, obs in enumerate(items):
            if not isinstance(obs, Mapping):
                raise CaseError(f"{_describe(obs)} where a Langfuse observation belongs at "
                                f"[{i}]: expected {_LF_OBS}")
            trace_id = _ident(obs.get("traceId"))
            if trace_id is None:
                raise CaseError(f"a Langfuse observation without traceId at [{i}]: expected "
                                f"{_LF_OBS}")
            grouped.setdefault(trace_id, []).append(obs)
        return [({"id": t, "observations": o}, "the top level") for t, o in grouped.items()]
    return [(trace, f"[{i}]") for i, trace in enumerate(items)]


def _langfuse(data: Any) -> list[Retrieval]:
    found = []
    traces = _langfuse_traces(data)
    for trace, at in traces:
        if not isinstance(trace, Mapping):
            raise CaseError(f"{_describe(trace)} where a Langfuse trace belongs at {at}: "
                            f"expected {_LF_TRACE}")
        observations = _list(trace.get("observations"), "a Langfuse trace's observations", at,
                             f"a list of observations {_LF_OBS}")
        if observations and not isinstance(observations[0], Mapping):
            raise CaseError(f"a Langfuse trace whose observations are ids, not objects, at "
                            f"{at}: expected the trace as GET /api/public/traces/{{id}} returns "
                            "it, with whole observations")
        retrieval = _langfuse_trace(trace, observations, at)
        if retrieval is not None:
            found.append(retrieval)
    if not found:
        raise CaseError(f"a Langfuse trace export with no retriever observation ({len(traces)} "
                        f"trace{'s' if len(traces) != 1 else ''}): expected an observation of "
                        'type "RETRIEVER", or one whose output is a list of documents '
                        f"{_ANY_DOC}")
    return found


def _langfuse_trace(trace: Mapping[str, Any], observations: list[Any],
                    at: str) -> Retrieval | None:
    rows = []
    for i, obs in enumerate(observations):
        if not isinstance(obs, Mapping):
            raise CaseError(f"{_describe(obs)} where a Langfuse observation belongs at "
                            f"{at}.observations[{i}]: expected {_LF_OBS}")
        start = obs.get("startTime")
        rows.append((start if isinstance(start, str) else "", i, obs))
    rows.sort(key=lambda row: (row[0], row[1]))
    ordered = [(i, obs) for _, i, obs in rows]
    retrievers = [(i, obs) for i, obs in ordered if _upper(obs.get("type")) == "RETRIEVER"]
    if not retrievers:  # SDKs before observation types: a step that output documents
        retrievers = [(i, obs) for i, obs in ordered
                      if _looks_like_documents(obs.get("output"))]
    parents = {key: _ident(obs.get("parentObservationId")) for _, obs in ordered
               if (key := _ident(obs.get("id"))) is not None}
    retrievers = _outermost(retrievers, lambda r: _ident(r[1].get("id")),
                            lambda r: _ident(r[1].get("parentObservationId")), parents)
    if not retrievers:
        return None
    chunks: list[_Doc] = []
    for i, obs in retrievers:
        where = f"{at}.observations[{i}]"
        output = obs.get("output")
        docs = [] if output is None else _documents_of(output)
        if docs is None:
            raise CaseError(f"a Langfuse retriever observation whose output is "
                            f"{_describe(output)} at {where}: expected a list of documents "
                            f'{_ANY_DOC} or {{"documents": [...]}}')
        chunks.extend(_any_document(d, f"{where}.output[{j}]") for j, d in enumerate(docs))
    ids = {_ident(obs.get("id")) for _, obs in ordered} - {None}
    root = next((obs for _, obs in ordered
                 if _ident(obs.get("parentObservationId")) not in ids), None)
    question = _question(trace.get("input"))
    if question is None and root is not None:
        question = _question(root.get("input"))
    if question is None:
        first = retrievers[0][1].get("input")
        question = _question(first) or _message_text(first)
    answer = _answer(trace.get("output"))
    if answer is None and root is not None and root is not retrievers[0][1]:
        answer = _answer(root.get("output"))
    if answer is None:
        answer = next((a for _, obs in reversed(ordered)
                       if _upper(obs.get("type")) == "GENERATION"
                       for a in (_answer(obs.get("output")),) if a is not None), None)
    return Retrieval(input=question or "", output=answer or "", chunks=_ranked(chunks),
                     id=_ident(trace.get("id")))


# -- LangSmith --------------------------------------------------------------------------------


def _langsmith_runs(data: Any) -> list[tuple[Mapping[str, Any], str]]:
    if isinstance(data, Mapping) and "run_type" not in data and isinstance(
            data.get("runs"), list):
        data = data["runs"]  # the API's query reply
    tops = [(data, "the top level")] if isinstance(data, Mapping) else [
        (run, f"[{i}]") for i, run in enumerate(_list(
            data, "a LangSmith export", "the top level", f"a list of runs {_LS_RUN}"))]
    runs: list[tuple[Mapping[str, Any], str]] = []
    stack = list(reversed(tops))
    while stack:  # child_runs (client.read_run(..., load_child_runs=True)) flattened
        run, at = stack.pop()
        if not isinstance(run, Mapping):
            raise CaseError(f"{_describe(run)} where a LangSmith run belongs at {at}: expected "
                            f"{_LS_RUN}")
        if not isinstance(run.get("run_type"), str):
            raise CaseError(f"a LangSmith run without run_type at {at}: expected {_LS_RUN}")
        runs.append((run, at))
        children = run.get("child_runs")
        if isinstance(children, list):
            stack.extend(reversed([(c, f"{at}.child_runs[{j}]")
                                   for j, c in enumerate(children)]))
    return runs


def _langsmith(data: Any) -> list[Retrieval]:
    runs = _langsmith_runs(data)
    by_id = {key: run for run, _ in runs if (key := _ident(run.get("id"))) is not None}
    traces: dict[str, list[tuple[Mapping[str, Any], str]]] = {}
    for run, at in runs:
        traces.setdefault(_trace_of(run, by_id) or at, []).append((run, at))
    for members in traces.values():
        members.sort(key=lambda m: _run_order(m[0]))
    found = []
    # traces in the order they started (a root's dotted_order), whatever the file's order
    for members in sorted(traces.values(), key=lambda m: _run_order(m[0][0])):
        parents = {key: _ident(run.get("parent_run_id")) for run, _ in members
                   if (key := _ident(run.get("id"))) is not None}
        retrievers = _outermost(
            [(run, at) for run, at in members if run["run_type"] == "retriever"],
            lambda m: _ident(m[0].get("id")), lambda m: _ident(m[0].get("parent_run_id")),
            parents)
        if not retrievers:
            continue
        chunks: list[_Doc] = []
        for run, at in retrievers:
            outputs = run.get("outputs")
            docs = [] if outputs is None else _documents_of(outputs)
            if docs is None:
                raise CaseError(f"a LangSmith retriever run whose outputs are "
                                f"{_describe(outputs)} at {at}: expected "
                                f'{{"documents": [{_LC_DOC}]}}')
            chunks.extend(_any_document(d, f"{at}.outputs.documents[{j}]")
                          for j, d in enumerate(docs))
        root = next((run for run, _ in members
                     if _ident(run.get("parent_run_id")) not in by_id), members[0][0])
        question = _question(root.get("inputs"))
        if question is None:
            question = _question(retrievers[0][0].get("inputs"))
        answer = None
        if root["run_type"] != "retriever":
            answer = _answer(root.get("outputs"))
        if answer is None:
            answer = next((a for run, _ in reversed(members) if run["run_type"] == "llm"
                           for a in (_llm_text(run.get("outputs")),) if a is not None), None)
        found.append(Retrieval(input=question or "", output=answer or "",
                               chunks=_ranked(chunks),
                               id=_ident(root.get("trace_id")) or _ident(root.get("id"))))
    if not found:
        raise CaseError(f"a LangSmith run export with no retriever run ({len(runs)} run"
                        f"{'s' if len(runs) != 1 else ''}): expected runs with run_type "
                        f'"retriever" and outputs {{"documents": [{_LC_DOC}]}}')
    return found


def _trace_of(run: Mapping[str, Any], by_id: Mapping[str, Mapping[str, Any]]
              ) -> str | None:
    """The run's trace: its trace_id, else its topmost ancestor in the file."""
    seen: set[str] = set()
    while True:
        trace = _ident(run.get("trace_id"))
        if trace is not None:
            return trace
        run_id, parent = _ident(run.get("id")), _ident(run.get("parent_run_id"))
        if parent is None or parent not in by_id or parent in seen:
            return run_id
        seen.add(parent)
        run = by_id[parent]


def _run_order(run: Mapping[str, Any]) -> str:
    for key in ("dotted_order", "start_time"):
        if isinstance(run.get(key), str):
            return run[key]
    return ""


def _llm_text(outputs: Any) -> str | None:
    """An llm run's answer: generations[0][0] (its text, or its message's content)."""
    if not isinstance(outputs, Mapping):
        return _answer(outputs)
    generations = outputs.get("generations")
    if isinstance(generations, list) and generations:
        first = generations[0]
        if isinstance(first, list) and first:
            first = first[0]
        if isinstance(first, Mapping):
            text = first.get("text")
            if isinstance(text, str) and text:
                return clean(text)
            found = _message_text(first.get("message"))
            if found is not None:
                return found
    return _answer(outputs)


_PARSERS: dict[str, Callable[[Any], list[Retrieval]]] = {
    "langchain": _langchain,
    "llamaindex": _llamaindex,
    "otlp": _otlp,
    "langfuse": _langfuse,
    "langsmith": _langsmith,
}

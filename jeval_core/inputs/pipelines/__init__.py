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

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...errors import CaseError
from ...text import one_line
from ...wire import parse_json
from ..files import read_capped
from . import langchain, langfuse, langsmith, llamaindex, otlp
from .langchain import is_lc_document, is_lc_retrieval
from .llamaindex import is_li_node
from .shapes import Chunk, Retrieval, describe

FORMATS = ("langchain", "llamaindex", "otlp", "langfuse", "langsmith")
MAX_BYTES = 64 * 1024 * 1024  # a dataset's cap: thousands of traces

NAMES = {"langchain": "LangChain", "llamaindex": "LlamaIndex", "otlp": "OTLP (OpenInference)",
         "langfuse": "Langfuse", "langsmith": "LangSmith"}
_LABELS = {
    "langchain": "a LangChain Document list",
    "llamaindex": "a LlamaIndex source_nodes list",
    "otlp": "an OTLP JSON trace (resourceSpans)",
    "langfuse": "a Langfuse trace export (observations)",
    "langsmith": "a LangSmith run export (run_type)",
}


# -- reading ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Export:
    """A pipeline export read whole: which format it is and the retrievals it holds."""

    format: str  # one of FORMATS
    retrievals: list[Retrieval]

    @property
    def chunks(self) -> int:
        return sum(len(r.chunks) for r in self.retrievals)


def read(source: str | Path | bytes, fmt: str | None = None) -> list[Retrieval]:
    """The retrievals in a .json or .jsonl pipeline export (a path, or the file's bytes):
    JSONL (one JSON value a line) is read as the list of its lines' values."""
    return read_export(source, fmt).retrievals


def read_export(source: str | Path | bytes, fmt: str | None = None,
                name: str | None = None) -> Export:
    """`read`, saying which format the export is; `name` is the file's name in messages
    (and, for bytes, says by its extension whether they are JSONL)."""
    if isinstance(source, (bytes, bytearray)):
        raw = bytes(source)
        shown = one_line(name, 80) if name else "the file"
        lines = name is not None and Path(name).suffix.lower() in (".jsonl", ".ndjson")
    else:
        path = Path(source)
        raw = read_capped(path, MAX_BYTES, f"is larger than {MAX_BYTES // (1024 * 1024)} MB; "
                          "export fewer traces per file", expected="a pipeline export (.json "
                          "or .jsonl)")
        shown = one_line(name or path.name, 80)
        lines = path.suffix.lower() in (".jsonl", ".ndjson")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise CaseError(f"{shown} is not UTF-8 text (byte {err.start}): expected a JSON or "
                        "JSONL pipeline export") from None
    if not text.strip():
        raise CaseError(f"{shown} is empty: expected a JSON or JSONL pipeline export")
    data = _decode(text, shown, lines)
    found = retrievals(data, fmt)
    return Export(fmt or detect(data) or "", found)


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
    if is_lc_document(obj) or is_lc_retrieval(obj):
        return "langchain"
    return None


def _detect_item(item: Mapping[str, Any]) -> str | None:
    if is_lc_document(item) or is_lc_retrieval(item):
        return "langchain"
    if is_li_node(item) or "source_nodes" in item:
        return "llamaindex"
    if "run_type" in item:
        return "langsmith"
    if "observations" in item or ("traceId" in item and "type" in item
                                  and "spanId" not in item):
        return "langfuse"
    if "resourceSpans" in item or "resource_spans" in item:
        return "otlp"
    return None



def _unknown(data: Any) -> str:
    expected = ", ".join(_LABELS[f] for f in FORMATS)
    return f"not a known pipeline export: found {describe(data)}; expected one of: {expected}"




_PARSERS: dict[str, Callable[[Any], list[Retrieval]]] = {
    "langchain": langchain.retrievals,
    "llamaindex": llamaindex.retrievals,
    "otlp": otlp.retrievals,
    "langfuse": langfuse.retrievals,
    "langsmith": langsmith.retrievals,
}

__all__ = ["FORMATS", "MAX_BYTES", "NAMES", "Chunk", "Export", "Retrieval", "detect", "read",
           "read_export", "retrievals", "to_rows"]

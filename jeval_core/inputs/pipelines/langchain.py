"""LangChain: a list of ``Document``s (``model_dump()`` or ``dumpd``), or retrievals
``{"input", "output" | "answer", "context": [documents]}``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...errors import CaseError
from ...text import one_line
from .shapes import (
    CHUNK_ID_KEYS,
    CONTEXT_KEYS,
    INPUT_KEYS,
    OUTPUT_KEYS,
    SCORE_KEYS,
    Doc,
    Retrieval,
    as_id,
    describe,
    finite_score,
    first_present,
    input_or_output,
    list_at,
    metadata_of,
    ranked,
    required_text,
    source_of,
)

LC_DOC = '{"page_content": str, "metadata": {...}}'
LC_RETRIEVAL = '{"input": str, "output": str, "context": [LangChain documents]}'
# What a retrieval is read from: the question, the answer, the documents and an id.
RETRIEVAL_KEYS = (*INPUT_KEYS, *OUTPUT_KEYS[:4], *CONTEXT_KEYS, "id")


def is_lc_document(obj: Mapping[str, Any]) -> bool:
    if obj.get("lc") == 1 and isinstance(obj.get("id"), list):
        return bool(obj["id"]) and obj["id"][-1] == "Document"
    return "page_content" in obj


def is_lc_retrieval(obj: Mapping[str, Any]) -> bool:
    """A retrieval whose context holds LangChain documents (or nothing: found none)."""
    docs = first_present(obj, CONTEXT_KEYS)
    if not isinstance(docs, list) or "source_nodes" in obj:
        return False
    if not docs:
        return any(key in obj for key in INPUT_KEYS)
    return isinstance(docs[0], Mapping) and is_lc_document(docs[0])



def lc_document(obj: Any, at: str) -> Doc:
    if not isinstance(obj, Mapping):
        raise CaseError(f"{describe(obj)} where a LangChain document belongs at {at}: "
                        f"expected {LC_DOC}")
    if "lc" in obj:
        names = obj.get("id")
        if (obj.get("type") != "constructor" or not isinstance(names, list) or not names
                or names[-1] != "Document" or not isinstance(obj.get("kwargs"), Mapping)):
            shown = ".".join(one_line(n, 40) for n in names) if isinstance(names, list) else "?"
            raise CaseError(f"a LangChain serialized object that is not a Document ({shown}) "
                            f"at {at}: expected a dumpd Document with kwargs {LC_DOC}")
        obj = obj["kwargs"]
    text = required_text(obj.get("page_content"), "a LangChain document", "page_content", at,
                         LC_DOC)
    metadata = metadata_of(obj.get("metadata"), "a LangChain document", at, LC_DOC)
    id_ = as_id(obj.get("id"))
    if id_ is None:
        id_ = as_id(first_present(metadata, CHUNK_ID_KEYS))
    score = finite_score(first_present(metadata, SCORE_KEYS))
    return text, id_, source_of(metadata), score, metadata


def retrievals(data: Any) -> list[Retrieval]:
    if isinstance(data, Mapping):
        if is_lc_document(data):
            data = [data]
        else:
            return [_lc_retrieval(data, "the top level")]
    items = list_at(data, "a LangChain export", "the top level",
                    f"a list of documents {LC_DOC} or of retrievals {LC_RETRIEVAL}")
    if not items:
        raise CaseError("an empty list at the top level: expected LangChain documents "
                        f"{LC_DOC} or retrievals {LC_RETRIEVAL}")
    first = items[0]
    if isinstance(first, Mapping) and is_lc_document(first):
        chunks = ranked(lc_document(doc, f"[{i}]") for i, doc in enumerate(items))
        return [Retrieval(input="", output="", chunks=chunks, id=None)]
    return [_lc_retrieval(item, f"[{i}]") for i, item in enumerate(items)]


def _lc_retrieval(obj: Any, at: str) -> Retrieval:
    what = "a LangChain retrieval"
    if not isinstance(obj, Mapping):
        raise CaseError(f"{describe(obj)} where a LangChain retrieval belongs at {at}: "
                        f"expected {LC_RETRIEVAL}")
    docs_key = next((k for k in CONTEXT_KEYS if obj.get(k) is not None), None)
    if docs_key is None:
        raise CaseError(f"{what} without context at {at}: expected {LC_RETRIEVAL}")
    docs = list_at(obj[docs_key], f"{what}'s {docs_key}", at, "a list of LangChain documents "
                   + LC_DOC)
    input_key = next((k for k in INPUT_KEYS if k in obj), "input")
    output_key = next((k for k in OUTPUT_KEYS[:4] if k in obj), "output")
    return Retrieval(
        input=input_or_output(obj.get(input_key), what, input_key, at, LC_RETRIEVAL),
        output=input_or_output(obj.get(output_key), what, output_key, at, LC_RETRIEVAL),
        chunks=ranked(lc_document(d, f"{at}.{docs_key}[{i}]") for i, d in enumerate(docs)),
        id=as_id(obj.get("id")))


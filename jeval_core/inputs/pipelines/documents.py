"""Documents as trace tools (Langfuse, LangSmith) record a retriever step's output."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...errors import CaseError
from ...text import clean
from .langchain import is_lc_document, lc_document
from .llamaindex import is_li_node, li_node
from .shapes import (
    CHUNK_ID_KEYS,
    SCORE_KEYS,
    Doc,
    as_id,
    describe,
    finite_score,
    first_present,
    metadata_of,
    required_text,
    source_of,
)

ANY_DOC = '{"page_content": str, "metadata": {...}} (or "text"/"content")'


def any_document(obj: Any, at: str) -> Doc:
    """A retrieved document as trace tools record it: a LangChain document (either shape), a
    LlamaIndex node, {"text" | "content", "id", "score", "metadata"}, or a bare string."""
    if isinstance(obj, str):
        return clean(obj), None, None, None, {}
    if isinstance(obj, Mapping):
        if is_lc_document(obj) or "lc" in obj:
            return lc_document(obj, at)
        if is_li_node(obj):
            return li_node(obj, at)
        key = next((k for k in ("text", "content") if k in obj), None)
        if key is not None:
            text = required_text(obj[key], "a retrieved document", key, at, ANY_DOC)
            metadata = metadata_of(obj.get("metadata"), "a retrieved document", at, ANY_DOC)
            id_ = as_id(obj.get("id")) or as_id(first_present(metadata, CHUNK_ID_KEYS))
            score = obj.get("score")
            if score is None:
                score = first_present(metadata, SCORE_KEYS)
            return text, id_, source_of(metadata), finite_score(score), metadata
        raise CaseError(f"a retrieved document without page_content, text or content "
                        f"(found {describe(obj)}) at {at}: expected {ANY_DOC}")
    raise CaseError(f"{describe(obj)} where a retrieved document belongs at {at}: expected "
                    f"{ANY_DOC}")


def documents_of(output: Any) -> list[Any] | None:
    """A retriever step's documents: a list, or {"documents": [...]}; None if neither."""
    if isinstance(output, list):
        return output
    if isinstance(output, Mapping) and isinstance(output.get("documents"), list):
        return output["documents"]
    return None


def looks_like_documents(output: Any) -> bool:
    docs = documents_of(output)
    return (docs is not None and bool(docs) and isinstance(docs[0], Mapping)
            and is_lc_document(docs[0]))


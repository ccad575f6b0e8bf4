"""LlamaIndex: a ``Response``'s ``source_nodes`` (``NodeWithScore.to_dict()`` /
``model_dump()``), or responses ``{"query", "response", "source_nodes"}``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...errors import CaseError
from .shapes import (
    INPUT_KEYS,
    OUTPUT_KEYS,
    Doc,
    Retrieval,
    as_id,
    describe,
    finite_score,
    input_or_output,
    list_at,
    metadata_of,
    ranked,
    required_text,
    source_of,
)

LI_NODE = '{"node": {"text": str, "id_": str, "metadata": {...}}, "score": number}'
LI_RESPONSE = '{"query": str, "response": str, "source_nodes": [nodes]}'


def is_li_node(obj: Mapping[str, Any]) -> bool:
    return (isinstance(obj.get("node"), Mapping) or obj.get("class_name") == "NodeWithScore"
            or ("id_" in obj and ("text" in obj or "text_resource" in obj)))



def li_node(obj: Any, at: str) -> Doc:
    what = "a LlamaIndex node"
    if not isinstance(obj, Mapping):
        raise CaseError(f"{describe(obj)} where a LlamaIndex node belongs at {at}: expected "
                        f"{LI_NODE}")
    node, score = obj.get("node"), obj.get("score")
    if node is None and ("text" in obj or "text_resource" in obj):  # a bare node, no score
        node, score = obj, None
    if not isinstance(node, Mapping):
        raise CaseError(f"a LlamaIndex NodeWithScore whose node is {describe(node)} at {at}: "
                        f"expected {LI_NODE}")
    text = node.get("text")
    resource = node.get("text_resource")
    if text is None and isinstance(resource, Mapping):  # llama-index's newer Node
        text = resource.get("text")
    text = required_text(text, what, "text", f"{at}.node", LI_NODE)
    metadata = metadata_of(node.get("metadata"), what, f"{at}.node", LI_NODE)
    id_ = as_id(node.get("id_")) or as_id(node.get("id"))
    return text, id_, source_of(metadata), finite_score(score), metadata


def retrievals(data: Any) -> list[Retrieval]:
    if isinstance(data, Mapping):
        return [_li_response(data, "the top level")]
    items = list_at(data, "a LlamaIndex export", "the top level",
                    f"a source_nodes list {LI_NODE} or responses {LI_RESPONSE}")
    if not items:
        raise CaseError("an empty list at the top level: expected LlamaIndex source_nodes "
                        f"{LI_NODE} or responses {LI_RESPONSE}")
    first = items[0]
    if isinstance(first, Mapping) and "source_nodes" not in first:
        chunks = ranked(li_node(n, f"[{i}]") for i, n in enumerate(items))
        return [Retrieval(input="", output="", chunks=chunks, id=None)]
    return [_li_response(item, f"[{i}]") for i, item in enumerate(items)]


def _li_response(obj: Any, at: str) -> Retrieval:
    what = "a LlamaIndex response"
    if not isinstance(obj, Mapping):
        raise CaseError(f"{describe(obj)} where a LlamaIndex response belongs at {at}: "
                        f"expected {LI_RESPONSE}")
    if obj.get("source_nodes") is None:
        raise CaseError(f"{what} without source_nodes at {at}: expected {LI_RESPONSE}")
    nodes = list_at(obj["source_nodes"], f"{what}'s source_nodes", at, f"a list of {LI_NODE}")
    input_key = next((k for k in ("query", "query_str", *INPUT_KEYS) if k in obj), "query")
    output_key = next((k for k in ("response", *OUTPUT_KEYS[:3]) if k in obj), "response")
    return Retrieval(
        input=input_or_output(obj.get(input_key), what, input_key, at, LI_RESPONSE),
        output=input_or_output(obj.get(output_key), what, output_key, at, LI_RESPONSE),
        chunks=ranked(li_node(n, f"{at}.source_nodes[{i}]") for i, n in enumerate(nodes)),
        id=as_id(obj.get("id")))


"""OTLP/JSON trace exports (``resourceSpans``) holding OpenInference spans: one retrieval
per trace with a ``RETRIEVER`` span."""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ...errors import CaseError
from ...text import clean, clean_json, one_line
from ...wire import parse_json
from .shapes import (
    Doc,
    Retrieval,
    answer_in,
    as_id,
    describe,
    finite_score,
    list_at,
    outermost,
    question_in,
    ranked,
    required_text,
    source_of,
    upper,
)

_OTLP_SPAN = '{"traceId": str, "spanId": str, "name": str, "attributes": [...]}'
_OTLP_ATTR = '[{"key": str, "value": {"stringValue" | "doubleValue" | "intValue": ...}}]'
_OI_DOC = "retrieval.documents.N.document.content (a string)"
_MAX_VALUE_DEPTH = 32  # OTLP arrayValue / kvlistValue nesting we convert
_HEX_ID = re.compile(r"[0-9a-fA-F]{16}(?:[0-9a-fA-F]{16})?")
_DOC_ATTR = re.compile(r"retrieval\.documents\.(\d{1,6})\.(.+)")


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
        return upper(self.attrs.get("openinference.span.kind"))


def _otlp_spans(data: Any) -> list[_Span]:
    requests = data if isinstance(data, list) else [data]
    spans: list[_Span] = []
    for r, request in enumerate(requests):
        where = f"[{r}]" if isinstance(data, list) else "the top level"
        prefix = f"[{r}]." if isinstance(data, list) else ""
        if not isinstance(request, Mapping) or ("resourceSpans" not in request
                                                and "resource_spans" not in request):
            raise CaseError(f"{describe(request)} at {where}: expected an OTLP JSON export "
                            '{"resourceSpans": [...]}')
        resources = list_at(_otlp_get(request, "resourceSpans", "resource_spans"),
                            "resourceSpans", where,
                            '[{"resource": {...}, "scopeSpans": [{"spans": [...]}]}]')
        for i, resource in enumerate(resources):
            at = f"{prefix}resourceSpans[{i}]"
            if not isinstance(resource, Mapping):
                raise CaseError(f"{describe(resource)} at {at}: expected "
                                '{"resource": {...}, "scopeSpans": [...]}')
            scopes: Any = next((resource[k] for k in ("scopeSpans", "scope_spans",
                                                 "instrumentationLibrarySpans")
                           if k in resource), [])
            for j, scope in enumerate(list_at(scopes, "scopeSpans", at, '[{"spans": [...]}]')):
                if not isinstance(scope, Mapping):
                    raise CaseError(f"{describe(scope)} at {at}.scopeSpans[{j}]: expected "
                                    '{"scope": {...}, "spans": [...]}')
                items = list_at(scope.get("spans", []), "spans", f"{at}.scopeSpans[{j}]",
                                f"a list of spans {_OTLP_SPAN}")
                for k, span in enumerate(items):
                    spans.append(_otlp_span(span, f"{at}.scopeSpans[{j}].spans[{k}]"))
    return spans


def _otlp_span(span: Any, at: str) -> _Span:
    if not isinstance(span, Mapping):
        raise CaseError(f"{describe(span)} where an OTLP span belongs at {at}: expected "
                        f"{_OTLP_SPAN}")
    trace = _otlp_id(_otlp_get(span, "traceId", "trace_id"))
    if trace is None:
        raise CaseError(f"an OTLP span without traceId at {at}: expected {_OTLP_SPAN}")
    attrs = span.get("attributes", [])
    if not isinstance(attrs, list):
        raise CaseError(f"an OTLP span whose attributes are {describe(attrs)} at {at}: "
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


def _oi_documents(span: _Span) -> list[Doc]:
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
        text = required_text(doc.get("document.content"), "an OpenInference retrieval document",
                             "document.content", at, _OI_DOC)
        metadata = doc.get("document.metadata")
        if isinstance(metadata, str):
            try:
                metadata = parse_json(metadata)
            except ValueError:
                metadata = None
        metadata = clean_json(dict(metadata)) if isinstance(metadata, Mapping) else {}
        out.append((text, as_id(doc.get("document.id")), source_of(metadata),
                    finite_score(doc.get("document.score")), metadata))
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
    return _oi_value(span, "output", answer_in)


def retrievals(data: Any) -> list[Retrieval]:
    traces: dict[str, list[_Span]] = {}
    for span in _otlp_spans(data):
        traces.setdefault(span.trace, []).append(span)
    found = []
    for spans in traces.values():
        spans.sort(key=lambda s: s.start)
    # traces in the order they started, whatever order the exporter wrote them in
    for trace_id, spans in sorted(traces.items(), key=lambda t: t[1][0].start):
        parents = {s.span: s.parent for s in spans if s.span is not None}
        retrievers = outermost([s for s in spans if s.kind == "RETRIEVER"],
                               lambda s: s.span, lambda s: s.parent, parents)
        if not retrievers:
            continue
        ids = {s.span for s in spans}
        roots = [s for s in spans if s.parent is None or s.parent not in ids]
        root = next((s for s in roots if s.kind != "RETRIEVER"), None)
        question = None if root is None else _oi_value(root, "input", question_in)
        if question is None:
            question = _oi_value(retrievers[0], "input", question_in)
        answer = None if root is None else _oi_value(root, "output", answer_in)
        if answer is None:
            answer = next((a for s in reversed(spans) if s.kind == "LLM"
                           for a in (_oi_llm_output(s),) if a is not None), None)
        chunks = ranked(doc for s in retrievers for doc in _oi_documents(s))
        found.append(Retrieval(input=question or "", output=answer or "", chunks=chunks,
                               id=trace_id))
    if not found:
        n = sum(len(s) for s in traces.values())
        raise CaseError(f"an OTLP trace export with no OpenInference RETRIEVER span ({n} "
                        f"span{'s' if n != 1 else ''} in {len(traces)} trace"
                        f"{'s' if len(traces) != 1 else ''}): expected spans with "
                        f"openinference.span.kind = RETRIEVER and {_OI_DOC}")
    return found


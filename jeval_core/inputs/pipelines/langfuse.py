"""Langfuse: traces with their observations (``GET /api/public/traces/{id}``), one
retrieval per trace with a retriever observation."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...errors import CaseError
from .documents import ANY_DOC, any_document, documents_of, looks_like_documents
from .shapes import (
    Doc,
    Retrieval,
    answer_in,
    as_id,
    describe,
    list_at,
    message_text,
    outermost,
    question_in,
    ranked,
    upper,
)

_LF_TRACE = '{"id": str, "input": ..., "output": ..., "observations": [{...}]}'
_LF_OBS = '{"id": str, "traceId": str, "type": "SPAN" | "GENERATION" | ..., "output": ...}'


def _langfuse_traces(data: Any) -> list[tuple[Mapping[str, Any], str]]:
    if isinstance(data, Mapping) and "observations" not in data and isinstance(
            data.get("data"), list):
        data = data["data"]  # the API's list reply
    if isinstance(data, Mapping):
        return [(data, "the top level")]
    items = list_at(data, "a Langfuse export", "the top level", f"a trace {_LF_TRACE} or a list "
                    "of them")
    if items and isinstance(items[0], Mapping) and "observations" not in items[0]:
        if "traceId" not in items[0]:
            raise CaseError("a Langfuse trace without observations at [0]: expected "
                            f"{_LF_TRACE}")
        # a flat list of observations (the observations API): one trace per traceId
        grouped: dict[str, list[Any]] = {}
        for i, obs in enumerate(items):
            if not isinstance(obs, Mapping):
                raise CaseError(f"{describe(obs)} where a Langfuse observation belongs at "
                                f"[{i}]: expected {_LF_OBS}")
            trace_id = as_id(obs.get("traceId"))
            if trace_id is None:
                raise CaseError(f"a Langfuse observation without traceId at [{i}]: expected "
                                f"{_LF_OBS}")
            grouped.setdefault(trace_id, []).append(obs)
        return [({"id": t, "observations": o}, "the top level") for t, o in grouped.items()]
    return [(trace, f"[{i}]") for i, trace in enumerate(items)]


def retrievals(data: Any) -> list[Retrieval]:
    found = []
    traces = _langfuse_traces(data)
    for trace, at in traces:
        if not isinstance(trace, Mapping):
            raise CaseError(f"{describe(trace)} where a Langfuse trace belongs at {at}: "
                            f"expected {_LF_TRACE}")
        observations = list_at(trace.get("observations"), "a Langfuse trace's observations", at,
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
                        f"{ANY_DOC}")
    return found


def _langfuse_trace(trace: Mapping[str, Any], observations: list[Any],
                    at: str) -> Retrieval | None:
    rows = []
    for i, obs in enumerate(observations):
        if not isinstance(obs, Mapping):
            raise CaseError(f"{describe(obs)} where a Langfuse observation belongs at "
                            f"{at}.observations[{i}]: expected {_LF_OBS}")
        start = obs.get("startTime")
        rows.append((start if isinstance(start, str) else "", i, obs))
    rows.sort(key=lambda row: (row[0], row[1]))
    ordered = [(i, obs) for _, i, obs in rows]
    retrievers = [(i, obs) for i, obs in ordered if upper(obs.get("type")) == "RETRIEVER"]
    if not retrievers:  # SDKs before observation types: a step that output documents
        retrievers = [(i, obs) for i, obs in ordered
                      if looks_like_documents(obs.get("output"))]
    parents = {key: as_id(obs.get("parentObservationId")) for _, obs in ordered
               if (key := as_id(obs.get("id"))) is not None}
    retrievers = outermost(retrievers, lambda r: as_id(r[1].get("id")),
                           lambda r: as_id(r[1].get("parentObservationId")), parents)
    if not retrievers:
        return None
    chunks: list[Doc] = []
    for i, obs in retrievers:
        where = f"{at}.observations[{i}]"
        output = obs.get("output")
        docs = [] if output is None else documents_of(output)
        if docs is None:
            raise CaseError(f"a Langfuse retriever observation whose output is "
                            f"{describe(output)} at {where}: expected a list of documents "
                            f'{ANY_DOC} or {{"documents": [...]}}')
        chunks.extend(any_document(d, f"{where}.output[{j}]") for j, d in enumerate(docs))
    ids = {as_id(obs.get("id")) for _, obs in ordered} - {None}
    root = next((obs for _, obs in ordered
                 if as_id(obs.get("parentObservationId")) not in ids), None)
    question = question_in(trace.get("input"))
    if question is None and root is not None:
        question = question_in(root.get("input"))
    if question is None:
        first = retrievers[0][1].get("input")
        question = question_in(first) or message_text(first)
    answer = answer_in(trace.get("output"))
    if answer is None and root is not None and root is not retrievers[0][1]:
        answer = answer_in(root.get("output"))
    if answer is None:
        answer = next((a for _, obs in reversed(ordered)
                       if upper(obs.get("type")) == "GENERATION"
                       for a in (answer_in(obs.get("output")),) if a is not None), None)
    return Retrieval(input=question or "", output=answer or "", chunks=ranked(chunks),
                     id=as_id(trace.get("id")))


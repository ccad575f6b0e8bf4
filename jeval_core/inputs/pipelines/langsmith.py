"""LangSmith: runs (``client.list_runs`` as JSON or JSONL), one retrieval per trace with
a ``retriever`` run."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...errors import CaseError
from ...text import clean
from .documents import any_document, documents_of
from .langchain import LC_DOC
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
)

_LS_RUN = '{"id": str, "trace_id": str, "run_type": str, "inputs": {...}, "outputs": {...}}'


def _langsmith_runs(data: Any) -> list[tuple[Mapping[str, Any], str]]:
    if isinstance(data, Mapping) and "run_type" not in data and isinstance(
            data.get("runs"), list):
        data = data["runs"]  # the API's query reply
    tops = [(data, "the top level")] if isinstance(data, Mapping) else [
        (run, f"[{i}]") for i, run in enumerate(list_at(
            data, "a LangSmith export", "the top level", f"a list of runs {_LS_RUN}"))]
    runs: list[tuple[Mapping[str, Any], str]] = []
    stack = list(reversed(tops))
    while stack:  # child_runs (client.read_run(..., load_child_runs=True)) flattened
        run, at = stack.pop()
        if not isinstance(run, Mapping):
            raise CaseError(f"{describe(run)} where a LangSmith run belongs at {at}: expected "
                            f"{_LS_RUN}")
        if not isinstance(run.get("run_type"), str):
            raise CaseError(f"a LangSmith run without run_type at {at}: expected {_LS_RUN}")
        runs.append((run, at))
        children = run.get("child_runs")
        if isinstance(children, list):
            stack.extend(reversed([(c, f"{at}.child_runs[{j}]")
                                   for j, c in enumerate(children)]))
    return runs


def retrievals(data: Any) -> list[Retrieval]:
    runs = _langsmith_runs(data)
    by_id = {key: run for run, _ in runs if (key := as_id(run.get("id"))) is not None}
    traces: dict[str, list[tuple[Mapping[str, Any], str]]] = {}
    for run, at in runs:
        traces.setdefault(_trace_of(run, by_id) or at, []).append((run, at))
    for members in traces.values():
        members.sort(key=lambda m: _run_order(m[0]))
    found = []
    # traces in the order they started (a root's dotted_order), whatever the file's order
    for members in sorted(traces.values(), key=lambda m: _run_order(m[0][0])):
        parents = {key: as_id(run.get("parent_run_id")) for run, _ in members
                   if (key := as_id(run.get("id"))) is not None}
        retrievers = outermost(
            [(run, at) for run, at in members if run["run_type"] == "retriever"],
            lambda m: as_id(m[0].get("id")), lambda m: as_id(m[0].get("parent_run_id")),
            parents)
        if not retrievers:
            continue
        chunks: list[Doc] = []
        for run, at in retrievers:
            outputs = run.get("outputs")
            docs = [] if outputs is None else documents_of(outputs)
            if docs is None:
                raise CaseError(f"a LangSmith retriever run whose outputs are "
                                f"{describe(outputs)} at {at}: expected "
                                f'{{"documents": [{LC_DOC}]}}')
            chunks.extend(any_document(d, f"{at}.outputs.documents[{j}]")
                          for j, d in enumerate(docs))
        root = next((run for run, _ in members
                     if as_id(run.get("parent_run_id")) not in by_id), members[0][0])
        question = question_in(root.get("inputs"))
        if question is None:
            question = question_in(retrievers[0][0].get("inputs"))
        answer = None
        if root["run_type"] != "retriever":
            answer = answer_in(root.get("outputs"))
        if answer is None:
            answer = next((a for run, _ in reversed(members) if run["run_type"] == "llm"
                           for a in (_llm_text(run.get("outputs")),) if a is not None), None)
        found.append(Retrieval(input=question or "", output=answer or "",
                               chunks=ranked(chunks),
                               id=as_id(root.get("trace_id")) or as_id(root.get("id"))))
    if not found:
        raise CaseError(f"a LangSmith run export with no retriever run ({len(runs)} run"
                        f"{'s' if len(runs) != 1 else ''}): expected runs with run_type "
                        f'"retriever" and outputs {{"documents": [{LC_DOC}]}}')
    return found


def _trace_of(run: Mapping[str, Any], by_id: Mapping[str, Mapping[str, Any]]
              ) -> str | None:
    """The run's trace: its trace_id, else its topmost ancestor in the file."""
    seen: set[str] = set()
    while True:
        trace = as_id(run.get("trace_id"))
        if trace is not None:
            return trace
        run_id, parent = as_id(run.get("id")), as_id(run.get("parent_run_id"))
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
        return answer_in(outputs)
    generations = outputs.get("generations")
    if isinstance(generations, list) and generations:
        first = generations[0]
        if isinstance(first, list) and first:
            first = first[0]
        if isinstance(first, Mapping):
            text = first.get("text")
            if isinstance(text, str) and text:
                return clean(text)
            found = message_text(first.get("message"))
            if found is not None:
                return found
    return answer_in(outputs)

"""Pipeline exports (LangChain, LlamaIndex, OTLP/OpenInference, Langfuse, LangSmith) read
into retrievals, checked against the real fixtures in assets/pipelines/ (made with the
pipelines' own packages; see each folder's PROVENANCE.md).

Expected values are taken from the fixture files directly, not through the parser."""

from __future__ import annotations

import ast
import copy
import dataclasses
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jeval_core.errors import CaseError
from jeval_core.inputs import pipelines
from jeval_core.inputs.pipelines import FORMATS, Chunk, Retrieval, detect, read, retrievals, to_rows

PIPELINES = Path(__file__).resolve().parent.parent / "assets" / "pipelines"
FIXTURES = {
    "langchain/documents.json": "langchain",
    "langchain/documents_dumpd.json": "langchain",
    "langchain/retrievals.json": "langchain",
    "langchain/chain_results_dumpd.json": "langchain",
    "llamaindex/source_nodes.json": "llamaindex",
    "llamaindex/responses.json": "llamaindex",
    "otlp/traces.json": "otlp",
    "otlp/collector_export.jsonl": "otlp",
    "langfuse/traces.json": "langfuse",
    "langsmith/runs.jsonl": "langsmith",
}


def load(name: str) -> Any:
    """A fixture as decoded JSON: a .jsonl file is the list of its lines' values."""
    text = (PIPELINES / name).read_text(encoding="utf-8")
    if name.endswith(".jsonl"):
        return [json.loads(line) for line in text.splitlines() if line.strip()]
    return json.loads(text)


def chunks_as_tuples(retrieval: Retrieval) -> list[tuple[Any, ...]]:
    return [(c.text, c.id, c.source, c.score, c.rank) for c in retrieval.chunks]


def lc_expected(doc: dict[str, Any], rank: int) -> tuple[Any, ...]:
    """What a LangChain document (model_dump or dumpd) should become."""
    doc = doc["kwargs"] if doc.get("lc") == 1 else doc
    meta = doc["metadata"]
    return (doc["page_content"], doc["id"], meta["title"],
            meta.get("score", meta.get("relevance_score")), rank)


def one_line_error(excinfo: pytest.ExceptionInfo[CaseError]) -> str:
    message = str(excinfo.value)
    assert "\n" not in message and message
    return message


# -- every fixture: detected from its shape, read whole --------------------------------------


def test_every_fixture_folder_says_how_it_was_made() -> None:
    for fmt in FORMATS:
        text = (PIPELINES / fmt / "PROVENANCE.md").read_text(encoding="utf-8")
        assert "written here" in text and "Command" in text


@pytest.mark.parametrize("name", sorted(FIXTURES))
def test_each_fixture_is_detected_from_its_shape(name: str) -> None:
    assert detect(load(name)) == FIXTURES[name]


def test_detection_ignores_the_file_name(tmp_path: Path) -> None:
    misnamed = tmp_path / "langchain_documents.json"
    misnamed.write_text(json.dumps(load("langsmith/runs.jsonl")), encoding="utf-8")
    assert [r.id for r in read(misnamed)] == [r.id for r in read(PIPELINES /
                                                                  "langsmith/runs.jsonl")]


@pytest.mark.parametrize("name", sorted(FIXTURES))
def test_each_fixture_reads_from_a_path_and_from_its_bytes_alike(name: str) -> None:
    path = PIPELINES / name
    assert read(path) == read(path.read_bytes()) == retrievals(load(name))


@pytest.mark.parametrize("name", sorted(FIXTURES))
def test_the_format_given_matches_the_format_detected(name: str) -> None:
    assert retrievals(load(name), FIXTURES[name]) == retrievals(load(name))


# -- LangChain -------------------------------------------------------------------------------


def test_langchain_document_list_keeps_every_chunk() -> None:
    docs = load("langchain/documents.json")
    (found,) = read(PIPELINES / "langchain/documents.json")
    assert (found.input, found.output, found.id) == ("", "", None)
    assert chunks_as_tuples(found) == [lc_expected(d, i) for i, d in enumerate(docs)]


def test_langchain_dumpd_document_list_keeps_every_chunk() -> None:
    docs = load("langchain/documents_dumpd.json")
    assert all(d["lc"] == 1 and d["type"] == "constructor" for d in docs)
    (found,) = read(PIPELINES / "langchain/documents_dumpd.json")
    assert chunks_as_tuples(found) == [lc_expected(d, i) for i, d in enumerate(docs)]


def test_langchain_retrievals_keep_question_answer_and_chunks() -> None:
    rows = load("langchain/retrievals.json")
    found = read(PIPELINES / "langchain/retrievals.json")
    assert len(found) == len(rows) == 3
    for row, r in zip(rows, found, strict=True):
        assert (r.input, r.output) == (row["input"], row["output"])
        assert chunks_as_tuples(r) == [lc_expected(d, i) for i, d in enumerate(row["context"])]


def test_langchain_chain_results_through_dumpd_read_like_the_model_dumps() -> None:
    dumped = read(PIPELINES / "langchain/chain_results_dumpd.json")
    plain = read(PIPELINES / "langchain/retrievals.json")
    assert [(r.input, r.output, chunks_as_tuples(r)) for r in dumped] == [
        (r.input, r.output, chunks_as_tuples(r)) for r in plain]


def test_langchain_metadata_is_kept_beside_the_text_never_in_it() -> None:
    doc = {"page_content": "Refunds take 5 days.", "id": "d1",
           "metadata": {"source": "refunds.md", "section": "MARKER-SECTION", "score": 0.5}}
    (found,) = retrievals([doc])
    (chunk,) = found.chunks
    assert chunk.text == "Refunds take 5 days."
    assert chunk.metadata == doc["metadata"]
    assert "MARKER" not in chunk.text and "refunds.md" not in chunk.text


def test_langchain_chunk_source_prefers_the_title_then_the_source() -> None:
    docs = [{"page_content": "a", "metadata": {"source": "a.md", "title": "Alpha"}},
            {"page_content": "b", "metadata": {"source": "b.md"}},
            {"page_content": "c", "metadata": {"file_path": "/d/c.md", "file_name": "c.md"}},
            {"page_content": "d", "metadata": {"doc_id": "doc-4"}},
            {"page_content": "e", "metadata": {}}]
    (found,) = retrievals(docs)
    assert [c.source for c in found.chunks] == ["Alpha", "b.md", "c.md", "doc-4", None]


def test_langchain_serialized_object_that_is_not_a_document_is_refused() -> None:
    message = {"lc": 1, "type": "constructor",
               "id": ["langchain", "schema", "messages", "AIMessage"],
               "kwargs": {"content": "hi", "page_content": "hi"}}
    docs = load("langchain/documents_dumpd.json") + [message]
    with pytest.raises(CaseError) as excinfo:
        retrievals(docs)
    text = one_line_error(excinfo)
    assert "not a Document (langchain.schema.messages.AIMessage) at [4]" in text


def test_langchain_document_without_page_content_names_its_place() -> None:
    docs = load("langchain/documents.json")
    del docs[2]["page_content"]
    with pytest.raises(CaseError) as excinfo:
        retrievals(docs, "langchain")
    assert one_line_error(excinfo) == (
        'a LangChain document without page_content at [2]: expected {"page_content": str, '
        '"metadata": {...}}')


def test_langchain_page_content_that_is_not_a_string_is_refused() -> None:
    rows = load("langchain/retrievals.json")
    rows[1]["context"][0]["page_content"] = 42
    with pytest.raises(CaseError) as excinfo:
        retrievals(rows)
    assert "whose page_content is a number at [1].context[0]" in one_line_error(excinfo)


def test_langchain_retrieval_without_context_is_refused() -> None:
    rows = load("langchain/retrievals.json")
    del rows[2]["context"]
    with pytest.raises(CaseError) as excinfo:
        retrievals(rows, "langchain")
    assert "a LangChain retrieval without context at [2]" in one_line_error(excinfo)


# -- LlamaIndex ------------------------------------------------------------------------------


def li_expected(item: dict[str, Any], rank: int) -> tuple[Any, ...]:
    node = item["node"]
    return (node["text"], node["id_"], node["metadata"]["file_name"], item["score"], rank)


def test_llamaindex_source_nodes_keep_every_chunk() -> None:
    nodes = load("llamaindex/source_nodes.json")
    (found,) = read(PIPELINES / "llamaindex/source_nodes.json")
    assert (found.input, found.output, found.id) == ("", "", None)
    assert chunks_as_tuples(found) == [li_expected(n, i) for i, n in enumerate(nodes)]


def test_llamaindex_responses_keep_query_response_and_nodes() -> None:
    rows = load("llamaindex/responses.json")
    found = read(PIPELINES / "llamaindex/responses.json")
    assert len(found) == len(rows) == 3
    for row, r in zip(rows, found, strict=True):
        assert (r.input, r.output) == (row["query"], row["response"])
        assert chunks_as_tuples(r) == [li_expected(n, i)
                                       for i, n in enumerate(row["source_nodes"])]


def test_llamaindex_node_metadata_stays_out_of_the_text() -> None:
    (found,) = read(PIPELINES / "llamaindex/source_nodes.json")
    for chunk, item in zip(found.chunks, load("llamaindex/source_nodes.json"), strict=True):
        assert chunk.text == item["node"]["text"]
        assert chunk.metadata == item["node"]["metadata"]


def test_llamaindex_node_without_text_names_its_place() -> None:
    rows = load("llamaindex/responses.json")
    del rows[1]["source_nodes"][3]["node"]["text"]
    with pytest.raises(CaseError) as excinfo:
        retrievals(rows)
    assert one_line_error(excinfo).startswith(
        "a LlamaIndex node without text at [1].source_nodes[3].node: expected")


def test_llamaindex_node_text_resource_is_read_as_its_text() -> None:
    nodes = load("llamaindex/source_nodes.json")
    node = nodes[0]["node"]
    node["text_resource"] = {"text": node.pop("text")}
    (found,) = retrievals(nodes)
    assert found.chunks[0].text == nodes[0]["node"]["text_resource"]["text"]


# -- OTLP / OpenInference --------------------------------------------------------------------


def otlp_traces(request: dict[str, Any]) -> dict[str, list[tuple[dict, dict]]]:
    """Spans by trace id, each with its attributes as a plain dict."""
    traces: dict[str, list[tuple[dict, dict]]] = {}
    for resource in request["resourceSpans"]:
        for scope in resource["scopeSpans"]:
            for span in scope["spans"]:
                attrs = {a["key"]: next(iter(a["value"].values())) for a in span["attributes"]}
                traces.setdefault(span["traceId"], []).append((span, attrs))
    return traces


def otlp_expected(request: dict[str, Any]) -> dict[str, tuple[str, str, list[tuple]]]:
    expected = {}
    for trace_id, spans in otlp_traces(request).items():
        (root,) = [a for s, a in spans if not s.get("parentSpanId")]
        (retriever,) = [a for _, a in spans if a["openinference.span.kind"] == "RETRIEVER"]
        n = sum(k.endswith(".document.content") for k in retriever)
        docs = []
        for i in range(n):
            p = f"retrieval.documents.{i}.document."
            docs.append((retriever[p + "content"], retriever[p + "id"],
                         json.loads(retriever[p + "metadata"])["title"], retriever[p + "score"],
                         i))
        as_json = root["input.mime_type"] == "application/json"
        question = json.loads(root["input.value"])["input"] if as_json else root["input.value"]
        answer = json.loads(root["output.value"])["answer"] if as_json else root["output.value"]
        expected[trace_id] = (question, answer, docs)
    return expected


def test_otlp_export_keeps_every_trace_and_document() -> None:
    expected = otlp_expected(load("otlp/traces.json"))
    found = read(PIPELINES / "otlp/traces.json")
    assert len(found) == len(expected) == 2
    assert {r.id: (r.input, r.output, chunks_as_tuples(r)) for r in found} == expected


def test_otlp_collector_jsonl_reads_like_the_single_request() -> None:
    assert read(PIPELINES / "otlp/collector_export.jsonl") == read(PIPELINES /
                                                                   "otlp/traces.json")


def test_otlp_base64_ids_link_spans_like_hex_ids() -> None:
    import base64

    request = load("otlp/traces.json")
    for resource in request["resourceSpans"]:
        for scope in resource["scopeSpans"]:
            for span in scope["spans"]:
                for key in ("traceId", "spanId", "parentSpanId"):
                    if span.get(key):
                        span[key] = base64.b64encode(bytes.fromhex(span[key])).decode()
    assert retrievals(request) == read(PIPELINES / "otlp/traces.json")


def test_otlp_answer_falls_back_to_the_llm_output_message() -> None:
    request = load("otlp/traces.json")
    expected = otlp_expected(request)
    for resource in request["resourceSpans"]:
        for scope in resource["scopeSpans"]:
            for span in scope["spans"]:
                span["attributes"] = [a for a in span["attributes"]
                                      if not (a["key"] == "output.value"
                                              and not span.get("parentSpanId"))]
    assert {r.id: r.output for r in retrievals(request)} == {
        t: e[1] for t, e in expected.items()}


def test_otlp_trace_without_any_answer_has_an_empty_output() -> None:
    request = load("otlp/traces.json")
    for resource in request["resourceSpans"]:
        for scope in resource["scopeSpans"]:
            scope["spans"] = [s for s in scope["spans"] if s["name"] != "generate"]
            for span in scope["spans"]:
                span["attributes"] = [a for a in span["attributes"]
                                      if a["key"] not in ("output.value", "output.mime_type")]
    found = retrievals(request)
    assert [r.output for r in found] == ["", ""]
    assert all(r.input and r.chunks for r in found)


def test_otlp_retriever_span_with_no_documents_is_a_retrieval_with_no_chunks() -> None:
    request = load("otlp/traces.json")
    for resource in request["resourceSpans"]:
        for scope in resource["scopeSpans"]:
            for span in scope["spans"]:
                span["attributes"] = [a for a in span["attributes"]
                                      if not a["key"].startswith("retrieval.documents.")]
    found = retrievals(request)
    assert [len(r.chunks) for r in found] == [0, 0]
    assert all(r.input and r.output for r in found)


def test_otlp_export_without_a_retriever_span_is_refused() -> None:
    request = load("otlp/traces.json")
    for resource in request["resourceSpans"]:
        for scope in resource["scopeSpans"]:
            scope["spans"] = [s for s in scope["spans"] if s["name"] != "retrieve"]
    with pytest.raises(CaseError) as excinfo:
        retrievals(request)
    assert one_line_error(excinfo).startswith(
        "an OTLP trace export with no OpenInference RETRIEVER span (4 spans in 2 traces)")


def test_otlp_document_content_that_is_not_a_string_is_refused() -> None:
    request = load("otlp/traces.json")
    spans = request["resourceSpans"][0]["scopeSpans"][0]["spans"]
    retriever = next(s for s in spans if s["name"] == "retrieve")
    for attr in retriever["attributes"]:
        if attr["key"] == "retrieval.documents.1.document.content":
            attr["value"] = {"intValue": "7"}
    with pytest.raises(CaseError) as excinfo:
        retrievals(request)
    text = one_line_error(excinfo)
    assert "whose document.content is a number" in text and "document 1" in text


def test_otlp_span_attributes_that_are_not_a_list_are_refused() -> None:
    request = load("otlp/traces.json")
    request["resourceSpans"][0]["scopeSpans"][0]["spans"][2]["attributes"] = {"a": 1}
    with pytest.raises(CaseError) as excinfo:
        retrievals(request)
    assert ("an OTLP span whose attributes are a JSON object with keys a at "
            "resourceSpans[0].scopeSpans[0].spans[2]") in one_line_error(excinfo)


# -- Langfuse --------------------------------------------------------------------------------


def langfuse_expected(trace: dict[str, Any]) -> tuple[Any, ...]:
    (retriever,) = [o for o in trace["observations"] if o["type"] == "RETRIEVER"]
    docs = [lc_expected(d, i) for i, d in enumerate(retriever["output"])]
    return trace["id"], trace["input"]["input"], trace["output"]["answer"], docs


def test_langfuse_traces_keep_question_answer_and_documents() -> None:
    traces = load("langfuse/traces.json")
    found = read(PIPELINES / "langfuse/traces.json")
    assert len(found) == len(traces) == 3
    assert [(r.id, r.input, r.output, chunks_as_tuples(r)) for r in found] == [
        langfuse_expected(t) for t in traces]


def test_langfuse_single_trace_and_api_list_reply_read_alike() -> None:
    traces = load("langfuse/traces.json")
    assert retrievals(traces[1]) == [read(PIPELINES / "langfuse/traces.json")[1]]
    assert retrievals({"data": traces, "meta": {"page": 1}}) == retrievals(traces)


def test_langfuse_flat_observation_list_groups_by_trace() -> None:
    traces = load("langfuse/traces.json")
    flat = [o for t in traces for o in t["observations"]]
    found = retrievals(flat)
    assert [(r.id, r.input, chunks_as_tuples(r)) for r in found] == [
        (e[0], e[1], e[3]) for e in map(langfuse_expected, traces)]
    assert [r.output for r in found] == [t["output"]["answer"] for t in traces]


def test_langfuse_documents_wrapped_in_a_documents_key_are_read() -> None:
    traces = load("langfuse/traces.json")
    retriever = next(o for o in traces[0]["observations"] if o["type"] == "RETRIEVER")
    retriever["output"] = {"documents": retriever["output"]}
    assert retrievals(traces) == read(PIPELINES / "langfuse/traces.json")


def test_langfuse_untyped_retriever_step_is_found_by_its_documents() -> None:
    traces = load("langfuse/traces.json")
    for trace in traces:
        for obs in trace["observations"]:
            if obs["type"] in ("RETRIEVER", "CHAIN"):
                obs["type"] = "SPAN"  # SDKs before observation types
    assert retrievals(traces) == read(PIPELINES / "langfuse/traces.json")


def test_langfuse_answer_falls_back_to_the_generation() -> None:
    traces = load("langfuse/traces.json")
    for trace in traces:
        trace["output"] = None
        for obs in trace["observations"]:
            if obs["parentObservationId"] is None:
                obs["output"] = None
    assert [r.output for r in retrievals(traces)] == [
        t["output"]["answer"] for t in load("langfuse/traces.json")]


def test_langfuse_trace_with_observation_ids_only_is_refused() -> None:
    traces = load("langfuse/traces.json")
    traces[0]["observations"] = [o["id"] for o in traces[0]["observations"]]
    with pytest.raises(CaseError) as excinfo:
        retrievals(traces)
    assert "a Langfuse trace whose observations are ids, not objects, at [0]" in (
        one_line_error(excinfo))


def test_langfuse_trace_without_a_retriever_is_refused() -> None:
    trace = load("langfuse/traces.json")[0]
    trace["observations"] = [o for o in trace["observations"]
                             if o["type"] == "GENERATION"]
    with pytest.raises(CaseError) as excinfo:
        retrievals(trace)
    assert one_line_error(excinfo).startswith(
        "a Langfuse trace export with no retriever observation (1 trace)")


def test_langfuse_retriever_output_that_is_not_documents_is_refused() -> None:
    traces = load("langfuse/traces.json")
    retriever = next(o for o in traces[2]["observations"] if o["type"] == "RETRIEVER")
    retriever["output"] = "five documents"
    with pytest.raises(CaseError) as excinfo:
        retrievals(traces)
    assert "a Langfuse retriever observation whose output is a string at [2].observations[" in (
        one_line_error(excinfo))


def test_langfuse_retriever_inside_a_retriever_counts_once() -> None:
    traces = load("langfuse/traces.json")
    trace = traces[0]
    retriever = next(o for o in trace["observations"] if o["type"] == "RETRIEVER")
    inner = copy.deepcopy(retriever)
    inner.update(id="feedfacecafebeef", parentObservationId=retriever["id"],
                 output=retriever["output"][:2])
    trace["observations"].append(inner)
    assert retrievals(traces) == read(PIPELINES / "langfuse/traces.json")


# -- LangSmith -------------------------------------------------------------------------------


def langsmith_expected(runs: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    expected = []
    for root in (r for r in runs if r["parent_run_id"] is None):
        (retriever,) = [r for r in runs if r["trace_id"] == root["trace_id"]
                        and r["run_type"] == "retriever"]
        docs = [lc_expected(d, i) for i, d in enumerate(retriever["outputs"]["documents"])]
        expected.append((root["trace_id"], root["inputs"]["input"], root["outputs"]["answer"],
                         docs))
    return expected


def test_langsmith_runs_keep_question_answer_and_documents() -> None:
    runs = load("langsmith/runs.jsonl")
    found = read(PIPELINES / "langsmith/runs.jsonl")
    assert len(found) == 2
    assert [(r.id, r.input, r.output, chunks_as_tuples(r)) for r in found] == (
        langsmith_expected(runs))


def test_langsmith_runs_in_any_order_read_alike() -> None:
    runs = load("langsmith/runs.jsonl")
    assert retrievals(list(reversed(runs))) == read(PIPELINES / "langsmith/runs.jsonl")


def test_langsmith_nested_child_runs_read_like_the_flat_export() -> None:
    runs = load("langsmith/runs.jsonl")
    by_id = {r["id"]: dict(r, child_runs=[]) for r in runs}
    roots = []
    for run in by_id.values():
        if run["parent_run_id"] is None:
            roots.append(run)
        else:
            by_id[run["parent_run_id"]]["child_runs"].append(run)
    assert retrievals({"runs": roots}) == read(PIPELINES / "langsmith/runs.jsonl")
    assert retrievals(roots[0]) == read(PIPELINES / "langsmith/runs.jsonl")[:1]


def test_langsmith_answer_falls_back_to_the_llm_run() -> None:
    runs = load("langsmith/runs.jsonl")
    for run in runs:
        if run["parent_run_id"] is None:
            run["outputs"] = None
    assert [r.output for r in retrievals(runs)] == [
        e[2] for e in langsmith_expected(load("langsmith/runs.jsonl"))]


def test_langsmith_run_without_run_type_is_refused() -> None:
    runs = load("langsmith/runs.jsonl")
    del runs[3]["run_type"]
    with pytest.raises(CaseError) as excinfo:
        retrievals(runs, "langsmith")
    assert one_line_error(excinfo).startswith("a LangSmith run without run_type at [3]: expected")


def test_langsmith_errored_retriever_run_is_a_retrieval_with_no_chunks() -> None:
    runs = load("langsmith/runs.jsonl")
    for run in runs:
        if run["run_type"] == "retriever":
            run.update(outputs=None, error="TimeoutError", status="error")
    assert [len(r.chunks) for r in retrievals(runs)] == [0, 0]


# -- hostile input ---------------------------------------------------------------------------


def test_non_finite_and_non_numeric_scores_become_none() -> None:
    docs = [{"page_content": str(i), "metadata": {"score": score}}
            for i, score in enumerate([float("nan"), float("inf"), "high", None, True,
                                       10 ** 400, "0.25", [0.3]])]
    (found,) = retrievals(docs)
    assert [c.score for c in found.chunks] == [None, None, None, None, None, None, 0.25, None]


def test_otlp_score_written_as_nan_becomes_none() -> None:
    request = load("otlp/traces.json")
    for resource in request["resourceSpans"]:
        for scope in resource["scopeSpans"]:
            for span in scope["spans"]:
                for attr in span["attributes"]:
                    if attr["key"] == "retrieval.documents.0.document.score":
                        attr["value"] = {"doubleValue": "NaN"}  # proto3 JSON's own spelling
    assert [r.chunks[0].score for r in retrievals(request)] == [None, None]
    assert [r.chunks[1].score for r in retrievals(request)] == [
        r.chunks[1].score for r in read(PIPELINES / "otlp/traces.json")]


def test_nan_in_a_file_is_refused_as_invalid_json() -> None:
    raw = b'[{"page_content": "a", "metadata": {"score": NaN}}]'
    with pytest.raises(CaseError) as excinfo:
        read(raw)
    assert one_line_error(excinfo).startswith("the file is not valid JSON (NaN is not JSON)")


def test_deeply_nested_file_is_refused() -> None:
    with pytest.raises(CaseError) as excinfo:
        read(b"[" * 100_000 + b"]" * 100_000)
    assert "nested more than 64 levels" in one_line_error(excinfo)


def test_deeply_nested_metadata_in_decoded_data_is_refused() -> None:
    deep: dict[str, Any] = {}
    inner = deep
    for _ in range(sys.getrecursionlimit() * 2):
        inner["x"] = {}
        inner = inner["x"]
    with pytest.raises(CaseError) as excinfo:
        retrievals([{"page_content": "a", "metadata": deep}])
    assert one_line_error(excinfo).startswith("a LangChain Document list nested too deeply")


def test_unknown_shape_names_what_was_found_and_what_is_expected() -> None:
    with pytest.raises(CaseError) as excinfo:
        retrievals({"a": 1, "b": 2, "c": 3})
    assert one_line_error(excinfo) == (
        "not a known pipeline export: found a JSON object with keys a, b, c; expected one of: "
        "a LangChain Document list, a LlamaIndex source_nodes list, an OTLP JSON trace "
        "(resourceSpans), a Langfuse trace export (observations), a LangSmith run export "
        "(run_type)")


@pytest.mark.parametrize("data", [None, 3, "text", [], [1, 2], [[]], {}, [None]])
def test_values_of_no_known_shape_are_refused_in_one_line(data: Any) -> None:
    assert detect(data) is None
    with pytest.raises(CaseError) as excinfo:
        retrievals(data)
    assert one_line_error(excinfo).startswith("not a known pipeline export: found ")


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("data", [None, 3, "text", [1, 2], [None], {"x": 1}, [[]]])
def test_any_value_forced_into_any_format_ends_in_a_case_error(fmt: str, data: Any) -> None:
    with pytest.raises(CaseError) as excinfo:
        retrievals(data, fmt)
    one_line_error(excinfo)


@pytest.mark.parametrize(("name", "fmt"), [(name, fmt) for name in sorted(FIXTURES)
                                           for fmt in FORMATS if fmt != FIXTURES[name]])
def test_a_fixture_read_as_another_format_ends_in_a_case_error(name: str, fmt: str) -> None:
    with pytest.raises(CaseError) as excinfo:
        retrievals(load(name), fmt)
    one_line_error(excinfo)


# Any JSON value, with the keys each format looks for among the random ones.
_KEYS = st.sampled_from(["page_content", "metadata", "lc", "kwargs", "node", "text", "score",
                         "source_nodes", "resourceSpans", "scopeSpans", "spans", "traceId",
                         "attributes", "observations", "type", "output", "run_type", "outputs",
                         "documents", "context", "input", "id", "parentObservationId",
                         "child_runs", "key", "value", "stringValue", "data", "runs"])
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_KEYS, inner, max_size=5),
    max_leaves=30)


@settings(max_examples=300, deadline=None)
@given(data=_JSON, fmt=st.sampled_from([None, *FORMATS]))
def test_any_json_value_gives_retrievals_or_a_one_line_case_error(data: Any,
                                                                  fmt: str | None) -> None:
    try:
        rows = to_rows(retrievals(data, fmt))
    except CaseError as err:
        assert "\n" not in str(err)
    else:
        json.dumps(rows, allow_nan=False)


def test_unknown_format_name_is_refused() -> None:
    with pytest.raises(CaseError) as excinfo:
        retrievals(load("langchain/documents.json"), "haystack")
    assert one_line_error(excinfo) == (
        'unknown pipeline format "haystack": expected one of langchain, llamaindex, otlp, '
        "langfuse, langsmith")


def test_broken_jsonl_line_is_named(tmp_path: Path) -> None:
    lines = (PIPELINES / "langsmith/runs.jsonl").read_text(encoding="utf-8").splitlines()
    lines[2] = lines[2][:40]
    path = tmp_path / "runs.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(CaseError) as excinfo:
        read(path)
    assert one_line_error(excinfo).startswith("runs.jsonl line 3 is not valid JSON")


def test_jsonl_line_holding_a_line_separator_character_stays_one_line() -> None:
    runs = load("langsmith/runs.jsonl")
    for run in runs:
        if run["run_type"] == "retriever":
            run["outputs"]["documents"][0]["page_content"] += "\u2028 and more"
    raw = "\n".join(json.dumps(r, ensure_ascii=False) for r in runs).encode()
    assert b"\xe2\x80\xa8" in raw  # U+2028 written as is, which JSON allows
    assert [r.chunks[0].text[-10:] for r in read(raw)] == ["\u2028 and more"] * 2


def test_empty_and_non_utf8_files_are_refused() -> None:
    with pytest.raises(CaseError) as empty:
        read(b"  \n")
    assert one_line_error(empty) == "the file is empty: expected a JSON or JSONL pipeline export"
    with pytest.raises(CaseError) as binary:
        read(b"\xff\xfe[]")
    assert one_line_error(binary).startswith("the file is not UTF-8 text")


def test_missing_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(CaseError) as excinfo:
        read(tmp_path / "nope.json")
    assert "does not exist" in one_line_error(excinfo)


@pytest.mark.parametrize("module", sorted(
    p.name for p in Path(pipelines.__file__).parent.glob("*.py")))
def test_the_package_imports_only_the_standard_library_and_jeval(module: str) -> None:
    tree = ast.parse((Path(pipelines.__file__).parent / module).read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # jeval's own modules
                continue
            names = [node.module or ""]
        else:
            continue
        for name in names:
            assert name.split(".")[0] in sys.stdlib_module_names | {"__future__"}, name
        assert all(n.split(".")[0] not in ("eval", "exec", "pickle") for n in names)
    assert not any(isinstance(n, ast.Name) and n.id in ("eval", "exec")
                   for n in ast.walk(tree))


# -- rows ------------------------------------------------------------------------------------


def test_rows_carry_texts_and_chunk_metadata_without_nones() -> None:
    (row,) = to_rows(read(PIPELINES / "langchain/documents.json"))
    docs = load("langchain/documents.json")
    assert list(row) == ["input", "output", "context", "context_meta"]
    assert row["context"] == [d["page_content"] for d in docs]
    assert row["context_meta"] == [
        {"id": d["id"], "source": d["metadata"]["title"], "score": d["metadata"]["score"],
         "rank": i} for i, d in enumerate(docs)]
    (bare,) = to_rows([Retrieval("q", "a", (Chunk("t", None, None, None, 0),), None)])
    assert bare == {"input": "q", "output": "a", "context": ["t"],
                    "context_meta": [{"rank": 0}]}


@pytest.mark.parametrize("name", sorted(FIXTURES))
def test_rows_of_every_fixture_are_json_with_one_row_per_retrieval(name: str) -> None:
    found = read(PIPELINES / name)
    rows = to_rows(found)
    assert len(rows) == len(found)
    for row, r in zip(rows, found, strict=True):
        assert json.loads(json.dumps(row, allow_nan=False)) == row
        assert row.get("id") == r.id
        assert [m["rank"] for m in row["context_meta"]] == list(range(len(r.chunks)))


def test_retrievals_and_chunks_are_frozen() -> None:
    (found,) = read(PIPELINES / "langchain/documents.json")
    with pytest.raises(dataclasses.FrozenInstanceError):
        found.input = "changed"  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        found.chunks[0].text = "changed"  # type: ignore[misc]

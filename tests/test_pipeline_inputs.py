"""A RAG pipeline's own output comes in as it is, and each chunk's id, source, score and rank
come with it: whole exports as datasets (one case per retrieval), one retrieval as a case
file, LangChain documents and LlamaIndex nodes as chunks, and our own `context_meta` field.

What a fixture holds is what `pipelines.read` finds in it (tests/test_pipelines.py checks that
against the files themselves); here every other way in must find the same."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import pytest

from jeval_core import Case, CaseError, ChunkMeta
from jeval_core.commands import cli
from jeval_core.inputs import casefile, datasets, pipelines
from jeval_core.inputs.pipelines import Retrieval

PIPELINES = Path(__file__).resolve().parent.parent / "assets" / "pipelines"
FIXTURES = ["langchain/documents.json", "langchain/documents_dumpd.json",
            "langchain/retrievals.json", "langchain/chain_results_dumpd.json",
            "llamaindex/source_nodes.json", "llamaindex/responses.json", "otlp/traces.json",
            "otlp/collector_export.jsonl", "langfuse/traces.json", "langsmith/runs.jsonl"]
ONE_RETRIEVAL = ["langchain/documents.json", "langchain/documents_dumpd.json",
                 "llamaindex/source_nodes.json"]


def load(name: str) -> Any:
    text = (PIPELINES / name).read_text(encoding="utf-8")
    if name.endswith(".jsonl"):
        return [json.loads(line) for line in text.splitlines() if line.strip()]
    return json.loads(text)


def found(r: Retrieval) -> tuple[Any, ...]:
    """A retrieval as a case must keep it: question, answer, texts and each chunk's metadata."""
    return (r.input, r.output, [c.text for c in r.chunks],
            [(c.id, c.source, c.score, c.rank) for c in r.chunks])


def kept(case: Case) -> tuple[Any, ...]:
    return (case.input, case.output, list(case.context),
            [None if m is None else (m.id, m.source, m.score, m.rank)
             for m in case.context_meta])


def one_line_error(excinfo: pytest.ExceptionInfo[CaseError]) -> str:
    message = str(excinfo.value)
    assert message and "\n" not in message
    return message


# -- whole exports as datasets ---------------------------------------------------------------


@pytest.mark.parametrize("name", FIXTURES)
def test_every_export_is_a_dataset_of_one_case_per_retrieval(name):
    dataset = datasets.load(PIPELINES / name)
    expected = pipelines.read(PIPELINES / name)
    assert not dataset.errors
    assert [kept(row.case) for row in dataset.rows] == [found(r) for r in expected]


@pytest.mark.parametrize("name", FIXTURES)
def test_a_retrievals_own_id_becomes_the_rows_id(name):
    dataset = datasets.load(PIPELINES / name)
    for row, r in zip(dataset.rows, pipelines.read(PIPELINES / name), strict=True):
        if r.id is not None:
            assert row.id == r.id


@pytest.mark.parametrize("name", [n for n in FIXTURES if n.endswith(".json")])
def test_an_export_written_on_one_line_reads_as_the_pretty_one(name):
    one_line = datasets.read(json.dumps(load(name)).encode(), Path(name).name)
    assert not one_line.errors
    assert [kept(r.case) for r in one_line.rows] == [
        kept(r.case) for r in datasets.load(PIPELINES / name).rows]


def test_trace_exports_are_named_by_their_pipeline():
    assert [datasets.load(PIPELINES / n).format for n in (
        "otlp/traces.json", "langfuse/traces.json", "langsmith/runs.jsonl",
        "llamaindex/source_nodes.json")] == ["otlp", "langfuse", "langsmith", "llamaindex"]


def test_rows_in_our_names_with_documents_as_chunks_stay_rows():
    """A LangChain retrieval list is written in our field names: read row by row (a bad row
    is skipped, not the file), the documents' metadata kept."""
    rows = load("langchain/retrievals.json")
    rows[1]["context"][0] = 42
    dataset = datasets.read(json.dumps(rows).encode(), "retrievals.json")
    assert dataset.format == "json"
    assert '"context"[0] must be a string, not a number' in only(dataset.errors).message
    assert [kept(r.case) for r in dataset.rows] == [
        found(r) for i, r in enumerate(pipelines.read(PIPELINES / "langchain/retrievals.json"))
        if i != 1]


def test_a_broken_export_is_one_line_naming_where():
    runs = (PIPELINES / "langsmith/runs.jsonl").read_text(encoding="utf-8").splitlines()
    runs[2] = runs[2][:50]
    with pytest.raises(CaseError) as excinfo:
        datasets.read("\n".join(runs).encode(), "runs.jsonl")
    assert one_line_error(excinfo).startswith("runs.jsonl line 3 is not valid JSON")


def test_an_export_with_no_retriever_is_one_line():
    runs = [r for r in load("langsmith/runs.jsonl") if r["run_type"] != "retriever"]
    with pytest.raises(CaseError) as excinfo:
        datasets.read("\n".join(json.dumps(r) for r in runs).encode(), "runs.jsonl")
    assert one_line_error(excinfo).startswith("a LangSmith run export with no retriever run")


def test_a_retrieval_a_dataset_cannot_score_is_a_skipped_row_not_a_lost_file():
    docs = load("langchain/retrievals.json")
    docs[0]["context"] = docs[0]["context"] * 100  # 500 chunks: over the cap of 400
    docs[0]["source_documents"] = docs[0].pop("context")  # LangChain's RetrievalQA name
    dataset = datasets.read(json.dumps(docs).encode(), "qa.json")
    assert dataset.format == "langchain"
    assert len(dataset.rows) == 2
    (error,) = dataset.errors
    assert error.line == 1 and "500 chunks" in error.message


# -- our own context_meta field --------------------------------------------------------------


def our_rows() -> list[dict[str, Any]]:
    return pipelines.to_rows(pipelines.read(PIPELINES / "langfuse/traces.json"))


def test_context_meta_round_trips_through_jsonl_json_and_csv():
    rows = our_rows()
    as_csv = io.StringIO()
    writer = csv.DictWriter(as_csv, ["id", "input", "output", "context", "context_meta"])
    writer.writeheader()
    for row in rows:
        writer.writerow({**row, "context": json.dumps(row["context"]),
                         "context_meta": json.dumps(row["context_meta"])})
    read = [datasets.read(datasets.jsonl_of(rows).encode(), "d.jsonl"),
            datasets.read(json.dumps(rows, indent=1).encode(), "d.json"),
            datasets.read(as_csv.getvalue().encode(), "d.csv")]
    expected = [found(r) for r in pipelines.read(PIPELINES / "langfuse/traces.json")]
    for dataset in read:
        assert [kept(r.case) for r in dataset.rows] == expected
        assert [r.id for r in dataset.rows] == [row["id"] for row in rows]


def test_a_written_dataset_reads_back_with_its_metadata():
    dataset = datasets.load(PIPELINES / "otlp/traces.json")
    again = datasets.read(datasets.write_jsonl(dataset.rows).encode(), "again.jsonl")
    assert [kept(r.case) for r in again.rows] == [kept(r.case) for r in dataset.rows]


def test_a_chunk_without_metadata_is_null_in_context_meta():
    row = {"input": "q?", "context": ["a", "b"], "context_meta": [None, {"source": "b.md"}]}
    case = casefile.parse(row).case
    assert case.context_meta == (None, ChunkMeta(source="b.md"))
    assert case.to_dict()["context_meta"] == [None, {"source": "b.md"}]


BAD_META = [
    ({"context_meta": "a.md"}, '"context_meta" must be a list'),
    ({"context_meta": [{"id": "x"}]}, '"context_meta" has 1 entries but the case has 2 chunks'),
    ({"context_meta": [None, "b.md"]}, '"context_meta"[1] must be {"id": str'),
    ({"context_meta": [None, {"url": "b"}]}, '"context_meta"[1] has the unknown key "url"'),
    ({"context_meta": [None, {"score": "high"}]}, '"context_meta"[1]["score"] must be a number'),
    ({"context_meta": [None, {"rank": -1}]}, '"context_meta"[1]["rank"] must be a whole number'),
    ({"context_meta": [None, {"source": ["b"]}]}, '"context_meta"[1]["source"] must be a '
                                                  "string"),
    ({"context_meta": [None, {"score": 10 ** 400}]},
     '"context_meta"[1]["score"] must be a finite number'),
]


@pytest.mark.parametrize(("more", "message"), BAD_META)
def test_a_bad_context_meta_is_a_one_line_error_saying_what_to_fix(more, message):
    with pytest.raises(CaseError) as excinfo:
        casefile.parse({"input": "q?", "context": ["a", "b"], **more})
    assert message in one_line_error(excinfo)


def test_a_bad_context_meta_skips_its_row_only():
    rows = our_rows()
    rows[1]["context_meta"] = rows[1]["context_meta"][:1]
    dataset = datasets.read(datasets.jsonl_of(rows).encode(), "d.jsonl")
    assert [r.id for r in dataset.rows] == [rows[0]["id"], rows[2]["id"]]
    assert "context_meta" in only(dataset.errors).message


def only(items: list[Any]) -> Any:
    (item,) = items
    return item


# -- one retrieval as a case file ------------------------------------------------------------


def single_retrievals() -> list[tuple[str, Any]]:
    """One retrieval cut from each format's fixture, as the pipeline writes a single one."""
    otlp = load("otlp/traces.json")
    first_trace = otlp["resourceSpans"][0]["scopeSpans"][0]["spans"][0]["traceId"]
    for resource in otlp["resourceSpans"]:
        for scope in resource["scopeSpans"]:
            scope["spans"] = [s for s in scope["spans"] if s["traceId"] == first_trace]
    runs = load("langsmith/runs.jsonl")
    runs = [r for r in runs if r["trace_id"] == runs[0]["trace_id"]]
    return [("langchain retrieval", load("langchain/retrievals.json")[0]),
            ("langchain dumpd result", load("langchain/chain_results_dumpd.json")[0]),
            ("llamaindex response", load("llamaindex/responses.json")[0]),
            ("otlp trace", otlp), ("langfuse trace", load("langfuse/traces.json")[0]),
            ("langsmith runs", runs)]


@pytest.mark.parametrize(("what", "data"), single_retrievals(), ids=lambda v: str(v)[:24])
def test_a_single_retrieval_is_a_case_file_with_its_metadata(what, data):
    raw = json.dumps(data).encode()
    (expected,) = pipelines.retrievals(data)
    assert kept(casefile.decode(raw, "one.json").case) == found(expected)


def test_a_langsmith_trace_as_jsonl_is_a_case_file_too():
    (_, runs) = single_retrievals()[-1]
    raw = "\n".join(json.dumps(r) for r in runs).encode()
    (expected,) = pipelines.retrievals(runs)
    assert kept(casefile.decode(raw, "trace.jsonl").case) == found(expected)


@pytest.mark.parametrize("name", ONE_RETRIEVAL)
def test_a_document_list_is_a_case_file_of_its_chunks(name):
    (expected,) = pipelines.read(PIPELINES / name)
    case = casefile.decode((PIPELINES / name).read_bytes(), Path(name).name).case
    assert kept(case) == found(expected)


@pytest.mark.parametrize("name", sorted(set(FIXTURES) - set(ONE_RETRIEVAL)))
def test_an_export_of_several_retrievals_as_a_case_file_says_to_use_jeval_import(name):
    with pytest.raises(CaseError) as excinfo:
        casefile.decode((PIPELINES / name).read_bytes(), Path(name).name)
    message = one_line_error(excinfo)
    assert "retrievals and a case is one" in message
    assert "jeval import FILE --out DATA.jsonl" in message


def test_langchain_documents_in_context_keep_the_cases_own_settings():
    row = load("langchain/retrievals.json")[0]
    row.update(evaluators=["chunk_relevance"], thresholds={"chunk_relevance": 0.7})
    loaded = casefile.parse(row)
    assert [e.name for e in loaded.chosen()] == ["chunk_relevance"]
    assert loaded.thresholds == {"chunk_relevance": 0.7}
    assert kept(loaded.case) == found(pipelines.read(PIPELINES /
                                                     "langchain/retrievals.json")[0])


def test_documents_and_strings_may_share_a_context():
    doc = load("langchain/documents.json")[0]
    case = casefile.parse({"input": "q?", "context": ["plain chunk", doc]}).case
    assert case.context == ("plain chunk", doc["page_content"])
    assert case.context_meta == (None, ChunkMeta(doc["id"], doc["metadata"]["title"],
                                                 doc["metadata"]["score"], 1))


def test_metadata_given_twice_is_refused():
    row = load("langchain/retrievals.json")[0]
    row["context_meta"] = [None] * len(row["context"])
    with pytest.raises(CaseError) as excinfo:
        casefile.parse(row)
    assert one_line_error(excinfo) == (
        "\"context_meta\" and the documents in \"context\" both give the chunks' metadata: "
        "keep one")


def test_a_document_without_text_in_context_names_its_place():
    with pytest.raises(CaseError) as excinfo:
        casefile.parse({"input": "q?", "context": ["a", {"metadata": {"source": "b.md"}}]})
    assert one_line_error(excinfo).startswith(
        'a retrieved document without page_content, text or content (found a JSON object with '
        'keys metadata) at "context"[1]')


def test_a_misspelt_key_beside_documents_still_names_the_key_people_meant():
    row = load("langchain/retrievals.json")[0]
    row["thresholdz"] = {"chunk_relevance": 0.7}
    with pytest.raises(CaseError) as excinfo:
        casefile.parse(row)
    assert one_line_error(excinfo) == 'unknown key "thresholdz" in the case: did you mean ' \
        '"thresholds"?'


@pytest.mark.parametrize(("data", "message"), [
    ([1, 2], 'a case must be a JSON object with "input" and "context", not a list'),
    ({"input": "q?", "contxt": ["a"]}, 'unknown key "contxt" in the case: did you mean '
                                       '"context"?'),
    ({"input": "q?", "context": [["a"]]}, '"context"[0] must be a string, not a list'),
])
def test_shapes_of_neither_kind_keep_their_one_line_errors(data, message):
    with pytest.raises(CaseError) as excinfo:
        casefile.parse(data)
    assert one_line_error(excinfo).startswith(message)


def test_jeval_score_reads_a_single_retrieval_and_refuses_an_export_in_one_line(tmp_path,
                                                                                capsys):
    trace = load("langfuse/traces.json")[0]
    one = tmp_path / "one.json"
    one.write_text(json.dumps(trace), encoding="utf-8")
    assert cli.main(["score", str(one), "--judge", "lexical", "--evaluators",
                     "chunk_relevance", "--format", "json"]) == 0
    details = json.loads(capsys.readouterr().out)["results"]["chunk_relevance"]["details"]
    assert len(details) == len(only(pipelines.retrievals(trace)).chunks)
    with pytest.raises(SystemExit) as exited:
        cli.main(["score", str(PIPELINES / "langfuse/traces.json"), "--judge", "lexical"])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "jeval import" in err and "Traceback" not in err

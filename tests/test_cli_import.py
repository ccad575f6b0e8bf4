"""`jeval import FILE --out DATA.jsonl`: a pipeline's export becomes a dataset that `jeval run`
reads with every retrieval and each chunk's id, source, score and rank; bad input is one line
and exit 2, never a traceback."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from conftest import ROOT, jeval_in_process

from jeval_core.commands import cli
from jeval_core.inputs import datasets, pipelines

PIPELINES = ROOT / "assets" / "pipelines"
FIXTURES = {"langchain/documents.json": "langchain", "langchain/documents_dumpd.json": "langchain",
            "langchain/retrievals.json": "langchain",
            "langchain/chain_results_dumpd.json": "langchain",
            "llamaindex/source_nodes.json": "llamaindex",
            "llamaindex/responses.json": "llamaindex", "otlp/traces.json": "otlp",
            "otlp/collector_export.jsonl": "otlp", "langfuse/traces.json": "langfuse",
            "langsmith/runs.jsonl": "langsmith"}


def jeval_import(*args: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """`jeval import ...` in this process: (exit code, stdout, stderr)."""
    return jeval_in_process(capsys, "import", *args)


def chunks(dataset: datasets.Dataset) -> list[list[tuple]]:
    return [[(text, None if m is None else (m.id, m.source, m.score, m.rank))
             for text, m in zip(row.case.context, row.case.context_meta or
                                [None] * len(row.case.context), strict=True)]
            for row in dataset.rows]


@pytest.mark.parametrize("name", sorted(FIXTURES))
def test_every_export_is_written_as_a_dataset_that_keeps_every_chunks_metadata(
        name, tmp_path, capsys):
    out = tmp_path / "data.jsonl"
    code, said, err = jeval_import(str(PIPELINES / name), "--out", str(out), capsys=capsys)
    found = pipelines.read(PIPELINES / name)
    n_chunks = sum(len(r.chunks) for r in found)
    assert (code, err) == (0, "")
    assert said == (f"wrote {len(found)} retrieval{'s' if len(found) != 1 else ''} "
                    f"({n_chunks} chunks) from {FIXTURES[name]} to {out}\n")
    dataset = datasets.load(out)
    assert not dataset.errors
    assert [(r.case.input, r.case.output) for r in dataset.rows] == [
        (r.input, r.output) for r in found]
    assert chunks(dataset) == [[(c.text, (c.id, c.source, c.score, c.rank)) for c in r.chunks]
                               for r in found]
    assert [row.id for row in dataset.rows if not row.id.startswith("row-")] == [
        r.id for r in found if r.id is not None]


def test_the_file_holds_our_own_rows_one_a_line(tmp_path, capsys):
    out = tmp_path / "data.jsonl"
    jeval_import(str(PIPELINES / "langsmith/runs.jsonl"), "--out", str(out), capsys=capsys)
    lines = out.read_text(encoding="utf-8").splitlines()
    assert [json.loads(line) for line in lines] == pipelines.to_rows(
        pipelines.read(PIPELINES / "langsmith/runs.jsonl"))
    assert list(json.loads(lines[0])) == ["id", "input", "output", "context", "context_meta"]


def test_the_format_may_be_named_and_must_then_fit(tmp_path, capsys):
    out = tmp_path / "data.jsonl"
    code, said, _ = jeval_import(str(PIPELINES / "otlp/traces.json"), "--format", "otlp",
                                 "--out", str(out), capsys=capsys)
    assert code == 0 and "from otlp" in said
    code, said, err = jeval_import(str(PIPELINES / "otlp/traces.json"), "--format",
                                   "langsmith", "--out", str(out), capsys=capsys)
    assert (code, said) == (2, "")
    assert err.startswith("jeval: a LangSmith run without run_type at the top level")
    assert err.count("\n") == 1


@pytest.mark.parametrize(("content", "message"), [
    (b'{"resourceSpans": [', "is not valid JSON"),
    (b"", "is empty: expected a JSON or JSONL pipeline export"),
    (b'{"input": "q?", "context": ["a"]}', "not a known pipeline export: found a JSON object "
                                           "with keys input, context"),
    (b"\xff\xfe\x00[", "is not UTF-8 text"),
])
def test_a_file_that_is_no_export_is_one_line_exit_2(content, message, tmp_path, capsys):
    source = tmp_path / "export.json"
    source.write_bytes(content)
    out = tmp_path / "data.jsonl"
    code, said, err = jeval_import(str(source), "--out", str(out), capsys=capsys)
    assert (code, said) == (2, "")
    assert message in err and err.count("\n") == 1 and err.startswith("jeval: ")
    assert not out.exists()


def test_missing_arguments_and_files_are_one_line_exit_2(tmp_path, capsys):
    code, _, err = jeval_import(str(PIPELINES / "otlp/traces.json"), capsys=capsys)
    assert code == 2 and "--out" in err and err.count("\n") == 1
    code, _, err = jeval_import(str(tmp_path / "nope.json"), "--out",
                                str(tmp_path / "d.jsonl"), capsys=capsys)
    assert code == 2 and "does not exist" in err and err.count("\n") == 1


def test_the_dataset_is_jsonl_whatever_it_is_named_but_never_csv(tmp_path, capsys):
    export = str(PIPELINES / "otlp/traces.json")
    code, _, err = jeval_import(export, "--out", str(tmp_path / "d.csv"), capsys=capsys)
    assert code == 2 and "name it .jsonl" in err and not (tmp_path / "d.csv").exists()
    code, _, _ = jeval_import(export, "--out", str(tmp_path / "d.json"), capsys=capsys)
    assert code == 0 and len(datasets.load(tmp_path / "d.json").rows) == 2


def test_the_export_itself_is_never_overwritten(tmp_path, capsys):
    source = tmp_path / "traces.json"
    source.write_bytes((PIPELINES / "otlp/traces.json").read_bytes())
    code, _, err = jeval_import(str(source), "--out", str(source), capsys=capsys)
    assert code == 2 and "is the export itself" in err
    assert source.read_bytes() == (PIPELINES / "otlp/traces.json").read_bytes()


def test_an_out_file_that_cannot_be_written_is_one_line_exit_2(tmp_path, capsys):
    code, _, err = jeval_import(str(PIPELINES / "otlp/traces.json"), "--out",
                                str(tmp_path / "no" / "such" / "dir.jsonl"), capsys=capsys)
    assert code == 2 and "cannot write --out" in err and err.count("\n") == 1


def test_a_retrieval_a_run_would_skip_is_written_and_said(tmp_path, capsys):
    docs = json.loads((PIPELINES / "langchain/retrievals.json").read_text(encoding="utf-8"))
    docs[0]["context"] = docs[0]["context"] * 100  # 500 chunks: over a case's 400
    source = tmp_path / "retrievals.json"
    source.write_text(json.dumps(docs), encoding="utf-8")
    out = tmp_path / "data.jsonl"
    code, said, err = jeval_import(str(source), "--out", str(out), capsys=capsys)
    n_chunks = sum(len(d["context"]) for d in docs)
    assert code == 0 and said.startswith(f"wrote 3 retrievals ({n_chunks} chunks)")
    assert len(out.read_text(encoding="utf-8").splitlines()) == 3
    assert err.startswith("jeval: note: `jeval run` will skip line 1: ")
    assert "500 chunks" in err


def test_as_a_command_a_broken_export_is_one_line_and_no_traceback(tmp_path):
    source = tmp_path / "runs.jsonl"
    lines = (PIPELINES / "langsmith/runs.jsonl").read_text(encoding="utf-8").splitlines()
    source.write_text("\n".join([lines[0], lines[1][:30], *lines[2:]]), encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "jeval_core.commands.cli", "import",
                           str(source), "--out", str(tmp_path / "d.jsonl")], cwd=ROOT,
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, "TYPESAFE_API_KEY": ""})
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.startswith("jeval: runs.jsonl line 2 is not valid JSON")
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr


def test_an_imported_dataset_runs_and_its_stored_cases_keep_the_metadata(tmp_path, capsys):
    out = tmp_path / "data.jsonl"
    jeval_import(str(PIPELINES / "langfuse/traces.json"), "--out", str(out), capsys=capsys)
    assert cli.main(["run", str(out), "--judge", "lexical", "--evaluators",
                     "chunk_relevance"]) == 0
    from jeval_core.runs.store import open_store

    with open_store() as store:
        (run,) = [r for r in store.runs() if r.dataset == "data.jsonl"]
        stored = store.cases(run.id)
    assert [c.case.context_meta for c in stored] == [
        row.case.context_meta for row in datasets.load(out).rows]
    assert all(c.case.context_meta for c in stored)

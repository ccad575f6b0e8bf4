"""Each chunk's id, source, retriever score and rank go out wherever the case goes: the run
store (a real SQLite file), `jeval run --out`, the stored run's CSV and JSONL, and the
Playground's scored case and detail rows."""

from __future__ import annotations

import csv
import io
import json
import sqlite3

import pytest
from conftest import ROOT

from jeval_app.views import report as report_view
from jeval_app.views import stored_run as stored_run_view
from jeval_core import evaluators, judges, score
from jeval_core.commands import cli
from jeval_core.inputs import casefile, datasets
from jeval_core.runs.run import run_dataset, save_case
from jeval_core.runs.store import open_store

EXPORT = ROOT / "assets" / "pipelines" / "langsmith" / "runs.jsonl"
CHUNKS = [evaluators.EVALUATORS["chunk_relevance"]]


@pytest.fixture
def dataset() -> datasets.Dataset:
    """A LangSmith export: two retrievals, every chunk with an id, source, score and rank."""
    found = datasets.load(EXPORT)
    assert all(all(m is not None for m in row.case.context_meta) for row in found.rows)
    return found


def metas(dataset: datasets.Dataset) -> list[list[dict]]:
    return [[m.to_dict() for m in row.case.context_meta] for row in dataset.rows]


def test_a_stored_run_keeps_each_chunks_metadata_in_the_sqlite_file(dataset, tmp_path):
    db = tmp_path / "runs.db"
    with open_store(f"sqlite:///{db}") as store:
        outcome = run_dataset(dataset, judges.get("lexical"), store, chosen=CHUNKS)
    with open_store(f"sqlite:///{db}") as store:  # read back by a new connection
        stored = store.cases(outcome.run.id)
    assert [c.case.context_meta for c in stored] == [r.case.context_meta for r in dataset.rows]
    with sqlite3.connect(db) as raw:
        cells = [json.loads(cell) for (cell,) in raw.execute(
            "SELECT case_json FROM jeval_cases ORDER BY idx")]
    assert [cell["context_meta"] for cell in cells] == metas(dataset)


def test_a_playground_case_kept_as_a_run_keeps_its_metadata(dataset, tmp_path):
    loaded = dataset.rows[0].casefile
    report = score(loaded.case, CHUNKS, judges.get("lexical"))
    with open_store(f"sqlite:///{tmp_path / 'runs.db'}") as store:
        (stored,) = store.cases(save_case(store, loaded, report))
    assert stored.case.context_meta == loaded.case.context_meta


def test_run_out_lines_carry_the_chunks_metadata(dataset, tmp_path):
    out = tmp_path / "results.jsonl"
    assert cli.main(["run", str(EXPORT), "--judge", "lexical", "--evaluators",
                     "chunk_relevance", "--out", str(out)]) == 0
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [line["id"] for line in lines] == [row.id for row in dataset.rows]
    assert [line["context_meta"] for line in lines] == metas(dataset)


def test_run_out_lines_of_a_dataset_without_metadata_are_as_before(tmp_path):
    out = tmp_path / "results.jsonl"
    sample = ROOT / "assets" / "datasets" / "sample.jsonl"
    assert cli.main(["run", str(sample), "--judge", "lexical", "--evaluators",
                     "chunk_relevance", "--out", str(out)]) == 0
    first = json.loads(out.read_text(encoding="utf-8").splitlines()[0])
    assert list(first) == ["id", "line", "passed", "scores", "error"]


def test_the_stored_runs_csv_and_jsonl_carry_the_metadata(dataset, tmp_path):
    with open_store(f"sqlite:///{tmp_path / 'runs.db'}") as store:
        outcome = run_dataset(dataset, judges.get("lexical"), store, chosen=CHUNKS)
        stored = store.cases(outcome.run.id)
    rows = list(csv.DictReader(io.StringIO(stored_run_view.cases_csv(stored))))
    assert [json.loads(row["context_meta"]) for row in rows] == metas(dataset)
    lines = stored_run_view.cases_jsonl(outcome.run, stored).splitlines()
    assert [json.loads(line)["case"]["context_meta"] for line in lines] == metas(dataset)


def test_the_playgrounds_detail_rows_name_each_chunks_source(dataset):
    case = dataset.rows[0].case
    report = score(case, CHUNKS, judges.get("lexical"))
    rows = list(csv.DictReader(io.StringIO(report_view.detail_csv(report, case))))
    assert [(r["judged"], r["chunk id"], r["chunk source"], float(r["retriever score"]),
             int(r["rank"])) for r in rows] == [
        (f"context[{i}]", m.id, m.source, m.score, m.rank)
        for i, m in enumerate(case.context_meta) if m is not None]


def test_a_source_that_reads_as_a_formula_is_made_inert_in_every_csv():
    data = {"input": "Which plan?", "context": ["The Pro plan.", "The Team plan."],
            "context_meta": [{"source": "=HYPERLINK(\"http://x\")", "rank": 0}, None]}
    case = casefile.parse(data).case
    report = score(case, CHUNKS, judges.get("lexical"))
    rows = list(csv.DictReader(io.StringIO(report_view.detail_csv(report, case))))
    assert rows[0]["chunk source"] == "'=HYPERLINK(\"http://x\")"
    assert rows[1]["chunk source"] == "" and rows[1]["rank"] == ""


def test_a_case_without_metadata_exports_its_detail_rows_as_before(seed_case):
    report = score(seed_case, CHUNKS, judges.get("lexical"))
    header = report_view.detail_csv(report, seed_case).splitlines()[0]
    assert header == "evaluator,id,judged,text,p,verdict,why,question"

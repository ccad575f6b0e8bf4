"""The typed records the store gives back, the addresses detail rows carry, and the verdict
words: each reads back what was written, and says it one way."""

from __future__ import annotations

import json

import pytest
from conftest import ROOT

from jeval_core import evaluators, judges, verdicts
from jeval_core.address import Address
from jeval_core.analysis.aggregate import Summary
from jeval_core.inputs import datasets
from jeval_core.results import Result
from jeval_core.runs.records import StoredReport
from jeval_core.runs.run import run_dataset
from jeval_core.runs.store import open_store
from jeval_core.scoring import score

SAMPLE = ROOT / "assets" / "datasets" / "sample.jsonl"


@pytest.fixture(scope="module")
def stored(tmp_path_factory):
    """The sample scored with every evaluator by the lexical judge, and what the store gave
    back."""
    data = datasets.load(SAMPLE)
    with open_store(f"sqlite:///{tmp_path_factory.mktemp('records') / 'runs.db'}") as s:
        outcome = run_dataset(data, judges.get("lexical"), s, chosen=evaluators.ALL)
        yield data, outcome, s.run(outcome.run.id), s.cases(outcome.run.id)


def test_a_runs_aggregates_read_back_as_the_summary_that_was_written(stored):
    _, outcome, run, _ = stored
    assert run.aggregates == outcome.summary
    assert run.summary.evaluators["chunk_relevance"].pass_rate == \
        outcome.summary.evaluators["chunk_relevance"].pass_rate
    written = json.loads(json.dumps(outcome.summary.to_dict()))
    assert Summary.from_dict(written).to_dict() == written


def test_each_case_reads_back_its_row_and_its_whole_report(stored):
    data, _, _, cases = stored
    assert len(cases) == len(data.rows)
    for row, case in zip(data.rows, cases, strict=True):
        assert case.row == row and case.data == row.to_dict()
        assert case.case == row.case and case.labels == row.labels
        fresh = score(row.case, evaluators.ALL, judges.get("lexical"))
        assert case.report is not None
        assert case.report.to_dict()["results"] == \
            json.loads(json.dumps(fresh.to_dict()))["results"]
        assert case.passed is case.report.passed is fresh.passed


def test_a_binary_scores_label_survives_the_store():
    """context_relevancy scores 0 or 1 and labels the share of yes behind it."""
    fresh = score(datasets.load(SAMPLE).rows[0].case, evaluators.resolve(["context_relevancy"]),
                  judges.get("lexical"))
    written = json.loads(json.dumps(fresh.to_dict()))
    back = StoredReport.from_dict(written)
    assert back.to_dict()["results"] == written["results"]
    assert back.results["context_relevancy"].label == fresh.results["context_relevancy"].label


def test_a_case_row_that_no_longer_reads_has_no_row_but_keeps_its_text():
    from jeval_core.runs.records import CaseRow

    odd = CaseRow(0, "x", {"input": "q?", "unknown_field": 1}, None, "err", None, {}, 0, 0.0)
    assert odd.row is None and odd.case.input == "q?" and odd.results == {}


@pytest.mark.parametrize(("name", "field", "chunk", "sentence", "whole"), [
    ("context[2]", "context", 2, None, True),
    ("context[2][0]", "context", 2, 0, False),
    ("context", "context", None, None, False),
    ("output[1]", "output", None, 1, False),
    ("output", "output", None, None, False),
    ("expected[3]", "expected", None, 3, False),
])
def test_an_address_reads_its_parts_once_and_writes_its_name_back(name, field, chunk, sentence,
                                                                   whole):
    found = Address.parse(name)
    assert (found.field, found.chunk, found.sentence, found.whole_chunk) == (
        field, chunk, sentence, whole)
    assert str(found) == name


def test_detail_rows_carry_addresses_and_the_json_keeps_the_names(seed_case):
    report = score(seed_case, evaluators.resolve(["chunk_relevance", "faithfulness"]),
                   judges.get("lexical"))
    rows = report.rows("chunk_relevance")
    assert [r.address for r in rows] == [Address.of_chunk(i) for i in range(4)]
    assert [r.text for r in rows] == list(seed_case.context)
    assert all(r.address.field == "output" for r in report.rows("faithfulness"))
    details = report.to_dict()["results"]["chunk_relevance"]["details"]
    assert [d["judged"] for d in details] == [f"context[{i}]" for i in range(4)]


def test_the_verdict_words_are_said_one_way():
    passed = Result("x", 0.9, 0.5, True, "")
    failed = Result("x", 0.1, 0.5, True, "")
    skipped = Result("x", None, 0.5, True, "needs `expected`")
    assert [verdicts.of_result(r) for r in (passed, failed, skipped)] == [
        "PASS", "FAIL", "skipped"]
    assert [verdicts.of_case(v) for v in (True, False, None)] == ["PASS", "FAIL", "INCOMPLETE"]
    assert verdicts.of_case(None, "the judge could not answer") == "ERROR"
    assert verdicts.of_case(True, "an error wins") == "ERROR"


def test_each_verdict_word_has_one_colour_on_the_pages():
    from jeval_app.views import verdict

    assert [verdict.badge(w) for w in ("PASS", "FAIL", "ERROR", "INCOMPLETE", "skipped")] == [
        ":green-badge[PASS]", ":red-badge[FAIL]", ":red-badge[ERROR]",
        ":orange-badge[INCOMPLETE]", ":gray-badge[skipped]"]
    assert verdict.badge("PASS", stale=True) == ":gray-badge[PASS]"
    assert verdict.background("FAIL") == verdict.background("ERROR") != verdict.background("PASS")
    assert verdict.background("skipped") == verdict.background(None) == ""

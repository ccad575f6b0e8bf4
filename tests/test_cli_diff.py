"""`jeval diff RUN_A RUN_B`: per metric, per retrieval, and a gate that fails a worse run.

The sample dataset against the same cases cut to their first two chunks (a retriever that
keeps fewer): overall more cases pass, yet faithfulness falls, and the diff says so."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from conftest import ROOT, jeval_in_process

from jeval_core.analysis import run_diff
from jeval_core.evaluators import EVALUATORS
from jeval_core.inputs import datasets
from jeval_core.judges.local import LocalJudge
from jeval_core.runs import run as runs
from jeval_core.runs.store import open_store

SAMPLE = datasets.load(ROOT / "assets" / "datasets" / "sample.jsonl")
CHOSEN = [EVALUATORS["chunk_relevance"], EVALUATORS["faithfulness"]]


def top2(dataset: datasets.Dataset) -> datasets.Dataset:
    rows = [replace(r, casefile=replace(r.casefile, case=replace(
                r.case, context=r.case.context[:2], context_meta=r.case.context_meta[:2])),
                    labels=None if r.labels is None else r.labels[:2], reranked=None)
            for r in dataset.rows]
    return replace(dataset, rows=rows, name="sample_top2.jsonl", sha256="0" * 64)


@pytest.fixture
def two_runs() -> tuple[str, str]:
    judge = LocalJudge()
    with open_store() as store:
        a = runs.run_dataset(SAMPLE, judge, store, chosen=CHOSEN).run.id
        b = runs.run_dataset(top2(SAMPLE), judge, store, chosen=CHOSEN).run.id
    return a, b


def jeval_diff(*args: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """`jeval diff ...` in this process: (exit code, stdout, stderr)."""
    return jeval_in_process(capsys, "diff", *args)


def test_a_metric_that_falls_is_named_though_more_cases_pass(two_runs, capsys):
    code, out, err = jeval_diff(*two_runs, capsys=capsys)
    assert (code, err) == (0, "")
    faithfulness = next(line for line in out.splitlines() if line.startswith("faithfulness"))
    assert faithfulness.endswith("worse")
    assert "B reads worse on: faithfulness" in out


def test_fail_on_regression_exits_1_when_b_reads_worse(two_runs, capsys):
    code, _, _ = jeval_diff(*two_runs, "--fail-on-regression", capsys=capsys)
    assert code == 1
    code, _, _ = jeval_diff(two_runs[0], two_runs[0][:8] + "x", capsys=capsys)
    assert code == 2  # no such run


def test_the_same_run_against_itself_is_bad_input(two_runs, capsys):
    code, out, err = jeval_diff(two_runs[0], two_runs[0], capsys=capsys)
    assert code == 2 and out == "" and "the same run" in err


def test_each_retrieval_says_which_relevant_chunks_it_lost(two_runs, capsys):
    code, out, _ = jeval_diff(*two_runs, "--format", "json", capsys=capsys)
    found = json.loads(out)
    assert code == 0 and found["retrievals_changed"] > 0
    assert found["relevant_lost"] > 0 and found["noise_added"] == 0  # B only drops chunks
    with open_store() as store:
        changes = run_diff.chunk_changes(store.cases(two_runs[0]), store.cases(two_runs[1]))
    assert sum(c.relevant_lost for c in changes) == found["relevant_lost"]
    assert all(not c.only_b for c in changes)


def test_metric_deltas_are_the_means_of_the_cases_both_scored(two_runs):
    with open_store() as store:
        a, b = store.cases(two_runs[0]), store.cases(two_runs[1])
    by_name = {d.name: d for d in run_diff.metric_deltas(a, b)}
    faith = by_name["faithfulness"]
    scores_a = [c.results["faithfulness"].score for c in a if "faithfulness" in c.results
                and not c.results["faithfulness"].skipped]
    assert faith.cases == len(scores_a)
    assert faith.mean_a == pytest.approx(sum(scores_a) / len(scores_a))
    assert faith.worse and faith.to_fail > 0


def test_a_gate_fails_only_the_metric_it_names_past_its_delta(two_runs, capsys):
    code, out, _ = jeval_diff(*two_runs, "--fail-on-regression", "faithfulness=-0.05",
                              capsys=capsys)
    assert code == 1 and "gates crossed: faithfulness" in out
    code, out, _ = jeval_diff(*two_runs, "--fail-on-regression", "chunk_relevance=-0.05",
                              capsys=capsys)
    assert code == 0 and "no gate crossed" in out  # chunk precision rose


def test_the_faithfulness_drop_has_an_interval_that_excludes_zero(two_runs):
    with open_store() as store:
        a, b = store.cases(two_runs[0]), store.cases(two_runs[1])
    faith = next(d for d in run_diff.metric_deltas(a, b) if d.name == "faithfulness")
    lo, hi = faith.mean_interval
    assert lo <= faith.mean_b - faith.mean_a <= hi < 0


def test_a_run_against_a_rerun_of_itself_moves_nothing_and_passes_the_gate(capsys):
    judge = LocalJudge()
    with open_store() as store:
        a = runs.run_dataset(SAMPLE, judge, store, chosen=CHOSEN).run.id
        b = runs.run_dataset(SAMPLE, judge, store, chosen=CHOSEN).run.id
    code, out, _ = jeval_diff(a, b, "--fail-on-regression", "--format", "json", capsys=capsys)
    found = json.loads(out)
    assert code == 0 and found["retrievals_changed"] == 0
    assert all(m["mean_a"] == m["mean_b"] and m["to_fail"] == m["to_pass"] == 0
               for m in found["metrics"])


@pytest.mark.parametrize(("gate", "said"), [("faithfulness", "give METRIC=DELTA"),
                                            ("nosuch=-0.1", "not a metric both runs scored")])
def test_a_bad_gate_is_one_line_and_exit_2(two_runs, capsys, gate, said):
    code, out, err = jeval_diff(*two_runs, "--fail-on-regression", gate, capsys=capsys)
    assert code == 2 and out == "" and said in err

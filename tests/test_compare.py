"""Judges side by side (agreement, correlation, chunk metrics against labels), retriever vs
reranker by rank, and two stored runs compared, all against numbers worked out by hand."""

from __future__ import annotations

import json
import math
import threading

import pytest

from jeval_core.address import Address
from jeval_core.analysis import ranking, run_diff
from jeval_core.errors import JevalError
from jeval_core.evaluators import EVALUATORS
from jeval_core.inputs import datasets
from jeval_core.judges import Usage
from jeval_core.judges.base import Answers, OfflineJudge
from jeval_core.results import Result
from jeval_core.runs import compare
from jeval_core.runs.records import CaseRow, StoredReport
from jeval_core.runs.store import open_store

CHUNKS = [EVALUATORS["chunk_relevance"]]

# Two cases, two chunks each; a human says the first chunk of each helps. The second case
# also gives a reranked order that puts the unhelpful chunk first.
ROWS = [
    {"id": "one", "input": "q1?", "output": "a1.", "context": ["c1", "c2"],
     "context_labels": [1, 0]},
    {"id": "two", "input": "q2?", "output": "a2.", "context": ["c3", "c4"],
     "context_labels": [1, 0], "reranked": [1, 0]},
]
# p(helps) each judge gives each chunk. Verdicts (p >= 0.5): A yes no yes no; B yes yes no no.
P_A = {"c1": 0.9, "c2": 0.2, "c3": 0.7, "c4": 0.4}
P_B = {"c1": 0.8, "c2": 0.6, "c3": 0.25, "c4": 0.1}
# Pearson by hand: A's deviations from its mean .55 are .35 -.35 .15 -.15; B's from .4375
# are .3625 .1625 -.1875 -.3375. Sum of products .0925; sums of squares .29 and .306875.
R_BY_HAND = 0.0925 / math.sqrt(0.29 * 0.306875)


class Fixed(OfflineJudge):
    """A judge that gives each chunk a fixed p, whatever it is asked about it."""

    def __init__(self, name: str, p: dict[str, float], stop: threading.Event | None = None,
                 after: int | None = None) -> None:
        self.name, self.p = name, p
        self.stop, self.after, self.answered = stop, after, 0

    def answer(self, packed) -> Answers:
        if self.after is not None and self.answered >= self.after:
            if self.stop is not None:
                self.stop.set()
            raise KeyboardInterrupt  # how the app's judges stop a pass at once
        self.answered += 1
        return Answers({wid: self.p[q.subject.text] for wid, q in packed.asked.items()})


@pytest.fixture
def dataset() -> datasets.Dataset:
    return datasets.read("\n".join(json.dumps(r) for r in ROWS).encode(), "tiny.jsonl")


@pytest.fixture
def store(tmp_path):
    with open_store(f"sqlite:///{tmp_path / 'runs.db'}") as s:
        yield s


def side_by_side(dataset, store) -> compare.Comparison:
    return compare.run_judges(dataset, [Fixed("a", P_A), Fixed("b", P_B)], store,
                              chosen=CHUNKS, concurrency=1)


def test_pearson_matches_the_textbook_formula():
    assert compare.pearson([0.9, 0.2, 0.7, 0.4], [0.8, 0.6, 0.25, 0.1]) == pytest.approx(
        R_BY_HAND)
    assert compare.pearson([1, 2, 3], [2, 4, 6]) == pytest.approx(1.0)


def test_pearson_is_undefined_for_a_constant_series_or_a_single_point():
    assert compare.pearson([0.5, 0.5, 0.5], [0.1, 0.2, 0.3]) is None
    assert compare.pearson([0.5], [0.1]) is None


def test_two_judges_agree_on_the_share_of_questions_with_the_same_verdict(dataset, store):
    pair = side_by_side(dataset, store).pairs[0]
    assert (pair.a, pair.b) == ("a", "b")
    assert (pair.questions, pair.same, pair.rate) == (4, 2, 0.5)  # same on c1 and c4
    assert pair.by_evaluator == {"chunk_relevance": (4, 2)}


def test_the_correlation_is_pearson_over_the_matched_questions(dataset, store):
    assert side_by_side(dataset, store).pairs[0].correlation == pytest.approx(R_BY_HAND)


def test_case_verdicts_are_compared_too(dataset, store):
    # chunk_relevance passes at half the chunks helping: A passes both, B only "one".
    pair = side_by_side(dataset, store).pairs[0]
    assert (pair.cases, pair.same_cases, pair.case_rate) == (2, 1, 0.5)


def test_disagreements_come_largest_gap_first(dataset, store):
    found = side_by_side(dataset, store).pairs[0].disagreements
    assert [(d.case_id, d.address) for d in found] == [
        ("two", Address.of_chunk(0)),  # .7 vs .25
        ("one", Address.of_chunk(1)),  # .2 vs .6
        ("two", Address.of_chunk(1)),  # .4 vs .1
        ("one", Address.of_chunk(0)),  # .9 vs .8
    ]
    assert [d.verdicts_differ for d in found] == [True, True, False, False]
    assert found[0].gap == pytest.approx(0.45)
    assert "`context[0]`" in found[0].question


def test_each_judge_is_scored_against_the_labels(dataset, store):
    a, b = side_by_side(dataset, store).judges
    assert a.summary.chunks is not None and b.summary.chunks is not None
    va, vb = a.summary.chunks.verdicts, b.summary.chunks.verdicts
    assert (va.precision, va.recall, va.f1, a.summary.chunks.auc) == (1.0, 1.0, 1.0, 1.0)
    # B: yes on c1 (right) and c2 (wrong), no on c3 (wrong) and c4 (right).
    assert (vb.tp, vb.fp, vb.fn, vb.tn) == (1, 1, 1, 1)
    assert (vb.precision, vb.recall, vb.f1) == (0.5, 0.5, 0.5)
    # AUC: positives .8 and .25 against negatives .6 and .1: 3 of 4 pairs ordered right.
    assert b.summary.chunks.auc == 0.75


def test_retriever_and_reranker_precision_come_from_the_labels(dataset, store):
    found = side_by_side(dataset, store)
    ranking = found.ranking
    assert ranking is not None and ranking.retriever[1] == 1.0
    assert ranking.reranked_cases == 1
    assert (ranking.retriever_on_reranked[1], ranking.reranked[1]) == (1.0, 0.0)
    first, second = found.by_rank
    assert (first.rank, first.retriever, first.reranked) == (1, 1.0, 0.0)
    assert (second.rank, second.retriever, second.reranked) == (2, 0.0, 1.0)


def test_each_judges_pass_is_a_stored_run(dataset, store):
    found = side_by_side(dataset, store)
    stored = {r.id: r for r in store.runs()}
    assert {j.run_id for j in found.judges} == set(stored)
    assert sorted(r.name for r in stored.values()) == ["Compare · a vs b · a",
                                                       "Compare · a vs b · b"]
    assert all(r.status == "finished" and r.done == 2 for r in stored.values())


def test_a_cancelled_comparison_keeps_what_finished(dataset, store):
    stop = threading.Event()
    found = compare.run_judges(dataset, [Fixed("a", P_A), Fixed("b", P_B, stop, after=1)],
                               store, chosen=CHUNKS, concurrency=1, cancel=stop)
    assert found.cancelled
    assert [j.status for j in found.judges] == ["finished", "cancelled"]
    assert found.pairs[0].questions == 2  # case "one" only: B stopped before "two"
    assert store.run(found.judges[1].run_id).done == 1


def test_a_real_interrupt_is_not_swallowed(dataset, store):
    with pytest.raises(KeyboardInterrupt):
        compare.run_judges(dataset, [Fixed("a", P_A), Fixed("b", P_B, after=0)], store,
                           chosen=CHUNKS, concurrency=1, cancel=threading.Event())


def test_judges_must_be_two_or_more_and_distinct(dataset, store):
    with pytest.raises(JevalError, match="at least two"):
        compare.run_judges(dataset, [Fixed("a", P_A)], store)
    with pytest.raises(JevalError, match="once"):
        compare.run_judges(dataset, [Fixed("a", P_A), Fixed("a", P_B)], store)


def test_the_pair_agrees_on_half_the_questions(dataset, store):
    assert side_by_side(dataset, store).pairs[0].rate == 0.5


def test_precision_by_rank_from_stored_cases_matches_the_rows(dataset):
    stored = [CaseRow(i, r.id, r.to_dict(), None, None, None, {}, 0, 0.0)
              for i, r in enumerate(dataset.rows)]
    assert ranking.orders_of_rows(c.row for c in stored if c.row is not None) == \
        ranking.orders_of_rows(dataset.rows)


# --- two runs ---------------------------------------------------------------------------------


def case(cid: str, passed: bool | None, score: float | None = None,
         reason: str = "") -> CaseRow:
    results = {} if score is None else {"chunk_relevance": Result(
        "chunk_relevance", score, 0.5, True, reason)}
    return CaseRow(index=0, case_id=cid, data={"input": f"{cid}?"},
                   report=None if score is None else StoredReport(results, Usage(), 0.0),
                   error=None if score is not None else "the judge could not answer",
                   passed=passed, scores={}, input_tokens=0, cost_usd=0.0)


def test_two_runs_show_which_cases_flipped_and_why():
    a = [case("x", True, 0.75, "3 of 4 chunks help."), case("y", False, 0.25, "1 of 4."),
         case("z", True, 1.0, "all help."), case("only-a", True, 1.0)]
    b = [case("x", False, 0.25, "1 of 4 chunks help."), case("y", True, 0.5, "2 of 4."),
         case("z", True, 1.0, "all help."), case("only-b", None)]
    diff = run_diff.diff_runs(a, b)
    assert (diff.matched, diff.same, diff.to_fail, diff.to_pass) == (3, 1, 1, 1)
    assert (diff.only_a, diff.only_b) == (1, 1)
    first = diff.flips[0]
    assert (first.case_id, first.before, first.after) == ("x", True, False)
    assert first.why_before == "chunk_relevance 0.75 PASS: 3 of 4 chunks help."
    assert first.why_after == "chunk_relevance 0.25 FAIL: 1 of 4 chunks help."


def test_a_case_the_judge_could_not_answer_says_so():
    diff = run_diff.diff_runs([case("x", True, 1.0, "ok")], [case("x", None)])
    assert diff.flips[0].why_after == "not scored: the judge could not answer"

"""Dataset aggregation against hand-computed figures."""

import json

import pytest

from jeval_core import JevalError, judges
from jeval_core.address import Address
from jeval_core.analysis.aggregate import (
    auc,
    chunk_verdicts,
    mean_precision_at_k,
    mean_score,
    pass_rate,
    precision_at_k,
    summarise,
    verdict_metrics,
)
from jeval_core.evaluators import chunk_relevance, contextual_recall
from jeval_core.inputs import datasets
from jeval_core.judges import Answers, OfflineJudge, Usage
from jeval_core.results import Detail, Result
from jeval_core.runs.batch import Outcome, score_many
from jeval_core.runs.run import SAMPLE


def test_precision_recall_f1_by_hand():
    m = verdict_metrics([True, True, True, False], [True, False, False, True])
    assert (m.tp, m.fp, m.fn, m.tn) == (1, 2, 1, 0)
    assert m.precision == pytest.approx(1 / 3)
    assert m.recall == pytest.approx(1 / 2)
    assert m.f1 == pytest.approx(2 * (1 / 3) * (1 / 2) / (1 / 3 + 1 / 2))  # 0.4


def test_symmetric_errors_give_equal_precision_and_recall():
    m = verdict_metrics([True, True, False, False, True], [True, False, True, False, True])
    assert m.precision == m.recall == m.f1 == pytest.approx(2 / 3)
    assert m.accuracy == pytest.approx(3 / 5)


def test_undefined_metrics_are_none_not_zero():
    m = verdict_metrics([False, False], [False, False])
    assert m.precision is None and m.recall is None and m.f1 is None


def test_mismatched_lengths_are_a_clear_error():
    with pytest.raises(JevalError, match="one label per item"):
        verdict_metrics([True], [True, False])


@pytest.mark.parametrize(("k", "value"), [(1, 1.0), (2, 0.5), (3, 2 / 3), (10, 0.2)])
def test_precision_at_k(k, value):
    assert precision_at_k([True, False, True, False], k) == pytest.approx(value)


def test_precision_at_k_averages_over_queries():
    assert mean_precision_at_k([[True, False], [False, False]], 2) == pytest.approx(0.25)
    assert mean_precision_at_k([], 2) is None
    with pytest.raises(JevalError):
        precision_at_k([True], 0)


def test_mean_score_and_pass_rate_ignore_skipped_results():
    results = [
        Result("toxicity", 0.2, 0.5, False, ""),
        Result("toxicity", 0.8, 0.5, False, ""),
        Result("toxicity", None, 0.5, False, "needs `output`"),
    ]
    assert mean_score(results) == pytest.approx(0.5)
    assert pass_rate(results) == pytest.approx(0.5)
    assert mean_score([]) is None and pass_rate([]) is None


def test_verdict_metrics_read_the_yes_of_each_detail():
    # with_expected: chunks 0, 2 and 4 are relevant (assets/examples/README.md).
    truth = [True, False, True, False, True]
    details = [Detail(f"cr{i}", Address.parse(f"context[{i}]"), "...", p, p >= 0.5, "")
               for i, p in enumerate([0.9, 0.6, 0.8, 0.1, 0.3])]
    m = verdict_metrics([d.yes for d in details], truth)
    assert (m.tp, m.fp, m.fn, m.tn) == (2, 1, 1, 1)


# --- AUC ------------------------------------------------------------------------------------


@pytest.mark.parametrize(("scores", "labels", "value"), [
    ([0.9, 0.8, 0.2, 0.1], [True, True, False, False], 1.0),  # perfect separation
    ([0.1, 0.2, 0.8, 0.9], [True, True, False, False], 0.0),  # perfectly backwards
    ([0.9, 0.3, 0.6, 0.1], [True, False, True, False], 1.0),  # order of items is irrelevant
    ([0.9, 0.4, 0.6, 0.1], [True, True, False, False], 0.75),  # 3 of 4 pairs ordered right
])
def test_auc_is_the_share_of_positive_negative_pairs_ordered_right(scores, labels, value):
    assert auc(scores, labels) == pytest.approx(value)


def test_auc_counts_a_tied_pair_as_half():
    # Pairs (positive, negative): (.9,.8) 1, (.9,.3) 1, (.8,.8) 0.5, (.8,.3) 1 -> 3.5 / 4.
    assert auc([0.9, 0.8, 0.8, 0.3], [True, False, True, False]) == pytest.approx(0.875)
    assert auc([0.5, 0.5, 0.5], [True, False, True]) == pytest.approx(0.5)


def test_auc_is_none_when_one_class_is_absent():
    assert auc([0.2, 0.9], [True, True]) is None
    assert auc([0.2, 0.9], [False, False]) is None
    assert auc([], []) is None


def test_auc_refuses_mismatched_lengths_and_nan():
    with pytest.raises(JevalError, match="one label per score"):
        auc([0.1], [True, False])
    with pytest.raises(JevalError, match="finite"):
        auc([float("nan"), 0.2], [True, False])


# --- summarise: a tiny dataset, a judge with fixed answers, figures worked by hand ----------


class FixedJudge(OfflineJudge):
    """Answers each chunk question with a p fixed by the chunk's text; bills 1,000 tokens."""

    name = "fixed"
    price_per_billion_input_tokens = 42.0

    def __init__(self, p: dict[str, float]) -> None:
        self.p = p

    def answer(self, packed):
        return Answers({wid: self.p[q.subject.text] for wid, q in packed.asked.items()},
                       Usage(input_tokens=1000, requests=1))


P = {"a0": 0.9, "a1": 0.6, "a2": 0.4, "a3": 0.1,  # A: verdicts yes yes no no
     "b0": 0.7, "b1": 0.8, "b2": 0.2,  # B: yes yes no
     "c0": 0.3, "c1": 0.2, "d0": 0.5, "e0": 0.5}
TINY = datasets.read(b"".join(json.dumps(r).encode() + b"\n" for r in [
    {"id": "A", "input": "qa?", "context": ["a0", "a1", "a2", "a3"],
     "context_labels": [0, 1, 1, 0], "reranked": [1, 2, 0, 3]},
    {"id": "B", "input": "qb?", "context": ["b0", "b1", "b2"], "context_labels": [0, 1, 0]},
    {"id": "C", "input": "qc?", "context": ["c0", "c1"]},  # no labels
    {"id": "D", "input": "qd?", "context": ["d0"]},  # the judge fails on it
    {"id": "E", "input": "qe?", "context": ["e0"]},  # not scored yet
]), "tiny.jsonl")


@pytest.fixture(scope="module")
def summary():
    outcomes = score_many(TINY.cases[:3], [chunk_relevance.EVALUATOR], FixedJudge(P))
    outcomes.append(Outcome(3, None, "the judge could not answer"))
    return summarise(TINY.rows, outcomes)


def test_summary_counts_cases_by_fate(summary):
    # A: 2/4 = 0.5 passes at 0.5; B: 2/3 passes; C: 0/2 fails; D errored; E has no outcome.
    assert (summary.cases, summary.passed, summary.failed) == (5, 2, 1)
    assert (summary.errored, summary.incomplete, summary.pending) == (1, 0, 1)
    assert summary.pass_rate == pytest.approx(2 / 3)


def test_summary_gives_each_evaluator_its_mean_score_and_pass_rate(summary):
    cr = summary.evaluators["chunk_relevance"]
    assert (cr.scored, cr.skipped, cr.passed, cr.failed) == (3, 0, 2, 1)
    assert cr.mean_score == pytest.approx((0.5 + 2 / 3 + 0.0) / 3)
    assert cr.pass_rate == pytest.approx(2 / 3)


def test_summary_scores_chunk_verdicts_against_the_labels(summary):
    # A: said [1,1,0,0], truth [0,1,1,0] -> tp 1 fp 1 fn 1 tn 1; B: [1,1,0] vs [0,1,0] ->
    # tp 1 fp 1 tn 1. C has no labels and D, E no verdicts: 7 chunks from 2 cases.
    chunks = summary.chunks
    assert (chunks.cases, chunks.chunks) == (2, 7)
    v = chunks.verdicts
    assert (v.tp, v.fp, v.fn, v.tn) == (2, 2, 1, 2)
    assert v.precision == pytest.approx(0.5)
    assert v.recall == pytest.approx(2 / 3)
    assert v.f1 == pytest.approx(4 / 7)
    assert v.accuracy == pytest.approx(4 / 7)


def test_summary_auc_reads_p_not_the_verdicts(summary):
    # Positives a1 .6, a2 .4, b1 .8 against negatives a0 .9, a3 .1, b0 .7, b2 .2:
    # .6 beats 2, .4 beats 2, .8 beats 3 -> 7 of 12 pairs.
    assert summary.chunks.auc == pytest.approx(7 / 12)


def test_summary_precision_at_k_from_labels_puts_both_rankings_side_by_side(summary):
    # A retriever [0,1,1,0], A reranked [1,1,0,0]; B retriever [0,1,0] (no reranking).
    ranking = summary.ranking
    assert (ranking.source, ranking.cases, ranking.reranked_cases) == ("labels", 2, 1)
    assert ranking.retriever == pytest.approx({1: 0.0, 3: (2 / 3 + 1 / 3) / 2,
                                               5: (2 / 5 + 1 / 5) / 2})
    assert ranking.retriever_on_reranked == pytest.approx({1: 0.0, 3: 2 / 3, 5: 2 / 5})
    assert ranking.reranked == pytest.approx({1: 1.0, 3: 2 / 3, 5: 2 / 5})


def test_summary_precision_at_k_from_the_judge_needs_no_labels(summary):
    # Verdicts A [1,1,0,0], B [1,1,0], C [0,0]; A reranked [1,0,1,0].
    judge = summary.judge_ranking
    assert (judge.source, judge.cases, judge.reranked_cases) == ("judge", 3, 1)
    assert judge.retriever == pytest.approx({1: 2 / 3, 3: 4 / 9, 5: 4 / 15})
    assert judge.reranked == pytest.approx({1: 1.0, 3: 2 / 3, 5: 2 / 5})


def test_summary_adds_up_usage_and_cost(summary):
    assert (summary.input_tokens, summary.requests) == (3000, 3)
    assert summary.cost_usd == pytest.approx(3000 * 42 / 1e9)


def test_summary_to_dict_is_plain_json(summary):
    data = json.loads(json.dumps(summary.to_dict(), allow_nan=False))
    assert data["chunks"]["auc"] == pytest.approx(7 / 12)
    assert data["ranking"]["reranked"]["reranked"]["p@1"] == 1.0
    assert data["evaluators"]["chunk_relevance"]["pass_rate"] == pytest.approx(2 / 3)
    assert data["usage"]["input_tokens"] == 3000


def test_metrics_with_nothing_to_stand_on_are_none_not_zero():
    empty = summarise(TINY.rows[2:4], [Outcome(1, None, "the judge could not answer")])
    assert (empty.pass_rate, empty.chunks, empty.ranking, empty.judge_ranking) == (
        None, None, None, None)
    assert empty.evaluators == {}
    data = empty.to_dict()
    assert data["pass_rate"] is None and data["chunks"] is None and data["ranking"] is None


def test_blank_chunks_are_left_out_of_the_label_metrics_but_keep_the_ranking_positions():
    rows = datasets.read(json.dumps({"input": "q?", "context": ["a0", "  ", "a2"],
                                     "context_labels": [1, 0, 1]}).encode(), "d.jsonl").rows
    outcomes = score_many([rows[0].case], [chunk_relevance.EVALUATOR],
                          FixedJudge({"a0": 0.9, "a2": 0.2}))
    s = summarise(rows, outcomes)
    assert s.chunks.chunks == 2  # the blank chunk was not asked
    assert (s.chunks.verdicts.tp, s.chunks.verdicts.fn) == (1, 1)  # a2 is the miss, not "  "
    assert s.judge_ranking.retriever[3] == pytest.approx(1 / 3)  # the blank one counts as no


def test_chunk_verdicts_are_keyed_by_the_context_index_each_detail_judged():
    result = Result("chunk_relevance", 0.5, 0.5, True, "", details=(
        Detail("cr0", Address.parse("context[0]"), "...", 0.9, True, "relevant"),
        Detail("cr3", Address.parse("context[3]"), "...", 0.2, False, "not relevant")))
    assert chunk_verdicts(result) == {0: (True, 0.9), 3: (False, 0.2)}


def test_skipped_evaluators_count_as_skipped_not_as_a_zero_score():
    rows = datasets.read(json.dumps({"input": "q?", "context": ["a0"]}).encode(), "d.jsonl").rows
    outcomes = score_many([rows[0].case], [chunk_relevance.EVALUATOR, contextual_recall.EVALUATOR],
                          FixedJudge({"a0": 0.9}))
    recall = summarise(rows, outcomes).evaluators["contextual_recall"]
    assert (recall.scored, recall.skipped, recall.mean_score, recall.pass_rate) == (
        0, 1, None, None)


def test_an_incomplete_case_is_not_a_pass_in_the_pass_rate():
    """Two sample rows with contextual_recall attached: the one with `expected` passes at a
    zero bar, the one without has its recall skipped, so it is incomplete: 1 of 2 passed."""
    rows = list(datasets.load(SAMPLE).rows)
    with_expected = next(r for r in rows if r.case.expected is not None)
    without = next(r for r in rows if r.case.expected is None)
    picked = [with_expected, without]
    chosen = [chunk_relevance.EVALUATOR, contextual_recall.EVALUATOR]
    outcomes = score_many([r.case for r in picked], chosen, judges.get("lexical"),
                          thresholds={"chunk_relevance": 0.0, "contextual_recall": 0.0})
    assert [o.report.passed for o in outcomes] == [True, None]
    summary = summarise(picked, outcomes)
    assert (summary.passed, summary.failed, summary.incomplete) == (1, 0, 1)
    assert summary.pass_rate == pytest.approx(1 / 2)
    assert summary.to_dict()["incomplete"] == 1

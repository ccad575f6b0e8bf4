"""Ranking metrics of one retrieval, checked against values worked out by hand."""

import math

import pytest

from jeval_core.analysis import ranking
from jeval_core.errors import JevalError

# The retriever's order: relevant at ranks 2 and 4 of 5.
ORDER = (False, True, False, True, False)


def test_precision_at_k_counts_missing_ranks_as_misses():
    assert ranking.precision_at_k(ORDER, 2) == 0.5
    assert ranking.precision_at_k((True,), 3) == pytest.approx(1 / 3)


def test_recall_at_k_is_the_share_of_relevant_chunks_in_the_top_k():
    assert ranking.recall_at_k(ORDER, 1) == 0.0
    assert ranking.recall_at_k(ORDER, 2) == 0.5
    assert ranking.recall_at_k(ORDER, 5) == 1.0


def test_hit_rate_is_one_when_any_of_the_top_k_is_relevant():
    assert ranking.hit_at_k(ORDER, 1) == 0.0
    assert ranking.hit_at_k(ORDER, 2) == 1.0


def test_reciprocal_rank_reads_the_first_relevant_chunk():
    assert ranking.reciprocal_rank(ORDER) == 0.5
    assert ranking.reciprocal_rank((False, False)) == 0.0


def test_ndcg_divides_by_the_gain_of_the_best_order():
    dcg = 1 / math.log2(3) + 1 / math.log2(5)
    ideal = 1 / math.log2(2) + 1 / math.log2(3)
    assert ranking.ndcg_at_k(ORDER, 5) == pytest.approx(dcg / ideal)
    assert ranking.ndcg_at_k((True, True, False), 3) == 1.0


def test_a_query_with_nothing_relevant_has_no_ndcg_or_recall_and_is_left_out_of_the_mean():
    nothing = (False, False, False)
    assert ranking.ndcg_at_k(nothing, 3) is None
    assert ranking.recall_at_k(nothing, 3) is None
    assert ranking.mean([ranking.ndcg_at_k(nothing, 3), ranking.ndcg_at_k(ORDER, 2)]) == \
        pytest.approx(ranking.ndcg_at_k(ORDER, 2))


def test_k_below_one_is_refused_with_the_reason():
    with pytest.raises(JevalError, match="at least 1"):
        ranking.ndcg_at_k(ORDER, 0)


def test_a_run_summary_carries_every_ranking_metric_and_reads_it_back():
    from conftest import ROOT

    from jeval_core.analysis.aggregate import Summary, summarise
    from jeval_core.inputs import datasets

    data = datasets.load(ROOT / "assets" / "datasets" / "sample.jsonl")
    summary = summarise(data.rows, [])
    more = summary.ranking.more["retriever"]
    labelled = [r.ranked_labels for r in data.rows if r.ranked_labels is not None]
    assert more["mrr"] == pytest.approx(
        sum(ranking.reciprocal_rank(r) for r in labelled) / len(labelled))
    assert more["ndcg@3"] == pytest.approx(ranking.mean(ranking.ndcg_at_k(r, 3)
                                                        for r in labelled))
    again = Summary.from_dict(summary.to_dict())
    assert again.ranking == summary.ranking


def test_standing_orders_by_p_highest_first_and_ties_share_the_better_place():
    assert ranking.standing([0.2, 0.9, 0.5, 0.9]) == [4, 1, 3, 1]
    assert ranking.standing([]) == []

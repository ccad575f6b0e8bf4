"""Ranking metrics for one retrieval: how high the relevant chunks stand in an order.

Relevance comes from a person's labels or from a judge's verdicts; the order is the
retriever's or a reranker's. The definitions are the usual ones (as RAGAS, Phoenix and
TREC tools compute them), with binary relevance: a query with no relevant chunk scores
0 on every metric but nDCG and recall, which are undefined there (None) and left out of
a mean rather than counted as a perfect or a zero.

`precision_by_rank` reads a dataset's labels position by position: how often the chunk at
each rank is relevant, in the retriever's order and in the reranked one.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..errors import JevalError

if TYPE_CHECKING:
    from ..inputs.datasets import DatasetRow


def _check(k: int, metric: str) -> None:
    if k < 1:
        raise JevalError(f"k must be at least 1, not {k}: {metric} looks at the top k items")


def precision_at_k(relevant: Sequence[bool], k: int) -> float:
    """Relevant items among the top k of a ranking, over k (missing ranks count as misses)."""
    _check(k, "precision@k")
    return sum(1 for r in relevant[:k] if r) / k


def recall_at_k(relevant: Sequence[bool], k: int) -> float | None:
    """Share of all relevant items that stand in the top k; None when none is relevant."""
    _check(k, "recall@k")
    total = sum(1 for r in relevant if r)
    return sum(1 for r in relevant[:k] if r) / total if total else None


def hit_at_k(relevant: Sequence[bool], k: int) -> float:
    """1 when any of the top k is relevant, else 0 (hit rate, averaged over queries)."""
    _check(k, "hit rate@k")
    return 1.0 if any(relevant[:k]) else 0.0


def reciprocal_rank(relevant: Sequence[bool]) -> float:
    """1 / the rank of the first relevant item; 0 when there is none (MRR, averaged)."""
    for rank, r in enumerate(relevant, start=1):
        if r:
            return 1.0 / rank
    return 0.0


def ndcg_at_k(relevant: Sequence[bool], k: int) -> float | None:
    """Discounted cumulative gain of the top k over that of the best possible order:
    1.0 when every relevant item stands first. None when none is relevant."""
    _check(k, "nDCG@k")
    ideal_hits = min(k, sum(1 for r in relevant if r))
    if not ideal_hits:
        return None
    dcg = sum(1 / math.log2(rank + 1) for rank, r in enumerate(relevant[:k], start=1) if r)
    ideal = sum(1 / math.log2(rank + 1) for rank in range(1, ideal_hits + 1))
    return dcg / ideal


def standing(p: Sequence[float]) -> list[int]:
    """Each item's place when the items are ordered by p, highest first (1 = the best; tied
    items share the better place). The relative reading of a retrieval ("best of 6"), kept
    apart from p: a chunk's p is its own, its standing depends on the chunks beside it."""
    return [1 + sum(1 for other in p if other > mine) for mine in p]


def mean(values: Iterable[float | None]) -> float | None:
    """The mean of the defined values; None when none is."""
    kept = [v for v in values if v is not None]
    return sum(kept) / len(kept) if kept else None


# --- precision at each rank position, retriever against reranker --------------------------


@dataclass(frozen=True)
class RankPrecision:
    """At one rank position: the share of rows whose chunk there is relevant (labels).

    `retriever` is over every labelled row long enough; `retriever_on_reranked` and
    `reranked` over the rows that also give a reranked order, so those two are a fair pair.
    """

    rank: int  # 1-based
    retriever: float | None
    retriever_cases: int
    retriever_on_reranked: float | None = None
    reranked: float | None = None
    reranked_cases: int = 0

LabelOrder = tuple[Sequence[bool], Sequence[bool] | None]


def orders_of_rows(rows: Iterable[DatasetRow]) -> list[LabelOrder]:
    """Per labelled row: relevance in the retriever's order and, if given, the reranked one."""
    return [(r.ranked_labels, r.reranked_labels()) for r in rows
            if r.ranked_labels is not None]


def precision_by_rank(orders: Sequence[LabelOrder]) -> list[RankPrecision]:
    """How often the chunk at each rank is relevant, retriever against reranker: where in the
    list the relevant chunks sit (a good reranker moves them up)."""
    depth = max((len(first) for first, _ in orders), default=0)
    paired = [(first, second) for first, second in orders if second is not None]

    def share(lists: Sequence[Sequence[bool]], rank: int) -> tuple[float | None, int]:
        here = [bool(items[rank]) for items in lists if len(items) > rank]
        return (sum(here) / len(here) if here else None), len(here)

    out = []
    for rank in range(depth):
        retriever, n = share([first for first, _ in orders], rank)
        on_reranked, _ = share([first for first, _ in paired], rank)
        reranked, m = share([second for _, second in paired if second is not None], rank)
        out.append(RankPrecision(rank + 1, retriever, n, on_reranked, reranked, m))
    return out

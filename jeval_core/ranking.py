"""Ranking metrics for one retrieval: how high the relevant chunks stand in an order.

Relevance comes from a person's labels or from a judge's verdicts; the order is the
retriever's or a reranker's. The definitions are the usual ones (as RAGAS, Phoenix and
TREC tools compute them), with binary relevance: a query with no relevant chunk scores
0 on every metric but nDCG and recall, which are undefined there (None) and left out of
a mean rather than counted as a perfect or a zero.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

from .errors import JevalError


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


def mean(values: Iterable[float | None]) -> float | None:
    """The mean of the defined values; None when none is."""
    kept = [v for v in values if v is not None]
    return sum(kept) / len(kept) if kept else None


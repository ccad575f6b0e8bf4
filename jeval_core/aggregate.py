"""Dataset metrics over many results (seed 000 "Aggregate with").

One result per item is a fact; a dataset of them is a metric. Undefined metrics (no scored
items, no predicted positives) are None, never a made-up 0.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .errors import JevalError
from .results import Result


def mean_score(results: Iterable[Result]) -> float | None:
    """Mean of the 0-1 scores of the results that were scored (skipped ones do not count)."""
    scores = [r.score for r in results if r.score is not None]
    return sum(scores) / len(scores) if scores else None


def pass_rate(results: Iterable[Result]) -> float | None:
    """Share of scored results that passed their threshold in their own direction."""
    verdicts = [r.passed for r in results if r.passed is not None]
    return sum(verdicts) / len(verdicts) if verdicts else None


@dataclass(frozen=True)
class VerdictMetrics:
    """Confusion counts of predicted verdicts against true labels, and what follows from them."""

    tp: int
    fp: int
    fn: int
    tn: int

    @property
    def precision(self) -> float | None:
        """Share of predicted positives that were really positive."""
        predicted = self.tp + self.fp
        return self.tp / predicted if predicted else None

    @property
    def recall(self) -> float | None:
        """Share of real positives that were caught."""
        actual = self.tp + self.fn
        return self.tp / actual if actual else None

    @property
    def f1(self) -> float | None:
        """Harmonic mean of precision and recall: high only when both are."""
        p, r = self.precision, self.recall
        if p is None or r is None:
            return None
        return 0.0 if p + r == 0 else 2 * p * r / (p + r)

    @property
    def accuracy(self) -> float | None:
        n = self.tp + self.fp + self.fn + self.tn
        return (self.tp + self.tn) / n if n else None


def verdict_metrics(predicted: Sequence[bool], actual: Sequence[bool]) -> VerdictMetrics:
    """Precision, recall and F1 of yes/no verdicts against true labels, item by item."""
    if len(predicted) != len(actual):
        raise JevalError(
            f"{len(predicted)} verdicts but {len(actual)} labels: give one label per item"
        )
    pairs = list(zip(predicted, actual, strict=True))
    return VerdictMetrics(
        tp=sum(1 for p, a in pairs if p and a),
        fp=sum(1 for p, a in pairs if p and not a),
        fn=sum(1 for p, a in pairs if not p and a),
        tn=sum(1 for p, a in pairs if not p and not a),
    )


def precision_at_k(relevant: Sequence[bool], k: int) -> float:
    """Relevant items among the top k of a ranking, over k (missing ranks count as misses)."""
    if k < 1:
        raise JevalError(f"k must be at least 1, not {k}: precision@k looks at the top k items")
    return sum(1 for r in relevant[:k] if r) / k


def mean_precision_at_k(rankings: Iterable[Sequence[bool]], k: int) -> float | None:
    """precision@k averaged over queries (reranker evaluation); None for no queries."""
    values = [precision_at_k(r, k) for r in rankings]
    return sum(values) / len(values) if values else None

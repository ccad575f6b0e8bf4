"""Fitting an offline judge's curves to labels, and measuring them honestly.

Pure numpy, so the same arithmetic serves the calibration bench and a person's own labels:
a weighted logistic fit whose signals must keep the sign of their meaning, folds grouped by
topic (no case is in both the fit and the measure), the usual verdict figures next to the
always-no baseline, and the band of p where the verdicts are no better than a coin.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

P_FLOOR, P_CEILING = 0.03, 0.97


def fit(X: np.ndarray, y: np.ndarray, ridge: float, weight: np.ndarray | None = None,
        steps: int = 100) -> np.ndarray:
    """Weighted logistic regression by Newton's method; ridge on the weights, not the bias.
    Returns (bias, weights...)."""
    weight = np.ones(len(y)) if weight is None else weight
    A = np.hstack([np.ones((len(X), 1)), X])
    w = np.zeros(A.shape[1])
    penalty = np.eye(A.shape[1]) * ridge
    penalty[0, 0] = 0.0
    for _ in range(steps):
        p = 1 / (1 + np.exp(-np.clip(A @ w, -30, 30)))
        grad = A.T @ (weight * (p - y)) + penalty @ w
        hess = A.T @ (A * (weight * p * (1 - p))[:, None]) + penalty + 1e-9 * np.eye(A.shape[1])
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    return w


def fit_signed(X: np.ndarray, y: np.ndarray, ridge: float, weight: np.ndarray | None,
               signs: Sequence[int]) -> np.ndarray:
    """Logistic fit in which a signal whose weight comes out against its meaning (its sign in
    `signs`; 0: either way) is dropped, weight 0, and the rest refitted."""
    keep = [k for k in range(X.shape[1]) if signs[k] is not None]
    while True:
        w = np.zeros(X.shape[1] + 1)
        w[[0, *[k + 1 for k in keep]]] = fit(X[:, keep], y, ridge, weight)
        wrong = [k for k in keep if signs[k] and w[k + 1] * signs[k] < 0]
        if not wrong:
            return w
        keep.remove(max(wrong, key=lambda k: abs(w[k + 1])))


def predict(w: np.ndarray, X: np.ndarray) -> np.ndarray:
    p = 1 / (1 + np.exp(-np.clip(w[0] + X @ w[1:], -30, 30)))
    return np.clip(p, P_FLOOR, P_CEILING)


def held_out_part(topic: str, share: int = 3) -> bool:
    """Whether a topic is in the held-out part: sha1 of its name mod 10 below `share`.
    Decided by the name alone, so adding data never moves a topic between parts."""
    return int(hashlib.sha1(topic.encode("utf-8")).hexdigest(), 16) % 10 < share


def auc(p: np.ndarray, y: np.ndarray) -> float | None:
    """Probability that a random positive gets a higher p than a random negative."""
    pos, neg = p[y == 1], p[y == 0]
    if not len(pos) or not len(neg):
        return None
    # Mann-Whitney: the positives' rank sum, ties given their average rank (one pass of
    # np.unique, no Python loop: a bootstrap calls this a thousand times).
    _, inverse, counts = np.unique(np.concatenate([pos, neg]), return_inverse=True,
                                   return_counts=True)
    ends = np.cumsum(counts)
    ranks = (ends - (counts - 1) / 2)[inverse]
    return float((ranks[:len(pos)].sum() - len(pos) * (len(pos) + 1) / 2)
                 / (len(pos) * len(neg)))


def kappa(yes: np.ndarray, truth: np.ndarray) -> float | None:
    """Cohen's kappa: agreement beyond what two raters with these yes-rates reach by chance.
    None when chance agreement is already total (every verdict and label the same)."""
    if not len(yes):
        return None
    observed = float(np.mean(yes == truth))
    p_yes, t_yes = float(np.mean(yes)), float(np.mean(truth))
    chance = p_yes * t_yes + (1 - p_yes) * (1 - t_yes)
    return None if chance >= 1.0 else (observed - chance) / (1 - chance)


@dataclass(frozen=True)
class Verdicts:
    """How a judge's verdicts at p >= 0.5 compare with the labels."""

    n: int
    positives: int
    auc: float | None
    accuracy: float
    precision: float
    recall: float
    f1: float
    always_no: float  # the accuracy of answering "no" to everything

    @classmethod
    def of(cls, p: np.ndarray, y: np.ndarray) -> Verdicts:
        yes, truth = p >= 0.5, y == 1
        tp = int((yes & truth).sum())
        precision = tp / yes.sum() if yes.sum() else 0.0
        recall = tp / truth.sum() if truth.sum() else 0.0
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        return cls(len(y), int(truth.sum()), auc(p, y), float(np.mean(yes == truth)),
                   float(precision), float(recall), float(f1), float(1 - truth.mean()))


def unsure_band(p: np.ndarray, y: np.ndarray, poor: float = 0.65, width: float = 0.05,
                least: int = 10, weights: np.ndarray | None = None) -> tuple[float, float]:
    """The band [lo, hi) around 0.5 where held-out verdicts are right less often than `poor`:
    where this judge's yes or no is little better than a coin.

    p is cut into bins of `width` (a bin with fewer than `least` answers is joined to the next
    one outwards); starting at 0.5, the band grows a bin at a time on each side while that
    bin's accuracy stays below `poor`. (0.5, 0.5) means no band: even next to 0.5 the
    verdicts were right often enough, or too few answers fell inside to say they were not (the
    band's accuracy must stay below `poor` at the top of its 95% Wilson interval: 8 right of
    13 is no evidence of a coin). `weights` weigh each answer in a bin's accuracy (each kind of
    data its own say, as in the fit the curve came from).
    """
    right = (p >= 0.5) == (y == 1)
    w = np.ones(len(p)) if weights is None else np.asarray(weights, dtype=float)

    def accuracy(inside: np.ndarray) -> float:
        return float(np.average(right[inside], weights=w[inside]))

    def grow(start: float, step: float) -> float:
        edge = start
        while P_FLOOR - 1e-9 < edge < P_CEILING + 1e-9:
            nxt = edge + step
            while True:
                lo, hi = sorted((edge, nxt))
                inside = (p >= lo) & (p < hi)
                if inside.sum() >= least or not (0.0 <= nxt + step <= 1.0):
                    break
                nxt += step
            if inside.sum() < least or accuracy(inside) >= poor:
                return edge
            edge = min(max(nxt, 0.0), 1.0)
            if edge in (0.0, 1.0):
                return edge
        return edge

    lo, hi = grow(0.5, -width), grow(0.5, width)
    inside = (p >= lo) & (p < hi)
    if lo >= hi or wilson_upper(accuracy(inside), int(inside.sum())) >= poor:
        return (0.5, 0.5)
    return (round(lo, 2), round(hi, 2))


def wilson_upper(share: float, n: float, z: float = 1.96) -> float:
    """The top of the Wilson score interval of a share measured on n answers."""
    if n <= 0:
        return 1.0
    centre = share + z * z / (2 * n)
    spread = z * np.sqrt(share * (1 - share) / n + z * z / (4 * n * n))
    return float(min(1.0, (centre + spread) / (1 + z * z / n)))


def accuracy_in(p: np.ndarray, y: np.ndarray, band: tuple[float, float]) -> tuple[float, int]:
    """(verdict accuracy, answers) inside the band [lo, hi)."""
    inside = (p >= band[0]) & (p < band[1])
    right = (p >= 0.5) == (y == 1)
    return (float(right[inside].mean()) if inside.any() else float("nan"), int(inside.sum()))

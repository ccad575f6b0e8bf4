"""Calibration constants: how each offline judge turns a raw signal into p(true).

Kept in one place, as data: `bench/calibrate.py` refits them from the hand-labelled pairs in
`assets/calibration/pairs.jsonl` and prints the fit, so a change here is a measured change.
"""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class Logistic:
    """p = clip(sigmoid(k * (x - c)), lo, hi): c is the signal where p = 0.5."""

    k: float
    c: float
    lo: float = 0.03
    hi: float = 0.97

    def __call__(self, x: float) -> float:
        z = self.k * (x - self.c)
        p = 1.0 / (1.0 + math.exp(-z)) if z >= -700 else 0.0
        return min(self.hi, max(self.lo, p))


# Lexical judge (seed 001 signals), one logistic per question relation, fitted by
# `python bench/calibrate.py` on 199 hand-labelled pairs with hard same-topic negatives.
# Word overlap has little skill there (AUC: helps_answer 0.62, supported_by 0.61,
# attributable_to 0.89, toxic 0.59), so most slopes are gentle and p stays near 0.5 unless the
# overlap is strong. Two relations fit a negative slope on hard pairs and get a sensible
# reading instead: relevant_to (AUC 0.39) shares helps_answer's curve (both: text vs the
# question); contradicts (AUC 0.29: contradictions reuse the chunk's words) keeps seed 001's
# reading, more than half of the output's words unsupported means "yes".
LEXICAL = {
    "helps_answer": Logistic(k=4.5, c=0.387),
    "relevant_to": Logistic(k=4.5, c=0.387),
    "supported_by": Logistic(k=3.01, c=0.532),
    "attributable_to": Logistic(k=14.76, c=0.531),
    "toxic": Logistic(k=4.6, c=0.045),
    "contradicts": Logistic(k=10.0, c=0.5),
}


@dataclass(frozen=True)
class Linear:
    """p = clip(sigmoid(bias + w . x), lo, hi) over several signals."""

    bias: float
    weights: tuple[float, ...]
    lo: float = 0.03
    hi: float = 0.97

    def __call__(self, x: tuple[float, ...]) -> float:
        z = self.bias + sum(w * v for w, v in zip(self.weights, x, strict=True))
        p = 1.0 / (1.0 + math.exp(-z)) if z >= -700 else 0.0
        return min(self.hi, max(self.lo, p))


# Local judge (MiniLM cosine plus cheap signals), by relation, fitted by
# `python bench/calibrate.py --judge local` on 226 labelled pairs: the hand-written pairs
# (mostly hard same-topic negatives) and every chunk of the example cases, each source with
# equal total weight. Signals, in order:
#   helps_answer, relevant_to      cosine(subject, input or expected)
#   supported_by, attributable_to  best cosine against a chunk or context sentence,
#                                  share of the subject's numbers absent from the context
#   contradicts                    topicality (best output sentence vs the chunk),
#                                  topicality when that sentence states numbers the chunk lacks
#   toxic                          alt-profanity-check's p(offensive)
# relevant_to shares helps_answer's curve: its own fit did worse than a constant 0.5 on
# held-out pairs (cv log-loss 0.73), and both compare a text with the question.
LOCAL = {
    "helps_answer": Linear(-3.64, (6.90,)),
    "relevant_to": Linear(-3.64, (6.90,)),
    "supported_by": Linear(-4.07, (6.42, -5.15)),
    "attributable_to": Linear(-9.35, (13.58, -5.65)),
    "contradicts": Linear(-2.71, (2.78, 2.07)),
    "toxic": Linear(-1.50, (3.28,)),
}

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
# `python bench/calibrate.py --judge local` on the "fit" topics of the labelled pairs only
# (assets/calibration/split.json; the held-out topics are only ever measured), each source
# (hand-written pairs, example chunks) with equal total weight; support questions also see
# each supported claim against another topic's context. A signal whose fitted weight came
# out against its meaning is dropped. Signals, in order:
#   helps_answer, relevant_to      cosine(subject, input or expected)
#   supported_by, attributable_to  best cosine against a chunk or context sentence,
#                                  share of the subject's numbers absent from the context
#   contradicts                    topicality (best output sentence vs the chunk),
#                                  topicality when that sentence states numbers the chunk lacks
#   toxic                          alt-profanity-check's p(offensive)
# supported_by and contradicts keep the curves of the earlier fit (hand pairs and example
# chunks, before the split): refitted on the fit topics they rank the held-out pairs no better
# (AUC 0.54 vs 0.55, 0.70 vs 0.70) and lose the hallucinated example (faithfulness 0.67,
# hallucination 0.25: both pass a made-up dosage). tests/test_calibration.py names them.
LOCAL = {
    "helps_answer": Linear(-3.31, (6.59,)),
    "relevant_to": Linear(-2.34, (5.58,)),
    "supported_by": Linear(-4.07, (6.42, -5.15)),  # pinned, see above
    "attributable_to": Linear(-2.77, (4.64, -3.57)),
    "contradicts": Linear(-2.71, (2.78, 2.07)),  # pinned, see above
    "toxic": Linear(-1.40, (5.31,)),
}

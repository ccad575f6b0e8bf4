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


# Lexical judge (seed 001 signals), by signal family. Refit with `python bench/calibrate.py`.
LEXICAL = {
    "similarity": Logistic(k=12.0, c=0.30),
    "unsupported": Logistic(k=10.0, c=0.5),
    "toxicity": Logistic(k=40.0, c=0.05),
}

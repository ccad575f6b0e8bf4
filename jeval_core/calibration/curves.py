"""Calibration constants: how each offline judge turns a raw signal into p(true).

Kept in one place, as data: `bench/calibrate.py` refits them from the hand-labelled pairs in
`assets/calibration/pairs.jsonl` and prints the fit, so a change here is a measured change.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..questions import Question

HIDDEN = 384  # the reader's pooled vector, which its head reads (a profile can refit the head)


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


# Similarity judge (the local judge before the reader): MiniLM cosine plus cheap signals, one
# curve per relation, each question read from its own operands (a chunk never from the chunks
# beside it), fitted by `python bench/calibrate.py --judge similarity` on the fit parts of
# three kinds of labelled data (hard hand-written pairs, ordinary retrievals, human-labelled
# public data), each kind with equal total weight; the held-out parts are only ever measured.
# The signals of each relation, in order, and the sign each weight must have (+1: more of
# it, more "yes"); a fit that gives a signal the other sign has learnt its corpus, not the
# relation, and the signal is dropped (weight 0).
SIMILARITY_SIGNALS = {
    "helps_answer": ("cosine to the question", "question words covered",
                     "no number where one is asked for"),
    "supported_by": ("best cosine to a chunk or sentence", "numbers the context lacks",
                     "words the best chunk covers"),
    "contradicts": ("topicality", "same quantity, other number", "agreement"),
    "toxic": ("profanity classifier", "a listed profane word"),
}
SIMILARITY_SIGNALS["relevant_to"] = SIMILARITY_SIGNALS["helps_answer"]
SIMILARITY_SIGNALS["attributable_to"] = SIMILARITY_SIGNALS["supported_by"]
SIMILARITY_SIGNS = {
    "helps_answer": (1, 1, -1), "relevant_to": (1, 1, -1),
    "supported_by": (1, -1, 1), "attributable_to": (1, -1, 1),
    "contradicts": (1, 1, -1), "toxic": (1, 1),
}
SIMILARITY = {
    "helps_answer": Linear(-4.26, (5.21, 2.24, -1.18)),
    "relevant_to": Linear(-1.60, (3.73, 0.34, -0.02)),
    "supported_by": Linear(-0.32, (0.38, -2.13, 2.02)),
    "attributable_to": Linear(0.16, (0.00, -3.05, 2.17)),
    "contradicts": Linear(-4.78, (6.60, 0.29, -1.31)),
    "toxic": Linear(-2.13, (4.96, 0.40)),
}
# Custom questions (a person's own wording), read from the signals in `custom_signals`,
# fitted by `python bench/custom_questions.py` on 313 labelled items of 64 custom questions
# (two sets in different domains; each measured with the other's fit: local AUC 0.72,
# accuracy 0.68 against 0.58 for answering "no" to all; lexical AUC 0.64). A rough guide,
# and every such answer is marked approximate.
CUSTOM_SIGNS = (1, 1, 1, 0, 1)
SIMILARITY["custom"] = Linear(-0.72, (1.55, 2.59, 6.26, 0.07, 1.62))
LEXICAL_CUSTOM = Linear(-1.33, (3.95, 5.94, 4.83, -0.18, 1.49))

# Local judge: the reader's reads (judges/local.py), one curve per relation, fitted by
# `python bench/calibrate.py` on the calibrate parts of the same three kinds of labelled data
# (the reader itself was trained on none of the held-out parts). A chunk is read on its own:
# the question and that chunk (and `expected` when the question names it). The chunk
# questions' curve is then moved so that p = 0.5 sits at the cut where the verdicts agree
# best with people (mean F1 over the sources), not where log-loss is least. Toxicity and
# custom questions keep the similarity judge's signals and curves.
_READER_SIGNALS = {
    "helps_answer": ("reader: helps answer (log-odds)", "entails an expected sentence",
                     "`expected` given", "share of an expected sentence's words it states"),
    "supported_by": ("reader: best chunk entails it (log-odds)",
                     "reader: a chunk refutes it (log-odds)", "numbers the context lacks"),
    "contradicts": ("reader: the chunk refutes a sentence (log-odds)",
                    "reader: the chunk entails a sentence (log-odds)"),
}
_READER_SIGNALS["relevant_to"] = _READER_SIGNALS["helps_answer"]
_READER_SIGNALS["attributable_to"] = _READER_SIGNALS["supported_by"]
_READER_SIGNS = {"helps_answer": (1, 1, 0, 1), "relevant_to": (1, 1, 0, 1),
                 "supported_by": (1, -1, -1), "attributable_to": (1, -1, -1),
                 "contradicts": (1, 0)}
# The reader's reads first, then the similarity judge's signals of the same question.
LOCAL_SIGNALS = {r: (*_READER_SIGNALS.get(r, ()), *SIMILARITY_SIGNALS[r])
                 for r in SIMILARITY_SIGNALS}
LOCAL_SIGNS = {r: (*_READER_SIGNS.get(r, ()), *SIMILARITY_SIGNS[r]) for r in SIMILARITY_SIGNS}
LOCAL = {
    "helps_answer": Linear(-2.08, (0.53, 0.71, -1.40, 3.27, 4.77, 0.00, -1.88)),
    "relevant_to": Linear(1.40, (1.29, 0.00, 0.00, 0.00, 1.67, 0.00, 0.00)),
    "supported_by": Linear(-0.47, (0.79, 0.00, -1.21, 1.17, -1.21, 0.16)),
    "attributable_to": Linear(-2.23, (0.34, -0.25, 0.00, 2.76, 0.00, 0.95)),
    "contradicts": Linear(-4.41, (0.55, -0.65, 6.33, 0.00, 0.00)),
    "toxic": SIMILARITY["toxic"],
    "custom": SIMILARITY["custom"],
}


@lru_cache(maxsize=1)
def held_out() -> dict[str, Any]:
    """What `python bench/calibrate.py --write` measured of each offline judge on held-out
    labelled data: per relation and source, the verdicts' figures next to answering "no" to
    all, and the unsure band. The judge card shows it; the bands below come from it."""
    return json.loads(resources.files(__package__).joinpath("agreement.json").read_text("utf-8"))


def bands(judge: str) -> dict[str, tuple[float, float]]:
    """Per relation, the band [lo, hi) of p whose held-out verdicts were right less than 65%
    of the time: a verdict there is shown as "unsure" (scores and pass/fail still follow
    p >= 0.5)."""
    relations = held_out().get(judge, {}).get("relations", {})
    return {r: (float(v["unsure"][0]), float(v["unsure"][1])) for r, v in relations.items()}


LOCAL_UNSURE = bands("local")
SIMILARITY_UNSURE = bands("similarity")
LEXICAL_UNSURE = bands("lexical")


def unsure(bands: Mapping[str, tuple[float, float]], questions: Mapping[str, Question],
           p: Mapping[str, float]) -> frozenset[str]:
    """The ids whose p lies in their relation's unsure band."""
    out = set()
    for qid, q in questions.items():
        lo, hi = bands.get(q.relation, (0.5, 0.5))
        if lo <= p[qid] < hi:
            out.add(qid)
    return frozenset(out)

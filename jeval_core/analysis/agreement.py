"""How far a judge agrees with a person's labels, and how sure that figure is.

A judge is only as good as its agreement with the people who know the domain. Every figure
comes with a 95% bootstrap interval (cases are resampled whole: the chunks of one retrieval
are not independent), next to the always-no baseline that a judge must beat to be worth
reading, and the disagreements come sorted by how confident the judge was, so the worst
mistakes are read first.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ..results import Result
from .labels import CHUNK_RELEVANCE, Labels

DRAWS = 1000  # bootstrap resamples: intervals steady to about a hundredth
SEED = 20261202  # a fixed seed: the same labels always give the same interval
BLOCK = 125  # resamples computed at once (memory: items x BLOCK numbers)


@dataclass(frozen=True)
class Judged:
    """One labelled item: the judge's p(yes) against the person's label.

    `case` groups the items of one case for the bootstrap; `item` says which item it is
    ("case 3, chunk 2" or an evaluator's name) for the list of disagreements."""

    case: str
    item: str
    p: float
    label: bool

    @property
    def yes(self) -> bool:
        return self.p >= 0.5

    @property
    def confidence(self) -> float:
        """|p - 0.5| * 2, as every result reports it."""
        return abs(self.p - 0.5) * 2


@dataclass(frozen=True)
class Figure:
    """A figure and its 95% bootstrap interval; None where the labels cannot define it
    (AUC with one class only, precision with no yes)."""

    value: float | None
    low: float | None = None
    high: float | None = None

    def __str__(self) -> str:
        if self.value is None:
            return "n/a"
        if self.low is None or self.high is None:
            return f"{self.value:.2f}"
        return f"{self.value:.2f} [{self.low:.2f}, {self.high:.2f}]"


@dataclass(frozen=True)
class Agreement:
    """A judge's verdicts (p >= 0.5) against the labels of `cases` cases."""

    n: int
    cases: int
    positives: int
    accuracy: Figure
    precision: Figure
    recall: Figure
    f1: Figure
    auc: Figure
    kappa: Figure
    always_no: float  # the accuracy of answering "no" (noise, fail) to every item
    disagreements: tuple[Judged, ...]  # most confident first

    @property
    def agreed(self) -> int:
        return self.n - len(self.disagreements)

    @property
    def beats_always_no(self) -> bool | None:
        """Whether the accuracy beats answering "no" to all, even at its interval's low end."""
        if self.accuracy.low is None:
            return None
        return self.accuracy.low > self.always_no


def _figures(p: np.ndarray, y: np.ndarray, weights: np.ndarray) -> dict[str, np.ndarray]:
    """Every figure for each column of `weights` (items x resamples: how many times each
    item is counted; a column of ones is the labels as they are), all columns at once; NaN
    where a column cannot define the figure."""
    yes, truth = p >= 0.5, y == 1
    total = weights.sum(0)
    said_yes, true_yes = yes @ weights, truth @ weights
    tp = (yes & truth) @ weights
    with np.errstate(divide="ignore", invalid="ignore"):
        accuracy = ((yes == truth) @ weights) / total
        precision = np.where(said_yes > 0, tp / said_yes, np.nan)
        recall = np.where(true_yes > 0, tp / true_yes, np.nan)
        f1 = np.where(precision + recall > 0, 2 * precision * recall / (precision + recall),
                      np.where(np.isnan(precision + recall), np.nan, 0.0))
        p_yes, t_yes = said_yes / total, true_yes / total
        chance = p_yes * t_yes + (1 - p_yes) * (1 - t_yes)
        kappa = np.where(chance < 1.0, (accuracy - chance) / (1 - chance), np.nan)
    return {"accuracy": accuracy, "precision": precision, "recall": recall, "f1": f1,
            "auc": _auc(p, truth, weights), "kappa": kappa}


def _auc(p: np.ndarray, truth: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Mann-Whitney AUC per column of weights: the chance a positive outranks a negative,
    ties counted half (on a column of ones, `fitting.auc`)."""
    order = np.argsort(p, kind="stable")
    ps, pos = p[order], truth[order]
    negatives = np.cumsum(weights[order] * ~pos[:, None], 0)
    # Per positive: the negatives' weight below its p, and at its p (ties count half).
    at = np.flatnonzero(pos)
    first = np.searchsorted(ps, ps[at], side="left")
    last = np.searchsorted(ps, ps[at], side="right") - 1
    below = np.where((first > 0)[:, None], negatives[np.maximum(first - 1, 0)], 0.0)
    tied = negatives[last] - below
    pairs = (truth @ weights) * negatives[-1]
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(pairs > 0, (weights[order][at] * (below + tied / 2)).sum(0) / pairs,
                        np.nan)


NAMES = ("accuracy", "precision", "recall", "f1", "auc", "kappa")


def _value(x: float) -> float | None:
    return None if np.isnan(x) else float(x)


def agreement(items: Sequence[Judged], draws: int = DRAWS, seed: int = SEED) -> Agreement | None:
    """The verdicts' figures against the labels, each with a case-resampled 95% interval;
    None when there is nothing labelled."""
    if not items:
        return None
    p = np.array([i.p for i in items], dtype=float)
    y = np.array([i.label for i in items], dtype=int)
    point = {name: _value(v[0]) for name, v in _figures(p, y, np.ones((len(p), 1))).items()}
    cases = list(dict.fromkeys(i.case for i in items))
    index = {c: k for k, c in enumerate(cases)}
    case_of = np.array([index[i.case] for i in items])
    drawn: dict[str, list[np.ndarray]] = {name: [] for name in NAMES}
    if len(cases) > 1:
        # A resample draws len(cases) cases with replacement; an item counts as often as its
        # case was drawn: one column of weights per resample, a block of columns at a time.
        picks = np.random.default_rng(seed).integers(0, len(cases), (draws, len(cases)))
        for start in range(0, draws, BLOCK):
            block = picks[start:start + BLOCK]
            counts = np.zeros((len(cases), len(block)))
            for column, chosen in enumerate(block):
                counts[:, column] = np.bincount(chosen, minlength=len(cases))
            for name, v in _figures(p, y, counts[case_of]).items():
                drawn[name].append(v[~np.isnan(v)])

    def figure(name: str) -> Figure:
        value = point[name]
        values = np.concatenate(drawn[name]) if drawn[name] else np.array([])
        if value is None or len(values) < draws // 2:  # undefined in most resamples
            return Figure(value)
        low, high = np.percentile(values, [2.5, 97.5])
        return Figure(value, float(low), float(high))

    wrong = sorted((i for i in items if i.yes != i.label), key=lambda i: -i.confidence)
    return Agreement(
        n=len(items), cases=len(cases), positives=int(y.sum()),
        **{name: figure(name) for name in NAMES},
        always_no=float(1 - y.mean()), disagreements=tuple(wrong))


def verdict_p(result: Result) -> float | None:
    """An evaluator's verdict as a p(pass) for the figures above: 0.5 at its threshold, more
    the further the score lies on the passing side (so p >= 0.5 is exactly "passed", and
    AUC reads how far each score is from failing)."""
    if result.score is None or result.passed is None:
        return None
    margin = (result.score - result.threshold if result.higher_is_better
              else result.threshold - result.score)
    return min(1.0, max(0.0, 0.5 + margin / 2))


@dataclass(frozen=True)
class RunAgreement:
    """A run's verdicts against the labels its cases carry: chunk verdicts and, per
    evaluator, pass/fail verdicts."""

    chunks: Agreement | None
    evaluators: dict[str, Agreement]

    @property
    def any(self) -> bool:
        return self.chunks is not None or bool(self.evaluators)


def of_cases(cases: Iterable[tuple[str, Labels, Mapping[str, Result]]]) -> RunAgreement:
    """Per labelled chunk and per labelled evaluator verdict of (case id, labels, results)."""
    chunks: list[Judged] = []
    verdicts: dict[str, list[Judged]] = {}
    for case_id, labels, results in cases:
        relevance = results.get(CHUNK_RELEVANCE)
        if relevance is not None and not relevance.skipped:
            for d in relevance.details:
                i = d.address.chunk
                if i is not None and i < len(labels.chunks) and labels.chunks[i] is not None:
                    chunks.append(Judged(case_id, f"{case_id} {d.address}", d.p,
                                         bool(labels.chunks[i])))
        for name, passed in labels.evaluators:
            result = results.get(name)
            p = verdict_p(result) if result is not None else None
            if p is not None:
                verdicts.setdefault(name, []).append(Judged(case_id, f"{case_id} {name}", p,
                                                            passed))
    return RunAgreement(agreement(chunks),
                        {n: a for n, items in verdicts.items() if (a := agreement(items))})

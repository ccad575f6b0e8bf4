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

from ..calibration.fitting import auc, kappa
from ..results import Result
from .labels import CHUNK_RELEVANCE, Labels

DRAWS = 1000  # bootstrap resamples: intervals steady to about a hundredth
SEED = 20261202  # a fixed seed: the same labels always give the same interval


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


def _figures(p: np.ndarray, y: np.ndarray) -> dict[str, float | None]:
    yes, truth = p >= 0.5, y == 1
    tp = int((yes & truth).sum())
    precision = tp / yes.sum() if yes.sum() else None
    recall = tp / truth.sum() if truth.sum() else None
    f1 = (None if precision is None or recall is None
          else 0.0 if precision + recall == 0 else 2 * precision * recall / (precision + recall))
    return {"accuracy": float(np.mean(yes == truth)), "precision": precision, "recall": recall,
            "f1": f1, "auc": auc(p, y.astype(int)), "kappa": kappa(yes, truth)}


NAMES = ("accuracy", "precision", "recall", "f1", "auc", "kappa")


def agreement(items: Sequence[Judged], draws: int = DRAWS, seed: int = SEED) -> Agreement | None:
    """The verdicts' figures against the labels, each with a case-resampled 95% interval;
    None when there is nothing labelled."""
    if not items:
        return None
    p = np.array([i.p for i in items], dtype=float)
    y = np.array([i.label for i in items], dtype=int)
    point = _figures(p, y)
    cases = list(dict.fromkeys(i.case for i in items))
    rows: dict[str, list[int]] = {c: [] for c in cases}
    for k, item in enumerate(items):
        rows[item.case].append(k)
    groups = [np.array(rows[c]) for c in cases]
    rng = np.random.default_rng(seed)
    drawn: dict[str, list[float]] = {name: [] for name in NAMES}
    if len(groups) > 1:
        for _ in range(draws):
            pick = np.concatenate([groups[g] for g in rng.integers(0, len(groups), len(groups))])
            for name, value in _figures(p[pick], y[pick]).items():
                if value is not None:
                    drawn[name].append(value)

    def figure(name: str) -> Figure:
        value = point[name]
        values = drawn[name]
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

"""Result shapes (seed 000 "What to send") and the arithmetic every evaluator shares."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .address import Address

VERDICT_CUTOFF = 0.5  # a question counts as "yes" when p(true) >= 0.5
UNSURE = "unsure"  # the verdict shown where the judge's measured accuracy is poor


def is_yes(p: float) -> bool:
    return p >= VERDICT_CUTOFF


def label(score: float) -> str:
    """'nn% yes', rounded half up so 0.125 reads 13% and 0.5 reads 50%."""
    return f"{math.floor(score * 100 + 0.5)}% yes"


def confidence(p: float) -> float:
    """|p - 0.5| * 2: how far from a coin flip (TypeSafe's two-option choice confidence)."""
    return abs(p - 0.5) * 2


def passes(score: float, threshold: float, higher_is_better: bool) -> bool:
    """Good-thing metrics pass at or above the threshold; bad-thing metrics at or below it."""
    return score >= threshold if higher_is_better else score <= threshold


@dataclass(frozen=True)
class Detail:
    """One question's row: what it judged, what was asked, p(true), and the verdict."""

    id: str
    address: Address  # what the question is about: chunk 2 (`context[2]`), a sentence...
    question: str
    p: float
    yes: bool
    verdict: str  # the evaluator's word for yes or no
    # The words of the judged text that drove p, as (start, end, text); empty when the judge
    # does not say (the hosted judge) or found nothing worth showing.
    evidence: tuple[tuple[int, int, str], ...] = ()
    # p fell in the band where this judge's held-out verdicts are little better than a coin:
    # `yes` still follows p >= 0.5 (scores and pass/fail do), `verdict` then reads "unsure".
    unsure: bool = False

    @property
    def judged(self) -> str:
        """The address as the question names it (`context[2]`): for display and JSON."""
        return str(self.address)

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "judged": self.judged, "question": self.question, "p": self.p,
                "yes": self.yes, "verdict": self.verdict, "unsure": self.unsure,
                "evidence": [{"start": a, "end": b, "text": t} for a, b, t in self.evidence]}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Detail:
        """The detail `to_dict` wrote (a stored run's report)."""
        return cls(id=data["id"], address=Address.parse(data["judged"]),
                   question=data["question"], p=float(data["p"]), yes=bool(data["yes"]),
                   verdict=data["verdict"], unsure=bool(data.get("unsure")),
                   evidence=tuple((e["start"], e["end"], e["text"])
                                  for e in data.get("evidence", ())))


@dataclass(frozen=True)
class Result:
    """One evaluator's outcome on one case. `score` is None when the evaluator was skipped."""

    evaluator: str
    score: float | None
    threshold: float
    higher_is_better: bool
    reason: str
    details: tuple[Detail, ...] = field(default_factory=tuple)
    # The share of questions answered yes, when the score is something else (a binary verdict):
    # the label then says this share, so "0% yes" never sits beside "44% relevant".
    share: float | None = None
    # An offline judge answered questions it has no calibrated reading for (a custom
    # evaluator's own wording): the score is a rough guide, and the result says so.
    approximate: bool = False

    @property
    def skipped(self) -> bool:
        return self.score is None

    @property
    def label(self) -> str:
        if self.score is None:
            return "skipped"
        return label(self.share if self.share is not None else self.score)

    @property
    def undecided(self) -> bool:
        """Scored, but every one of its verdicts reads unsure: the score rests on none the
        judge can tell."""
        return self.score is not None and undecided(self.details)

    @property
    def confidence(self) -> float | None:
        """|score - 0.5| * 2; 0 when every verdict behind the score reads unsure."""
        if self.score is None:
            return None
        return 0.0 if self.undecided else confidence(self.score)

    @property
    def probabilities(self) -> dict[str, float] | None:
        return None if self.score is None else {"yes": self.score, "no": 1.0 - self.score}

    @property
    def passed(self) -> bool | None:
        if self.score is None:
            return None
        return passes(self.score, self.threshold, self.higher_is_better)

    def to_dict(self) -> dict[str, Any]:
        return {
            "score": self.score,
            "label": self.label,
            "confidence": self.confidence,
            "probabilities": self.probabilities,
            "passed": self.passed,
            "threshold": self.threshold,
            "higher_is_better": self.higher_is_better,
            "reason": self.reason,
            "skipped": self.skipped,
            "details": [d.to_dict() for d in self.details],
            **({"approximate": True} if self.approximate else {}),
        }

    @classmethod
    def from_dict(cls, evaluator: str, data: Mapping[str, Any]) -> Result:
        """The result `to_dict` wrote. The share of yes behind a binary score is not written,
        but its label is: where the label is not the score's, it was the details' share."""
        details = tuple(Detail.from_dict(d) for d in data.get("details", ()))
        score = data.get("score")
        share = None
        if details and score is not None and data.get("label") != label(score):
            share = sum(d.yes for d in details) / len(details)
        return cls(evaluator=evaluator, score=score, threshold=float(data["threshold"]),
                   higher_is_better=bool(data["higher_is_better"]),
                   reason=data.get("reason", ""), details=details, share=share,
                   approximate=bool(data.get("approximate")))


def undecided(details: Sequence[Detail]) -> bool:
    """There are verdicts, and every one reads unsure."""
    return bool(details) and all(d.unsure for d in details)


def case_undecided(results: Mapping[str, Result]) -> bool:
    """Every verdict of the case's scored evaluators reads unsure: the judge could not decide
    it, whatever its pass/fail says (`--check` does not pass it)."""
    return undecided([d for r in results.values() if r.score is not None for d in r.details])


def case_passed(results: Mapping[str, Result]) -> bool | None:
    """True only if every evaluator attached to the case passed (seed 001); False when one
    failed; None, incomplete, when none failed but one was skipped ("needs `expected`") or
    nothing was attached: a metric that could not be scored is not a pass."""
    if any(r.passed is False for r in results.values()):
        return False
    if not results or any(r.skipped for r in results.values()):
        return None
    return True

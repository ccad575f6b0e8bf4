"""The shape every evaluator has, and the counting most of them share."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from ..address import Address
from ..case import Case
from ..questions import Operand, Question
from ..results import Detail, Result, is_yes
from ..text import has_text, plural

Ask = Callable[[Case], list[Question]]
Reduce = Callable[["Evaluator", Sequence[Question], Mapping[str, float], float], Result]


class Defined(Protocol):
    """What an evaluator made from data keeps of its definition (custom.Definition): it
    travels with cases and runs as this dict."""

    @property
    def name(self) -> str: ...

    def to_dict(self) -> dict[str, Any]: ...


@dataclass(frozen=True)
class Docs:
    """What the Metrics page says about an evaluator (seed 000's style)."""

    reach_for_it_when: tuple[str, ...]
    not_the_right_tool_when: tuple[str, ...]
    watch_out_for: tuple[str, ...]


@dataclass(frozen=True)
class Evaluator:
    """One evaluator: what it asks, how it scores, when it passes, and its docs."""

    name: str
    code: str  # question id prefix: short, because ids are sent with every question
    purpose: str
    needs: tuple[str, ...]
    template: str  # the question text, verbatim, with {i} (and {j}) for the item
    score_rule: str
    verdicts: tuple[str, str]  # the words for yes and no ("relevant", "not relevant")
    higher_is_better: bool
    docs: Docs
    ask: Ask
    reducer: Reduce
    unit: tuple[str, str] = ("item", "items")  # what one question judges, for reasons
    score_name: str = ""  # what the score is called in reasons ("precision"), if anything
    threshold: float = 0.5  # the default; every run may set its own
    aliases: tuple[str, ...] = ()
    definition: Defined | None = None  # a custom evaluator's own definition

    @property
    def custom(self) -> bool:
        """A person's own evaluator (defined as data), not a built-in one."""
        return self.definition is not None

    def questions(self, case: Case) -> list[Question]:
        """The questions this evaluator asks about `case` (none for blank items)."""
        return self.ask(case)

    def reduce(
        self, questions: Sequence[Question], answers: Mapping[str, float],
        threshold: float | None = None,
    ) -> Result:
        """The result from p(true) per question id, at `threshold` (default: the evaluator's)."""
        return self.reducer(self, questions, answers,
                            self.threshold if threshold is None else threshold)

    def missing(self, case: Case) -> str | None:
        """Why this evaluator cannot judge `case` ("needs `expected`"), or None if it can."""
        absent = [name for name in self.needs if not case.has(name)]
        if not absent:
            return None
        return "needs " + " and ".join(f"`{name}`" for name in absent)

    def skip(self, reason: str, threshold: float | None = None) -> Result:
        """A defined result for nothing to judge: no score, never a fake one."""
        return Result(self.name, None, self.threshold if threshold is None else threshold,
                      self.higher_is_better, reason)

    @property
    def direction(self) -> str:
        """'>=' when higher is better (passes at or above the threshold), else '<='."""
        return ">=" if self.higher_is_better else "<="

    def details(
        self, questions: Sequence[Question], answers: Mapping[str, float]
    ) -> tuple[Detail, ...]:
        """One row per question, in question order, with the verdict as a bool and in words."""
        rows = []
        for q in questions:
            p = float(answers[q.id])
            yes = is_yes(p)
            rows.append(Detail(q.id, Address.parse(q.subject.name), q.text, p, yes,
                               self.verdicts[0] if yes else self.verdicts[1]))
        return tuple(rows)


def threshold_clause(score: float, threshold: float, higher_is_better: bool) -> str:
    """'0.50 is at or above the 0.50 threshold' style, in the metric's own direction."""
    if higher_is_better:
        where = "at or above" if score >= threshold else "below"
    else:
        where = "at or below" if score <= threshold else "above"
    return f"{score:.2f} is {where} the {threshold:.2f} threshold"


def share_of_yes(
    evaluator: Evaluator, questions: Sequence[Question], answers: Mapping[str, float],
    threshold: float,
) -> Result:
    """score = share of questions answered yes, with a one-sentence reason."""
    details = evaluator.details(questions, answers)
    yes = sum(d.yes for d in details)
    score = yes / len(details)
    called = f"{evaluator.score_name} " if evaluator.score_name else ""
    reason = (f"{yes} of {plural(len(details), *evaluator.unit)} {evaluator.verdicts[0]}: "
              f"{called}{threshold_clause(score, threshold, evaluator.higher_is_better)}.")
    return Result(evaluator.name, score, threshold, evaluator.higher_is_better, reason, details)


def per_sentence(
    code: str, template: str, relation: str, field: str, sentences: Sequence[str],
    against: tuple[Operand, ...] = (),
) -> list[Question]:
    """One question per sentence of `field` (`output[i]`), skipping none: all have text."""
    return [Question(f"{code}{i}", template.format(i=i), relation,
                     Operand(f"{field}[{i}]", (s,)), against)
            for i, s in enumerate(sentences)]


def context_operand(case: Case) -> Operand:
    """The whole retrieved context, as questions that judge against all of it name it."""
    return Operand("context", tuple(c for c in case.context if has_text(c)))

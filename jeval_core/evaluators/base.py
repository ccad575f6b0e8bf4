"""What every evaluator module provides, and the counting most of them share."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from types import ModuleType

from ..case import Case
from ..questions import Question, Ref
from ..results import Detail, Result, is_yes, skipped

Reduce = Callable[[Sequence[Question], Mapping[str, float], float], Result]


@dataclass(frozen=True)
class Evaluator:
    """An evaluator as the rest of the product sees it: built from one module's constants."""

    name: str
    purpose: str
    needs: tuple[str, ...]
    threshold: float
    higher_is_better: bool
    question_template: str
    criteria: tuple[str, str] | None
    score_rule: str
    verdicts: tuple[str, str]  # the words for yes and no ("relevant", "not relevant")
    reach_for_it_when: tuple[str, ...]
    not_the_right_tool_when: tuple[str, ...]
    watch_out_for: tuple[str, ...]
    questions: Callable[[Case], list[Question]]
    reduce: Reduce

    @classmethod
    def from_module(cls, module: ModuleType) -> Evaluator:
        return cls(
            name=module.NAME,
            purpose=module.PURPOSE,
            needs=module.NEEDS,
            threshold=module.THRESHOLD,
            higher_is_better=module.HIGHER_IS_BETTER,
            question_template=module.QUESTION,
            criteria=getattr(module, "CRITERIA", None),
            score_rule=module.SCORE_RULE,
            verdicts=module.VERDICTS,
            reach_for_it_when=module.REACH_FOR_IT_WHEN,
            not_the_right_tool_when=module.NOT_THE_RIGHT_TOOL_WHEN,
            watch_out_for=module.WATCH_OUT_FOR,
            questions=module.questions,
            reduce=module.reduce,
        )

    def missing(self, case: Case) -> str | None:
        """Why this evaluator cannot judge `case` ("needs `expected`"), or None if it can."""
        absent = [name for name in self.needs if not case.has(name)]
        if not absent:
            return None
        return "needs " + " and ".join(f"`{name}`" for name in absent)

    def skip(self, reason: str) -> Result:
        return skipped(self.name, self.threshold, self.higher_is_better, reason)

    @property
    def direction(self) -> str:
        """'>=' when higher is better (passes at or above the threshold), else '<='."""
        return ">=" if self.higher_is_better else "<="


def threshold_clause(score: float, threshold: float, higher_is_better: bool) -> str:
    """'0.50 is at or above the 0.50 threshold' style, in the metric's own direction."""
    if higher_is_better:
        where = "at or above" if score >= threshold else "below"
    else:
        where = "at or below" if score <= threshold else "above"
    return f"{score:.2f} is {where} the {threshold:.2f} threshold"


def verdict_rows(
    questions: Sequence[Question], answers: Mapping[str, float], yes: str, no: str
) -> tuple[Detail, ...]:
    """One detail row per question, in question order; a missing answer is a bug upstream."""
    return tuple(
        Detail(q.id, q.text, float(answers[q.id]), yes if is_yes(answers[q.id]) else no)
        for q in questions
    )


def share_of_yes(details: Sequence[Detail], yes: str) -> tuple[int, int]:
    """(how many rows say `yes`, how many rows)."""
    return sum(1 for d in details if d.verdict == yes), len(details)


def plural(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def one_per_item(
    name: str,
    template: str,
    relation: str,
    subject_field: str,
    count: int,
    against: tuple[Ref, ...] = (),
    criteria: tuple[str, str] | None = None,
) -> list[Question]:
    """Questions `{name}_0..{count-1}` from a template with `{i}` in its text and criteria."""
    made = []
    for i in range(count):
        crit = None if criteria is None else (criteria[0].format(i=i), criteria[1].format(i=i))
        made.append(
            Question(f"{name}_{i}", template.format(i=i), relation, Ref(subject_field, i),
                     against, crit)
        )
    return made


def share_result(
    name: str,
    questions: Sequence[Question],
    answers: Mapping[str, float],
    threshold: float,
    higher_is_better: bool,
    verdicts: tuple[str, str],
    unit: tuple[str, str],
) -> Result:
    """score = share of questions answered yes, with a one-sentence reason."""
    details = verdict_rows(questions, answers, *verdicts)
    yes, total = share_of_yes(details, verdicts[0])
    score = yes / total
    reason = (
        f"{yes} of {plural(total, *unit)} {verdicts[0]}: "
        f"{threshold_clause(score, threshold, higher_is_better)}."
    )
    return Result(name, score, threshold, higher_is_better, reason, details)

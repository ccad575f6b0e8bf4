"""Hallucination (DeepEval <= 4.1 convention): share of chunks the answer contradicts."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..case import Case
from ..questions import CONTRADICTS, Question, Ref
from ..results import Result
from .base import share_result

NAME = "hallucination"
PURPOSE = "Degree of fabricated information: how many chunks the output contradicts."
NEEDS = ("output", "context")
THRESHOLD = 0.5
HIGHER_IS_BETTER = False  # an amount of a bad thing: passes at or below the threshold
QUESTION = "`output` contradicts `context[{i}]`. Judge this chunk on its own."
CRITERIA = (
    "`output` states something that `context[{i}]` says is false",
    "`output` agrees with `context[{i}]` or says nothing about what it covers",
)
SCORE_RULE = (
    "chunks the output contradicts / all chunks; 1 = bad (DeepEval <= 4.1; 4.2+ flipped it)"
)
VERDICTS = ("contradicted", "consistent")
REACH_FOR_IT_WHEN = (
    "Spotting answers that state the opposite of what was retrieved.",
    "Gating a pipeline on 'never contradict the sources'.",
)
NOT_THE_RIGHT_TOOL_WHEN = (
    "Finding claims the context never mentions (use faithfulness: silence is not contradiction).",
)
WATCH_OUT_FOR = (
    "Lower is better: it passes at or below the threshold.",
    "DeepEval 4.2+ reports 1 = good; jeval keeps the <= 4.1 convention (1 = hallucinated).",
)


def questions(case: Case) -> list[Question]:
    made = []
    for i in range(len(case.context)):
        criteria = (CRITERIA[0].format(i=i), CRITERIA[1].format(i=i))
        made.append(Question(f"{NAME}_{i}", QUESTION.format(i=i), CONTRADICTS, Ref("output"),
                             (Ref("context", i),), criteria))
    return made


def reduce(
    questions: Sequence[Question], answers: Mapping[str, float], threshold: float = THRESHOLD
) -> Result:
    return share_result(NAME, questions, answers, threshold, HIGHER_IS_BETTER, VERDICTS,
                        ("chunk", "chunks"))

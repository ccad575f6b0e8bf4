"""Hallucination (DeepEval <= 4.1 convention): share of chunks the answer contradicts."""

from __future__ import annotations

from ..case import Case
from ..questions import CONTRADICTS, Operand, Question
from ..text import has_text
from .base import Docs, Evaluator, share_of_yes

# Contradiction, not silence: an output that says nothing about a chunk does not contradict it.
TEMPLATE = "`output` contradicts `context[{i}]`."


def questions(case: Case) -> list[Question]:
    output = Operand("output", (case.output,))
    return [Question(f"ha{i}", TEMPLATE.format(i=i), CONTRADICTS, output,
                     (Operand(f"context[{i}]", (chunk,)),))
            for i, chunk in enumerate(case.context) if has_text(chunk)]


EVALUATOR = Evaluator(
    name="hallucination",
    code="ha",
    purpose="Degree of fabricated information: how many chunks the output contradicts.",
    needs=("output", "context"),
    template=TEMPLATE,
    score_rule="chunks the output contradicts / all chunks; 1 = bad (DeepEval <= 4.1; 4.2+ "
               "flipped it)",
    verdicts=("contradicted", "consistent"),
    higher_is_better=False,  # an amount of a bad thing: passes at or below the threshold
    unit=("chunk", "chunks"),
    docs=Docs(
        reach_for_it_when=(
            "Spotting answers that state the opposite of what was retrieved.",
            "Gating a pipeline on 'never contradict the sources'.",
        ),
        not_the_right_tool_when=(
            "Finding claims the context never mentions (use faithfulness: silence is not "
            "contradiction).",
        ),
        watch_out_for=(
            "Lower is better: it passes at or below the threshold.",
            "DeepEval 4.2+ reports 1 = good; jeval keeps the <= 4.1 convention "
            "(1 = hallucinated).",
        ),
    ),
    ask=questions,
    reducer=share_of_yes,
)

"""Answer relevancy (DeepEval): does each sentence of the answer address the question?"""

from __future__ import annotations

from ..case import Case
from ..questions import RELEVANT_TO, Operand, Question
from .base import Docs, Evaluator, per_sentence, share_of_yes

TEMPLATE = "`output[{i}]` is relevant to answering `input`."


def questions(case: Case) -> list[Question]:
    return per_sentence("ar", TEMPLATE, RELEVANT_TO, "output", case.output_sentences,
                        (Operand("input", (case.input,)),))


EVALUATOR = Evaluator(
    name="answer_relevancy",
    code="ar",
    purpose="How relevant the output is to the input, sentence by sentence.",
    needs=("input", "output"),
    template=TEMPLATE,
    score_rule="output sentences relevant to the input / all output sentences",
    verdicts=("relevant", "off-topic"),
    higher_is_better=True,
    unit=("output sentence", "output sentences"),
    docs=Docs(
        reach_for_it_when=(
            "Catching answers that wander, pad, or answer a different question.",
            "No context or reference is available: it needs only `input` and `output`.",
        ),
        not_the_right_tool_when=(
            "Judging correctness: an on-topic wrong answer scores high (use faithfulness).",
        ),
        watch_out_for=(
            "Short answers are all-or-nothing: one off-topic sentence of two is a 0.5.",
        ),
    ),
    ask=questions,
    reducer=share_of_yes,
)

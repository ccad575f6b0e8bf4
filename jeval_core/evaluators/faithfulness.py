"""Faithfulness (DeepEval): is every sentence of the answer backed by the retrieved context?"""

from __future__ import annotations

from ..case import Case
from ..questions import SUPPORTED_BY, Question
from .base import Docs, Evaluator, context_operand, per_sentence, share_of_yes

# "stated or directly implied" says what counts as support in the question itself, so no
# criteria object has to travel with every sentence.
TEMPLATE = (
    "`output[{i}]` is stated or directly implied by `context`."
)


def questions(case: Case) -> list[Question]:
    return per_sentence("fa", TEMPLATE, SUPPORTED_BY, "output", case.output_sentences,
                        (context_operand(case),))


EVALUATOR = Evaluator(
    name="faithfulness",
    code="fa",
    purpose="Whether the output is factually consistent with the retrieved context.",
    needs=("output", "context"),
    template=TEMPLATE,
    score_rule="output sentences supported by the context / all output sentences",
    verdicts=("supported", "unsupported"),
    higher_is_better=True,
    unit=("output sentence", "output sentences"),
    docs=Docs(
        reach_for_it_when=(
            "Asking 'is this answer grounded?' sentence by sentence.",
            "Catching answers that add facts the retriever never returned.",
        ),
        not_the_right_tool_when=(
            "Answers are expected to use general knowledge beyond the context.",
        ),
        watch_out_for=(
            "Greetings and hedges ('Happy to help!') count as unsupported sentences.",
        ),
    ),
    ask=questions,
    reducer=share_of_yes,
)

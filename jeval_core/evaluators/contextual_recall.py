"""Contextual recall (DeepEval): how much of the expected answer the retrieved context covers."""

from __future__ import annotations

from ..case import Case
from ..questions import ATTRIBUTABLE_TO, Question
from .base import Docs, Evaluator, context_operand, per_sentence, share_of_yes

TEMPLATE = "`expected[{i}]` can be attributed to `context`."


def questions(case: Case) -> list[Question]:
    return per_sentence("rc", TEMPLATE, ATTRIBUTABLE_TO, "expected", case.expected_sentences,
                        (context_operand(case),))


EVALUATOR = Evaluator(
    name="contextual_recall",
    code="rc",
    purpose="How much of the expected answer can be attributed to the retrieved context.",
    needs=("expected", "context"),
    template=TEMPLATE,
    score_rule="sentences of `expected` attributable to the context / all its sentences",
    verdicts=("attributable", "not attributable"),
    higher_is_better=True,
    unit=("expected sentence", "expected sentences"),
    docs=Docs(
        reach_for_it_when=(
            "Checking the retriever found everything the reference answer needs.",
            "Comparing chunk sizes or top-k settings against a labelled set.",
        ),
        not_the_right_tool_when=(
            "There is no `expected` answer.",
            "You care about noise in the context (use chunk_relevance or "
            "contextual_precision).",
        ),
        watch_out_for=(
            "Long multi-fact sentences in `expected` are judged whole: one missing fact can "
            "sink one.",
        ),
    ),
    ask=questions,
    reducer=share_of_yes,
)

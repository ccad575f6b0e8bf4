"""Contextual recall (DeepEval): how much of the expected answer the retrieved context covers."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..case import Case
from ..questions import ATTRIBUTABLE_TO, Question, Ref
from ..results import Result
from .base import one_per_item, share_result

NAME = "contextual_recall"
PURPOSE = "How much of the expected answer can be attributed to the retrieved context."
NEEDS = ("expected", "context")
THRESHOLD = 0.5
HIGHER_IS_BETTER = True
QUESTION = (
    "`expected_sentences[{i}]` can be attributed to `context`. Judge this sentence on its own."
)
SCORE_RULE = "sentences of `expected` attributable to the context / all its sentences"
VERDICTS = ("attributable", "not attributable")
REACH_FOR_IT_WHEN = (
    "Checking the retriever found everything the reference answer needs.",
    "Comparing chunk sizes or top-k settings against a labelled set.",
)
NOT_THE_RIGHT_TOOL_WHEN = (
    "There is no `expected` answer.",
    "You care about noise in the context (use chunk_relevance or contextual_precision).",
)
WATCH_OUT_FOR = (
    "Long multi-fact sentences in `expected` are judged whole: one missing fact can sink one.",
)


def questions(case: Case) -> list[Question]:
    return one_per_item(NAME, QUESTION, ATTRIBUTABLE_TO, "expected_sentences",
                        len(case.expected_sentences), (Ref("context"),))


def reduce(
    questions: Sequence[Question], answers: Mapping[str, float], threshold: float = THRESHOLD
) -> Result:
    return share_result(NAME, questions, answers, threshold, HIGHER_IS_BETTER, VERDICTS,
                        ("expected sentence", "expected sentences"))

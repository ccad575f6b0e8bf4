"""Faithfulness (DeepEval): is every sentence of the answer backed by the retrieved context?"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..case import Case
from ..questions import SUPPORTED_BY, Question, Ref
from ..results import Result
from .base import one_per_item, share_result

NAME = "faithfulness"
PURPOSE = "Whether the output is factually consistent with the retrieved context."
NEEDS = ("output", "context")
THRESHOLD = 0.5
HIGHER_IS_BETTER = True
QUESTION = "`output_sentences[{i}]` is supported by `context`. Judge this sentence on its own."
CRITERIA = (
    "`context` states or directly implies what `output_sentences[{i}]` says",
    "`context` does not say it, or says something different",
)
SCORE_RULE = "output sentences supported by the context / all output sentences"
VERDICTS = ("supported", "unsupported")
REACH_FOR_IT_WHEN = (
    "Asking 'is this answer grounded?' sentence by sentence.",
    "Catching answers that add facts the retriever never returned.",
)
NOT_THE_RIGHT_TOOL_WHEN = (
    "Answers are expected to use general knowledge beyond the context.",
)
WATCH_OUT_FOR = (
    "Greetings and hedges ('Happy to help!') count as unsupported sentences.",
)


def questions(case: Case) -> list[Question]:
    return one_per_item(NAME, QUESTION, SUPPORTED_BY, "output_sentences",
                        len(case.output_sentences), (Ref("context"),), CRITERIA)


def reduce(
    questions: Sequence[Question], answers: Mapping[str, float], threshold: float = THRESHOLD
) -> Result:
    return share_result(NAME, questions, answers, threshold, HIGHER_IS_BETTER, VERDICTS,
                        ("output sentence", "output sentences"))

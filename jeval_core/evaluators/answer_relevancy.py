"""Answer relevancy (DeepEval): does each sentence of the answer address the question?"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..case import Case
from ..questions import RELEVANT_TO, Question, Ref
from ..results import Result
from .base import one_per_item, share_result

NAME = "answer_relevancy"
PURPOSE = "How relevant the output is to the input, sentence by sentence."
NEEDS = ("input", "output")
THRESHOLD = 0.5
HIGHER_IS_BETTER = True
QUESTION = (
    "`output_sentences[{i}]` is relevant to answering `input`. Judge this sentence on its own."
)
SCORE_RULE = "output sentences relevant to the input / all output sentences"
VERDICTS = ("relevant", "off-topic")
REACH_FOR_IT_WHEN = (
    "Catching answers that wander, pad, or answer a different question.",
    "No context or reference is available: it needs only `input` and `output`.",
)
NOT_THE_RIGHT_TOOL_WHEN = (
    "Judging correctness: an on-topic wrong answer scores high (use faithfulness).",
)
WATCH_OUT_FOR = (
    "Short answers are all-or-nothing: one off-topic sentence of two is a 0.5.",
)


def questions(case: Case) -> list[Question]:
    return one_per_item(NAME, QUESTION, RELEVANT_TO, "output_sentences",
                        len(case.output_sentences), (Ref("input"),))


def reduce(
    questions: Sequence[Question], answers: Mapping[str, float], threshold: float = THRESHOLD
) -> Result:
    return share_result(NAME, questions, answers, threshold, HIGHER_IS_BETTER, VERDICTS,
                        ("output sentence", "output sentences"))

"""Contextual relevancy (seed 002): is the retrieved context, as a whole, on-topic?"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..case import Case
from ..questions import RELEVANT_TO, Question, Ref
from ..results import Result
from .base import share_of_yes, threshold_clause, verdict_rows

NAME = "context_relevancy"
PURPOSE = "Whether the retrieved context as a whole is on-topic for the input (signal vs noise)."
NEEDS = ("input", "context")
THRESHOLD = 0.5
HIGHER_IS_BETTER = True
QUESTION = (
    "`context_statements[{i}]` is relevant to answering `input`. "
    "Judge this statement on its own."
)
SCORE_RULE = (
    "1.0 when at least 80% of the context's statements are relevant, else 0.0 (Galtea's binary "
    "score); the reason gives the ratio, which is DeepEval's ContextualRelevancy score"
)
MAJORITY = 0.8  # "all (or the vast majority of) statements are relevant" (seed 002)
VERDICTS = ("relevant", "noise")
REACH_FOR_IT_WHEN = (
    "The context is one unchunked document, or chunk boundaries are arbitrary.",
    "You want a single on-topic / noisy verdict for the whole retrieval.",
)
NOT_THE_RIGHT_TOOL_WHEN = (
    "You need to know which chunk was noise (use chunk_relevance).",
)
WATCH_OUT_FOR = (
    "The score is binary: 79% relevant statements scores 0.0. Read the ratio in the reason.",
    "Adds every context sentence to the state, roughly doubling the context's tokens.",
)


def questions(case: Case) -> list[Question]:
    return [
        Question(f"{NAME}_{j}", QUESTION.format(i=j), RELEVANT_TO, Ref("context_statements", j),
                 (Ref("input"),))
        for j in range(len(case.context_statements))
    ]


def reduce(
    questions: Sequence[Question], answers: Mapping[str, float], threshold: float = THRESHOLD
) -> Result:
    details = verdict_rows(questions, answers, *VERDICTS)
    relevant, total = share_of_yes(details, VERDICTS[0])
    ratio = relevant / total
    score = 1.0 if ratio >= MAJORITY else 0.0
    focus = "focused" if score == 1.0 else "noisy"
    reason = (
        f"{relevant} of {total} statements relevant ({ratio:.0%}, {focus} at the 80% bar): "
        f"{threshold_clause(score, threshold, HIGHER_IS_BETTER)}."
    )
    return Result(NAME, score, threshold, HIGHER_IS_BETTER, reason, details)

"""Chunk relevance (seed 000): one yes/no per retrieved chunk, score = precision."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..case import Case
from ..questions import HELPS_ANSWER, Question, Ref
from ..results import Result
from .base import plural, share_of_yes, threshold_clause, verdict_rows

NAME = "chunk_relevance"
PURPOSE = "Which retrieved chunks were noise: each chunk's own p(relevant); score = precision."
NEEDS = ("input", "context")
THRESHOLD = 0.5
HIGHER_IS_BETTER = True
# Fixed character for character by seed 000.
QUESTION = (
    "`context[{i}]` contains information that helps answer `input` "
    "(or supports `expected` if present). Judge this chunk on its own."
)
SCORE_RULE = "relevant chunks (p >= 0.5) / all chunks: precision"
VERDICTS = ("relevant", "not relevant")
REACH_FOR_IT_WHEN = (
    "Debugging retrieval: which chunks were noise?",
    "Reranker evaluation: precision@k per query.",
    "Any time you would loop an LLM over chunks.",
)
NOT_THE_RIGHT_TOOL_WHEN = (
    "Whole-document context with no chunk boundaries (use context_relevancy).",
)
WATCH_OUT_FOR = (
    "Chunks that are relevant only in combination are judged individually and may score low; "
    "that is usually the right signal for a reranker.",
    "Keep chunk count reasonable (dozens, not hundreds) to stay within Jev's 32k "
    "state-plus-question budget.",
)


def questions(case: Case) -> list[Question]:
    against = (Ref("input"), Ref("expected")) if case.expected is not None else (Ref("input"),)
    return [
        Question(f"{NAME}_{i}", QUESTION.format(i=i), HELPS_ANSWER, Ref("context", i), against)
        for i in range(len(case.context))
    ]


def reduce(
    questions: Sequence[Question], answers: Mapping[str, float], threshold: float = THRESHOLD
) -> Result:
    details = verdict_rows(questions, answers, *VERDICTS)
    relevant, total = share_of_yes(details, VERDICTS[0])
    score = relevant / total
    reason = (
        f"{relevant} of {plural(total, 'chunk is', 'chunks are')} relevant: precision "
        f"{threshold_clause(score, threshold, HIGHER_IS_BETTER)}."
    )
    return Result(NAME, score, threshold, HIGHER_IS_BETTER, reason, details)

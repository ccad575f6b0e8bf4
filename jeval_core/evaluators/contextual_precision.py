"""Contextual precision (DeepEval): are the relevant chunks ranked above the noise?"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..case import Case
from ..questions import Question
from ..results import Result
from . import chunk_relevance
from .base import plural, threshold_clause, verdict_rows

NAME = "contextual_precision"
PURPOSE = "Whether relevant chunks rank above irrelevant ones (weighted cumulative precision)."
NEEDS = ("input", "expected", "context")
THRESHOLD = 0.5
HIGHER_IS_BETTER = True
# The same per-chunk question as chunk_relevance, on purpose: with `expected` present it asks
# whether the chunk supports the reference answer (DeepEval's "useful in arriving at the
# expected output"), and asking it once serves both evaluators in one request.
QUESTION = chunk_relevance.QUESTION
SCORE_RULE = "(1/R) * sum over ranks k of (relevant in top k / k) * r_k; 0 when R = 0"
VERDICTS = ("relevant", "not relevant")
REACH_FOR_IT_WHEN = (
    "Tuning a reranker: the score drops when a relevant chunk sits below noise.",
    "You have a reference answer (`expected`) to judge chunks against.",
)
NOT_THE_RIGHT_TOOL_WHEN = (
    "Order does not matter to your generator (use chunk_relevance for plain precision).",
    "There is no `expected` answer.",
)
WATCH_OUT_FOR = (
    "With no relevant chunk at all the score is 0, not undefined.",
    "Shares its questions with chunk_relevance: selecting both costs no extra questions.",
)


def questions(case: Case) -> list[Question]:
    return [
        Question(f"{NAME}_{q.id.rsplit('_', 1)[1]}", q.text, q.relation, q.subject, q.against)
        for q in chunk_relevance.questions(case)
    ]


def weighted_cumulative_precision(relevant: Sequence[bool]) -> float:
    """(1/R) * sum_k (relevant in top k / k) * r_k over the ranking; 0 when nothing is relevant."""
    hits = 0
    total = 0.0
    for k, r in enumerate(relevant, start=1):
        if r:
            hits += 1
            total += hits / k
    return total / hits if hits else 0.0


def reduce(
    questions: Sequence[Question], answers: Mapping[str, float], threshold: float = THRESHOLD
) -> Result:
    details = verdict_rows(questions, answers, *VERDICTS)
    ranking = [d.verdict == VERDICTS[0] for d in details]
    score = weighted_cumulative_precision(ranking)
    ranks = [str(k) for k, r in enumerate(ranking, start=1) if r]
    where = f"at rank {', '.join(ranks)}" if ranks else "anywhere"
    reason = (
        f"{plural(len(ranks), 'relevant chunk', 'relevant chunks')} {where} of {len(ranking)}: "
        f"{threshold_clause(score, threshold, HIGHER_IS_BETTER)}."
    )
    return Result(NAME, score, threshold, HIGHER_IS_BETTER, reason, details)

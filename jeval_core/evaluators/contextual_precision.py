"""Contextual precision (DeepEval): are the relevant chunks ranked above the noise?"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from ..case import Case
from ..questions import Question
from ..results import Result
from ..text import plural
from . import chunk_relevance
from .base import Docs, Evaluator, threshold_clause


def questions(case: Case) -> list[Question]:
    """chunk_relevance's own per-chunk questions, on purpose: with `expected` present the text
    asks whether the chunk supports the reference answer (DeepEval's "useful in arriving at
    the expected output"), and asking it once serves both evaluators in one request."""
    return [replace(q, id="cp" + q.id[2:]) for q in chunk_relevance.questions(case)]


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
    evaluator: Evaluator, questions: Sequence[Question], answers: Mapping[str, float],
    threshold: float,
) -> Result:
    details = evaluator.details(questions, answers)
    ranking = [d.yes for d in details]
    score = weighted_cumulative_precision(ranking)
    relevant = [d.judged for d in details if d.yes]  # named as everywhere else: context[i]
    where = f"({', '.join(relevant)})" if relevant else "anywhere"
    reason = (f"{plural(len(relevant), 'relevant chunk', 'relevant chunks')} {where} among "
              f"{len(ranking)}, ranked in that order: "
              f"{threshold_clause(score, threshold, evaluator.higher_is_better)}.")
    return Result(evaluator.name, score, threshold, evaluator.higher_is_better, reason, details)


EVALUATOR = Evaluator(
    name="contextual_precision",
    code="cp",
    purpose="Whether relevant chunks rank above irrelevant ones (weighted cumulative "
            "precision).",
    needs=("input", "expected", "context"),
    template=chunk_relevance.TEMPLATE,
    score_rule="(1/R) * sum over ranks k of (relevant in top k / k) * r_k; 0 when R = 0",
    verdicts=("relevant", "not relevant"),
    higher_is_better=True,
    unit=("chunk", "chunks"),
    docs=Docs(
        reach_for_it_when=(
            "Tuning a reranker: the score drops when a relevant chunk sits below noise.",
            "You have a reference answer (`expected`) to judge chunks against.",
        ),
        not_the_right_tool_when=(
            "Order does not matter to your generator (use chunk_relevance for plain "
            "precision).",
            "There is no `expected` answer.",
        ),
        watch_out_for=(
            "With no relevant chunk at all the score is 0, not undefined.",
            "Shares its questions with chunk_relevance: selecting both costs no extra "
            "questions.",
        ),
    ),
    ask=questions,
    reducer=reduce,
)

"""The eight evaluators (DESIGN §4), one module each, in the order the product shows them."""

from __future__ import annotations

from ..errors import CaseError
from . import (
    answer_relevancy,
    chunk_relevance,
    context_relevancy,
    contextual_precision,
    contextual_recall,
    faithfulness,
    hallucination,
    toxicity,
)
from .base import Evaluator

EVALUATORS: dict[str, Evaluator] = {
    m.NAME: Evaluator.from_module(m)
    for m in (
        chunk_relevance,
        context_relevancy,
        contextual_precision,
        contextual_recall,
        faithfulness,
        answer_relevancy,
        hallucination,
        toxicity,
    )
}
NAMES = tuple(EVALUATORS)


def get(name: str) -> Evaluator:
    """The evaluator called `name`, or a CaseError listing the valid names."""
    try:
        return EVALUATORS[name]
    except KeyError:
        raise CaseError(
            f"unknown evaluator {name!r}: choose from {', '.join(NAMES)}"
        ) from None


__all__ = ["EVALUATORS", "NAMES", "Evaluator", "get"]

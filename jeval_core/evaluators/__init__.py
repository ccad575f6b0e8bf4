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


def names_in(value: object) -> list[str]:
    """A case file's "evaluators" value as known names, or a CaseError saying what to fix."""
    if not isinstance(value, list) or not all(isinstance(n, str) for n in value):
        raise CaseError('"evaluators" must be a list of names, e.g. ["chunk_relevance"]')
    if not value:
        raise CaseError('"evaluators" is empty: name at least one, or remove the key')
    for name in value:
        get(name)
    return list(value)


__all__ = ["EVALUATORS", "NAMES", "Evaluator", "get", "names_in"]

"""Chunk relevance (seed 000): one yes/no per retrieved chunk, score = precision."""

from __future__ import annotations

from ..case import Case
from ..questions import HELPS_ANSWER, Operand, Question
from ..text import has_text
from .base import Docs, Evaluator, share_of_yes

# Fixed character for character by seed 000.
TEMPLATE = (
    "`context[{i}]` contains information that helps answer `input` "
    "(or supports `expected` if present). Judge this chunk on its own."
)


def questions(case: Case) -> list[Question]:
    """One question per chunk that has text; blank chunks keep their place but are not asked."""
    against = [Operand("input", (case.input,))]
    if case.expected is not None:
        against.append(Operand("expected", (case.expected,)))
    return [Question(f"cr{i}", TEMPLATE.format(i=i), HELPS_ANSWER,
                     Operand(f"context[{i}]", (chunk,)), tuple(against))
            for i, chunk in enumerate(case.context) if has_text(chunk)]


EVALUATOR = Evaluator(
    name="chunk_relevance",
    code="cr",
    purpose="Which retrieved chunks were noise: each chunk's own p(relevant); "
            "score = precision.",
    needs=("input", "context"),
    template=TEMPLATE,
    score_rule="relevant chunks (p >= 0.5) / all chunks: precision",
    verdicts=("relevant", "not relevant"),
    higher_is_better=True,
    unit=("chunk", "chunks"),
    score_name="precision",
    docs=Docs(
        reach_for_it_when=(
            "Debugging retrieval: which chunks were noise?",
            "Reranker evaluation: precision@k per query.",
            "Any time you would loop an LLM over chunks.",
        ),
        not_the_right_tool_when=(
            "Whole-document context with no chunk boundaries (use context_relevancy).",
        ),
        watch_out_for=(
            "Chunks that are relevant only in combination are judged individually and may "
            "score low; that is usually the right signal for a reranker.",
            "Keep chunk count reasonable (dozens, not hundreds) to stay within Jev's 32k "
            "state-plus-question budget.",
        ),
    ),
    ask=questions,
    reducer=share_of_yes,
)

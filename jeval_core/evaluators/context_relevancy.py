"""Contextual relevancy (seed 002): is the retrieved context, as a whole, on-topic?

Statements are the chunks' own sentences, addressed inside the chunk they come from
(`context[2][1]` is the second sentence of the third chunk), so no text is sent twice.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..case import Case
from ..questions import RELEVANT_TO, Operand, Question
from ..results import Result
from .base import Docs, Evaluator, threshold_clause

TEMPLATE = "`context[{i}][{j}]` is relevant to `input`."
MAJORITY = 0.8  # "all (or the vast majority of) statements are relevant" (seed 002)


def questions(case: Case) -> list[Question]:
    """One question per sentence of every chunk; ids count statements (cs0, cs1, ...) because
    ids travel with every question and `context[i][j]` already says where each one is."""
    against = (Operand("input", (case.input,)),)
    where = [(i, j, s) for i, statements in enumerate(case.chunk_sentences)
             for j, s in enumerate(statements)]
    return [Question(f"cs{k}", TEMPLATE.format(i=i, j=j), RELEVANT_TO,
                     Operand(f"context[{i}][{j}]", (statement,)), against)
            for k, (i, j, statement) in enumerate(where)]


def reduce(
    evaluator: Evaluator, questions: Sequence[Question], answers: Mapping[str, float],
    threshold: float,
) -> Result:
    details = evaluator.details(questions, answers)
    relevant = sum(d.yes for d in details)
    ratio = relevant / len(details)
    score = 1.0 if ratio >= MAJORITY else 0.0
    focus = "focused" if score == 1.0 else "noisy"
    reason = (f"{relevant} of {len(details)} statements relevant ({ratio:.0%}, {focus} at the "
              f"80% bar): {threshold_clause(score, threshold, evaluator.higher_is_better)}.")
    return Result(evaluator.name, score, threshold, evaluator.higher_is_better, reason, details)


EVALUATOR = Evaluator(
    name="context_relevancy",
    code="cs",
    aliases=("contextual_relevancy",),
    purpose="Whether the retrieved context as a whole is on-topic for the input "
            "(signal vs noise).",
    needs=("input", "context"),
    template=TEMPLATE,
    score_rule="1.0 when at least 80% of the context's statements are relevant, else 0.0 "
               "(Galtea's binary score); the reason gives the ratio, which is DeepEval's "
               "ContextualRelevancy score",
    verdicts=("relevant", "noise"),
    higher_is_better=True,
    unit=("statement", "statements"),
    docs=Docs(
        reach_for_it_when=(
            "The context is one unchunked document, or chunk boundaries are arbitrary.",
            "You want a single on-topic / noisy verdict for the whole retrieval.",
        ),
        not_the_right_tool_when=(
            "You need to know which chunk was noise (use chunk_relevance).",
        ),
        watch_out_for=(
            "The score is binary: 79% relevant statements scores 0.0. Read the ratio in the "
            "reason.",
            "One question per sentence: long documents mean many questions (the chunks' text "
            "is sent once, split into sentences).",
        ),
    ),
    ask=questions,
    reducer=reduce,
)

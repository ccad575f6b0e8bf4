"""Contextual relevancy (seed 002): is the retrieved context, as a whole, on-topic?

Statements are the chunks' own sentences, addressed inside the chunk they come from
(`context[2][1]` is the second sentence of the third chunk), so no text is sent twice.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from ..case import Case
from ..questions import RELEVANT_TO, Operand, Question
from ..results import Result
from .base import Docs, Evaluator, threshold_clause

TEMPLATE = "`context[{i}][{j}]` is relevant to `input`."
MAJORITY = 0.8  # "all (or the vast majority of) statements are relevant" (seed 002)
# Structure, not statements: page furniture that says nothing about any topic. Such sentences
# keep their place in the state but are not asked about, so they cannot sink a focused text.
_BOILERPLATE = re.compile(
    r"^(last (updated|modified|reviewed)|updated on|published|posted|was this (page|article|"
    r"answer) helpful|did this (page|article) help|(skip|jump) to|table of contents|on this "
    r"page|related (articles|topics|pages)|see also|share this|print this|cookie|we use "
    r"cookies|accept (all )?cookies|all rights reserved|copyright|©|back to top|sign in|log "
    r"in|subscribe)", re.IGNORECASE)
_WORD = re.compile(r"[^\W\d_]+")
_LIST_MARKER = re.compile(r"^(\(?\d{1,3}[.)]|[-*\u2022#]+)\s*")


def is_structure(sentence: str) -> bool:
    """A heading, a date line, navigation or a footer: not a statement of fact.

    Headings are short, state no number and end without sentence punctuation ("Charging
    problems", "3. Troubleshooting"); boilerplate starts like page furniture ("Last updated
    2 May"). A short line with a number ("Max 5 users") is a fact and stays.
    """
    text = sentence.strip()
    if _BOILERPLATE.match(text):
        return True
    body = _LIST_MARKER.sub("", text)
    return (len(_WORD.findall(body)) <= 5 and not any(ch.isdigit() for ch in body)
            and not body.endswith((".", "!", "?", ";", ":")))


def questions(case: Case) -> list[Question]:
    """One question per sentence of every chunk; ids count statements (cs0, cs1, ...) because
    ids travel with every question and `context[i][j]` already says where each one is."""
    against = (Operand("input", (case.input,)),)
    where = [(i, j, s) for i, statements in enumerate(case.chunk_sentences)
             for j, s in enumerate(statements) if not is_structure(s)]
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
    return Result(evaluator.name, score, threshold, evaluator.higher_is_better, reason, details,
                  share=ratio)


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
            "The score is binary: 79% relevant statements scores 0.0. The label and the reason "
            "give the ratio.",
            "Headings, date lines and page furniture are structure, not statements: they are "
            "not asked about.",
            "One question per sentence: long documents mean many questions (the chunks' text "
            "is sent once, split into sentences).",
        ),
    ),
    ask=questions,
    reducer=reduce,
)

"""Chunk support: which chunk, judged on its own, states each sentence of the answer.

Not one of the eight metrics and never run by default (asked by name; the pickers offer it
after the eight): `jeval sweep` asks it of a server judge in the same request as chunk
relevance, so that "does the answer stay supported with only the first k chunks?" is read
from that one request at every k, and a run or a Playground case that asked it reads
supported@k from its answers (an offline judge can instead read faithfulness again against
the first k chunks, at no cost). A sentence is supported at k when
one of the first k chunks states it: a sentence that needs two chunks together reads as
unsupported, where faithfulness (the whole context at once) may read it as supported.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from ..case import Case
from ..questions import SUPPORTED_BY, Operand, Question
from ..results import Result
from ..text import has_text, plural
from .base import Docs, Evaluator, threshold_clause

TEMPLATE = ("`output[{i}]` is stated or directly implied by `context[{j}]`. Judge this chunk "
            "on its own.")
_ID = re.compile(r"sk(\d+)c(\d+)")


def questions(case: Case) -> list[Question]:
    return [Question(f"sk{i}c{j}", TEMPLATE.format(i=i, j=j), SUPPORTED_BY,
                     Operand(f"output[{i}]", (sentence,)), (Operand(f"context[{j}]", (chunk,)),))
            for i, sentence in enumerate(case.output_sentences)
            for j, chunk in enumerate(case.context) if has_text(chunk)]


def pair(question_id: str) -> tuple[int, int]:
    """(answer sentence, chunk) a question of this evaluator asks about."""
    found = _ID.fullmatch(question_id)
    if found is None:
        raise ValueError(f"{question_id!r} is not a chunk-support question id")
    return int(found[1]), int(found[2])


def supported_at(result: Result, sentences: int, k: int) -> float | None:
    """Share of the answer's `sentences` that one of the first k chunks supports, from this
    evaluator's result; None when it judged nothing."""
    if result.skipped or not result.details or sentences == 0:
        return None
    held = {pair(d.id)[0] for d in result.details if d.yes and pair(d.id)[1] < k}
    return len(held) / sentences


def _reduce(evaluator: Evaluator, asked: Sequence[Question], answers: Mapping[str, float],
            threshold: float) -> Result:
    details = evaluator.details(asked, answers)
    sentences = len({pair(d.id)[0] for d in details})
    held = len({pair(d.id)[0] for d in details if d.yes})
    score = held / sentences
    reason = (f"{held} of {plural(sentences, 'output sentence', 'output sentences')} stated by "
              f"one chunk on its own: {threshold_clause(score, threshold, True)}.")
    return Result(evaluator.name, score, threshold, True, reason, details)


EVALUATOR = Evaluator(
    name="chunk_support",
    code="sk",
    purpose="Which chunk, on its own, states each sentence of the output (supported@k).",
    needs=("output", "context"),
    template=TEMPLATE,
    score_rule="output sentences one chunk states / all output sentences",
    verdicts=("stated", "not stated"),
    higher_is_better=True,
    unit=("sentence-chunk pair", "sentence-chunk pairs"),
    docs=Docs(
        reach_for_it_when=("Reading supported@k from the request that scored the chunks.",),
        not_the_right_tool_when=("Asking whether the answer is grounded (use faithfulness).",),
        watch_out_for=("A sentence that needs two chunks together reads as not stated.",),
    ),
    ask=questions,
    reducer=_reduce,
)

"""Seed 000's documentation of an evaluator beyond its module's own docs: what to send (the
result shape and an example request), which dataset aggregations fit its output, and its FAQ.

Generated from the evaluator and the example cases in assets/examples, never written by hand,
so the Metrics page cannot drift from what jeval sends and returns.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from typing import Any

from . import results, wire
from .case import Case
from .evaluators import Evaluator
from .inputs import bundled
from .judges import devx
from .questions import HELPS_ANSWER
from .text import plural

EXAMPLES = bundled.path("examples")
SEED = "jev_pricing.json"  # seed 000's own example
SEED_OUTPUT = "…"  # what seed 000's request sends as `output`: chunk relevance does not read it
WITH_EXPECTED = "with_expected.json"  # for evaluators that need a reference answer


@dataclass(frozen=True)
class Aggregation:
    """One dataset aggregation that fits an evaluator's output: its name and what it says."""

    name: str
    says: str


@dataclass(frozen=True)
class PageDocs:
    """What the Metrics page adds to an evaluator's own docs (seed 000's sections)."""

    result_shape: str
    example_request: dict[str, Any]
    example_questions: int
    aggregate_with: tuple[Aggregation, ...]
    faq: tuple[tuple[str, str], ...]


@cache
def _example(file: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((EXAMPLES / file).read_text("utf-8"))
    return data


def example_request(evaluator: Evaluator) -> dict[str, Any]:
    """The request a user sends for `evaluator` on the seed example (or, when it needs
    `expected`, on the example that has one): the case file's fields, this evaluator named.
    An evaluator that reads no answer is shown seed 000's request exactly, whose `output` is
    "…"; one that reads the answer is shown the seed case's written answer."""
    data = _example(WITH_EXPECTED if "expected" in evaluator.needs else SEED)
    fields: dict[str, Any] = {k: data[k] for k in ("input", "output", "expected", "context")
                              if k in data}
    if data is _example(SEED) and "output" not in evaluator.needs:
        fields["output"] = SEED_OUTPUT
    return {"evaluators": [evaluator.name], **fields}


def asks(questions: int) -> str:
    """The caption under an example request."""
    return f"That request asks the judge {plural(questions, 'question', 'questions')}, all in " \
        "one call."


def _case(request: dict[str, Any]) -> Case:
    return Case(request["input"], request["output"], request.get("expected"),
                tuple(request["context"]))


def result_shape(evaluator: Evaluator) -> str:
    """Seed 000's one-paragraph result shape, in this evaluator's words."""
    direction = "at or above" if evaluator.higher_is_better else "at or below"
    return (f"score 0–1 ({evaluator.score_rule}), label “nn% yes” (the share of questions "
            f"answered yes, p ≥ {results.VERDICT_CUTOFF:g}), confidence |score − 0.5| × 2 "
            f"(0 when every verdict reads unsure), "
            f"probabilities yes/no, passed {direction} {evaluator.threshold:g} by default, the "
            f"threshold, higher_is_better {str(evaluator.higher_is_better).lower()}, a "
            f"one-sentence reason, and a details array with one row per "
            f"{evaluator.unit[0]} (id, what it judged, the question verbatim, p, verdict "
            f"“{evaluator.verdicts[0]}” / “{evaluator.verdicts[1]}”).")


def aggregate_with(evaluator: Evaluator, per_chunk: bool) -> tuple[Aggregation, ...]:
    """The dataset aggregations that fit this evaluator's output (seed 000 "Aggregate with")."""
    found = [
        Aggregation("mean score", "averages the normalised 0–1 score across items."),
        Aggregation("pass rate", f"the share of items whose score passes its threshold "
                                 f"({evaluator.direction} {evaluator.threshold:g} by default)."),
    ]
    if per_chunk:
        found.append(Aggregation(
            "precision, recall and F1 (with labels)",
            "precision is the share of predicted positives that were really positive; recall "
            "is the share of real positives the evaluator caught; F1 is their harmonic mean, "
            "which is only high when both are. Computed per chunk against `context_labels`, "
            "with accuracy and AUC of p."))
        found.append(Aggregation(
            "precision@k (rankings)", "per query, the share of relevant chunks among the top "
            "k, for the retriever's order and a `reranked` one: reranker evaluation."))
    return tuple(found)


def title(evaluator: Evaluator) -> str:
    """How sentences name an evaluator: seed 000's words ("chunk relevance") for a built-in
    one, the name itself as code for a person's own (`states_a_limit` is no noun phrase)."""
    return f"`{evaluator.name}`" if evaluator.custom else evaluator.name.replace("_", " ")


def faq(evaluator: Evaluator, questions: int) -> tuple[tuple[str, str], ...]:
    """Questions people ask about this evaluator, answered from what it does, in sentences
    that read as written English whatever the evaluator's unit (tests/test_app_metrics.py)."""
    unit, units = evaluator.unit
    asked = plural(questions, unit, units)
    out = [(f"How many Jev calls does {title(evaluator)} make?",
            f"One. Every {unit}'s question is packed into the same request, together with "
            f"every other evaluator's: the example below asks about {asked} in one call, which "
            f"costs roughly the tokens of the state plus "
            f"{plural(questions, 'short question', 'short questions')}. Identical questions "
            "are asked once.")]
    if "expected" in evaluator.needs:
        devx_rule = devx.WITHOUT_EXPECTED.get(evaluator.name)
        out.append(("What if a case has no `expected`?",
                    "It is skipped (“needs `expected`”), never faked; the case is then "
                    "incomplete, not a pass." + (
                        f" The devx-ai scorer scores it all the same, as devx-ai does: "
                        f"{devx_rule}." if devx_rule else "")))
    if not evaluator.higher_is_better:
        out.append(("Is a high score good?",
                    "No: it is an amount of a bad thing, so it passes at or below the "
                    "threshold" + ("." if evaluator.custom else " (the DeepEval ≤ 4.1 "
                                   "convention; 4.2+ flipped it to 1 = good).")))
    out.append(("What does it cost?",
                f"${wire.PRICE_PER_BILLION_INPUT_TOKENS_USD:g} per billion input tokens on Jev "
                "(output tokens are free); the offline judges cost nothing."))
    return tuple(out)


def docs(evaluator: Evaluator) -> PageDocs:
    """Seed 000's sections for `evaluator`, generated."""
    request = example_request(evaluator)
    case = _case(request)
    asked = evaluator.questions(case)
    per_chunk = any(q.relation == HELPS_ANSWER for q in asked)
    return PageDocs(result_shape(evaluator), request, len(asked),
                aggregate_with(evaluator, per_chunk), faq(evaluator, len(asked)))

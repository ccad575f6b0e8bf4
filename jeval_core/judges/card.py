"""The judge card: how far an offline judge agrees with human labels it was not fitted on.

Every figure comes from `curves.held_out()`, which `bench/calibrate.py --write`
measured on the held-out part of each labelled source; the card says which command
reproduces it, and puts each accuracy next to answering "no" to every question.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..calibration import curves
from ..questions import CUSTOM, RELATIONS

# What each relation is, in the words of the evaluators that ask it.
ASKED_BY = {
    "helps_answer": "chunk helps answer (chunk_relevance, contextual_precision)",
    "relevant_to": "sentence is relevant (answer_relevancy, context_relevancy)",
    "supported_by": "sentence is supported (faithfulness)",
    "attributable_to": "expected sentence is attributable (contextual_recall)",
    "contradicts": "output contradicts a chunk (hallucination)",
    "toxic": "sentence is toxic (toxicity)",
    "custom": "your own question (custom evaluators)",
}
# Where each source's labels come from, in one line.
SOURCES = {
    "adversarial": "hard hand-written pairs (same entity other aspect, near numbers...)",
    "ordinary": "ordinary retrievals: every chunk on topic, a few that answer",
    "ordinary:retrievals": "team-written retrievals of product docs, policies and how-tos",
    "ordinary:steps": "team-written retrievals where most chunks answer (steps, lists)",
    "custom": "custom questions on whole cases, measured with the other domains' fit",
}


def source_note(source: str) -> str:
    """Where a held-out source's labels come from, in one line (the card's legend)."""
    if source in SOURCES:
        return SOURCES[source]
    if source.startswith("custom:"):
        return SOURCES["custom"]
    if source.startswith("real:"):
        return f"human-labelled public data ({source.split(':', 1)[1]})"
    return source


@dataclass(frozen=True)
class Row:
    """One relation on one source's held-out part."""

    question: str
    source: str
    answers: int
    positives: int
    accuracy: float
    always_no: float
    f1: float
    auc: float | None
    unsure: tuple[float, float]


@dataclass(frozen=True)
class Card:
    judge: str
    command: str
    rows: tuple[Row, ...]
    examples_met: tuple[int, int] | None
    model: str | None = None  # the model measured, for a judge that asks the user's own

    @property
    def measured(self) -> bool:
        return bool(self.rows)


def card(judge: str, model: str | None = None) -> Card:
    """The card of an offline judge (no rows for a judge nobody measured here). A judge that
    asks the user's own model (openai) is measured per model: its card is that model's, and
    a model nobody measured has none."""
    data = curves.held_out().get(judge, {})
    if "models" in data:
        data = data["models"].get(model or "", {})
    rows = []
    relations = data.get("relations", {})
    order = (*RELATIONS, CUSTOM)
    for relation in sorted(relations, key=lambda r: order.index(r) if r in order else 99):
        found = relations[relation]
        for source, v in found["sources"].items():
            rows.append(Row(ASKED_BY.get(relation, relation), source, v["n"], v["positives"],
                            v["accuracy"], v["always_no"], v["f1"], v["auc"],
                            (found["unsure"][0], found["unsure"][1])))
    met = data.get("examples_met")
    return Card(judge, data.get("command", "python bench/calibrate.py"), tuple(rows),
                (met[0], met[1]) if met else None, data.get("model"))

"""Noul (yes/no) questions: the verbatim text Jev receives plus the operands local judges use.

A question is a statement about named parts of the request state (`context[2]`, `input`...).
The hosted judge reads `text`; the offline judges read `relation`, `subject` and `against`,
whose texts travel with the question, so both answer the very same object and the UI can
show exactly what was asked.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from . import wire

# What a question asserts about its subject. Local judges pick their signal by relation.
HELPS_ANSWER = "helps_answer"  # a chunk helps answer the input (or supports expected)
RELEVANT_TO = "relevant_to"  # a sentence is relevant to answering the input
SUPPORTED_BY = "supported_by"  # an output sentence is supported by the context
ATTRIBUTABLE_TO = "attributable_to"  # an expected sentence can be attributed to the context
CONTRADICTS = "contradicts"  # the output contradicts one chunk
TOXIC = "toxic"  # a sentence contains toxic or harmful language

RELATIONS = (HELPS_ANSWER, RELEVANT_TO, SUPPORTED_BY, ATTRIBUTABLE_TO, CONTRADICTS, TOXIC)
# A person's own question (a custom evaluator): what it asserts is in its wording, so offline
# judges answer it from that wording and its operands, approximately.
CUSTOM = "custom"

# `context`, `output[2]`, `context[3][1]`: a state name and up to two indices.
NAMED = re.compile(r"`([A-Za-z_]+)((?:\[\d+\]){0,2})`")


@dataclass(frozen=True)
class Operand:
    """A named part of the case as a question names it (`context[2]`), with its text(s)."""

    name: str
    texts: tuple[str, ...]

    @property
    def text(self) -> str:
        """All of it as one text (chunks joined by blank lines)."""
        return "\n\n".join(self.texts)


@dataclass(frozen=True)
class Question:
    """One noul question: its id, its verbatim text, and what it relates."""

    id: str
    text: str
    relation: str
    subject: Operand
    against: tuple[Operand, ...] = ()
    # What counts as true and as false, when the question's author said (custom evaluators):
    # sent as the noul question's criteria.
    criteria: tuple[str, str] | None = None

    @property
    def key(self) -> tuple[str, tuple[str, str] | None]:
        """Two questions with the same key are the same question to the judge: ask it once."""
        return self.text, self.criteria

    def wire(self) -> dict[str, Any]:
        """The System One noul question object, exactly as sent."""
        return wire.noul(self.text, self.criteria)

    def names(self) -> dict[str, int]:
        """State names the text mentions, each with how many indices deep it is named.

        `output` is 0, `output[1]` is 1, `context[2][0]` is 2: the state is shaped so every
        name resolves (a field named with an index is sent as a list of its sentences).
        """
        found: dict[str, int] = {}
        for m in NAMED.finditer(self.text):
            depth = m.group(2).count("[")
            found[m.group(1)] = max(found.get(m.group(1), 0), depth)
        return found

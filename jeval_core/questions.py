"""Noul (yes/no) questions: the verbatim text Jev receives plus the operands local judges use.

A question is a statement about named parts of the request state (`context[2]`, `input`...).
The hosted judge reads `text`; the offline judges read `relation`, `subject` and `against`,
so both answer the very same object and the UI can show exactly what was asked.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

# What a question asserts about its subject. Local judges pick their signal by relation.
HELPS_ANSWER = "helps_answer"  # a chunk helps answer the input (or supports expected)
RELEVANT_TO = "relevant_to"  # a sentence is relevant to answering the input
SUPPORTED_BY = "supported_by"  # an output sentence is supported by the context
ATTRIBUTABLE_TO = "attributable_to"  # an expected sentence can be attributed to the context
CONTRADICTS = "contradicts"  # the output contradicts one chunk
TOXIC = "toxic"  # a sentence contains toxic or harmful language

RELATIONS = (HELPS_ANSWER, RELEVANT_TO, SUPPORTED_BY, ATTRIBUTABLE_TO, CONTRADICTS, TOXIC)

_BACKTICKED = re.compile(r"`([A-Za-z_]+)(?:\[\d+\])?`")


@dataclass(frozen=True)
class Ref:
    """A name in the request state, optionally one item of a list: `context[2]`, `input`."""

    field: str
    index: int | None = None

    def __str__(self) -> str:
        return self.field if self.index is None else f"{self.field}[{self.index}]"

    def resolve(self, state: Mapping[str, Any]) -> Any:
        """The text (or list of texts) this name stands for in `state`; None when absent."""
        value = state.get(self.field)
        if self.index is None or value is None:
            return value
        return value[self.index] if 0 <= self.index < len(value) else None

    def texts(self, state: Mapping[str, Any]) -> list[str]:
        """What this name stands for as a list of texts (one for `input`, all for `context`)."""
        return texts_of(self.resolve(state))


def texts_of(value: Any) -> list[str]:
    """A state value as texts: a string alone, the strings of a list, nothing otherwise."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [v for v in value if isinstance(v, str)]
    return []


@dataclass(frozen=True)
class Question:
    """One noul question: its id, its verbatim text, and what it relates."""

    id: str
    text: str
    relation: str
    subject: Ref
    against: tuple[Ref, ...] = ()
    criteria: tuple[str, str] | None = None  # (what counts as true, what counts as false)

    @property
    def key(self) -> tuple[str, tuple[str, str] | None]:
        """Two questions with the same key are the same question to the judge: ask it once."""
        return (self.text, self.criteria)

    def wire(self) -> dict[str, Any]:
        """The System One noul question object, exactly as sent."""
        body: dict[str, Any] = {"type": "noul", "instructions": self.text}
        if self.criteria is not None:
            body["criteria"] = {"true": self.criteria[0], "false": self.criteria[1]}
        return body

    def names(self) -> set[str]:
        """State names the text mentions in backticks: each must exist in the state sent."""
        texts = [self.text, *(self.criteria or ())]
        return {m.group(1) for t in texts for m in _BACKTICKED.finditer(t)}

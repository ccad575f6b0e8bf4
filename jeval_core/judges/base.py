"""The judge protocol: answer(state, questions) -> p(true) per question id, plus usage."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..questions import Question


@dataclass(frozen=True)
class Usage:
    """What answering cost: input tokens billed and HTTP requests made (0 for local judges)."""

    input_tokens: int = 0
    requests: int = 0

    def to_dict(self) -> dict[str, int]:
        return {"input_tokens": self.input_tokens, "requests": self.requests}


@dataclass(frozen=True)
class Answers:
    """A judge's answers: p(true) for every question id it was asked."""

    p: dict[str, float]
    usage: Usage = field(default_factory=Usage)
    model: str | None = None
    request_id: str | None = None


class Judge(Protocol):
    """Anything that answers noul questions about a state."""

    name: str
    approximates: bool  # True for offline stand-ins for the hosted judge

    def answer(self, state: Mapping[str, Any], questions: Mapping[str, Question]) -> Answers: ...

"""The case under evaluation: what the user asked, what the RAG answered, what it retrieved."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from . import sentences
from .errors import CaseError

FIELDS = ("input", "output", "expected", "context")


@dataclass(frozen=True)
class Case:
    """One RAG interaction. `context` holds the retrieved chunks in rank order."""

    input: str
    output: str = ""
    expected: str | None = None
    context: tuple[str, ...] = field(default_factory=tuple)

    def __post_init__(self) -> None:
        # Accept any sequence of chunks but keep the case hashable (it is a cache key).
        object.__setattr__(self, "context", tuple(self.context))
        if self.expected is not None and not self.expected.strip():
            object.__setattr__(self, "expected", None)

    @classmethod
    def from_dict(cls, data: Any) -> Case:
        """Build a case from the seed's JSON shape, or raise CaseError saying what to fix."""
        if not isinstance(data, Mapping):
            raise CaseError(
                f"a case must be a JSON object with \"input\" and \"context\", not {_kind(data)}"
            )
        if "input" not in data:
            raise CaseError('the case has no "input": add the user\'s question as "input"')
        for name in ("input", "output"):
            if name in data and not isinstance(data[name], str):
                raise CaseError(
                    f'"{name}" must be a string, not {_kind(data[name])}: put the text in quotes'
                )
        expected = data.get("expected")
        if expected is not None and not isinstance(expected, str):
            raise CaseError(f'"expected" must be a string or null, not {_kind(expected)}')
        context = data.get("context", [])
        if context is None:
            context = []
        if isinstance(context, str):
            raise CaseError(
                '"context" must be a list of chunks, not a string: wrap it as ["..."]'
            )
        if not isinstance(context, list):
            raise CaseError(f'"context" must be a list of strings, not {_kind(context)}')
        for i, chunk in enumerate(context):
            if not isinstance(chunk, str):
                raise CaseError(
                    f'"context"[{i}] must be a string, not {_kind(chunk)}: every chunk is text'
                )
        return cls(
            input=data["input"],
            output=data.get("output") or "",
            expected=expected,
            context=tuple(context),
        )

    def to_dict(self) -> dict[str, Any]:
        """The seed's JSON shape (expected only when present)."""
        out: dict[str, Any] = {"input": self.input, "output": self.output}
        if self.expected is not None:
            out["expected"] = self.expected
        out["context"] = list(self.context)
        return out

    def has(self, name: str) -> bool:
        """Whether a field has something to judge (blank text and no chunks count as absent)."""
        if name == "context":
            return any(chunk.strip() for chunk in self.context)
        value = getattr(self, name)
        return value is not None and bool(value.strip())

    @cached_property
    def output_sentences(self) -> tuple[str, ...]:
        return sentences.split(self.output)

    @cached_property
    def expected_sentences(self) -> tuple[str, ...]:
        return sentences.split(self.expected or "")

    @cached_property
    def _statements(self) -> tuple[tuple[str, int], ...]:
        return tuple((s, i) for i, chunk in enumerate(self.context) for s in sentences.split(chunk))

    @cached_property
    def context_statements(self) -> tuple[str, ...]:
        """Every sentence of every chunk, in order: context_relevancy judges these."""
        return tuple(s for s, _ in self._statements)

    @cached_property
    def context_statement_chunks(self) -> tuple[int, ...]:
        """For each context statement, the index of the chunk it came from."""
        return tuple(i for _, i in self._statements)

    def value(self, name: str) -> Any:
        """A field or derived list by its state name (`context`, `output_sentences`, ...)."""
        if name == "context":
            return list(self.context)
        if name in ("output_sentences", "expected_sentences", "context_statements"):
            return list(getattr(self, name))
        if name in ("input", "output", "expected"):
            return getattr(self, name)
        raise KeyError(name)


def _kind(value: Any) -> str:
    names = {dict: "an object", list: "a list", str: "a string", bool: "a boolean",
             int: "a number", float: "a number", type(None): "null"}
    return names.get(type(value), type(value).__name__)

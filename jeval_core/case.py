"""The case under evaluation: what the user asked, what the RAG answered, what it retrieved."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

from . import sentences
from .text import clean, has_text

FIELDS = ("input", "output", "expected", "context")


@dataclass(frozen=True)
class Case:
    """One RAG interaction. `context` holds the retrieved chunks in rank order.

    Text is cleaned on the way in (lone surrogates become U+FFFD), so every later step can
    encode it. A blank `expected` is no expected answer.
    """

    input: str
    output: str = ""
    expected: str | None = None
    context: tuple[str, ...] = field(default_factory=tuple)

    def __post_init__(self) -> None:
        # Accept any sequence of chunks but keep the case hashable (it is a cache key).
        object.__setattr__(self, "input", clean(self.input))
        object.__setattr__(self, "output", clean(self.output))
        object.__setattr__(self, "context", tuple(clean(c) for c in self.context))
        expected = self.expected
        object.__setattr__(self, "expected",
                           clean(expected) if expected is not None and has_text(expected)
                           else None)

    def to_dict(self) -> dict[str, object]:
        """The seed's JSON shape (expected only when present)."""
        out: dict[str, object] = {"input": self.input, "output": self.output}
        if self.expected is not None:
            out["expected"] = self.expected
        out["context"] = list(self.context)
        return out

    def has(self, name: str) -> bool:
        """Whether a field has something to judge (blank text and no chunks count as absent)."""
        if name == "context":
            return any(has_text(chunk) for chunk in self.context)
        value = {"input": self.input, "output": self.output, "expected": self.expected}[name]
        return has_text(value)

    def blank_chunks(self) -> tuple[int, ...]:
        """Positions of chunks with nothing to judge: they keep their place but are not asked."""
        return tuple(i for i, chunk in enumerate(self.context) if not has_text(chunk))

    @cached_property
    def output_sentences(self) -> tuple[str, ...]:
        return sentences.split(self.output)

    @cached_property
    def expected_sentences(self) -> tuple[str, ...]:
        return sentences.split(self.expected or "")

    @cached_property
    def chunk_sentences(self) -> tuple[tuple[str, ...], ...]:
        """Each chunk's sentences: context_relevancy judges these as statements."""
        return tuple(sentences.split(chunk) for chunk in self.context)

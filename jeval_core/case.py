"""The case under evaluation: what the user asked, what the RAG answered, what it retrieved."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from . import sentences
from .text import clean, has_text

FIELDS = ("input", "output", "expected", "context")
CONTEXT_META = "context_meta"  # the chunks' ids, sources, scores and ranks, beside "context"


@dataclass(frozen=True)
class ChunkMeta:
    """Where a retrieved chunk came from, as the pipeline said: shown and exported beside the
    chunk so a verdict can be traced to its document, never sent to a judge."""

    id: str | None = None
    source: str | None = None  # the document's title, URL, path or file name
    score: float | None = None  # the retriever's own score (not the judge's p)
    rank: int | None = None  # 0-based position in the pipeline's retrieval

    def __post_init__(self) -> None:
        for name in ("id", "source"):
            value = getattr(self, name)
            if value is not None:
                object.__setattr__(self, name, clean(value))

    def to_dict(self) -> dict[str, Any]:
        """The fields that are known, in the shape `context_meta` items are written."""
        return {k: v for k, v in (("id", self.id), ("source", self.source),
                                  ("score", self.score), ("rank", self.rank)) if v is not None}


@dataclass(frozen=True)
class Case:
    """One RAG interaction. `context` holds the retrieved chunks in rank order.

    Text is cleaned on the way in (lone surrogates become U+FFFD), so every later step can
    encode it. A blank `expected` is no expected answer. `context_meta` is each chunk's
    metadata (None for a chunk without), or empty: it takes no part in equality or hashing,
    since a case is a cache key for scoring and no judge ever reads it.
    """

    input: str
    output: str = ""
    expected: str | None = None
    context: tuple[str, ...] = field(default_factory=tuple)
    context_meta: tuple[ChunkMeta | None, ...] = field(default=(), compare=False, hash=False)

    def __post_init__(self) -> None:
        # Accept any sequence of chunks but keep the case hashable (it is a cache key).
        object.__setattr__(self, "input", clean(self.input))
        object.__setattr__(self, "output", clean(self.output))
        object.__setattr__(self, "context", tuple(clean(c) for c in self.context))
        expected = self.expected
        object.__setattr__(self, "expected",
                           clean(expected) if expected is not None and has_text(expected)
                           else None)
        object.__setattr__(self, "context_meta", _aligned(self.context_meta,
                                                          len(self.context)))

    def to_dict(self) -> dict[str, object]:
        """The seed's JSON shape (expected only when present), and `context_meta` (null for
        a chunk without) when any chunk has metadata."""
        out: dict[str, object] = {"input": self.input, "output": self.output}
        if self.expected is not None:
            out["expected"] = self.expected
        out["context"] = list(self.context)
        if self.context_meta:
            out[CONTEXT_META] = [None if m is None else m.to_dict() for m in self.context_meta]
        return out

    def chunk_meta(self, position: int) -> ChunkMeta | None:
        """The metadata of chunk `position`, if the case has any for it."""
        if 0 <= position < len(self.context_meta):
            return self.context_meta[position]
        return None

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


def _aligned(meta: Sequence[ChunkMeta | None], chunks: int) -> tuple[ChunkMeta | None, ...]:
    """One entry per chunk, or none at all when no chunk has metadata."""
    found = tuple(meta)
    if not any(m is not None for m in found):
        return ()
    if len(found) != chunks:
        raise ValueError(f"context_meta has {len(found)} entries for {chunks} chunks: give "
                         "one per chunk (null for a chunk without), in context order")
    return found

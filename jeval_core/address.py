"""Where in a case a question points: a field, and in it a chunk and a sentence.

Questions name the parts of the request state as text (`context[2]`, `output[1]`,
`context[2][0]`); a detail row reads that name once, here, and everything after it reads the
parts. The text comes back only at the edges: what is shown, and the JSON written.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

CONTEXT = "context"
_NAME = re.compile(r"([A-Za-z_]+)((?:\[\d+\])*)")


@dataclass(frozen=True, order=True)
class Address:
    """`context[2]` is chunk 2 of the context, `context[2][0]` the first sentence of that
    chunk, `output[1]` the second sentence of the output, `output` the whole output."""

    field: str
    chunk: int | None = None  # which retrieved chunk (context only)
    sentence: int | None = None  # which sentence, of the chunk or of the field

    @classmethod
    def parse(cls, name: str) -> Address:
        """The address a state name names; a name of another shape is kept whole as a field."""
        found = _NAME.fullmatch(name)
        if found is None:
            return cls(name)
        field = found.group(1)
        indices = [int(i) for i in re.findall(r"\d+", found.group(2))]
        if field == CONTEXT:
            return cls(field, *indices[:2])
        if len(indices) > 1:
            return cls(name)
        return cls(field, None, indices[0] if indices else None)

    @classmethod
    def of_chunk(cls, chunk: int) -> Address:
        return cls(CONTEXT, chunk)

    @property
    def whole_chunk(self) -> bool:
        """It is one retrieved chunk as a whole (what chunk verdicts are about)."""
        return self.field == CONTEXT and self.chunk is not None and self.sentence is None

    def __str__(self) -> str:
        parts = [self.field]
        parts += [f"[{i}]" for i in (self.chunk, self.sentence) if i is not None]
        return "".join(parts)

"""Signals for "does this chunk help answer the question?" read from the whole case.

A cosine on its own does not transfer: the cut that separates relevant chunks is 0.43 on
one kind of text and 0.63 on another. What does transfer is how a chunk stands among the
chunks retrieved with it (a retriever's chunks are all on topic; the ones that answer stand
out from their siblings), whether it states the kind of thing the question asks for (a
number for "how many", a date for "when"), and how much of the question's own wording it
covers. The hosted judge reads the whole state at once; the local judge reads the case too.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from .lexical import stopwords

# A question that wants a quantity or a date: the chunk that answers it states one.
_WANTS_NUMBER = re.compile(
    r"\b(how\s+(many|much|long|old|often|far|big|large|high|tall|fast|soon|late|early|"
    r"wide|deep|heavy|frequently)|when|what\s+(year|date|time|day|month|age|percentage|"
    r"percent|size|number|amount|price|rate|fee|cost|limit|version|port|temperature)|"
    r"which\s+(year|date|month|day|port|version)|minimum|maximum|deadline|how\s+is\b.*"
    r"\bpriced|cost|price|fee|limit)\b",
    re.IGNORECASE)
_NUMBER_WORDS = (
    "zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|"
    "thirty|forty|fifty|sixty|hundred|thousand|million|billion|half|quarter|once|twice|"
    "daily|weekly|monthly|yearly|annually|january|february|march|april|may|june|july|"
    "august|september|october|november|december|dozen|single|double")
_STATES_NUMBER = re.compile(rf"\d|\b({_NUMBER_WORDS})\b", re.IGNORECASE)
_WORD = re.compile(r"[a-z0-9]+")
# "How is it priced, and are output tokens billed?": a chunk that answers one part answers.
_PARTS = re.compile(r"\?\s+|[,;]?\s+(?:and|or|also)\s+(?=(?:are|is|do|does|did|can|could|"
                    r"how|what|when|who|which|why|where|will|would|should|must)\b)",
                    re.IGNORECASE)


@lru_cache(maxsize=8192)
def parts(question: str) -> tuple[str, ...]:
    """The question and, when it asks several things at once, each of its parts."""
    found = [p.strip() for p in _PARTS.split(question) if len(stems(p)) >= 2]
    return (question, *found) if len(found) > 1 else (question,)


@lru_cache(maxsize=8192)
def wants_number(question: str) -> bool:
    """Whether the question asks for a quantity, a price, a limit or a date."""
    return bool(_WANTS_NUMBER.search(question))


@lru_cache(maxsize=8192)
def states_number(text: str) -> bool:
    """Whether the text states a number, a number word or a month."""
    return bool(_STATES_NUMBER.search(text))


@lru_cache(maxsize=16384)
def stems(text: str) -> frozenset[str]:
    """The text's content words, cut to their first five letters (a crude, robust stem)."""
    stop = stopwords()
    return frozenset(w[:5] for w in _WORD.findall(text.lower())
                     if w not in stop and (len(w) > 2 or w.isdigit()))


def coverage(question: str, chunk: str) -> float:
    """Share of the question's content words the chunk also uses (0 when it has none)."""
    q = stems(question)
    return len(q & stems(chunk)) / len(q) if q else 0.0


NAMES = ("cos", "gap", "z", "cover", "cover_gap", "misses_number")


def chunk_signals(
    cos: Sequence[float], questions: Sequence[str], chunks: Sequence[str]
) -> list[tuple[float, ...]]:
    """Per chunk, in NAMES order: its cosine to the question, how far below the case's best
    chunk it is, its standing among its siblings (a z-score, 0 with fewer than three chunks),
    its coverage of the question's words and how far that is below the best chunk's, and
    whether the question wants a number that the chunk does not state."""
    c = np.asarray(cos, dtype=float)
    if not len(c):
        return []
    cover = np.array([max((coverage(q, t) for q in questions), default=0.0) for t in chunks])
    spread = float(c.std()) if len(c) >= 3 else 0.0
    z = (c - c.mean()) / max(spread, 0.05) if len(c) >= 3 else np.zeros(len(c))
    number = any(wants_number(q) for q in questions[:1])  # the input, not expected
    return [(float(c[i]), float(c[i] - c.max()), float(np.clip(z[i], -3, 3)),
             float(cover[i]), float(cover[i] - cover.max()),
             float(number and not states_number(chunks[i])))
            for i in range(len(c))]

"""Signals for "does this chunk help answer the question?" read from the whole case.

Each signal reads the question and one chunk, never the chunks retrieved beside it: the
question says "Judge this chunk on its own", so a chunk's p must not fall because a better
or a paraphrased chunk sits next to it (and a top-k what-if must not move the chunks kept).
What a chunk says of itself: whether it states the kind of thing the question asks for (a
number for "how many", a date for "when"), and how much of the question's own wording it
covers; a question that asks several things is read part by part.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

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


# "How do I raise the maximum number of connections?" asks for a procedure, not a number:
# a question that asks how to do something wants a number only when it says so outright.
_PROCEDURE = re.compile(r"^\W*(how\s+(do|can|could|should|would|to)\b|steps?\b|what\s+steps\b"
                        r"|is\s+there\s+a\s+way\b)", re.IGNORECASE)
_ASKS_QUANTITY = re.compile(r"\bhow\s+(many|much|long|often|soon|far)\b|\bwhen\b",
                            re.IGNORECASE)


@lru_cache(maxsize=8192)
def wants_number(question: str) -> bool:
    """Whether the question asks for a quantity, a price, a limit or a date (not a procedure
    that mentions one)."""
    if _PROCEDURE.search(question) and not _ASKS_QUANTITY.search(question):
        return False
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


NAMES = ("cos", "cover", "misses_number")


def chunk_signals(cos: float, questions: Sequence[str], chunk: str) -> tuple[float, ...]:
    """One chunk's signals, in NAMES order, from the question and that chunk alone: its
    cosine to the question, its coverage of the question's words, and whether the question
    wants a number that the chunk does not state."""
    cover = max((coverage(q, chunk) for q in questions), default=0.0)
    # The input, not expected; a question that asks several things wants a number only when
    # every part does (a chunk that answers "does it need a restart?" states none).
    asked = parts(questions[0])[1:] or parts(questions[0]) if questions else ()
    number = bool(asked) and all(wants_number(q) for q in asked)
    return (float(cos), float(cover), float(number and not states_number(chunk)))

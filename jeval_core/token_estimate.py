"""DRAFT"""

from __future__ import annotations

import math

# One class letter per character: the text's UTF-8 lead bytes are mapped, continuation bytes
# dropped. a/A ASCII lower/upper, 0 digit, space/tab, newline, . ASCII punctuation;
# non-ASCII by lead byte: l Latin, g Greek/Cyrillic/Hebrew/Arabic/Indic, v U+1000-1FFF
# (Vietnamese...), c kana/CJK, h Hangul (letters); s symbols such as — “ ” °, e emoji.
_SPANS = ((0x61, 0x7A, "a"), (0x41, 0x5A, "A"), (0x30, 0x39, "0"), (0x09, 0x09, " "),
          (0x20, 0x20, " "), (0x0A, 0x0D, "\n"), (0xC2, 0xC2, "s"), (0xC3, 0xCB, "l"),
          (0xCC, 0xE0, "g"), (0xE1, 0xE1, "v"), (0xE2, 0xE2, "s"), (0xE3, 0xE9, "c"),
          (0xEA, 0xED, "h"), (0xEE, 0xEF, "s"), (0xF0, 0xF4, "e"))
_CONTINUATION = bytes(range(0x80, 0xC0))


def _table(spans: tuple[tuple[int, int, str], ...], default: str) -> bytes:
    table = bytearray(default.encode() * 256)
    for first, last, cls in spans:
        table[first:last + 1] = cls.encode() * (last - first + 1)
    return bytes(table)


def _keep(classes: str, mark: str) -> bytes:
    """A table over class letters: `classes` become `mark`, everything else a space."""
    return _table(tuple((ord(c), ord(c), mark) for c in classes), " ")


_CLASS = _table(_SPANS, ".")
_LETTERS = "aAlgvch"
_WORDS, _DIGITS, _PUNCT = _keep(_LETTERS, "a"), _keep("0", "0"), _keep(".se", ".")
_SPACES = _table(((ord(" "), ord(" "), "w"), (ord("\n"), ord("\n"), "n")), " ")
_SHAPE = _table(tuple((ord(c), ord(c), "a") for c in _LETTERS)
                + tuple((ord(c), ord(c), c) for c in "0 \n"), ".")
_WEIGHTS = (1.0, -0.65, 0.12, 0.22, 0.7, 0.11, 0.6, 0.38, 1.49, 0.16)


def counts(text: str) -> tuple[int, ...]:
    """The features `estimate` weighs, from a few byte translations, splits and counts."""
    c = text.encode().translate(_CLASS, _CONTINUATION)
    shape = c.translate(_SHAPE)
    words = c.translate(_WORDS).split()
    punct = c.translate(_PUNCT).split()
    spaces = c.translate(_SPACES).split()
    pieces = (len(words) + c.count(b"aA")  # o200k splits a word before an upper-case run
              + sum((len(d) + 2) // 3 for d in c.translate(_DIGITS).split())  # 1-3 digits
              + shape.count(b" 0")  # a space before a digit is a token of its own
              + len(punct) + len(spaces) - spaces.count(b"w"))  # a newline or 2+ spaces
    return (
        pieces,
        shape.count(b"a.a") + shape.count(b"0.a"),  # one mark glued to the word after it
        sum(len(w) - 7 for w in words if len(w) > 7),  # long words split more
        sum(map(len, punct)) - len(punct),  # so do long punctuation runs
        *(c.count(k) for k in b"lgches"),
    )


def estimate(text: str) -> int:
    """Estimated o200k_base tokens of `text`."""
    return math.ceil(sum(w * c for w, c in zip(_WEIGHTS, counts(text), strict=True)))

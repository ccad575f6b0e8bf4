"""Input tokens of a text, estimated close to OpenAI's o200k_base BPE without its vocabulary.

o200k_base (counted with tiktoken 0.14.0) first splits text into pieces with a regex: a word
(an upper-case run starts a new one), 1-3 digits, a punctuation run, a newline or run of
spaces; almost every piece is then one token. `counts` finds those pieces with a few byte
translations, splits and counts (no regex; 12-25 ms for 300 KB), and `estimate` adds fitted
extras: long ASCII words and punctuation runs split further, a mark glued inside a word
(mix-up, don't, the `n` of an escaped \\n) shares its piece, and non-ASCII letters cost more
by script (accented Latin ~1 per char, CJK/kana 0.6, Hangul 0.4, emoji 1.5).

Fitted by least squares on relative error against tiktoken's counts of 4,520 texts: compact
JSON request bodies, states and single questions of assets/examples (the app's own `pack`,
and built by hand with sentence lists), the calibration pairs as JSON and as prose, the
unusual texts in bench/token_estimate.py (languages, emoji, lists, code, logs), and local
texts never shipped (a licence, vim help, Python sources, UI strings in 20 languages). 30%
of the sources (whole example files, pair topics, languages) were held out; on them:
request bodies/states/questions 1.8% mean abs error, worst +3.1% (chars/4: 6.2%, +14.5%);
all realistic texts of 100+ tokens 2.9%, worst -18% on rare identifiers such as config
flags (chars/4: 11%, +33%). Texts under ~30 tokens are off by a token or two. Non-English
European text runs 0-20% under (Dutch, Polish, Swedish words split more than their letters
show); chars/4 is 60% under on Chinese. Re-measure with `python bench/token_estimate.py`.
"""

from __future__ import annotations

import math

# One class byte per character: UTF-8 lead bytes are mapped, continuation bytes dropped.
# a/A ASCII lower/upper, 0 digit, space (and tab), newline, . ASCII punctuation; non-ASCII by
# lead byte, letters: l Latin, g Greek/Cyrillic/Hebrew/Arabic/Indic, v U+1000-1FFF (e.g.
# Vietnamese), c kana/CJK, h Hangul; marks: s symbols such as — “ ” ° € ，, e emoji.
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
# pieces, glued marks, long-word letters, long-punctuation marks, then l g c h e s chars.
_WEIGHTS = (1.0, -0.86, 0.13, 0.2, 0.95, 0.12, 0.6, 0.39, 1.5, 0.15)


def counts(text: str) -> tuple[int, ...]:
    """The features `estimate` weighs, in `_WEIGHTS` order (linear time, no regex)."""
    c = text.encode("utf-8", "surrogatepass").translate(_CLASS, _CONTINUATION)
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
    """Estimated o200k_base tokens of `text` (compact JSON as sent, or plain text), rounded up."""
    return math.ceil(sum(w * c for w, c in zip(_WEIGHTS, counts(text), strict=True)))

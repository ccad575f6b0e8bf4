"""Sentence splitting for outputs, expected answers and context statements.

pysbd is a maintained rule-based splitter that knows about abbreviations, decimals and
prices ("$4.50", "e.g."), which a hand regex gets wrong. Splitting is pure, so it is cached.
"""

from __future__ import annotations

from functools import lru_cache

_segmenter = None


def _get_segmenter():
    global _segmenter
    if _segmenter is None:
        import pysbd

        _segmenter = pysbd.Segmenter(language="en", clean=False)
    return _segmenter


@lru_cache(maxsize=8192)
def split(text: str) -> tuple[str, ...]:
    """The sentences of `text`, stripped, empties dropped; () for blank text."""
    if not text or not text.strip():
        return ()
    pieces: list[str] = []
    # pysbd treats a blank line as an ordinary space; paragraphs are sentence breaks too.
    for paragraph in text.split("\n\n"):
        if not paragraph.strip():
            continue
        try:
            found = _get_segmenter().segment(paragraph)
        except Exception:  # pysbd is rule-based; a pathological string must not break scoring
            found = [paragraph]
        pieces.extend(s.strip() for s in found)
    return tuple(s for s in pieces if s)

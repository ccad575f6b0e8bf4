"""Sentence splitting for outputs, expected answers and context statements.

pysbd is a maintained rule-based splitter that knows about abbreviations, decimals and
prices ("$4.50", "e.g."), which a hand regex gets wrong. Its cost grows faster than the text,
so it only ever sees short blocks: paragraphs, cut at line breaks (and, for one endless
line, at spaces) into pieces of at most BLOCK characters. That keeps splitting linear.
Splitting is pure, so it is cached. A pysbd Segmenter keeps state while it segments, so each
thread has its own (one shared by a batch's threads returned other texts' sentences).
"""

from __future__ import annotations

import re
import threading
from functools import lru_cache
from typing import Any

from .text import has_text

BLOCK = 600  # characters pysbd sees at once
_local = threading.local()
_PARAGRAPH = re.compile(r"\n[ \t]*\n")
_MARKER = re.compile(r"^(?:\(?\d{1,6}[.)]|\(?[a-zA-Z][.)]|[-*\u2022])$")  # "1." "(b)" "-" alone


def _get_segmenter() -> Any:
    segmenter = getattr(_local, "segmenter", None)
    if segmenter is None:
        import pysbd

        segmenter = _local.segmenter = pysbd.Segmenter(language="en", clean=False)
    return segmenter


def _blocks(paragraph: str) -> list[str]:
    """The paragraph in pieces of at most BLOCK characters, cut at line breaks or spaces."""
    if len(paragraph) <= BLOCK:
        return [paragraph]
    pieces: list[str] = []
    current = ""
    for line in paragraph.split("\n"):
        while len(line) > BLOCK:  # one very long line: cut after a sentence end if one fits
            cut = max(line.rfind(end, 0, BLOCK) for end in (". ", "! ", "? ")) + 1
            if cut <= BLOCK // 4:
                cut = line.rfind(" ", 0, BLOCK)
            cut = cut if cut > BLOCK // 4 else BLOCK
            if current:
                pieces.append(current)
                current = ""
            pieces.append(line[:cut])
            line = line[cut:]
        if current and len(current) + 1 + len(line) > BLOCK:
            pieces.append(current)
            current = line
        else:
            current = f"{current}\n{line}" if current else line
    if current:
        pieces.append(current)
    return pieces


@lru_cache(maxsize=8192)
def split(text: str) -> tuple[str, ...]:
    """The sentences of `text`, stripped, empties dropped; () for blank text."""
    if not text or not text.strip():
        return ()
    pieces: list[str] = []
    # pysbd treats a blank line as an ordinary space; paragraphs are sentence breaks too.
    for paragraph in _PARAGRAPH.split(text):
        for block in _blocks(paragraph):
            if not block.strip():
                continue
            try:
                found = _get_segmenter().segment(block)
            except Exception:  # rule-based; a pathological string must not break scoring
                found = [block]
            pieces.extend(s.strip() for s in found)
    return tuple(_join_markers([s for s in pieces if has_text(s)]))


def _join_markers(pieces: list[str]) -> list[str]:
    """A list marker split off on its own ("3.") belongs to the sentence after it."""
    out: list[str] = []
    carry = ""
    for piece in pieces:
        if _MARKER.match(piece):
            carry = f"{carry} {piece}".strip()
            continue
        out.append(f"{carry} {piece}" if carry else piece)
        carry = ""
    if carry:
        out.append(carry)
    return out

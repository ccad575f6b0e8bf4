"""Text on the page: visitor text made inert, and figures formatted one way everywhere."""

from __future__ import annotations

import re

from jeval_core import text
from jeval_core.case import ChunkMeta

DASH = "—"  # a figure with nothing to stand on
_AUTOLINK = re.compile(r"(?i)\b(https?|ftp|mailto|www)(:|\.)")
# A URL or an e-mail address, without the sentence's punctuation after it.
_ADDRESS = re.compile(r"(?i)\b(?:(?:https?|ftp)://|www\.|mailto:)[^\s`<>]*[^\s`<>.,;:!?)\]'\"]"
                      r"|[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_MARKDOWN = re.compile(r"([\\`*_{}\[\]()#+\-.!|~<>$:])")
plural = text.plural


def inert(value: str) -> str:
    """Text for markdown elements (st.markdown, st.error...) that shows exactly as written.

    Messages can quote a server's error body or a file's content: never let them format,
    and never let a URL or an e-mail address in them become a link. Addresses are shown as
    code (never a link, and copied exactly as written); a word joiner, U+2060, breaks up
    anything else that could still start one.
    """
    out, last = [], 0
    for m in _ADDRESS.finditer(value):
        out += [_plain(value[last:m.start()]), f"`{m.group()}`"]
        last = m.end()
    return "".join([*out, _plain(value[last:])])


def _plain(value: str) -> str:
    value = _AUTOLINK.sub("\\1\u2060\\2", value).replace("@", "@\u2060")
    return _MARKDOWN.sub(r"\\\1", value)


def chunk_source(meta: ChunkMeta | None) -> str:
    """Where a chunk came from, for a caption: "source · score 0.83 · rank 1 · id", each part
    only when the pipeline gave it, inert (a source or an id is the file's text); "" when
    nothing is known."""
    if meta is None:
        return ""
    parts = [inert(text.one_line(meta.source, 120))] if meta.source else []
    if meta.score is not None:
        small = meta.score != 0 and abs(meta.score) < 0.01  # a distance, not a similarity
        parts.append(f"score {meta.score:.2g}" if small else f"score {meta.score:.2f}")
    if meta.rank is not None:
        parts.append(f"rank {meta.rank}")
    if meta.id:
        parts.append(inert(text.one_line(meta.id, 80)))
    return " · ".join(parts)


def percent(share: float | None) -> str:
    return text.percent(share, none=DASH)


def number(value: float | None) -> str:
    return text.number(value, none=DASH)

"""Exports people open in spreadsheets: CSV with every text cell made inert.

A cell that starts with =, +, -, @, a tab or a carriage return is a formula to Excel, Calc
and Sheets (`=cmd|'/c calc'!A0` in a chunk would run), and so is one where such a sign comes
after spaces or line breaks, or is a full-width ＝ ＋ － ＠ (spreadsheets fold them). Such cells
get a leading apostrophe, OWASP's advice, so the text shows as written and never executes.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from .case import CONTEXT_META, Case, ChunkMeta

_FORMULA_START = ("=", "+", "-", "@", "\t", "\r", "\uff1d", "\uff0b", "\uff0d", "\uff20",
                  "\ufe62", "\ufe63", "\ufe66", "\u2212")


def cell(value: Any) -> Any:
    """A value safe to put in a spreadsheet cell (numbers stay numbers)."""
    if isinstance(value, str) and (value.startswith(_FORMULA_START)
                                   or value.lstrip().startswith(_FORMULA_START)):
        return "'" + value
    return value


def to_csv(rows: Iterable[Mapping[str, Any]], columns: Sequence[str]) -> str:
    """CSV text of `rows` with the given columns, every text cell made inert."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(columns)
    for row in rows:
        writer.writerow([cell(row.get(c, "")) for c in columns])
    return out.getvalue()


# A chunk's metadata as columns of a row about that chunk (a detail row of a chunk question).
CHUNK_COLUMNS = ("chunk id", "chunk source", "retriever score", "rank")


def chunk_cells(meta: ChunkMeta | None) -> dict[str, Any]:
    """The chunk's id, source, the retriever's score and its rank as CHUNK_COLUMNS cells
    (empty when unknown)."""
    if meta is None:
        return {}
    return {column: value for column, value in zip(
        CHUNK_COLUMNS, (meta.id, meta.source, meta.score, meta.rank), strict=True)
        if value is not None}


def context_meta_cell(case: Case) -> str:
    """A case's `context_meta` as one cell: the JSON array a dataset's CSV reads back (empty
    when no chunk has metadata)."""
    if not case.context_meta:
        return ""
    return json.dumps(case.to_dict()[CONTEXT_META], ensure_ascii=False)

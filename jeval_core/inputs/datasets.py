"""Datasets: many cases in one file, read so that one bad row never costs the others.

Three formats: JSONL (one case per line), CSV (a header row; list-valued cells hold JSON
arrays) and a JSON array of case objects. Every row is read by `casefile.parse`, so the
field names people already use (RAGAS, DeepEval, Galtea) and per-row `evaluators` and
`thresholds` work as in a case file. Two fields exist only in datasets, for judging the
judge and the retriever: `context_labels` (a human's 0/1 per chunk) and `reranked` (a second
ranking of the same chunks, as chunk indices).

A RAG pipeline's own export (LangChain, LlamaIndex, OTLP, Langfuse, LangSmith: whatever
`pipelines.detect` knows) is read whole, one case per retrieval, each chunk's id, source,
score and rank kept in `context_meta`.

A bad row becomes a `RowError` with its 1-based file line (in an export, its retrieval's
1-based position) and is skipped; a file that cannot be read at all raises one `CaseError`
that says how to fix it.
"""

from __future__ import annotations

import csv
import difflib
import hashlib
import io
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ..case import Case
from ..errors import CaseError
from ..text import clean, clean_json, one_line
from ..wire import STRICT_DECODER
from . import casefile, pipelines
from .casefile import CaseFile, kind
from .files import read_capped

MAX_BYTES = 64 * 1024 * 1024
MAX_ROWS = 100_000
MAX_ROW_BYTES = casefile.MAX_FILE_BYTES  # one row is one case: the case file's own cap

LABELS, RERANKED, ID = casefile.LABELS, casefile.RERANKED, "id"
CONTEXT_META = casefile.CONTEXT_META
DATASET_FIELDS = (ID, LABELS, RERANKED)
KNOWN = (*dict.fromkeys((*casefile.KNOWN, *DATASET_FIELDS)),)
FORMATS = ("jsonl", "csv", "json")
_EXTENSIONS = {".jsonl": "jsonl", ".ndjson": "jsonl", ".jsonlines": "jsonl", ".json": "json",
               ".csv": "csv", ".tsv": "csv"}
# CSV cells that hold JSON (a list or an object) rather than text.
_LIST_CELLS = frozenset((*casefile.ALIASES["context"], LABELS, RERANKED, CONTEXT_META))
_JSON_CELLS = frozenset(("truth", "metadata", "tags", "evaluators", "thresholds"))
# File signatures of things people upload by mistake, and what to do instead.
_MAGIC = (
    (b"PK\x03\x04", "a zip archive (an Excel .xlsx?); export the sheet as CSV (UTF-8)"),
    (b"\x1f\x8b", "gzip-compressed; decompress it first"),
    (b"%PDF", "a PDF document, not a dataset"),
    (b"\x89PNG", "a PNG image, not a dataset"),
    (b"\xff\xd8\xff", "a JPEG image, not a dataset"),
    (b"\xd0\xcf\x11\xe0", "an old Office file (.xls?); export the sheet as CSV (UTF-8)"),
    (b"SQLite format 3\x00", "an SQLite database, not a dataset"),
)
_NOT_UTF8 = re.compile("[\udc80-\udcff]")  # bytes that were not UTF-8 (surrogateescape)
_CONTROL_BYTES = frozenset((*range(0, 9), 11, 12, *range(14, 32), 127))
_HOW = ('write one case per line like {"input": "...", "output": "...", "context": '
        '["..."]}, or a CSV with a header row')


@dataclass(frozen=True)
class RowError:
    """A row that was skipped: its 1-based line in the file and what to fix there."""

    line: int
    message: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}"

    def to_dict(self) -> dict[str, Any]:
        return {"line": self.line, "message": self.message}


@dataclass(frozen=True)
class DatasetRow:
    """One case of a dataset, with the truth a human gave about its chunks, if any.

    `labels[i]` says whether `context[i]` helps answer the input (None: not labelled yet);
    `reranked` lists chunk indices in a second system's order (best first).
    """

    line: int
    id: str
    casefile: CaseFile
    labels: tuple[bool | None, ...] | None = None
    reranked: tuple[int, ...] | None = None

    @property
    def case(self) -> Case:
        return self.casefile.case

    @property
    def ranked_labels(self) -> tuple[bool, ...] | None:
        """The labels when every chunk has one: a ranking metric needs them all."""
        if self.labels is None or any(label is None for label in self.labels):
            return None
        return tuple(bool(label) for label in self.labels)

    def reranked_labels(self) -> tuple[bool, ...] | None:
        """The labels in the reranked order: what precision@k of the reranker reads."""
        ranked = self.ranked_labels
        if ranked is None or self.reranked is None:
            return None
        return tuple(ranked[i] for i in self.reranked)

    def to_dict(self) -> dict[str, Any]:
        """The row as a JSONL object in our field names; `read` gives the same row back."""
        cf = self.casefile
        out: dict[str, Any] = {ID: self.id, **cf.case.to_dict()}
        if self.labels is not None:
            out[LABELS] = [None if x is None else int(x) for x in self.labels]
        if self.reranked is not None:
            out[RERANKED] = list(self.reranked)
        out.update(casefile.settings(cf.evaluators, cf.thresholds))
        if cf.description:
            out["description"] = cf.description
        for key, value in cf.extra.items():
            out.setdefault(key, value)
        return out


@dataclass(frozen=True)
class Dataset:
    """The rows that could be read, the ones that could not, and the file's fingerprint."""

    name: str
    rows: list[DatasetRow]
    errors: list[RowError]
    sha256: str  # of the bytes as uploaded: two runs over the same file share it
    format: str = "jsonl"  # or, for a pipeline export, its pipeline (pipelines.FORMATS)

    @property
    def cases(self) -> list[Case]:
        return [r.case for r in self.rows]

    @property
    def labelled(self) -> int:
        """Rows with per-chunk labels."""
        return sum(1 for r in self.rows if r.labels is not None)

    @property
    def with_reranked(self) -> int:
        """Rows with a second ranking."""
        return sum(1 for r in self.rows if r.reranked is not None)


# --- reading --------------------------------------------------------------------------------


def load(path: str | Path) -> Dataset:
    """Read a dataset file, never more than the cap: the bytes read are counted, not the size
    the file reports (/dev/zero, a FIFO or /proc say 0)."""
    path = Path(path)
    raw = read_capped(path, MAX_BYTES, _TOO_BIG, path.name,
                      "a dataset file (.jsonl, .csv or .json)")
    return read(raw, path.name)


def read(raw: bytes, name: str) -> Dataset:
    """A dataset from a file's bytes and name (the extension picks the format, else the
    content does). Bad rows are collected, not raised; a file that yields no row raises."""
    shown = one_line(name, 80) or "the file"
    if len(raw) > MAX_BYTES:
        raise CaseError(_too_big(shown))
    digest = hashlib.sha256(raw).hexdigest()
    text = _decode(raw, shown)
    if not text.strip():
        raise CaseError(f"{shown} is empty: {_HOW}")
    # Random bytes are ~12% control bytes, text ~0%. A file is called binary only once it has
    # yielded no row: a junk row among good ones is that row's error, not the file's.
    reader = _Reader(shown, binary=_control_share(raw) > 0.02)
    try:
        fmt = _format(text, name, shown)
        if fmt != "csv":
            fmt = "json" if text.lstrip()[:1] == "[" else "jsonl"
            if _is_export(text, fmt):
                return _export(raw, name, shown, digest)
        if fmt == "csv":
            reader.csv(text, "\t" if name.lower().endswith(".tsv") else ",")
        elif fmt == "json":
            reader.json_array(text)
        else:
            reader.jsonl(text)
    except CaseError:
        if reader.binary and not reader.rows:  # say what it is, not what its header lacks
            raise CaseError(_binary(shown)) from None
        raise
    if not reader.rows:
        if not reader.errors:
            raise CaseError(f"{shown} holds no cases: {_HOW}")
        if reader.binary:
            raise CaseError(_binary(shown))
        encoding = [e.line for e in reader.errors if e.message.startswith("the row is not UTF-8")]
        if encoding:
            raise CaseError(f"{shown} is not UTF-8 text (line {encoding[0]} is the first that "
                            "is not); save it as UTF-8")
        first, more = reader.errors[0], len(reader.errors) - 1
        raise CaseError(f"no row of {shown} could be read; {first}"
                        + (f" (and {more} more bad rows)" if more else ""))
    return Dataset(shown, reader.rows, reader.errors, digest, fmt)


def _is_export(text: str, fmt: str) -> bool:
    """Whether a JSON or JSONL file is a pipeline's export rather than rows in our field
    names, judged by its first value (rows whose chunks are documents are rows)."""
    first, whole = _first_value(text, fmt)
    if first is None:
        return False
    return casefile.pipeline_format(first if whole else [first], first) is not None


def _first_value(text: str, fmt: str) -> tuple[Any, bool]:
    """The file's first JSON value, and whether it is the whole file (a single object, not
    the first of an array's values or of JSONL lines); None when it does not read."""
    try:
        if fmt == "json":
            value, _ = _DECODER.raw_decode(text, _skip_ws(text, text.index("[") + 1))
            return value, False
        body = text.lstrip()
        end = body.find("\n")
        if end < 0 or _VISIBLE.search(body, end) is None:  # one line: the whole file
            return _parse(body if end < 0 else body[:end]), True
        whole = _Reader._single_object(text)
        if whole is not None:
            return whole, True
        return _parse(body[:end]), False
    except (ValueError, RecursionError):
        return None, False


def _export(raw: bytes, name: str, shown: str, digest: str) -> Dataset:
    """A pipeline export as a dataset: one row per retrieval, its chunks' metadata kept."""
    found = pipelines.read_export(raw, name=name)
    reader = _Reader(shown)
    for position, row in enumerate(pipelines.to_rows(found.retrievals), start=1):
        reader.add(position, row)
    if not reader.rows:
        first, more = reader.errors[0], len(reader.errors) - 1
        raise CaseError(f"no retrieval of {shown} could be read as a case; retrieval "
                        f"{first.line}: {first.message}"
                        + (f" (and {more} more)" if more else ""))
    return Dataset(shown, reader.rows, reader.errors, digest, found.format)


def _binary(shown: str) -> str:
    return f"{shown} is a binary file, not a dataset: save the cases as .jsonl, .csv or .json text"


_TOO_BIG = (f"is larger than {MAX_BYTES // (1024 * 1024)} MB; split it into smaller files (a "
            "run can be resumed, so nothing is lost)")


def _too_big(shown: str) -> str:
    return f"{shown} {_TOO_BIG}"


def _decode(raw: bytes, shown: str) -> str:
    """Text with a BOM stripped; bytes that are not UTF-8 kept as lone surrogates, so the row
    holding them can be named and skipped instead of losing the whole file."""
    for magic, what in _MAGIC:
        if raw.startswith(magic):
            raise CaseError(f"{shown} is {what}")
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return raw.decode("utf-16").removeprefix("\ufeff")  # the codec eats one BOM
        except UnicodeDecodeError:
            raise CaseError(f"{shown} starts like UTF-16 text but is not; save it as UTF-8"
                            ) from None
    text = raw.decode("utf-8", "surrogateescape")
    return text[1:] if text.startswith("\ufeff") else text


def _control_share(raw: bytes) -> float:
    sample = raw[:8192]
    return sum(b in _CONTROL_BYTES for b in sample) / len(sample) if sample else 0.0


def _format(text: str, name: str, shown: str) -> str:
    suffix = Path(name).suffix.lower()
    if suffix in _EXTENSIONS:
        return _EXTENSIONS[suffix]
    start = text.lstrip()[:1]
    if start in ("[", "{"):
        return "jsonl"  # an array or objects: the JSON readers tell which
    header = next(iter(text.splitlines()), "")
    cells = [c.strip().strip('"').lower() for c in re.split(r"[,\t]", header)]
    if any(c in casefile.KNOWN for c in cells):
        return "csv"
    raise CaseError(f"cannot tell what format {shown} is in: name it .jsonl (one case per "
                    "line), .csv (a header row) or .json (an array of cases)")


class _Reader:
    """Collects rows and row errors; enforces the row cap and unique ids."""

    def __init__(self, shown: str, binary: bool = False) -> None:
        self.shown, self.binary = shown, binary
        self.rows: list[DatasetRow] = []
        self.errors: list[RowError] = []
        self.ids: dict[str, int] = {}

    def _check_cap(self) -> None:
        if len(self.rows) + len(self.errors) < MAX_ROWS:
            return
        if self.binary and not self.rows:
            raise CaseError(_binary(self.shown))
        raise CaseError(f"{self.shown} has more than {MAX_ROWS:,} rows; split it into smaller "
                        "files")

    def add(self, line: int, data: Any) -> None:
        self._check_cap()
        try:
            row = row_from_dict(data, line)
            if row.id in self.ids and isinstance(data, Mapping) and data.get(ID) is None:
                row = replace(row, id=self._unused_id(line))
            if row.id in self.ids:
                raise CaseError(f'"id" {one_line(row.id, 40)!r} is already used on line '
                                f"{self.ids[row.id]}: give every row its own id")
        except CaseError as err:
            self.fail(line, str(err))
            return
        self.ids[row.id] = line
        self.rows.append(row)

    def _unused_id(self, line: int) -> str:
        """The id of a row without one that shares its line with others (a JSON array
        written on one line, as `json.dump` writes it): row-1, row-1-2, row-1-3..."""
        n = 2
        while f"row-{line}-{n}" in self.ids:
            n += 1
        return f"row-{line}-{n}"

    def fail(self, line: int, message: str) -> None:
        self._check_cap()
        self.errors.append(RowError(line, one_line(message, 300)))

    # JSONL: split on "\n" only; U+2028 and friends may sit inside JSON strings.
    def jsonl(self, text: str) -> None:
        lines = text.split("\n")
        last = max((i for i, s in enumerate(lines) if s.strip()), default=-1)
        cut_short = not text.endswith("\n")
        whole = self._single_object(text)
        if whole is not None:
            self.add(1, whole)
            return
        for i, line in enumerate(lines):
            if not line.strip():
                continue
            problem = _size_problem(len(line)) or _text_problem(line)
            if problem:
                self.fail(i + 1, problem)
                continue
            try:
                data = _parse(line)
            except ValueError as err:
                hint = " (the file may be cut short)" if i == last and cut_short else ""
                self.fail(i + 1, f"not valid JSON: {err}{hint}; fix or remove the row")
                continue
            self.add(i + 1, data)

    @staticmethod
    def _single_object(text: str) -> Any:
        """A pretty-printed single case (a case file) read as a dataset of one row."""
        if "\n" not in text.strip() or text.lstrip()[:1] != "{":
            return None
        try:
            data, end = _DECODER.raw_decode(text, _skip_ws(text, 0))  # the first object only
        except (ValueError, RecursionError):
            return None
        return data if isinstance(data, dict) and not text[end:].strip() else None

    def json_array(self, text: str) -> None:
        """Element by element, so the rows before a broken element (a file cut short) stay."""
        lines = _LineCounter(text)
        pos = _skip_ws(text, text.index("[") + 1)
        if text.startswith("]", pos):
            return
        while True:
            line = lines.at(pos)
            if pos >= len(text):
                self.fail(line, "the JSON array ends early (the file may be cut short): "
                          "close it with ]")
                return
            try:
                data, end = _DECODER.raw_decode(text, pos)
            except json.JSONDecodeError as err:
                cut = "" if text.rstrip().endswith("]") else " (the file may be cut short)"
                self.fail(line, f"not valid JSON: {err.msg} at line {err.lineno}, column "
                          f"{err.colno}{cut}; the rows after it cannot be located: fix it "
                          "and read the file again")
                return
            except (ValueError, RecursionError) as err:
                self.fail(line, f"not valid JSON: {one_line(err, 120) or 'nested too deeply'}"
                          "; fix or remove the row")
                return
            problem = _size_problem(end - pos) or _text_problem(text[pos:end])
            if problem:
                self.fail(line, problem)
            else:
                self.add(line, data)
            pos = _skip_ws(text, end)
            if text.startswith(",", pos):
                pos = _skip_ws(text, pos + 1)
            elif text.startswith("]", pos):
                rest = text[pos + 1:].strip()
                if rest:
                    self.fail(lines.at(pos + 1), "text after the closing ] of the array: "
                              "remove it")
                return
            else:
                what = "the file ends" if pos >= len(text) else "something else follows"
                self.fail(lines.at(pos), f"{what} where , or ] should come after a row "
                          "(the file may be cut short)")
                return

    def csv(self, text: str, delimiter: str) -> None:
        csv.field_size_limit(max(csv.field_size_limit(), MAX_ROW_BYTES))
        reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
        header: list[str] | None = None
        previous = 0
        while True:
            start = previous + 1
            try:
                record = next(reader)
            except StopIteration:
                break
            except csv.Error as err:
                if header is None:
                    raise CaseError(f"the header row of {self.shown} is not valid CSV "
                                    f"({one_line(err, 80)})") from None
                self.fail(start, f"not valid CSV ({one_line(err, 80)}); quote cells that "
                          'hold commas or quotes, and double the quotes inside: ""')
                if reader.line_num == previous:
                    break
                previous = reader.line_num
                continue
            previous = reader.line_num
            if not any(cell.strip() for cell in record):
                continue
            if header is None:
                header = _header(record, self.shown)
                continue
            problem = _size_problem(sum(map(len, record))) or next(
                filter(None, (_text_problem(c) for c in record)), None)
            if problem:
                self.fail(start, problem)
                continue
            if len(record) != len(header):
                self.fail(start, f"the row has {_count(len(record), 'cell')} but the header "
                          f"names {_count(len(header), 'column')}; quote cells that hold a "
                          f"{delimiter!r}")
                continue
            try:
                data = {col: _cell(col, cell) for col, cell in zip(header, record, strict=True)
                        if cell != ""}
            except CaseError as err:
                self.fail(start, str(err))
                continue
            self.add(start, data)
        if header is None:
            raise CaseError(f"{self.shown} holds no cases: {_HOW}")


def _header(record: list[str], shown: str) -> list[str]:
    """Column names, matched case-insensitively; an unknown or repeated one stops the file
    (every row would fail the same way)."""
    names = []
    known = {k.lower(): k for k in KNOWN}
    for position, cell in enumerate(record, start=1):
        cell = cell.strip()
        if not cell:
            raise CaseError(f"{shown}: column {position} of the header has no name; name it "
                            "(input, output, context...) or remove the column")
        if cell.lower() not in known:
            raise CaseError(f"{shown}: {_unknown(cell, 'column')}")
        name = known[cell.lower()]
        if name in names:
            raise CaseError(f'{shown}: the column "{name}" appears twice; keep one')
        names.append(name)
    return names


def _cell(column: str, cell: str) -> Any:
    """A CSV cell as the JSON value the same field would hold in a JSONL row."""
    if column in _LIST_CELLS:
        if not cell.lstrip().startswith("["):
            example = {LABELS: "[1, 0, 1]", RERANKED: "[2, 0, 1]",
                       CONTEXT_META: '[{"id": "doc-1", "source": "a.md", "score": 0.8, '
                                     '"rank": 0}]'}.get(column, '["first chunk", "second chunk"]')
            raise CaseError(f'the "{column}" cell must be a JSON array like {example}')
        try:
            return _parse(cell)
        except ValueError as err:
            found = _list_literal(cell)
            if found is None:
                raise CaseError(f'the "{column}" cell is not valid JSON ({err}), nor a list '
                                "of plain strings or numbers like ['a', 'b']") from None
            return found
    if column in _JSON_CELLS and cell.lstrip()[:1] in ("[", "{"):
        return _json_cell(column, cell)
    if column == "thresholds":  # "toxicity=0.2; faithfulness=0.7"
        return [part.strip() for part in re.split(r"[;,]", cell) if part.strip()]
    return cell


def _list_literal(cell: str) -> list[Any] | None:
    """A Python list literal of strings and numbers, as pandas and RAGAS write list columns
    (`['a', "it's"]`), read without evaluating anything; None when the cell is not one."""
    import ast

    try:
        tree = ast.parse(cell.strip(), mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    body = tree.body
    if not isinstance(body, ast.List):
        return None
    out: list[Any] = []
    for item in body.elts:
        if isinstance(item, ast.Constant) and isinstance(item.value, (str, int, float)) \
                and not isinstance(item.value, bool):
            out.append(item.value)
        elif isinstance(item, ast.UnaryOp) and isinstance(item.op, ast.USub) and isinstance(
                item.operand, ast.Constant) and isinstance(item.operand.value, (int, float)):
            out.append(-item.operand.value)
        else:
            return None
    return out


def _json_cell(column: str, cell: str) -> Any:
    try:
        return _parse(cell)
    except ValueError as err:
        raise CaseError(f'the "{column}" cell is not valid JSON: {err}') from None


# --- one row --------------------------------------------------------------------------------


def row_from_dict(data: Any, line: int) -> DatasetRow:
    """A DatasetRow from one decoded row (as `DatasetRow.to_dict` writes it, or in any of the
    field names a case file accepts), or a CaseError saying what to fix."""
    if not isinstance(data, Mapping):
        raise CaseError(f'a row must be a JSON object with "input" and "context", not '
                        f"{kind(data)}")
    for key in data:
        if not isinstance(key, str) or key not in KNOWN:
            raise CaseError(_unknown(str(key), "key"))
    data = clean_json(data)
    parsed = casefile.parse({k: v for k, v in data.items() if k not in DATASET_FIELDS})
    chunks = len(parsed.case.context)
    return DatasetRow(line, _id(data.get(ID), line), parsed,
                      _labels(data.get(LABELS), chunks), _reranked(data.get(RERANKED), chunks))


def check_row_fields(loaded: CaseFile) -> None:
    """A case file that carries a dataset row's fields (`context_labels`, `reranked`): they
    must fit its chunks, as in a dataset (a CaseError says what to fix)."""
    chunks = len(loaded.case.context)
    _labels(loaded.extra.get(LABELS), chunks)
    _reranked(loaded.extra.get(RERANKED), chunks)


def _id(value: Any, line: int) -> str:
    if value is None:
        return f"row-{line}"
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise CaseError(f'"id" must be a string or a whole number, not {kind(value)}')
    text = clean(str(value))
    if not text.strip():
        raise CaseError('"id" is blank: give the row a name, or leave "id" out')
    if len(text) > 200:
        raise CaseError('"id" is longer than 200 characters: use a short name')
    return text


def _labels(value: Any, chunks: int) -> tuple[bool | None, ...] | None:
    if value is None:
        return None
    if not isinstance(value, list):
        raise CaseError(f'"{LABELS}" must be a list with a 0 or 1 per chunk, not {kind(value)}')
    out: list[bool | None] = []
    for i, label in enumerate(value):
        if label is None:  # a chunk nobody labelled yet
            out.append(None)
        elif label in (0, 1) and isinstance(label, (bool, int)):  # 1.0 is not a label
            out.append(bool(label))
        else:
            raise CaseError(f'"{LABELS}"[{i}] must be 0 or 1 (or true/false, or null for '
                            f"unlabelled), not {one_line(json.dumps(label), 30)}")
    if len(out) != chunks:
        raise CaseError(f'"{LABELS}" has {_count(len(out), "label")} but the case has '
                        f'{_count(chunks, "chunk")}: give one label per chunk, in context order')
    return tuple(out)


def _reranked(value: Any, chunks: int) -> tuple[int, ...] | None:
    if value is None:
        return None
    if not isinstance(value, list):
        raise CaseError(f'"{RERANKED}" must be a list of chunk indices, not {kind(value)}')
    seen: set[int] = set()
    for i, index in enumerate(value):
        if isinstance(index, bool) or not isinstance(index, int):
            raise CaseError(f'"{RERANKED}"[{i}] must be a chunk index (a whole number), not '
                            f"{one_line(json.dumps(index), 30)}")
        if not 0 <= index < chunks:
            numbered = f"numbered 0 to {chunks - 1}" if chunks else "none: the case has none"
            raise CaseError(f'"{RERANKED}"[{i}] is {index} but the chunks are {numbered}')
        if index in seen:
            raise CaseError(f'"{RERANKED}" names chunk {index} twice: list each chunk index '
                            "once")
        seen.add(index)
    if len(seen) != chunks:
        missing = min(set(range(chunks)) - seen)
        raise CaseError(f'"{RERANKED}" leaves out chunk {missing}: list every chunk index '
                        f"once (a reordering of 0 to {chunks - 1})")
    return tuple(value)


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _unknown(key: str, what: str) -> str:
    shown = key if len(key) <= 40 else key[:39] + "…"
    close = difflib.get_close_matches(key.lower(), KNOWN, n=1, cutoff=0.6)
    hint = f'did you mean "{close[0]}"?' if close else (
        f"known names: input, output, expected, context, {LABELS}, {RERANKED}, id")
    return f'unknown {what} "{one_line(shown, 40)}": {hint}'


def _size_problem(size: int) -> str | None:
    if size <= MAX_ROW_BYTES:
        return None
    return (f"the row is larger than {MAX_ROW_BYTES // (1024 * 1024)} MB, far over what one "
            "judge request can hold: trim its chunks")


def _text_problem(text: str) -> str | None:
    """Why a row's raw text cannot be a case (bytes that are not UTF-8, binary data)."""
    bad = _NOT_UTF8.search(text)
    if bad:
        byte = ord(bad.group()) - 0xDC00
        return (f"the row is not UTF-8 text (byte 0x{byte:02x} at column {bad.start() + 1}); "
                "save the file as UTF-8")
    if "\x00" in text:
        return "the row holds binary data (NUL bytes), not a case"
    return None


# Strict JSON, as replies are read: no NaN or Infinity, no overflowing numbers.
_DECODER = STRICT_DECODER


def _parse(text: str) -> Any:
    """One JSON value, or a ValueError with a short reason (column, not line, for a row)."""
    try:
        return _DECODER.decode(text)
    except json.JSONDecodeError as err:
        where = (f"column {err.colno}" if err.lineno == 1
                 else f"line {err.lineno}, column {err.colno}")
        joint = " " if err.msg.endswith(" at") else " at "
        raise ValueError(f"{err.msg}{joint}{where}") from None
    except RecursionError:
        raise ValueError("it is nested too deeply") from None
    except ValueError as err:  # a constant, a huge number, an int past the digit limit
        raise ValueError(one_line(err, 120)) from None


_WS = re.compile(r"[ \t\r\n]*")
_VISIBLE = re.compile(r"\S")


def _skip_ws(text: str, pos: int) -> int:
    match = _WS.match(text, pos)
    return match.end() if match else pos


class _LineCounter:
    """1-based line of a position, counting forward only (positions arrive in order)."""

    def __init__(self, text: str) -> None:
        self.text, self.pos, self.line = text, 0, 1

    def at(self, pos: int) -> int:
        if pos >= self.pos:
            self.line += self.text.count("\n", self.pos, pos)
            self.pos = pos
            return self.line
        return self.text.count("\n", 0, pos) + 1


# --- writing --------------------------------------------------------------------------------


def write_jsonl(rows: Iterable[DatasetRow]) -> str:
    """Rows as JSONL in our field names, one per line; `read` gives the same rows back."""
    return jsonl_of(r.to_dict() for r in rows)


def jsonl_of(rows: Iterable[Mapping[str, Any]]) -> str:
    """Rows already in our field names (`DatasetRow.to_dict`, `pipelines.to_rows`) as JSONL,
    one per line."""
    return "".join(clean(json.dumps(row, ensure_ascii=False, allow_nan=False)) + "\n"
                   for row in rows)


__all__ = ["FORMATS", "MAX_BYTES", "MAX_ROWS", "Dataset", "DatasetRow", "RowError", "jsonl_of",
           "load", "read", "write_jsonl"]

"""Reading a case file, a share link's payload or an upload: one shape, one set of rules.

Field names people already use are accepted (DeepEval, Galtea, RAGAS); an unknown key is an
error that names the closest known one, and two names for the same field is an error. What
evaluators run and at which thresholds is part of the file, resolved here, at the edge.

A RAG pipeline's own output comes in as it is: chunks in `context` may be LangChain documents
(`{"page_content", "metadata"}`) or LlamaIndex nodes (`source_nodes` is a name for the
context), and a whole export with one retrieval (`pipelines.detect` knows the shape) is that
retrieval's case. Each chunk's id, source, score and rank are kept in `context_meta` beside
its text, never in it.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .. import evaluators as registry
from ..case import CONTEXT_META, Case, ChunkMeta
from ..errors import CaseError
from ..evaluators import Evaluator
from ..text import clean_json, one_line
from ..wire import parse_json
from . import evaluator_files, pipelines
from .pipelines.documents import any_document
from .pipelines.langchain import RETRIEVAL_KEYS, is_lc_document

MAX_FILE_BYTES = 8 * 1024 * 1024  # far beyond Jev's budgets; refused before parsing
# Chunks per case: more than Jev's budgets hold of ordinary chunks (~359 of 40 words with
# every evaluator); 10,000 one-letter chunks would fit the bytes but no judge or page.
MAX_CHUNKS = 400

ALIASES: dict[str, tuple[str, ...]] = {
    "input": ("input", "question", "user_input", "query"),
    "output": ("output", "actual_output", "answer", "response"),
    "expected": ("expected", "expected_output", "ground_truth", "reference"),
    "context": ("context", "retrieval_context", "contexts", "retrieved_contexts",
                "source_nodes"),  # LlamaIndex's Response names its chunks so
}
CUSTOM = "custom_evaluators"  # a person's own evaluators' definitions, travelling with the case
SETTINGS = ("evaluators", "thresholds", CUSTOM)
LABELS, RERANKED = "context_labels", "reranked"  # a dataset row's truth about its chunks
METADATA = ("id", "name", "description", "truth", "metadata", "tags", LABELS, RERANKED)
_FIELD_OF = {alias: name for name, names in ALIASES.items() for alias in names}
KNOWN = (*_FIELD_OF, CONTEXT_META, *SETTINGS, *METADATA)
_META_KEYS = ("id", "source", "score", "rank")
_META_ITEM = '{"id": str, "source": str, "score": number, "rank": int} or null'


@dataclass(frozen=True)
class CaseFile:
    """A case and what to run on it. `evaluators` None means: the defaults for this case."""

    case: Case
    evaluators: tuple[Evaluator, ...] | None = None
    thresholds: dict[str, float] = field(default_factory=dict)
    description: str = ""
    extra: dict[str, Any] = field(default_factory=dict)  # metadata kept as given (truth...)

    def chosen(self) -> tuple[Evaluator, ...]:
        return self.evaluators if self.evaluators is not None else registry.defaults(self.case)


def settings(chosen: Sequence[Evaluator] | None, thresholds: Mapping[str, float]) -> dict[str, Any]:
    """What to run, as a case file writes it: evaluator names (a custom one's definition
    beside them, so the file runs anywhere) and thresholds."""
    out: dict[str, Any] = {}
    if chosen is not None:
        out["evaluators"] = [e.name for e in chosen]
        if custom := evaluator_files.definitions(chosen):
            out[CUSTOM] = custom
    if thresholds:
        out["thresholds"] = dict(thresholds)
    return out


def kind(value: Any) -> str:
    """A JSON value's type in words, for messages."""
    names = {dict: "an object", list: "a list", str: "a string", bool: "true/false",
             int: "a number", float: "a number", type(None): "null"}
    return names.get(type(value), type(value).__name__)


def parse(data: Any) -> CaseFile:
    """A CaseFile from decoded JSON, or a CaseError that says what to fix."""
    fmt = pipeline_format(data, data)
    if fmt is not None:  # a pipeline's own export, not a case in our field names
        return parse(one_retrieval(fmt, pipelines.retrievals(data, fmt)))
    if not isinstance(data, Mapping):
        raise CaseError(f'a case must be a JSON object with "input" and "context", '
                        f"not {kind(data)}")
    data = clean_json(dict(data))  # metadata is text too: no lone surrogate gets further
    fields: dict[str, tuple[str, Any]] = {}
    for key, value in data.items():
        if not isinstance(key, str) or key not in KNOWN:
            raise CaseError(_unknown(str(key)))
        name = _FIELD_OF.get(key)
        if name is None:
            continue
        if name in fields:
            raise CaseError(f'"{fields[name][0]}" and "{key}" both give the {name}: keep one')
        fields[name] = (key, value)

    def text(name: str, required: bool = False) -> str | None:
        key, value = fields.get(name, (name, None))
        if value is None:
            if required:
                raise CaseError(f'the case has no "{name}": add the user\'s question as '
                                f'"{name}"')
            return None
        if not isinstance(value, str):
            raise CaseError(f'"{key}" must be a string, not {kind(value)}: put the text in '
                            "quotes")
        return value

    chunks, found_meta = _chunks(*fields.get("context", ("context", None)))
    if data.get(CONTEXT_META) is not None:
        if any(m is not None for m in found_meta):
            raise CaseError(f'"{CONTEXT_META}" and the documents in "{fields["context"][0]}" '
                            "both give the chunks' metadata: keep one")
        found_meta = context_meta(data[CONTEXT_META], len(chunks))
    case = Case(input=text("input", required=True) or "", output=text("output") or "",
                expected=text("expected"), context=tuple(chunks), context_meta=tuple(found_meta))
    custom = evaluator_files.evaluators(evaluator_files.from_data(data.get(CUSTOM)))
    chosen = None
    if data.get("evaluators") is not None:
        chosen = registry.resolve(data["evaluators"], custom=custom)
    elif custom:  # a case that carries its own evaluators runs them beside the defaults
        chosen = (*registry.defaults(case), *custom.values())
    thresholds = registry.thresholds(data.get("thresholds") or {}, custom)
    description = data.get("description")
    extra = {k: data[k] for k in METADATA if k in data}
    return CaseFile(case, chosen, thresholds,
                    description if isinstance(description, str) else "", extra)


def pipeline_format(data: Any, item: Any) -> str | None:
    """The pipeline (one of pipelines.FORMATS) whose export `data` is, judged by `item` (data
    itself, or its first value): None when `item` is in our field names (a case, whose chunks
    may be documents), or is a LangChain retrieval with a key neither knows (a typo, which
    the case's own error names)."""
    if isinstance(item, Mapping) and all(isinstance(k, str) and k in KNOWN for k in item):
        return None
    fmt = pipelines.detect(data)
    if (fmt == "langchain" and isinstance(item, Mapping) and not is_lc_document(item)
            and any(k not in KNOWN and k not in RETRIEVAL_KEYS for k in item)):
        return None
    return fmt


def one_retrieval(fmt: str, found: list[pipelines.Retrieval]) -> dict[str, Any]:
    """The case row of a `fmt` export whose retrievals are `found`, when it holds exactly one;
    an export of several is a dataset, which `jeval import` writes."""
    if len(found) != 1:
        raise CaseError(f"this {pipelines.NAMES[fmt]} export holds {len(found):,} retrievals "
                        "and a case is one: make it a dataset with `jeval import FILE --out "
                        "DATA.jsonl` (one case per retrieval)")
    return pipelines.to_rows(found)[0]


def _chunks(key: str, value: Any) -> tuple[list[str], list[ChunkMeta | None]]:
    """The chunks' texts, and the metadata of those given as documents (a LangChain
    document, a LlamaIndex node): their id, source, score and rank (their position)."""
    if value is None:
        return [], []
    if isinstance(value, str):
        raise CaseError(f'"{key}" must be a list of chunks, not a string: wrap it as ["..."]')
    if not isinstance(value, list):
        raise CaseError(f'"{key}" must be a list of strings, not {kind(value)}')
    if len(value) > MAX_CHUNKS:
        raise CaseError(f'"{key}" has {len(value):,} chunks; jeval scores at most '
                        f"{MAX_CHUNKS} chunks per case: keep the top-ranked ones")
    texts: list[str] = []
    metas: list[ChunkMeta | None] = []
    for i, chunk in enumerate(value):
        if isinstance(chunk, str):
            texts.append(chunk)
            metas.append(None)
        elif isinstance(chunk, Mapping):
            text, id_, source, score, _ = any_document(chunk, f'"{key}"[{i}]')
            texts.append(text)
            metas.append(ChunkMeta(id_, source, score, i))
        else:
            raise CaseError(f'"{key}"[{i}] must be a string, not {kind(chunk)}: every chunk '
                            "is text")
    return texts, metas


def context_meta(value: Any, chunks: int) -> list[ChunkMeta | None]:
    """`context_meta` as written: a list with one entry per chunk, each null or an object of
    id, source, score and rank (any left out); a CaseError says what to fix."""
    if not isinstance(value, list):
        raise CaseError(f'"{CONTEXT_META}" must be a list with one {_META_ITEM} per chunk, '
                        f"not {kind(value)}")
    if value and len(value) != chunks:
        raise CaseError(f'"{CONTEXT_META}" has {len(value):,} entries but the case has '
                        f"{chunks:,} chunks: give one per chunk (null for a chunk without), "
                        "in context order")
    return [_chunk_meta(item, f'"{CONTEXT_META}"[{i}]') for i, item in enumerate(value)]


def _chunk_meta(item: Any, at: str) -> ChunkMeta | None:
    if item is None:
        return None
    if not isinstance(item, Mapping):
        raise CaseError(f"{at} must be {_META_ITEM}, not {kind(item)}")
    for key in item:
        if key not in _META_KEYS:
            raise CaseError(f'{at} has the unknown key "{one_line(str(key), 40)}": its keys '
                            f"are {', '.join(_META_KEYS)}")
    score, rank = item.get("score"), item.get("rank")
    if score is not None and (isinstance(score, bool) or not isinstance(score, (int, float))):
        raise CaseError(f'{at}["score"] must be a number, not {kind(score)}')
    if rank is not None and (isinstance(rank, bool) or not isinstance(rank, int) or rank < 0):
        raise CaseError(f'{at}["rank"] must be a whole number from 0, not '
                        f"{one_line(repr(rank), 30)}")
    try:
        number = None if score is None else float(score)
    except OverflowError:
        number = math.inf
    if number is not None and not math.isfinite(number):
        raise CaseError(f'{at}["score"] must be a finite number')
    return ChunkMeta(_meta_text(item, "id", at), _meta_text(item, "source", at), number, rank)


def _meta_text(item: Mapping[str, Any], name: str, at: str) -> str | None:
    """An id or a source: a string (an id may be a whole number, written as text)."""
    value = item.get(name)
    if name == "id" and isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    if value is not None and not isinstance(value, str):
        raise CaseError(f'{at}["{name}"] must be a string, not {kind(value)}')
    return value


def _unknown(key: str) -> str:
    shown = key if len(key) <= 40 else key[:39] + "…"
    close = difflib.get_close_matches(key.lower(), KNOWN, n=1, cutoff=0.6)
    hint = f'did you mean "{close[0]}"?' if close else (
        f"known keys: {', '.join(('input', 'output', 'expected', 'context', *SETTINGS))}")
    return f'unknown key "{shown}" in the case: {hint}'


def decode(raw: bytes, name: str) -> CaseFile:
    """A case file's bytes -> CaseFile, or one CaseError naming the file and the fix."""
    if len(raw) > MAX_FILE_BYTES:
        raise CaseError(f"{name} is larger than {MAX_FILE_BYTES // (1024 * 1024)} MB; a case "
                        "that big cannot fit Jev's budget: trim the chunks")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise CaseError(f"{name} is not UTF-8 text; save the case as UTF-8 JSON") from None
    if "\x00" in text:
        raise CaseError(f"{name} is a binary file, not a JSON case")
    if not text.strip():
        raise CaseError(f"{name} is empty; write a case like "
                        '{"input": "...", "output": "...", "context": ["..."]}')
    try:
        data = parse_json(text)
    except ValueError as err:
        if _jsonl_export(text):  # a pipeline's JSONL export (LangSmith runs, OTLP lines)
            found = pipelines.read_export(raw, name=name)
            return parse(one_retrieval(found.format, found.retrievals))
        raise CaseError(f"{name} is not valid JSON: {err}; fix it there") from None
    return parse(data)


def _jsonl_export(text: str) -> bool:
    """Whether text that is not one JSON value is a pipeline's JSONL export: several lines,
    the first a value of an export's shape."""
    lines = [line for line in text.split("\n") if line.strip()]
    if len(lines) < 2:
        return False
    try:
        first = parse_json(lines[0])
    except ValueError:
        return False
    return pipeline_format([first], first) is not None

"""Reading a case file, a share link's payload or an upload: one shape, one set of rules.

Field names people already use are accepted (DeepEval, Galtea, RAGAS); an unknown key is an
error that names the closest known one, and two names for the same field is an error. What
evaluators run and at which thresholds is part of the file, resolved here, at the edge.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .. import evaluators as registry
from ..case import Case
from ..errors import CaseError
from ..evaluators import Evaluator
from ..text import clean_json
from ..wire import parse_json
from . import evaluator_files

MAX_FILE_BYTES = 8 * 1024 * 1024  # far beyond Jev's budgets; refused before parsing
# Chunks per case: more than Jev's budgets hold of ordinary chunks (~359 of 40 words with
# every evaluator); 10,000 one-letter chunks would fit the bytes but no judge or page.
MAX_CHUNKS = 400

ALIASES: dict[str, tuple[str, ...]] = {
    "input": ("input", "question", "user_input", "query"),
    "output": ("output", "actual_output", "answer", "response"),
    "expected": ("expected", "expected_output", "ground_truth", "reference"),
    "context": ("context", "retrieval_context", "contexts", "retrieved_contexts"),
}
CUSTOM = "custom_evaluators"  # a person's own evaluators' definitions, travelling with the case
SETTINGS = ("evaluators", "thresholds", CUSTOM)
LABELS, RERANKED = "context_labels", "reranked"  # a dataset row's truth about its chunks
METADATA = ("id", "name", "description", "truth", "metadata", "tags", LABELS, RERANKED)
_FIELD_OF = {alias: name for name, names in ALIASES.items() for alias in names}
KNOWN = (*_FIELD_OF, *SETTINGS, *METADATA)


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

    case = Case(input=text("input", required=True) or "", output=text("output") or "",
                expected=text("expected"), context=tuple(_chunks(*fields.get(
                    "context", ("context", None)))))
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


def _chunks(key: str, value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        raise CaseError(f'"{key}" must be a list of chunks, not a string: wrap it as ["..."]')
    if not isinstance(value, list):
        raise CaseError(f'"{key}" must be a list of strings, not {kind(value)}')
    if len(value) > MAX_CHUNKS:
        raise CaseError(f'"{key}" has {len(value):,} chunks; jeval scores at most '
                        f"{MAX_CHUNKS} chunks per case: keep the top-ranked ones")
    for i, chunk in enumerate(value):
        if not isinstance(chunk, str):
            raise CaseError(f'"{key}"[{i}] must be a string, not {kind(chunk)}: every chunk '
                            "is text")
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
        raise CaseError(f"{name} is not valid JSON: {err}; fix it there") from None
    return parse(data)

"""Custom evaluators as TOML files: one `[[evaluator]]` table each, several per file.

    [[evaluator]]
    name = "states_a_limit"
    purpose = "Which chunks state a price or a limit."
    about = "chunk"
    question = "`context[i]` states a price, a fee or a numeric limit."

Reading validates every table (one-line errors that name the file and the evaluator);
writing gives back what reading accepts. The same definitions travel as JSON in share links
and stored runs (`Definition.to_dict`).
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import tomli_w

from ..errors import CaseError
from ..evaluators import Evaluator
from ..evaluators.custom import Definition, evaluator
from ..text import one_line
from .files import read_capped

TABLE = "evaluator"
MAX_FILE_BYTES = 1024 * 1024
MAX_PER_CASE = 32  # custom evaluators per file, case, link or stored run
_TOO_BIG = "is over 1 MB: an evaluators file holds a few definitions"


def parse(text: str, source: str = "the evaluators file") -> tuple[Definition, ...]:
    """The definitions in TOML `text`, validated, or a CaseError naming `source`."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise CaseError(f"{source} is not valid TOML: {one_line(str(err))}") from None
    except RecursionError:  # tables or arrays nested hundreds deep
        raise CaseError(f"{source} is nested too deeply: an evaluator is one flat "
                        "[[evaluator]] table") from None
    unknown = [k for k in data if k != TABLE]
    if unknown:
        raise CaseError(f'{source}: unknown table "{one_line(unknown[0])[:30]}"; write each '
                        "evaluator as [[evaluator]]")
    tables = data.get(TABLE)
    if not tables:
        raise CaseError(f"{source} defines no evaluator: start one with [[evaluator]]")
    if not isinstance(tables, list):
        raise CaseError(f"{source}: write [[evaluator]] (two brackets), one per evaluator")
    return _validated(tables, source)


def _validated(tables: list[Any], source: str) -> tuple[Definition, ...]:
    """Each table as a checked definition, one name once; an error names `source`. Counted
    before any is checked: each costs work (its question's tokens are estimated)."""
    check_count(len(tables), source)
    try:
        return unique(Definition.from_dict(t) for t in tables)
    except CaseError as err:
        raise CaseError(f"{source}: {err}") from None


def check_count(count: int, source: str) -> None:
    """A CaseError when `source` (a file, a case, a link) carries more custom evaluators than
    one request should ask."""
    if count > MAX_PER_CASE:
        raise CaseError(f"{source} carries {count:,} custom evaluators; at most {MAX_PER_CASE} "
                        "go with one case or file: keep the ones this case needs")


def unique(definitions: Iterable[Definition]) -> tuple[Definition, ...]:
    """The definitions, refusing two of one name: which one a run used would be a guess."""
    seen: dict[str, Definition] = {}
    for d in definitions:
        if d.name in seen and seen[d.name] != d:
            raise CaseError(f"two custom evaluators are named {d.name!r}: rename one")
        seen[d.name] = d
    return tuple(seen.values())


def read(paths: Sequence[str | Path]) -> tuple[Definition, ...]:
    """The definitions of every file, in order; a missing, binary or broken file is one
    CaseError that names it."""
    found: list[Definition] = []
    for path in paths:
        name = str(path)
        raw = read_capped(path, MAX_FILE_BYTES, _TOO_BIG, expected="a .toml file of custom "
                          "evaluators")
        found.extend(decode(raw, name))
    return unique(found)


def decode(raw: bytes, name: str) -> tuple[Definition, ...]:
    """An uploaded or read file's bytes -> its definitions."""
    if len(raw) > MAX_FILE_BYTES:
        raise CaseError(f"{name} {_TOO_BIG}")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise CaseError(f"{name} is not UTF-8 text; save it as UTF-8 TOML") from None
    if "\x00" in text:
        raise CaseError(f"{name} is a binary file, not TOML")
    return parse(text, name)


def dumps(definitions: Iterable[Definition]) -> str:
    """TOML that `parse` reads back as the same definitions."""
    return tomli_w.dumps({TABLE: [d.to_dict() for d in definitions]})


def from_data(value: Any, source: str = "the case") -> tuple[Definition, ...]:
    """Definitions carried as JSON (a share link, a case file, a stored run)."""
    if value is None:
        return ()
    if not isinstance(value, list):
        raise CaseError(f'{source}: "custom_evaluators" must be a list of definitions')
    return _validated(value, source)


def evaluators(definitions: Iterable[Definition]) -> dict[str, Evaluator]:
    """The evaluators the definitions make, by name (what `evaluators.resolve` takes)."""
    return {d.name: evaluator(d) for d in definitions}


def definitions(chosen: Iterable[Evaluator]) -> list[dict[str, Any]]:
    """The custom ones among `chosen` as data, to travel with a case or a run."""
    return [e.definition.to_dict() for e in chosen if e.definition is not None]


"""The files that come with jeval, reachable by name: the example cases, the sample datasets,
the evaluator files, the example runs and the app's icons.

In a wheel they are package data (`jeval_core/bundled/`, built from the repository's
`assets/`); in a clone they are `assets/` itself. Either way `jeval examples` lists them and
`--example NAME` opens one, so every README command works after `pip install` alone.
"""

from __future__ import annotations

import json
import textwrap
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from ..errors import CaseError

PACKAGED = Path(__file__).resolve().parent.parent / "bundled"  # in a wheel
CLONE = Path(__file__).resolve().parents[2] / "assets"  # in a clone of the repository
# What ships, as folder -> the suffixes of its files (pyproject's package-data says the same).
KINDS = {"examples": (".json",), "datasets": (".jsonl", ".json", ".csv"),
         "evaluators": (".toml",)}


def root() -> Path:
    """The folder the bundled files lie in: the wheel's package data, else the clone's assets."""
    return PACKAGED if PACKAGED.is_dir() else CLONE


def path(*parts: str) -> Path:
    """A bundled file by its path under the bundle, e.g. path("datasets", "sample.jsonl")."""
    return root().joinpath(*parts)


@dataclass(frozen=True)
class Bundled:
    """One bundled input: its name (what --example takes), kind, file and one-line summary."""

    name: str
    kind: str
    file: Path
    summary: str


def listing() -> list[Bundled]:
    """Every bundled input, examples first, each kind sorted by name."""
    return list(_listing(root()))


@cache
def _listing(base: Path) -> tuple[Bundled, ...]:
    found: list[Bundled] = []
    for kind, suffixes in KINDS.items():
        folder = base / kind
        if not folder.is_dir():
            continue
        files = sorted((f for f in folder.iterdir() if f.suffix in suffixes and f.is_file()),
                       key=lambda f: (f.stem, suffixes.index(f.suffix)))
        taken: set[str] = set()
        for file in files:
            # sample.jsonl, sample.json and sample.csv: the first suffix of KINDS owns the name
            name = file.stem if file.stem not in taken else file.name
            taken.add(file.stem)
            found.append(Bundled(name, kind, file, _summary(kind, file)))
    return tuple(found)


def _summary(kind: str, file: Path) -> str:
    try:
        if kind == "examples":
            said = str(json.loads(file.read_text("utf-8")).get("description", ""))
            return textwrap.shorten(said, 90, placeholder="…")
        if kind == "datasets":
            lines = file.read_text("utf-8").count("\n") if file.suffix == ".jsonl" else None
            return f"{lines} cases" if lines else file.suffix[1:].upper() + " dataset"
        comment = [line.lstrip("# ").strip() for line in file.read_text("utf-8").splitlines()
                   if line.startswith("#")]
        return textwrap.shorten(" ".join(comment), 90, placeholder="…")
    except (OSError, ValueError):
        pass
    return ""


def find(name: str, kinds: tuple[str, ...] = tuple(KINDS)) -> Path:
    """The bundled file called `name` (with or without its suffix) among `kinds`; a CaseError
    naming what there is when none is."""
    wanted = name.strip()
    for item in listing():
        if item.kind in kinds and wanted in (item.name, item.file.name):
            return item.file
    names = [item.name for item in listing() if item.kind in kinds]
    raise CaseError(f"no bundled example called {wanted[:60]!r}: there are "
                    f"{', '.join(names) or 'none'} (see `jeval examples`)")

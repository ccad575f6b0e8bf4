"""Where a run's noise comes from: by source document, by retriever-score range, and the
slots wasted on near-duplicate chunks, all from the verdicts the judge already gave.

A chunk is relevant or noise by the person's label where there is one, else by the judge's
verdict (`k_sweep.relevance_of`); a chunk neither judged nor labelled is left out. Sources and
scores come from the pipeline (`ChunkMeta`); chunks without them are grouped as such.
Near-duplicates are chunks of one retrieval whose texts mostly overlap (rapidfuzz's
token-set ratio at or above `NEAR`): the second copy fills a slot and adds nothing, so
precision is also given per distinct unit (a group of near-duplicates counted once).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from rapidfuzz import fuzz

from ..case import Case

NEAR = 90.0  # token-set ratio (0-100) from which two chunks are one unit
NO_SOURCE = "(no source given)"


@dataclass(frozen=True)
class Group:
    """Chunks sharing a source, or a score range: how many, how many noise, and what share of
    the run's relevant chunks they hold."""

    name: str
    chunks: int
    noise: int
    relevant: int
    share_of_relevant: float  # of every relevant chunk in the run

    @property
    def noise_share(self) -> float:
        return self.noise / self.chunks if self.chunks else 0.0


Judged = tuple[Case, Sequence[bool | None]]  # a retrieval and each chunk's relevance


def _chunks(rows: Sequence[Judged]) -> list[tuple[Case, int, bool]]:
    return [(case, i, bool(r)) for case, relevant in rows for i, r in enumerate(relevant)
            if r is not None]


def _groups(found: dict[str, list[bool]], total_relevant: int) -> list[Group]:
    out = [Group(name, len(v), v.count(False), v.count(True),
                 v.count(True) / total_relevant if total_relevant else 0.0)
           for name, v in found.items()]
    return sorted(out, key=lambda g: (-g.noise_share, -g.chunks, g.name))


def by_source(rows: Sequence[Judged]) -> list[Group]:
    """Per source document, noisiest first."""
    chunks = _chunks(rows)
    found: dict[str, list[bool]] = {}
    for case, i, relevant in chunks:
        meta = case.chunk_meta(i)
        found.setdefault(meta.source if meta is not None and meta.source else NO_SOURCE,
                         []).append(relevant)
    return _groups(found, sum(r for *_, r in chunks))


def by_score(rows: Sequence[Judged], ranges: int = 4) -> list[Group]:
    """Per range of the retriever's own score (quantile ranges over the run's scores, lowest
    first); chunks without a score in their own group. Empty when no chunk has a score."""
    chunks = _chunks(rows)
    scored = [(m.score, r) for case, i, r in chunks
              if (m := case.chunk_meta(i)) is not None and m.score is not None]
    if not scored:
        return []
    values = np.array([s for s, _ in scored])
    edges = np.unique(np.quantile(values, np.linspace(0, 1, ranges + 1)))
    found: dict[str, list[bool]] = {}
    names = []
    for lo, hi in zip(edges[:-1], edges[1:], strict=True):
        last = hi == edges[-1]
        name = f"{lo:.3g} to {hi:.3g}" if last else f"{lo:.3g} to under {hi:.3g}"
        names.append(name)
        found[name] = [r for s, r in scored if lo <= s < hi or (last and s == hi)]
    if len(edges) == 1:
        names = [f"{edges[0]:.3g}"]
        found = {names[0]: [r for _, r in scored]}
    unscored = [r for case, i, r in chunks
                if (m := case.chunk_meta(i)) is None or m.score is None]
    if unscored:
        found["(no score)"] = unscored
        names.append("(no score)")
    total = sum(r for *_, r in chunks)
    return [Group(n, len(found[n]), found[n].count(False), found[n].count(True),
                  found[n].count(True) / total if total else 0.0) for n in names if found[n]]


def near_duplicates(case: Case, near: float = NEAR) -> list[tuple[int, int, float]]:
    """(i, j, ratio) for each pair of non-blank chunks of the retrieval that mostly overlap."""
    texts = [(i, t) for i, t in enumerate(case.context) if t.strip()]
    return [(i, j, ratio) for a, (i, x) in enumerate(texts) for j, y in texts[a + 1:]
            if (ratio := fuzz.token_set_ratio(x, y)) >= near]


def units(case: Case, near: float = NEAR) -> list[list[int]]:
    """The retrieval's chunks grouped into distinct units (near-duplicates joined)."""
    parent = list(range(len(case.context)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, j, _ in near_duplicates(case, near):
        parent[root(j)] = root(i)
    found: dict[int, list[int]] = {}
    for i, t in enumerate(case.context):
        if t.strip():
            found.setdefault(root(i), []).append(i)
    return list(found.values())


@dataclass(frozen=True)
class Wasted:
    """A run's slots spent on near-duplicates, and precision per chunk against per unit."""

    chunks: int  # judged chunks
    duplicates: int  # judged chunks that repeat an earlier one of their retrieval
    precision_per_chunk: float | None
    precision_per_unit: float | None  # a unit is relevant when any of its chunks is
    retrievals_with_duplicates: int


def wasted(rows: Sequence[Judged], near: float = NEAR) -> Wasted:
    chunks = relevant_chunks = duplicates = unit_count = relevant_units = touched = 0
    for case, relevant in rows:
        groups = [[i for i in g if relevant[i] is not None] for g in units(case, near)]
        groups = [g for g in groups if g]
        chunks += sum(len(g) for g in groups)
        relevant_chunks += sum(bool(relevant[i]) for g in groups for i in g)
        duplicates += sum(len(g) - 1 for g in groups)
        touched += any(len(g) > 1 for g in groups)
        unit_count += len(groups)
        relevant_units += sum(any(relevant[i] for i in g) for g in groups)
    return Wasted(chunks, duplicates, relevant_chunks / chunks if chunks else None,
                  relevant_units / unit_count if unit_count else None, touched)

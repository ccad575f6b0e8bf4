"""The k-sweep: what a retrieval would have given at top-k, from one scoring of all its chunks.

A chunk's p depends on the question and that chunk alone (the local judge reads each chunk on
its own), so cutting a retrieval to its first k chunks leaves the verdicts of the chunks kept
as they were: precision@k and recall@k of the verdicts (or of a person's labels) at every k
come from the one scoring, with no request to the judge. Beside them, what the pipeline pays
at k: the context tokens its generator would read (estimated as `token_estimate` counts them)
and their cost at a price per million input tokens the user gives.

Order is the retrieval's: the chunks as they stand in the case (the retriever's rank). A
retriever-score cutoff is the same sweep over the chunks whose own score (`ChunkMeta.score`)
is at least the cutoff, for pipelines that keep chunks by score rather than by count.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from ..case import Case
from ..errors import JevalError
from ..results import Result
from ..text import has_text
from ..token_estimate import estimate


@dataclass(frozen=True)
class KPoint:
    """One k of the sweep (or one score cutoff, with `cutoff` set)."""

    k: int  # chunks kept, blank ones included (they keep their place)
    relevant: int  # relevant chunks among them
    precision: float | None  # relevant / judged chunks kept; None when none is judged
    recall: float | None  # relevant kept / relevant in the whole retrieval; None when none is
    tokens: int  # the kept chunks' text, as a generator reads it
    cutoff: float | None = None
    supported: float | None = None  # share of the answer's sentences the first k support


def cut(case: Case, k: int) -> Case:
    """The retrieval cut to its first k chunks (their metadata kept)."""
    return replace(case, context=case.context[:k], context_meta=case.context_meta[:k])


def supported_share(faithfulness: Result | None) -> float | None:
    """A faithfulness Result read as supported@k's figure: its score, None when skipped."""
    if faithfulness is None or faithfulness.skipped or faithfulness.score is None:
        return None
    return float(faithfulness.score)


def with_support(points: Sequence[KPoint], supported: Sequence[float | None]) -> list[KPoint]:
    """The sweep with each k's share of supported answer sentences: faithfulness of the
    answer against the first k chunks read again by an offline judge (no request is made),
    or `support_by_chunk` from a server judge's one request."""
    return [replace(p, supported=s) for p, s in zip(points, supported, strict=True)]


def support_by_chunk(case: Case, chunk_support: Result,
                     points: Sequence[KPoint]) -> list[float | None]:
    """Each k's share of the answer's sentences one of the first k chunks states, read from
    the chunk_support evaluator's answers (asked in the request that scored the chunks)."""
    from ..evaluators import chunk_support as support

    return [support.supported_at(chunk_support, len(case.output_sentences), p.k)
            for p in points]


def relevance_of(case: Case, verdicts: Sequence[bool | None],
                 labels: Sequence[bool | None] | None = None) -> list[bool | None]:
    """Per chunk: the person's label where there is one (`labels`), else the judge's
    verdict; None for a blank chunk or one neither judged nor labelled."""
    if len(verdicts) != len(case.context):
        raise JevalError(f"the sweep needs one verdict per chunk: {len(verdicts)} for "
                         f"{len(case.context)} chunks")
    out: list[bool | None] = []
    for i, verdict in enumerate(verdicts):
        label = labels[i] if labels is not None and i < len(labels) else None
        out.append(None if not has_text(case.context[i]) else
                   (label if label is not None else verdict))
    return out


def _point(kept: Sequence[int], relevant: Sequence[bool | None], tokens: Sequence[int],
           total: int, k: int, cutoff: float | None = None) -> KPoint:
    judged = [relevant[i] for i in kept if relevant[i] is not None]
    hits = sum(1 for r in judged if r)
    return KPoint(k=k, relevant=hits,
                  precision=hits / len(judged) if judged else None,
                  recall=hits / total if total else None,
                  tokens=sum(tokens[i] for i in kept), cutoff=cutoff)


def sweep(case: Case, relevant: Sequence[bool | None]) -> list[KPoint]:
    """k = 1..N in the retrieval's order: the same figures as scoring the case cut to its
    first k chunks."""
    tokens = [estimate(c) if has_text(c) else 0 for c in case.context]
    total = sum(1 for r in relevant if r)
    return [_point(range(k), relevant, tokens, total, k) for k in range(1, len(relevant) + 1)]


def by_score(case: Case, relevant: Sequence[bool | None]) -> list[KPoint]:
    """One point per distinct retriever score, highest first: the chunks scored at least that
    high kept. Empty when the pipeline gave no score."""
    scores = [m.score if (m := case.chunk_meta(i)) is not None else None
              for i in range(len(case.context))]
    known = sorted({s for s in scores if s is not None}, reverse=True)
    tokens = [estimate(c) if has_text(c) else 0 for c in case.context]
    total = sum(1 for r in relevant if r)
    out = []
    for cutoff in known:
        kept = [i for i, s in enumerate(scores) if s is not None and s >= cutoff]
        out.append(_point(kept, relevant, tokens, total, len(kept), cutoff))
    return out


def cost_usd(tokens: float, usd_per_million: float) -> float:
    """What a generator charging `usd_per_million` input tokens is paid for `tokens`."""
    return tokens * usd_per_million / 1e6


@dataclass(frozen=True)
class Choice:
    """The smallest k whose mean recall over a dataset's retrievals reaches the level asked,
    with a bootstrap interval of that mean recall (cases resampled)."""

    k: int
    recall: float
    interval: tuple[float, float]
    tokens: float  # mean context tokens per retrieval at k
    cases: int  # retrievals with at least one relevant chunk (recall is defined)
    tokens_every: float = 0.0  # mean context tokens of those retrievals' every chunk


def choose_k(sweeps: Sequence[Sequence[KPoint]], recall_at_least: float,
             resamples: int = 1000, seed: int = 0) -> Choice | None:
    """Across a dataset's sweeps: the fewest chunks (and so the fewest tokens) that keep mean
    recall at or above `recall_at_least`. A retrieval shorter than k keeps all it has. None
    when no retrieval has a relevant chunk or no k reaches the level."""
    defined = [s for s in sweeps if s and s[-1].recall is not None]
    if not defined:
        return None
    longest = max(len(s) for s in defined)
    recall = np.array([[s[min(k, len(s)) - 1].recall for k in range(1, longest + 1)]
                       for s in defined], dtype=float)
    tokens = np.array([[s[min(k, len(s)) - 1].tokens for k in range(1, longest + 1)]
                       for s in defined], dtype=float)
    means = recall.mean(axis=0)
    reached = np.flatnonzero(means >= recall_at_least - 1e-12)
    if not len(reached):
        return None
    k = int(reached[0]) + 1
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, len(defined), size=(resamples, len(defined)))
    boot = recall[picks, k - 1].mean(axis=1)
    lo, hi = np.quantile(boot, [0.025, 0.975])
    return Choice(k=k, recall=float(means[k - 1]), interval=(float(lo), float(hi)),
                  tokens=float(tokens[:, k - 1].mean()), cases=len(defined),
                  tokens_every=float(tokens[:, -1].mean()))


@dataclass(frozen=True)
class MeanPoint:
    """One k over a dataset's retrievals: the means per retrieval (a retrieval shorter than k
    keeps all it has; precision and recall over those where they are defined)."""

    k: int
    precision: float | None
    recall: float | None
    tokens: float
    supported: float | None = None


def means(sweeps: Sequence[Sequence[KPoint]]) -> list[MeanPoint]:
    """Per k, the mean of every retrieval's figures."""
    sweeps = [s for s in sweeps if s]
    if not sweeps:
        return []
    out = []
    for k in range(1, max(len(s) for s in sweeps) + 1):
        at = [s[min(k, len(s)) - 1] for s in sweeps]
        precision = [p.precision for p in at if p.precision is not None]
        recall = [p.recall for p in at if p.recall is not None]
        supported = [p.supported for p in at if p.supported is not None]
        out.append(MeanPoint(k, sum(precision) / len(precision) if precision else None,
                             sum(recall) / len(recall) if recall else None,
                             sum(p.tokens for p in at) / len(at),
                             sum(supported) / len(supported) if supported else None))
    return out


def relevance_of_result(case: Case, result: Result | None,
                        labels: Sequence[bool | None] | None = None) -> list[bool | None]:
    """Per chunk, from a scored case's chunk relevance result (none: labels alone), the
    person's label standing over the verdict."""
    verdicts: list[bool | None] = [None] * len(case.context)
    if result is not None and not result.skipped:
        for d in result.details:
            chunk = d.address.chunk
            if d.address.whole_chunk and chunk is not None and chunk < len(verdicts):
                verdicts[chunk] = d.yes
    return relevance_of(case, verdicts, labels)


def of_result(case: Case, result: Result | None,
              labels: Sequence[bool | None] | None = None) -> list[KPoint]:
    """A scored case's sweep, from its chunk relevance result."""
    return sweep(case, relevance_of_result(case, result, labels))


@dataclass(frozen=True)
class CutoffChoice:
    """The highest retriever-score cutoff (the fewest tokens) whose mean recall over a
    dataset's retrievals reaches the level asked, with a bootstrap interval."""

    cutoff: float
    recall: float
    interval: tuple[float, float]
    tokens: float  # mean context tokens per retrieval kept at the cutoff
    cases: int


def choose_cutoff(judged: Sequence[tuple[Case, Sequence[bool | None]]], recall_at_least: float,
                  resamples: int = 1000, seed: int = 0) -> CutoffChoice | None:
    """Across a dataset's retrievals (one retriever, one score scale): keep the chunks scored
    at least the cutoff. A chunk without a score is kept (nothing says to drop it). None when
    no chunk has a score, no retrieval has a relevant chunk, or no cutoff reaches the level."""
    rows = []
    for case, relevant in judged:
        total = sum(1 for r in relevant if r)
        if not total:
            continue
        scores = [m.score if (m := case.chunk_meta(i)) is not None else None
                  for i in range(len(case.context))]
        tokens = [estimate(c) if has_text(c) else 0 for c in case.context]
        rows.append((scores, relevant, tokens, total))
    known = sorted({s for scores, *_ in rows for s in scores if s is not None}, reverse=True)
    if not rows or not known:
        return None
    for cutoff in known:
        recall = np.array([sum(1 for s, r in zip(scores, relevant, strict=True)
                               if r and (s is None or s >= cutoff)) / total
                           for scores, relevant, _, total in rows])
        if recall.mean() >= recall_at_least - 1e-12:
            kept_tokens = float(np.mean([sum(t for s, t in zip(scores, tok, strict=True)
                                             if s is None or s >= cutoff)
                                         for scores, _, tok, _ in rows]))
            picks = np.random.default_rng(seed).integers(0, len(rows), (resamples, len(rows)))
            lo, hi = np.quantile(recall[picks].mean(axis=1), [0.025, 0.975])
            return CutoffChoice(float(cutoff), float(recall.mean()), (float(lo), float(hi)),
                                kept_tokens, len(rows))
    return None

"""Dataset metrics over many results (seed 000 "Aggregate with").

One result per item is a fact; a dataset of them is a metric. Undefined metrics (no scored
items, no predicted positives) are None, never a made-up 0.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from ..errors import JevalError
from ..results import Result
from . import ranking
from .ranking import precision_at_k

if TYPE_CHECKING:
    from ..inputs.datasets import DatasetRow
    from ..judges.base import Usage


def mean_score(results: Iterable[Result]) -> float | None:
    """Mean of the 0-1 scores of the results that were scored (skipped ones do not count)."""
    scores = [r.score for r in results if r.score is not None]
    return sum(scores) / len(scores) if scores else None


def pass_rate(results: Iterable[Result]) -> float | None:
    """Share of scored results that passed their threshold in their own direction."""
    verdicts = [r.passed for r in results if r.passed is not None]
    return sum(verdicts) / len(verdicts) if verdicts else None


@dataclass(frozen=True)
class VerdictMetrics:
    """Confusion counts of predicted verdicts against true labels, and what follows from them."""

    tp: int
    fp: int
    fn: int
    tn: int

    @property
    def precision(self) -> float | None:
        """Share of predicted positives that were really positive."""
        predicted = self.tp + self.fp
        return self.tp / predicted if predicted else None

    @property
    def recall(self) -> float | None:
        """Share of real positives that were caught."""
        actual = self.tp + self.fn
        return self.tp / actual if actual else None

    @property
    def f1(self) -> float | None:
        """Harmonic mean of precision and recall: high only when both are."""
        p, r = self.precision, self.recall
        if p is None or r is None:
            return None
        return 0.0 if p + r == 0 else 2 * p * r / (p + r)

    @property
    def accuracy(self) -> float | None:
        n = self.tp + self.fp + self.fn + self.tn
        return (self.tp + self.tn) / n if n else None


def verdict_metrics(predicted: Sequence[bool], actual: Sequence[bool]) -> VerdictMetrics:
    """Precision, recall and F1 of yes/no verdicts against true labels, item by item."""
    if len(predicted) != len(actual):
        raise JevalError(
            f"{len(predicted)} verdicts but {len(actual)} labels: give one label per item"
        )
    pairs = list(zip(predicted, actual, strict=True))
    return VerdictMetrics(
        tp=sum(1 for p, a in pairs if p and a),
        fp=sum(1 for p, a in pairs if p and not a),
        fn=sum(1 for p, a in pairs if not p and a),
        tn=sum(1 for p, a in pairs if not p and not a),
    )


def mean_precision_at_k(rankings: Iterable[Sequence[bool]], k: int) -> float | None:
    """precision@k averaged over queries (reranker evaluation); None for no queries."""
    values = [precision_at_k(r, k) for r in rankings]
    return sum(values) / len(values) if values else None


def auc(scores: Sequence[float], labels: Sequence[bool]) -> float | None:
    """Area under the ROC curve: the chance that a random positive scores above a random
    negative (ties count half). Rank-based, so it judges the ordering of p, not its
    calibration. None when one class is absent (there is nothing to separate)."""
    if len(scores) != len(labels):
        raise JevalError(f"{len(scores)} scores but {len(labels)} labels: give one label per "
                         "score")
    if not all(math.isfinite(s) for s in scores):
        raise JevalError("AUC needs finite scores: a score is NaN or infinite")
    positives = sum(1 for label in labels if label)
    negatives = len(labels) - positives
    if not positives or not negatives:
        return None
    order = sorted(range(len(scores)), key=scores.__getitem__)
    ranks = [0.0] * len(scores)
    start = 0
    while start < len(order):
        end = start
        while end + 1 < len(order) and scores[order[end + 1]] == scores[order[start]]:
            end += 1
        for i in order[start:end + 1]:
            ranks[i] = (start + end) / 2 + 1  # tied scores share their mean rank
        start = end + 1
    rank_sum = sum(r for r, label in zip(ranks, labels, strict=True) if label)
    return (rank_sum - positives * (positives + 1) / 2) / (positives * negatives)


# --- a dataset run's summary ----------------------------------------------------------------

KS = (1, 3, 5)
CHUNK_RELEVANCE = "chunk_relevance"


class Scored(Protocol):
    """What a summary reads of one case's report (a scoring.Report, or one read back from
    the run store)."""

    @property
    def results(self) -> Mapping[str, Result]: ...
    @property
    def usage(self) -> Usage: ...
    @property
    def cost_usd(self) -> float: ...
    @property
    def passed(self) -> bool | None: ...


class Scoring(Protocol):
    """What a summary reads of one row's outcome (batch.Outcome): whose it is, and the
    report, or None when the row errored."""

    @property
    def index(self) -> int: ...
    @property
    def report(self) -> Scored | None: ...


@dataclass(frozen=True)
class EvaluatorSummary:
    """One evaluator over the cases that ran it."""

    name: str
    scored: int = 0
    skipped: int = 0  # ran but had nothing to judge ("needs `expected`")
    passed: int = 0
    failed: int = 0
    mean_score: float | None = None

    @property
    def pass_rate(self) -> float | None:
        return self.passed / self.scored if self.scored else None

    def to_dict(self) -> dict[str, Any]:
        return {"scored": self.scored, "skipped": self.skipped, "passed": self.passed,
                "failed": self.failed, "mean_score": self.mean_score,
                "pass_rate": self.pass_rate}

    @classmethod
    def from_dict(cls, name: str, data: Mapping[str, Any]) -> EvaluatorSummary:
        return cls(name, int(data.get("scored", 0)), int(data.get("skipped", 0)),
                   int(data.get("passed", 0)), int(data.get("failed", 0)),
                   data.get("mean_score"))


@dataclass(frozen=True)
class ChunkSummary:
    """chunk_relevance's per-chunk verdicts against a human's labels: how far to trust the
    judge on this data. `auc` reads p itself, so it is blind to the 0.5 cut-off."""

    cases: int
    chunks: int
    verdicts: VerdictMetrics
    auc: float | None

    def to_dict(self) -> dict[str, Any]:
        v = self.verdicts
        return {"cases": self.cases, "chunks": self.chunks, "tp": v.tp, "fp": v.fp,
                "fn": v.fn, "tn": v.tn, "precision": v.precision, "recall": v.recall,
                "f1": v.f1, "accuracy": v.accuracy, "auc": self.auc}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ChunkSummary:
        counts = VerdictMetrics(*(int(data.get(k, 0)) for k in ("tp", "fp", "fn", "tn")))
        return cls(int(data.get("cases", 0)), int(data.get("chunks", 0)), counts,
                   data.get("auc"))


def _at_k(rankings: Sequence[Sequence[bool]], ks: Sequence[int]) -> dict[int, float | None]:
    return {k: mean_precision_at_k(rankings, k) for k in ks}


@dataclass(frozen=True)
class RankingSummary:
    """Mean precision@k of the retriever's order and, where rows give one, the reranked order.

    `source` says what decided relevance: "labels" (a human) or "judge" (chunk_relevance's
    verdicts, available without labels). The reranked order is compared with the retriever
    on the same rows only (`retriever_on_reranked`), so the two columns are a fair pair.
    """

    source: str
    cases: int
    retriever: dict[int, float | None]
    reranked_cases: int = 0
    retriever_on_reranked: dict[int, float | None] = field(default_factory=dict)
    reranked: dict[int, float | None] = field(default_factory=dict)
    # The other ranking metrics per order ("retriever", "retriever_on_reranked", "reranked"):
    # {"recall@3": ..., "hit@1": ..., "ndcg@5": ..., "mrr": ...}, each a mean over queries.
    more: dict[str, dict[str, float | None]] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        def named(values: Mapping[int, float | None], order: str) -> dict[str, float | None]:
            return {**{f"p@{k}": v for k, v in values.items()}, **self.more.get(order, {})}

        return {
            "source": self.source,
            "cases": self.cases,
            "retriever": named(self.retriever, "retriever"),
            "reranked": None if not self.reranked_cases else {
                "cases": self.reranked_cases,
                "retriever": named(self.retriever_on_reranked, "retriever_on_reranked"),
                "reranked": named(self.reranked, "reranked"),
            },
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RankingSummary:
        def at_k(values: Mapping[str, float | None] | None) -> dict[int, float | None]:
            return {int(k.removeprefix("p@")): v for k, v in (values or {}).items()
                    if k.startswith("p@")}

        def rest(values: Mapping[str, float | None] | None) -> dict[str, float | None]:
            return {k: v for k, v in (values or {}).items() if not k.startswith("p@")}

        again = data.get("reranked") or {}
        more = {"retriever": rest(data.get("retriever")),
                "retriever_on_reranked": rest(again.get("retriever")),
                "reranked": rest(again.get("reranked"))}
        return cls(str(data.get("source", "labels")), int(data.get("cases", 0)),
                   at_k(data.get("retriever")), int(again.get("cases", 0)),
                   at_k(again.get("retriever")), at_k(again.get("reranked")),
                   {k: v for k, v in more.items() if v})


def _ranking(source: str, orders: Sequence[tuple[Sequence[bool], Sequence[bool] | None]],
             ks: Sequence[int]) -> RankingSummary | None:
    """`orders`: per row, relevance in retriever order and, if any, in reranked order."""
    if not orders:
        return None
    paired = [(first, second) for first, second in orders if second is not None]
    more = {"retriever": _more([first for first, _ in orders], ks)}
    if paired:
        more["retriever_on_reranked"] = _more([first for first, _ in paired], ks)
        more["reranked"] = _more([second for _, second in paired], ks)
    return RankingSummary(
        source=source,
        cases=len(orders),
        retriever=_at_k([first for first, _ in orders], ks),
        reranked_cases=len(paired),
        retriever_on_reranked=_at_k([first for first, _ in paired], ks) if paired else {},
        reranked=_at_k([second for _, second in paired], ks) if paired else {},
        more=more,
    )


def _more(rankings: Sequence[Sequence[bool]], ks: Sequence[int]) -> dict[str, float | None]:
    """recall@k, hit rate@k, nDCG@k and MRR, each averaged over the queries that define it."""
    out: dict[str, float | None] = {}
    for name, metric in (("recall", ranking.recall_at_k), ("ndcg", ranking.ndcg_at_k),
                         ("hit", ranking.hit_at_k)):
        for k in ks:
            out[f"{name}@{k}"] = ranking.mean(metric(r, k) for r in rankings)
    out["mrr"] = ranking.mean(ranking.reciprocal_rank(r) for r in rankings)
    return out


@dataclass(frozen=True)
class Summary:
    """A dataset run in numbers. Every metric that has nothing to stand on is None."""

    cases: int
    passed: int = 0
    failed: int = 0
    errored: int = 0  # the judge could not answer, the request was over budget, a bug
    incomplete: int = 0  # nothing failed, but an attached evaluator was skipped: not a pass
    pending: int = 0  # no outcome yet (a run cancelled or still going)
    evaluators: dict[str, EvaluatorSummary] = field(default_factory=dict)
    chunks: ChunkSummary | None = None
    ranking: RankingSummary | None = None  # relevance from the labels
    judge_ranking: RankingSummary | None = None  # relevance from chunk_relevance's verdicts
    input_tokens: int = 0
    requests: int = 0
    cost_usd: float = 0.0

    @property
    def pass_rate(self) -> float | None:
        """Share of the scored cases that passed: an incomplete case is not a pass."""
        decided = self.passed + self.failed + self.incomplete
        return self.passed / decided if decided else None

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe: plain numbers, strings and None."""
        return {
            "cases": self.cases, "passed": self.passed, "failed": self.failed,
            "errored": self.errored, "incomplete": self.incomplete, "pending": self.pending,
            "pass_rate": self.pass_rate,
            "evaluators": {name: e.to_dict() for name, e in self.evaluators.items()},
            "chunks": self.chunks.to_dict() if self.chunks else None,
            "ranking": self.ranking.to_dict() if self.ranking else None,
            "judge_ranking": self.judge_ranking.to_dict() if self.judge_ranking else None,
            "usage": {"input_tokens": self.input_tokens, "requests": self.requests,
                      "cost_usd": self.cost_usd},
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Summary:
        """The summary `to_dict` wrote (a stored run's aggregates); a key an older jeval did
        not write reads as its default."""
        def part(key: str, read: Any) -> Any:
            found = data.get(key)
            return read(found) if found else None

        usage = data.get("usage") or {}
        return cls(
            cases=int(data.get("cases", 0)), passed=int(data.get("passed", 0)),
            failed=int(data.get("failed", 0)), errored=int(data.get("errored", 0)),
            incomplete=int(data.get("incomplete", data.get("unscored", 0))),
            pending=int(data.get("pending", 0)),
            evaluators={name: EvaluatorSummary.from_dict(name, e)
                        for name, e in (data.get("evaluators") or {}).items()},
            chunks=part("chunks", ChunkSummary.from_dict),
            ranking=part("ranking", RankingSummary.from_dict),
            judge_ranking=part("judge_ranking", RankingSummary.from_dict),
            input_tokens=int(usage.get("input_tokens", 0)),
            requests=int(usage.get("requests", 0)), cost_usd=float(usage.get("cost_usd", 0.0)))


def chunk_verdicts(result: Result) -> dict[int, tuple[bool, float]]:
    """chunk_relevance's (yes, p) by context index. Blank chunks are not asked, so the
    index is read from what each detail judged (its address), never from its position."""
    return {d.address.chunk: (d.yes, d.p) for d in result.details
            if d.address.whole_chunk and d.address.chunk is not None}


def summarise(rows: Sequence[DatasetRow], outcomes: Iterable[Scoring],
              ks: Sequence[int] = KS) -> Summary:
    """A dataset run's aggregates. `outcome.index` is the row's position in `rows`; rows
    without an outcome are pending. Label metrics use only chunks the judge was asked
    about (blank chunks are not); precision@k from labels is the retriever's truth and
    needs no judge, so every labelled row given counts."""
    by_index = {o.index: o for o in outcomes}
    passed = failed = errored = incomplete = pending = 0
    tokens = requests = 0
    cost = 0.0
    per_evaluator: dict[str, list[Result]] = {}
    predicted: list[bool] = []
    actual: list[bool] = []
    ps: list[float] = []
    chunk_cases = 0
    label_orders: list[tuple[Sequence[bool], Sequence[bool] | None]] = []
    judge_orders: list[tuple[Sequence[bool], Sequence[bool] | None]] = []
    for i, row in enumerate(rows):
        if row.ranked_labels is not None:
            label_orders.append((row.ranked_labels, row.reranked_labels()))
        outcome = by_index.get(i)
        if outcome is None:
            pending += 1
            continue
        report = outcome.report
        if report is None:
            errored += 1
            continue
        verdict = report.passed
        passed += verdict is True
        failed += verdict is False
        incomplete += verdict is None
        tokens += report.usage.input_tokens
        requests += report.usage.requests
        cost += report.cost_usd
        for name, result in report.results.items():
            per_evaluator.setdefault(name, []).append(result)
        relevance = report.results.get(CHUNK_RELEVANCE)
        if relevance is None or relevance.skipped:
            continue
        verdicts = chunk_verdicts(relevance)
        judged = [verdicts.get(c, (False, 0.0))[0] for c in range(len(row.case.context))]
        again = None if row.reranked is None else [judged[c] for c in row.reranked]
        judge_orders.append((judged, again))
        if row.labels is not None and verdicts:
            chunk_cases += 1
            for c, (yes, p) in sorted(verdicts.items()):
                if c < len(row.labels) and row.labels[c] is not None:
                    predicted.append(yes)
                    actual.append(bool(row.labels[c]))
                    ps.append(p)
    return Summary(
        cases=len(rows), passed=passed, failed=failed, errored=errored, incomplete=incomplete,
        pending=pending,
        evaluators={name: _evaluator(name, results) for name, results in per_evaluator.items()},
        chunks=ChunkSummary(chunk_cases, len(predicted), verdict_metrics(predicted, actual),
                            auc(ps, actual)) if predicted else None,
        ranking=_ranking("labels", label_orders, ks),
        judge_ranking=_ranking("judge", judge_orders, ks),
        input_tokens=tokens, requests=requests, cost_usd=cost,
    )


def _evaluator(name: str, results: Sequence[Result]) -> EvaluatorSummary:
    verdicts = [r.passed for r in results if r.passed is not None]
    return EvaluatorSummary(
        name=name,
        scored=len(verdicts),
        skipped=sum(1 for r in results if r.skipped),
        passed=sum(1 for v in verdicts if v),
        failed=sum(1 for v in verdicts if not v),
        mean_score=mean_score(results),
    )

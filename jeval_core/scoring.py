"""Score one case: evaluators emit questions -> one packed request -> a judge -> reduce.

The request's model is decided here and only here (`prepare`): the judge's own model, or the
default. Thresholds are settings of a run: `Report.with_thresholds` re-reduces the answers
already given, without asking the judge again.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from . import evaluators as registry
from . import judges, wire
from .address import Address
from .case import Case
from .evaluators import Evaluator
from .evaluators.base import threshold_clause
from .judges import Answers, Judge, Usage
from .judges.base import Direct, Span
from .request import Packed, pack
from .results import UNSURE, Result, case_passed, case_undecided


@dataclass(frozen=True)
class DetailRow:
    """One question's row as pages and exports show it: its detail and the text it judged."""

    id: str
    address: Address
    text: str  # the judged chunk, sentence or field
    p: float
    yes: bool
    verdict: str
    unsure: bool
    question: str
    evidence: tuple[Span, ...]

    @property
    def judged(self) -> str:
        return str(self.address)


@dataclass(frozen=True)
class Report:
    """Everything one scoring produced: per-evaluator results, the request, and its cost."""

    judge: str
    results: dict[str, Result]
    packed: Packed
    usage: Usage
    latency_s: float
    approximates: bool
    answers: dict[str, float] = field(default_factory=dict)  # p(true) by question id as sent
    evidence: dict[str, tuple[Span, ...]] = field(default_factory=dict)  # by id as sent
    thresholds: dict[str, float] = field(default_factory=dict)  # the ones set for this run
    unsure: frozenset[str] = frozenset()  # ids as sent whose p is in the judge's unsure band
    price_per_billion_input_tokens: float = wire.PRICE_PER_BILLION_INPUT_TOKENS_USD
    model: str | None = None
    request_id: str | None = None
    calibration: str | None = None  # the calibration profile that judged, if any
    direct: dict[str, Direct] = field(default_factory=dict)  # scores the judge gave whole

    @property
    def passed(self) -> bool | None:
        """True only if every scored evaluator passed; None when nothing could be scored."""
        return case_passed(self.results)

    @property
    def undecided(self) -> bool:
        """Every verdict reads unsure: the judge could not decide the case."""
        return case_undecided(self.results)

    @property
    def cost_usd(self) -> float:
        """What this judge billed (0 for offline judges)."""
        return self.usage.input_tokens * self.price_per_billion_input_tokens / 1e9

    def with_thresholds(self, thresholds: Mapping[str, float]) -> Report:
        """The same answers reduced at other thresholds; the judge is not asked again."""
        merged = {**self.thresholds, **thresholds}
        return replace(self, results=reduce_all(self.packed, self.answers, merged,
                                                self.evidence, self.unsure, self.direct,
                                                self.approximates),
                       thresholds=merged)

    def evaluator(self, name: str) -> Evaluator:
        """The evaluator that produced the result `name` (a custom one too)."""
        return next(e for e in self.packed.selected if e.name == name)

    def rows(self, evaluator: str) -> list[DetailRow]:
        """One row per question of `evaluator`: what it judged (where and the text), p, verdict."""
        result = self.results[evaluator]
        texts = {q.id: q.subject.text for q in self.packed.plan.get(evaluator, [])}
        return [DetailRow(d.id, d.address, texts.get(d.id, ""), d.p, d.yes, d.verdict, d.unsure,
                          d.question, d.evidence) for d in result.details]

    def questions(self) -> list[dict[str, Any]]:
        """The questions as sent (shared ones once): id, verbatim text, p(true)."""
        return [{"id": wid, "question": q.text, "p": self.answers.get(wid)}
                for wid, q in self.packed.asked.items()]

    def to_dict(self) -> dict[str, Any]:
        """The `jeval score --format json` contract."""
        return {
            "judge": self.judge,
            "approximates": self.approximates,
            "model": self.model,
            "request_id": self.request_id,
            **({"calibration": self.calibration} if self.calibration else {}),
            "results": {name: r.to_dict() for name, r in self.results.items()},
            "passed": self.passed,
            "request": self.packed.body,
            "usage": self.usage.to_dict(),
            "cost_usd": self.cost_usd,
            "estimate": {
                "input_tokens": self.packed.tokens.total,
                "cost_usd": self.packed.cost_usd,
                "note": "what the hosted Jev judge would bill for this request (estimate)",
            },
        }


def prepare(case: Case, chosen: Sequence[Evaluator] | None, judge: Judge) -> Packed:
    """The request `judge` will receive for `case`: held to Jev's token budgets when it goes
    to a server (`base_url`); an offline judge sends nothing, and reads a long chunk in
    windows of its own."""
    selected = registry.defaults(case) if chosen is None else registry.resolve(list(chosen))
    asks_a_server = judge.base_url is not None
    packed = pack(case, selected, judge.model or wire.DEFAULT_MODEL, budgets=asks_a_server)
    if asks_a_server:
        packed.check_budget()
    return packed


def run(packed: Packed, judge: Judge, thresholds: Mapping[str, float] | None = None) -> Report:
    """Ask `judge` the packed questions (nothing is sent when there are none) and reduce."""
    started = time.perf_counter()
    # An offline judge costs nothing to ask, and may score a skipped evaluator whole (devx)
    ask = bool(packed.asked) or (judge.approximates and bool(packed.skipped))
    answers = judge.answer(packed) if ask else Answers({})
    latency = time.perf_counter() - started
    chosen = dict(thresholds or {})
    return Report(
        judge=judge.name,
        results=reduce_all(packed, answers.p, chosen, answers.evidence, answers.unsure,
                           answers.direct, judge.approximates),
        packed=packed,
        usage=answers.usage,
        latency_s=latency,
        approximates=judge.approximates,
        answers=dict(answers.p),
        evidence=dict(answers.evidence),
        thresholds=chosen,
        unsure=answers.unsure,
        price_per_billion_input_tokens=judge.price_per_billion_input_tokens,
        model=answers.model,
        request_id=answers.request_id,
        calibration=judge.calibration,
        direct=dict(answers.direct),
    )


def score(
    case: Case,
    chosen: Sequence[Evaluator] | None = None,
    judge: Judge | None = None,
    thresholds: Mapping[str, float] | None = None,
) -> Report:
    """Score `case` with the evaluators `chosen` (default: all that apply) in one request.

    The judge defaults to the local one (offline, no key).
    """
    judge = judge or judges.get(judges.DEFAULT)
    return run(prepare(case, chosen, judge), judge, thresholds)


def reduce_all(
    packed: Packed, answers: Mapping[str, float], thresholds: Mapping[str, float],
    evidence: Mapping[str, tuple[Span, ...]] | None = None,
    unsure: frozenset[str] = frozenset(),
    direct: Mapping[str, Direct] | None = None,
    approximates: bool = False,
) -> dict[str, Result]:
    """Each evaluator's result from the shared answers, in the order they were selected;
    each detail row carries the judge's evidence for its question, when it gave any, and
    reads "unsure" where the judge's p is in its unsure band. A score the judge gave whole
    (`direct`) replaces the share of yes, with its formula in the reason. A custom evaluator
    answered by an offline judge (`approximates`) is marked approximate."""
    results: dict[str, Result] = {}
    for evaluator in packed.selected:
        threshold = thresholds.get(evaluator.name, evaluator.threshold)
        whole = (direct or {}).get(evaluator.name)
        if evaluator.name in packed.skipped:
            skipped = evaluator.skip(packed.skipped[evaluator.name], threshold)
            results[evaluator.name] = skipped if whole is None else _scored_whole(skipped, whole)
            continue
        qs = packed.plan[evaluator.name]
        mine = {q.id: answers[packed.wire_ids[q.id]] for q in qs}
        result = evaluator.reduce(qs, mine, threshold)
        if evidence:
            why = {q.id: evidence.get(packed.wire_ids[q.id], ()) for q in qs}
            result = replace(result, details=tuple(replace(d, evidence=why.get(d.id, ()))
                                                   for d in result.details))
        doubtful = {q.id for q in qs if packed.wire_ids[q.id] in unsure}
        if doubtful:
            result = replace(result, details=tuple(
                replace(d, unsure=True, verdict=UNSURE) if d.id in doubtful else d
                for d in result.details))
        if whole is not None:
            result = _scored_whole(result, whole)
        if approximates and evaluator.custom:
            result = replace(result, approximate=True)
        results[evaluator.name] = result
    return results


def _scored_whole(result: Result, whole: Direct) -> Result:
    """The result with the judge's own score and formula (the rows kept where they mean
    something about it)."""
    clause = threshold_clause(whole.score, result.threshold, result.higher_is_better)
    return replace(result, score=whole.score, share=None, reason=f"{whole.formula}: {clause}.",
                   details=result.details if whole.per_question else ())

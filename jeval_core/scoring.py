"""Score one case: evaluators emit questions -> one packed request -> a judge -> reduce."""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from . import evaluators, judges
from .case import Case
from .errors import JudgeError
from .judges import Answers, Judge, Usage
from .request import DEFAULT_MODEL, Packed, cost_usd, default_evaluators, pack
from .results import Result, case_passed


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
    model: str | None = None
    request_id: str | None = None

    @property
    def passed(self) -> bool | None:
        """True only if every scored evaluator passed; None when nothing could be scored."""
        return case_passed(self.results)

    @property
    def cost_usd(self) -> float:
        return cost_usd(self.usage.input_tokens)

    def rows(self, evaluator: str) -> list[dict[str, Any]]:
        """One row per question of `evaluator`: what it judged (name and text), p, verdict."""
        result = self.results[evaluator]
        questions = {q.id: q for q in self.packed.plan.get(evaluator, [])}
        rows = []
        for d in result.details:
            subject = questions[d.id].subject
            text = subject.resolve(self.packed.state)
            rows.append({"id": d.id, "judged": str(subject),
                         "text": text if isinstance(text, str) else "", "p": d.p,
                         "verdict": d.verdict, "question": d.question})
        return rows

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


def score(
    case: Case,
    names: Sequence[str] | None = None,
    judge: Judge | None = None,
    model: str = DEFAULT_MODEL,
) -> Report:
    """Score `case` with the evaluators `names` (default: all that apply) in one request.

    The judge defaults to the local one (offline, no key). A judge with its own `model`
    (the hosted one) decides the model named in the request.
    """
    if judge is None:
        judge = judges.get(judges.DEFAULT)
    names = list(names) if names else default_evaluators(case)
    packed = pack(case, names, getattr(judge, "model", None) or model)
    packed.check_budget()
    started = time.perf_counter()
    answers = judge.answer(packed.state, packed.asked) if packed.asked else Answers({})
    latency = time.perf_counter() - started
    _check_answers(judge.name, packed, answers)
    return Report(
        judge=judge.name,
        results=reduce_all(packed, answers),
        packed=packed,
        usage=answers.usage,
        latency_s=latency,
        approximates=judge.approximates,
        answers=dict(answers.p),
        model=answers.model,
        request_id=answers.request_id,
    )


def reduce_all(packed: Packed, answers: Answers) -> dict[str, Result]:
    """Each evaluator's result from the shared answers, in the order they were selected."""
    results: dict[str, Result] = {}
    for name in packed.selected:
        evaluator = evaluators.get(name)
        if name in packed.skipped:
            results[name] = evaluator.skip(packed.skipped[name])
            continue
        qs = packed.plan[name]
        mine = {q.id: answers.p[packed.wire_ids[q.id]] for q in qs}
        results[name] = evaluator.reduce(qs, mine, evaluator.threshold)
    return results


def _check_answers(judge: str, packed: Packed, answers: Answers) -> None:
    missing = [wid for wid in packed.asked if wid not in answers.p]
    if missing:
        raise JudgeError(
            f"the {judge} judge did not answer {len(missing)} question(s) ({missing[0]}, ...); "
            "try again or pick another judge"
        )
    for wid in packed.asked:
        p = answers.p[wid]
        if not isinstance(p, (int, float)) or not math.isfinite(p) or not 0.0 <= p <= 1.0:
            raise JudgeError(
                f"the {judge} judge answered {wid} with {p!r}, not a probability in [0, 1]; "
                "check the judge's base URL points at a Jev-compatible server"
            )

"""Pack every selected evaluator's questions into ONE System One request (DESIGN §3).

Identical questions are asked once and shared; the state carries the case's fields plus the
derived lists the questions name. Token counts here are estimates (about four characters of
compact JSON per token); a judge's own usage replaces them once it has answered.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from . import evaluators
from .case import Case
from .errors import BudgetError
from .questions import Question

DEFAULT_MODEL = "jev-latest"
TOTAL_BUDGET = 65_536  # state + all questions
STATE_PLUS_QUESTION_BUDGET = 32_768  # state + the longest question
PRICE_PER_BILLION_INPUT_TOKENS_USD = 42.0  # output tokens are free
CHARS_PER_TOKEN = 4
DERIVED = ("output_sentences", "expected_sentences", "context_statements")


def estimate_tokens(value: Any) -> int:
    """Estimated tokens of a JSON value as sent: compact JSON length / 4, rounded up."""
    text = value if isinstance(value, str) else _compact(value)
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def cost_usd(input_tokens: int) -> float:
    """Dollars for `input_tokens` at $42 per billion input tokens."""
    return input_tokens * PRICE_PER_BILLION_INPUT_TOKENS_USD / 1e9


@dataclass(frozen=True)
class Tokens:
    """Estimated input tokens of one request, split the way Jev's two budgets count them."""

    state: int
    questions: int
    longest_question: int

    @property
    def total(self) -> int:
        return self.state + self.questions

    @property
    def state_plus_longest(self) -> int:
        return self.state + self.longest_question


@dataclass(frozen=True)
class Packed:
    """One request body and the bookkeeping to route its answers back to each evaluator."""

    body: dict[str, Any]
    selected: tuple[str, ...]  # evaluator names in the order the user picked them
    plan: dict[str, list[Question]]  # evaluator -> its own questions (ids are its own)
    skipped: dict[str, str]  # evaluator -> why it asks nothing ("needs `expected`")
    wire_ids: dict[str, str]  # an evaluator's question id -> the id it is asked under
    tokens: Tokens
    parts: tuple[tuple[str, int], ...]  # (state name, estimated tokens) largest contributors

    @cached_property
    def asked(self) -> dict[str, Question]:
        """The questions actually sent, by wire id (after sharing identical ones)."""
        first: dict[str, Question] = {}
        for qs in self.plan.values():
            for q in qs:
                first.setdefault(self.wire_ids[q.id], q)
        return first

    @property
    def state(self) -> dict[str, Any]:
        return self.body["state"]

    @property
    def cost_usd(self) -> float:
        """Estimated cost of this request."""
        return cost_usd(self.tokens.total)

    def budget_problem(self) -> str | None:
        """One line saying which budget is exceeded, by what, and what to cut; None if fine."""
        t = self.tokens
        if t.state_plus_longest > STATE_PLUS_QUESTION_BUDGET:
            over = t.state_plus_longest - STATE_PLUS_QUESTION_BUDGET
            what = (f"state plus its longest question is ~{t.state_plus_longest:,} tokens "
                    f"(estimate), over Jev's {STATE_PLUS_QUESTION_BUDGET:,} budget by ~{over:,}")
        elif t.total > TOTAL_BUDGET:
            over = t.total - TOTAL_BUDGET
            what = (f"state plus all {len(self.body['questions'])} questions is ~{t.total:,} "
                    f"tokens (estimate), over Jev's {TOTAL_BUDGET:,} budget by ~{over:,}")
        else:
            return None
        culprits = _largest_covering(self.parts, over)
        names = ", ".join(f"{name} (~{n:,} tokens)" for name, n in culprits)
        if all(name.startswith("context[") for name, _ in culprits):
            fix = "split them into smaller chunks or remove them"
        else:
            fix = "shorten them, or split the context into smaller chunks"
        return f"request too large: {what}; largest parts: {names}; {fix}"

    def check_budget(self) -> None:
        problem = self.budget_problem()
        if problem:
            raise BudgetError(problem)


def one_call_per_question(packed: Packed) -> tuple[int, int]:
    """(requests, estimated input tokens) if each question went alone with just its operands.

    That is how RAGAS (a call per chunk) and DeepEval (a call per verdict) ask; their prompt
    templates come on top of this, so the figure understates what they send.
    """
    tokens = 0
    for wid, q in packed.asked.items():
        state = {str(ref): ref.resolve(packed.state) for ref in (q.subject, *q.against)}
        tokens += estimate_tokens(state) + estimate_tokens({wid: q.wire()})
    return len(packed.asked), tokens


def default_evaluators(case: Case) -> list[str]:
    """chunk_relevance plus every evaluator whose fields the case has."""
    chosen = [n for n, e in evaluators.EVALUATORS.items() if e.missing(case) is None]
    if evaluators.chunk_relevance.NAME not in chosen:
        chosen.insert(0, evaluators.chunk_relevance.NAME)
    return chosen


def pack(case: Case, names: Sequence[str], model: str = DEFAULT_MODEL) -> Packed:
    """The one request that asks every question of the evaluators `names` about `case`."""
    plan: dict[str, list[Question]] = {}
    skipped: dict[str, str] = {}
    selected = tuple(dict.fromkeys(names))
    for name in selected:
        evaluator = evaluators.get(name)
        reason = evaluator.missing(case)
        qs = [] if reason else evaluator.questions(case)
        if not reason and not qs:
            reason = "nothing to judge: no sentences or chunks in this case"
        if reason:
            skipped[name] = reason
        else:
            plan[name] = qs

    wire_ids: dict[str, str] = {}
    by_key: dict[Any, str] = {}
    wire: dict[str, Any] = {}
    for qs in plan.values():
        for q in qs:
            wid = by_key.setdefault(q.key, q.id)
            wire_ids[q.id] = wid
            if wid == q.id:
                wire[wid] = q.wire()

    state = _state(case, (q for qs in plan.values() for q in qs))
    body = {"model": model, "state": state, "questions": wire}
    q_tokens = [estimate_tokens({wid: q}) for wid, q in wire.items()]
    tokens = Tokens(estimate_tokens(state), sum(q_tokens), max(q_tokens, default=0))
    return Packed(body, selected, plan, skipped, wire_ids, tokens, _parts(state))


def _state(case: Case, questions: Iterable[Question]) -> dict[str, Any]:
    named = {n for q in questions for n in q.names()}
    state: dict[str, Any] = {"input": case.input, "output": case.output}
    if case.expected is not None or "expected" in named:
        # Seed 000's fixed text names `expected` "if present": say plainly that it is not.
        state["expected"] = case.expected
    state["context"] = list(case.context)
    for name in DERIVED:
        if name in named:
            state[name] = case.value(name)
    return state


def _parts(state: dict[str, Any]) -> tuple[tuple[str, int], ...]:
    """Estimated tokens each field or chunk adds to the state, largest first."""
    repeat = 2 if "context_statements" in state else 1  # its sentences repeat every chunk
    parts = [(n, estimate_tokens(state[n])) for n in ("input", "output", "expected") if n in state]
    chunks = enumerate(state["context"])
    parts += [(f"context[{i}]", estimate_tokens(c) * repeat) for i, c in chunks]
    return tuple(sorted(parts, key=lambda p: -p[1]))


def _largest_covering(parts: Sequence[tuple[str, int]], over: int) -> list[tuple[str, int]]:
    """The fewest largest parts whose removal would bring the request under budget (max 5)."""
    picked: list[tuple[str, int]] = []
    for part in parts:
        picked.append(part)
        if sum(n for _, n in picked) >= over or len(picked) == 5:
            break
    return picked


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))

"""Pack every selected evaluator's questions into ONE System One request.

Identical questions are asked once and shared. The state carries only what the questions
name, and no text twice: a field that questions address sentence by sentence (`output[1]`,
`context[2][0]`) is sent as the list of its sentences instead of as one string beside it.
Token counts here are estimates; a judge's own usage replaces them once it has answered.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from . import wire
from .case import Case
from .errors import BudgetError
from .evaluators import Evaluator
from .questions import Question

_ROOT = re.compile(r"`([A-Za-z_]+)")  # the state names a template mentions


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
    selected: tuple[Evaluator, ...]  # in the order the user picked them
    plan: dict[str, list[Question]]  # evaluator name -> its own questions (its own ids)
    skipped: dict[str, str]  # evaluator name -> why it asks nothing ("needs `expected`")
    wire_ids: dict[str, str]  # an evaluator's question id -> the id it is asked under
    tokens: Tokens
    parts: tuple[tuple[str, int], ...]  # (state name, estimated tokens), largest first
    # The whole case: offline judges read its answer beside the chunks even when no question
    # names it (the hosted judge is sent only what the questions name).
    case: Case | None = None

    @cached_property
    def asked(self) -> dict[str, Question]:
        """The questions actually sent, by wire id (after sharing identical ones)."""
        first: dict[str, Question] = {}
        for qs in self.plan.values():
            for q in qs:
                first.setdefault(self.wire_ids[q.id], q)
        return first

    @property
    def model(self) -> str:
        return str(self.body["model"])

    @property
    def state(self) -> dict[str, Any]:
        return self.body["state"]

    @property
    def cost_usd(self) -> float:
        """Estimated cost of this request on the hosted judge."""
        return wire.cost_usd(self.tokens.total)

    def budget_problem(self) -> str | None:
        """One line: which budget is over, by how much, and what to cut; None if it fits."""
        return _budget_problem(self.tokens, self.parts, self.plan)

    def check_budget(self) -> None:
        problem = self.budget_problem()
        if problem:
            raise BudgetError(problem)


def pack(case: Case, chosen: Sequence[Evaluator], model: str = wire.DEFAULT_MODEL,
         budgets: bool = True) -> Packed:
    """The one request that asks every question of the evaluators `chosen` about `case`.

    With `budgets` (a request a server will read), a case whose text alone is over Jev's
    budget is refused before any sentence is split; an offline judge makes no request, and
    packs without them.
    """
    selected = tuple(dict.fromkeys(chosen))
    if budgets:
        _precheck(case, [e for e in selected if e.missing(case) is None])
    plan: dict[str, list[Question]] = {}
    skipped: dict[str, str] = {}
    for evaluator in selected:
        reason = evaluator.missing(case)
        qs = [] if reason else evaluator.questions(case)
        if not reason and not qs:
            reason = "nothing to judge: no sentences or chunks in this case"
        if reason:
            skipped[evaluator.name] = reason
        else:
            plan[evaluator.name] = qs

    wire_ids: dict[str, str] = {}
    by_key: dict[Any, str] = {}
    questions: dict[str, Any] = {}
    for qs in plan.values():
        for q in qs:
            wid = by_key.setdefault(q.key, q.id)
            wire_ids[q.id] = wid
            if wid == q.id:
                questions[wid] = q.wire()

    state = state_for(case, [q for qs in plan.values() for q in qs])
    q_tokens = [wire.estimate_tokens({wid: q}) for wid, q in questions.items()]
    tokens = Tokens(wire.estimate_tokens(state), sum(q_tokens), max(q_tokens, default=0))
    return Packed(wire.body(model, state, questions), selected, plan, skipped, wire_ids,
                  tokens, _parts(state), case)


def state_for(case: Case, questions: Sequence[Question]) -> dict[str, Any]:
    """The case's fields that `questions` name, each in the shape its names need."""
    depth: dict[str, int] = {}
    for q in questions:
        for name, d in q.names().items():
            depth[name] = max(depth.get(name, 0), d)
    state: dict[str, Any] = {}
    if "input" in depth:
        state["input"] = case.input
    if "output" in depth:
        state["output"] = list(case.output_sentences) if depth["output"] else case.output
    if "expected" in depth:
        # Seed 000's fixed text names `expected` "if present": say plainly when it is not.
        if case.expected is None:
            state["expected"] = None
        else:
            state["expected"] = (list(case.expected_sentences) if depth["expected"]
                                 else case.expected)
    if "context" in depth:
        state["context"] = ([list(s) for s in case.chunk_sentences] if depth["context"] > 1
                            else list(case.context))
    return state


def _precheck(case: Case, asking: Sequence[Evaluator]) -> None:
    """Refuse a case whose raw text is over the state budget before splitting anything."""
    named = {m.group(1) for e in asking for m in _ROOT.finditer(e.template)}
    sizes = [(n, wire.estimate_text(t)) for n, t in (
        ("input", case.input), ("output", case.output), ("expected", case.expected or ""))
        if n in named]
    if "context" in named:
        sizes += [(f"context[{i}]", wire.estimate_text(c)) for i, c in enumerate(case.context)]
    estimate = sum(n for _, n in sizes)
    if estimate > wire.STATE_PLUS_QUESTION_BUDGET:
        sizes.sort(key=lambda p: -p[1])
        raise BudgetError(_state_over(estimate, estimate - wire.STATE_PLUS_QUESTION_BUDGET,
                                      tuple(sizes)))


def _parts(state: Mapping[str, Any]) -> tuple[tuple[str, int], ...]:
    """Estimated tokens each field or chunk adds to the state, largest first."""
    parts = [(n, wire.estimate_tokens(state[n])) for n in ("input", "output", "expected")
             if n in state]
    parts += [(f"context[{i}]", wire.estimate_tokens(c))
              for i, c in enumerate(state.get("context", []))]
    return tuple(sorted(parts, key=lambda p: -p[1]))


def _largest_covering(parts: Sequence[tuple[str, int]], over: int) -> list[tuple[str, int]]:
    """The fewest largest parts whose removal would bring the request under budget (max 5)."""
    picked: list[tuple[str, int]] = []
    for part in parts:
        picked.append(part)
        if sum(n for _, n in picked) >= over or len(picked) == 5:
            break
    return picked


def _state_over(size: int, over: int, parts: Sequence[tuple[str, int]]) -> str:
    culprits = _largest_covering(parts, over)
    names = ", ".join(f"{name} (~{n:,} tokens)" for name, n in culprits)
    if all(name.startswith("context[") for name, _ in culprits):
        fix = "shorten or remove those chunks, or split them into smaller ones"
    else:
        fix = "shorten them, or remove chunks"
    return (f"request too large: the case's text is ~{size:,} tokens (estimate), over Jev's "
            f"{wire.STATE_PLUS_QUESTION_BUDGET:,} state-plus-question budget by ~{over:,}; "
            f"largest parts: {names}; {fix}")


def _budget_problem(
    t: Tokens, parts: Sequence[tuple[str, int]], plan: Mapping[str, list[Question]]
) -> str | None:
    if t.state_plus_longest > wire.STATE_PLUS_QUESTION_BUDGET:
        return _state_over(t.state_plus_longest,
                           t.state_plus_longest - wire.STATE_PLUS_QUESTION_BUDGET, parts)
    if t.total <= wire.TOTAL_BUDGET:
        return None
    over = t.total - wire.TOTAL_BUDGET
    head = (f"request too large: state plus all {sum(len(q) for q in plan.values()):,} "
            f"questions is ~{t.total:,} tokens (estimate), over Jev's "
            f"{wire.TOTAL_BUDGET:,} budget by ~{over:,}")
    if t.questions >= t.state:
        counts = sorted(((len(qs), name) for name, qs in plan.items()), reverse=True)
        most = ", ".join(f"{name} asks {n:,}" for n, name in counts[:3])
        return (f"{head}; the questions are the larger part ({most}): select fewer "
                "evaluators, or send fewer chunks or shorter texts")
    culprits = _largest_covering(parts, over)
    names = ", ".join(f"{name} (~{n:,} tokens)" for name, n in culprits)
    return f"{head}; largest parts of the state: {names}; shorten or remove them"


def one_call_per_question(packed: Packed) -> tuple[int, int]:
    """(requests, estimated input tokens) if each question went alone with just its operands.

    That is how RAGAS (a call per chunk) and DeepEval (a call per verdict) ask; their prompt
    templates come on top of this, so the figure understates what they send.
    """
    tokens = 0
    for wid, q in packed.asked.items():
        operands = {op.name: op.text for op in (q.subject, *q.against)}
        tokens += wire.estimate_tokens(operands) + wire.estimate_tokens({wid: q.wire()})
    return len(packed.asked), tokens

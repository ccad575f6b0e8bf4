"""Custom evaluators: a person's own yes/no question, kept as data, asked like the built-ins.

A definition names what it asks about (each chunk, each sentence of the output or of
`expected`, each statement of the context, or the case once), a question template that
names its operands the way the built-in questions do (`context[i]`, `output[i]`, `input`),
how the answers reduce to a score, and when the score passes. Its questions go into the
same ONE packed request as the built-in ones; the hosted judge reads them verbatim, the
offline judges answer them approximately from their wording (relation `custom`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from .. import wire
from ..case import Case
from ..errors import CaseError
from ..questions import CUSTOM, Operand, Question
from ..results import Result
from ..text import has_text, one_line, plural
from .base import Docs, Evaluator, threshold_clause
from .contextual_precision import weighted_cumulative_precision

FIELDS = ("input", "output", "expected", "context")
# What a definition asks about -> (the field its item lives in, how many indices name it,
# the item's name in reasons).
ABOUT: dict[str, tuple[str | None, int, tuple[str, str]]] = {
    "chunk": ("context", 1, ("chunk", "chunks")),
    "output_sentence": ("output", 1, ("output sentence", "output sentences")),
    "expected_sentence": ("expected", 1, ("expected sentence", "expected sentences")),
    "context_statement": ("context", 2, ("statement", "statements")),
    "case": (None, 0, ("case", "cases")),
}
REDUCERS = {
    "share": "share of items answered yes",
    "any": "1 when any item is answered yes, else 0",
    "all": "1 when every item is answered yes, else 0",
    "weighted_precision": "DeepEval's weighted cumulative precision over the chunks' rank order",
}
DIRECTIONS = ("higher", "lower")  # higher: passes at or above the threshold
KEYS = ("name", "purpose", "about", "question", "true", "false", "reducer", "direction",
        "threshold", "verdicts")
NAME = re.compile(r"[a-z][a-z0-9_]{1,39}")
MAX_QUESTION_TOKENS = 1_000  # one question is sent once per item: 30 chunks, 30 times
_TICKED = re.compile(r"`([^`]*)`")
_OPERAND = re.compile(r"([A-Za-z_]+)((?:\[[^\]\[]*\])*)")
_PLAIN = {"input": "the question", "output": "the answer", "expected": "the expected answer",
          "context": "the retrieved context"}


@dataclass(frozen=True)
class Definition:
    """One custom evaluator as its author wrote it (validated: see `from_dict`)."""

    name: str
    about: str
    question: str  # the template: `context[i]` names the item asked about
    purpose: str = ""
    true: str | None = None  # what counts as yes (sent as the question's criteria)
    false: str | None = None
    reducer: str = "share"
    direction: str = "higher"
    threshold: float = 0.5
    verdicts: tuple[str, str] = ("yes", "no")

    @property
    def higher_is_better(self) -> bool:
        return self.direction == "higher"

    @property
    def criteria(self) -> tuple[str, str] | None:
        return (self.true, self.false) if self.true and self.false else None

    @property
    def code(self) -> str:
        """The question id prefix, unique by construction: the name itself (no two
        evaluators of one request share a name) between "x" and "_", so "x" + name + "_" +
        the item's number reads back one way only (the number has no "_"), and no built-in
        id (two letters and a number) looks like it."""
        return f"x{self.name}_"

    def to_dict(self) -> dict[str, Any]:
        """The definition as data (TOML tables, share links, stored runs): defaults left out."""
        out: dict[str, Any] = {"name": self.name, "purpose": self.purpose, "about": self.about,
                               "question": self.question}
        if self.criteria:
            out["true"], out["false"] = self.criteria
        out.update(reducer=self.reducer, direction=self.direction, threshold=self.threshold)
        if self.verdicts != ("yes", "no"):
            out["verdicts"] = list(self.verdicts)
        return out

    @classmethod
    def from_dict(cls, data: Any) -> Definition:
        """A validated definition, or a CaseError in one line that says what to fix."""
        if not isinstance(data, Mapping):
            raise CaseError("a custom evaluator is a table of keys (name, about, question...)")
        name = data.get("name")
        if not isinstance(name, str) or not name.strip():
            raise CaseError('a custom evaluator needs a "name", e.g. name = "states_a_limit"')
        name = name.strip()
        if not NAME.fullmatch(name):
            raise CaseError(f"custom evaluator name {one_line(name)[:40]!r} must be 2-40 "
                            "lowercase letters, digits or _, starting with a letter")
        where = f"custom evaluator {name!r}"
        for key in data:
            if key not in KEYS:
                raise CaseError(f'{where}: unknown key "{one_line(str(key))[:30]}"; known '
                                f"keys: {', '.join(KEYS)}")
        from . import get

        try:
            builtin = get(name)
        except CaseError:
            builtin = None
        if builtin is not None:
            raise CaseError(f"{where} has the name of the built-in {builtin.name}: "
                            "choose another name")
        about = _choice(data, "about", tuple(ABOUT), None, where)
        question = data.get("question")
        if not isinstance(question, str) or not question.strip():
            raise CaseError(f'{where} has an empty "question": write the statement the '
                            "judge answers yes or no, e.g. "
                            f"{example(about)!r}")
        true, false = (_text(data, k, where) for k in ("true", "false"))
        if (true is None) != (false is None):
            raise CaseError(f'{where}: give both "true" and "false" (what counts as yes and '
                            "as no), or neither")
        reducer = _choice(data, "reducer", tuple(REDUCERS), "share", where)
        if reducer == "weighted_precision" and about != "chunk":
            raise CaseError(f'{where}: reducer "weighted_precision" ranks chunks: it needs '
                            'about = "chunk"')
        direction = _choice(data, "direction", DIRECTIONS, "higher", where)
        threshold = data.get("threshold", 0.5)
        if isinstance(threshold, bool) or not isinstance(threshold, (int, float)) or not (
                math.isfinite(threshold) and 0.0 <= threshold <= 1.0):
            raise CaseError(f"{where}: threshold must be a number between 0 and 1")
        verdicts = data.get("verdicts", ["yes", "no"])
        if (not isinstance(verdicts, (list, tuple)) or len(verdicts) != 2
                or not all(isinstance(v, str) and v.strip() for v in verdicts)):
            raise CaseError(f'{where}: verdicts must be two words, e.g. ["priced", "no price"]')
        purpose = data.get("purpose", "")
        if not isinstance(purpose, str):
            raise CaseError(f'{where}: "purpose" must be one line of text')
        definition = cls(name=name, about=about, question=question.strip(),
                         purpose=one_line(purpose), true=true, false=false, reducer=reducer,
                         direction=direction, threshold=float(threshold),
                         verdicts=(verdicts[0].strip(), verdicts[1].strip()))
        problem = definition.problem()
        if problem:
            raise CaseError(f"{where}: {problem}")
        return definition

    def problem(self) -> str | None:
        """What is wrong with the template, in words, or None: every operand known and named
        as `about` needs, the item named, and one question within its token budget."""
        field, depth, _ = ABOUT[self.about]
        item_named = False
        named: list[str] = []
        for ticked in _TICKED.findall(self.question):
            found = _OPERAND.fullmatch(ticked.strip())
            if found is None or found.group(1) not in FIELDS:
                known = ", ".join(f"`{f}`" for f in FIELDS)
                return f"unknown operand `{one_line(ticked)[:30]}`: name {known}" + (
                    f" (and `{item(self.about)}` for the {ABOUT[self.about][2][0]})"
                    if field else "")
            name, indices = found.group(1), re.findall(r"\[([^\]]*)\]", found.group(2))
            if indices and not (name == field and len(indices) == depth):
                return (f"`{ticked}` cannot be named here: " + (
                    f"about = {self.about!r} names its item `{item(self.about)}`"
                    if field else 'about = "case" asks once, so name whole fields '
                                  "(`output`, `context`)"))
            if indices:
                if not all(re.fullmatch(r"[a-z]", i) for i in indices):
                    return (f"`{ticked}` names a fixed position: write `{item(self.about)}` "
                            f"to ask about each {ABOUT[self.about][2][0]}")
                if len(set(indices)) != len(indices):
                    return f"`{ticked}` uses one letter twice: write `{item(self.about)}`"
                item_named = True
            named.append(name)
        if field and not item_named:
            return (f"the question never names `{item(self.about)}`: say which "
                    f"{ABOUT[self.about][2][0]} is judged, e.g. {example(self.about)!r}")
        if not named:
            return ("the question names no part of the case: name `output`, `input`, "
                    "`expected` or `context` in backticks")
        tokens = wire.estimate_tokens(wire.noul(self.question, self.criteria))
        if tokens > MAX_QUESTION_TOKENS:
            return (f"the question is ~{tokens:,} tokens, over the {MAX_QUESTION_TOKENS:,} "
                    "a question may take (it is sent once per item): shorten it")
        return None

    def _named(self) -> list[tuple[str, bool]]:
        """(field, named whole) per operand of a valid template, in order."""
        out = []
        for ticked in _TICKED.findall(self.question):
            found = _OPERAND.fullmatch(ticked.strip())
            if found is not None:
                out.append((found.group(1), not found.group(2)))
        return out

    def needs(self) -> tuple[str, ...]:
        """The case fields this definition reads: the item's field and every field named."""
        named = {f for f, _ in self._named()}
        return tuple(f for f in FIELDS if f in named)

    def whole(self) -> tuple[str, ...]:
        """The fields the template names whole (`input`, `context`), in the order named."""
        return tuple(dict.fromkeys(f for f, whole in self._named() if whole))

    def render(self, *index: int) -> str:
        """The question's text for one item: `context[i]` becomes `context[3]`."""
        field, depth, _ = ABOUT[self.about]

        def one(m: re.Match[str]) -> str:
            found = _OPERAND.fullmatch(m.group(1).strip())
            if found is None or not found.group(2) or field is None:
                return m.group(0)
            return f"`{found.group(1)}" + "".join(f"[{i}]" for i in index[:depth]) + "`"

        return _TICKED.sub(one, self.question)

    def questions(self, case: Case) -> list[Question]:
        """One question per item of `case` that has text (or one for the whole case)."""
        against = tuple(_operand(case, f) for f in self.whole())
        if self.about == "case":
            subject, *rest = against
            return [Question(f"{self.code}0", self.render(), CUSTOM, subject, tuple(rest),
                             self.criteria)]
        field = ABOUT[self.about][0]
        items: list[tuple[tuple[int, ...], str]]
        if self.about == "chunk":
            items = [((i,), c) for i, c in enumerate(case.context) if has_text(c)]
        elif self.about == "context_statement":
            items = [((i, j), s) for i, chunk in enumerate(case.chunk_sentences)
                     for j, s in enumerate(chunk)]
        else:
            said = case.output_sentences if field == "output" else case.expected_sentences
            items = [((i,), s) for i, s in enumerate(said)]
        return [Question(f"{self.code}{k}", self.render(*index), CUSTOM,
                         Operand(f"{field}" + "".join(f"[{i}]" for i in index), (text,)),
                         against, self.criteria)
                for k, (index, text) in enumerate(items)]

    def docs(self) -> Docs:
        """What the Metrics page says about it: its purpose, what it asks, how it is judged."""
        unit = ABOUT[self.about][2][0]
        return Docs(
            reach_for_it_when=(self.purpose or f"Asking your own question about each {unit}.",),
            not_the_right_tool_when=(
                "A built-in evaluator asks the same thing: its offline answers are "
                "calibrated on labelled data for that very question.",),
            watch_out_for=(
                "Offline judges answer a custom question approximately, from the similarity "
                "of the judged text to what the question states: trust the hosted judge, "
                "or your labels, for verdicts.",),
        )


def item(about: str) -> str:
    """How a template names the item `about` asks about (`context[i]`, `output[i]`...)."""
    field, depth, _ = ABOUT[about]
    return f"{field}" + "".join(f"[{c}]" for c in "ij"[:depth]) if field else "output"


def example(about: str | None) -> str:
    if about in (None, "case"):
        return "`output` answers `input` in the language `input` is written in."
    return f"`{item(about)}` states a price or a limit."


def statement(question: Question) -> str:
    """What the question asserts, in plain words, for judges that compare texts: its subject
    becomes "This", other operands their plain names ("the question")."""
    subject = question.subject.name

    def plain(m: re.Match[str]) -> str:
        name = m.group(1).strip()
        if name == subject:
            return "This"
        found = _OPERAND.fullmatch(name)
        return _PLAIN.get(found.group(1), name) if found else name

    return re.sub(r"\s+", " ", _TICKED.sub(plain, question.text)).strip()


def _operand(case: Case, field: str) -> Operand:
    if field == "context":
        return Operand("context", tuple(c for c in case.context if has_text(c)))
    value = {"input": case.input, "output": case.output, "expected": case.expected}[field]
    return Operand(field, (value or "",))


def _choice(data: Mapping[str, Any], key: str, choices: Sequence[str], default: str | None,
            where: str) -> str:
    value = data.get(key, default)
    if value is None:
        raise CaseError(f'{where} needs "{key}": one of {", ".join(choices)}')
    if value not in choices:
        raise CaseError(f'{where}: {key} {one_line(str(value))[:30]!r} is not one of '
                        f"{', '.join(choices)}")
    return str(value)


def _text(data: Mapping[str, Any], key: str, where: str) -> str | None:
    value = data.get(key)
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if not isinstance(value, str):
        raise CaseError(f'{where}: "{key}" must be text')
    return one_line(value)


def _counted(evaluator: Evaluator, yes: int, total: int) -> str:
    """'2 of 4 chunks: states a limit' (the evaluator's own word for yes)."""
    return f"{yes} of {plural(total, *evaluator.unit)}: {evaluator.verdicts[0]}"


def _share(evaluator: Evaluator, questions: Sequence[Question], answers: Mapping[str, float],
           threshold: float) -> Result:
    details = evaluator.details(questions, answers)
    yes = sum(d.yes for d in details)
    score = yes / len(details)
    reason = (f"{_counted(evaluator, yes, len(details))}; share "
              f"{threshold_clause(score, threshold, evaluator.higher_is_better)}.")
    return Result(evaluator.name, score, threshold, evaluator.higher_is_better, reason, details)


def _binary(rule: str) -> Any:
    def reduce(evaluator: Evaluator, questions: Sequence[Question],
               answers: Mapping[str, float], threshold: float) -> Result:
        details = evaluator.details(questions, answers)
        yes = sum(d.yes for d in details)
        hit = yes > 0 if rule == "any" else yes == len(details)
        score = 1.0 if hit else 0.0
        word = "any one" if rule == "any" else "every one"
        reason = (f"{_counted(evaluator, yes, len(details))}; {word} makes 1: "
                  f"{threshold_clause(score, threshold, evaluator.higher_is_better)}.")
        return Result(evaluator.name, score, threshold, evaluator.higher_is_better, reason,
                      details, share=yes / len(details))
    return reduce


def _weighted(evaluator: Evaluator, questions: Sequence[Question],
              answers: Mapping[str, float], threshold: float) -> Result:
    details = evaluator.details(questions, answers)
    score = weighted_cumulative_precision([d.yes for d in details])
    hits = [d.judged for d in details if d.yes]
    reason = (f"{_counted(evaluator, len(hits), len(details))} "
              f"({', '.join(hits) if hits else 'none'}), weighted by rank: "
              f"{threshold_clause(score, threshold, evaluator.higher_is_better)}.")
    return Result(evaluator.name, score, threshold, evaluator.higher_is_better, reason, details)


_REDUCE = {"share": _share, "any": _binary("any"), "all": _binary("all"),
           "weighted_precision": _weighted}


@lru_cache(maxsize=256)
def evaluator(definition: Definition) -> Evaluator:
    """The Evaluator a definition makes (the same object for the same definition, so a run's
    evaluators compare and hash alike however often they are rebuilt)."""
    one, many = ABOUT[definition.about][2]
    return Evaluator(
        name=definition.name,
        code=definition.code,
        purpose=definition.purpose or f"Your own question about each {one}.",
        needs=definition.needs(),
        template=definition.question,
        score_rule=f"{REDUCERS[definition.reducer]} (custom)",
        verdicts=definition.verdicts,
        higher_is_better=definition.higher_is_better,
        docs=definition.docs(),
        ask=definition.questions,
        reducer=_REDUCE[definition.reducer],
        unit=(one, many),
        threshold=definition.threshold,
        definition=definition,
    )

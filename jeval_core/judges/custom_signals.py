"""How an offline judge reads a custom question: from its wording and the operands it names.

A custom question states something about its subject ("`context[3]` states a deadline").
No offline model here reads such a statement the way a language model does, so the signals
are what a sentence embedding (or word overlap) can honestly give:

0. how similar the subject is to what the question states (or to its "true" description),
1. how much more it is like the "true" description than the "false" one,
2. how it stands among the other items asked the same question (the whole case in view),
3. how similar it is to the operands the question names (`input`, `context`),
4. whether it has a number, when the question's wording asks about numbers.

A curve fitted on labelled custom questions (`bench/custom_questions.py`) turns them into p;
every such answer is marked approximate in the result.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping

from ..evaluators.custom import statement
from ..questions import Question

NAMES = ("similarity to the statement", "true over false", "standing among the items",
         "similarity to the named operands", "a number where the wording asks for one")
# Words by which a question asks about quantities: then a number in the subject is evidence.
_ASKS_NUMBERS = re.compile(
    r"\b(numbers?|numeric|numerical|figures?|amounts?|prices?|priced|costs?|fees?|charges?|"
    r"limits?|quotas?|maximum|minimum|dates?|deadlines?|percent(age)?|quantit(y|ies)|"
    r"how (many|much|long)|dosage|dose|duration|statistics?)\b", re.IGNORECASE)
_HAS_NUMBER = re.compile(r"\d|[$€£¥]")


def texts(question: Question) -> list[str]:
    """Every text the signals compare, so a judge can embed them all at once."""
    out = [question.subject.text, statement(question)]
    if question.criteria:
        out += list(question.criteria)
    out += [t for op in question.against for t in op.texts if t.strip()]
    return out


def asks_numbers(question: Question) -> bool:
    return bool(_ASKS_NUMBERS.search(statement(question)))


def features(
    questions: Mapping[str, Question], similar: Callable[[str, str], float]
) -> dict[str, tuple[float, ...]]:
    """Per custom question id, its signals in NAMES order; `similar(a, b)` is the judge's own
    similarity (cosine of embeddings, or seed 001's lexical blend)."""
    first: dict[str, tuple[float, float, float, float]] = {}
    for qid, q in questions.items():
        subject = q.subject.text
        said = statement(q)
        true = max(similar(subject, said), similar(subject, q.criteria[0])) if q.criteria \
            else similar(subject, said)
        contrast = true - similar(subject, q.criteria[1]) if q.criteria else 0.0
        named = [t for op in q.against for t in op.texts if t.strip()]
        near = max((similar(subject, t) for t in named), default=0.0)
        number = 0.0
        if asks_numbers(q):
            number = 1.0 if _HAS_NUMBER.search(subject) else -1.0
        first[qid] = (true, contrast, near, number)
    groups: dict[tuple[str, tuple[str, str] | None], list[str]] = {}
    for qid, q in questions.items():
        groups.setdefault((statement(q), q.criteria), []).append(qid)
    out: dict[str, tuple[float, ...]] = {}
    for ids in groups.values():
        mean = _mean(first[qid][0] for qid in ids)
        for qid in ids:
            true, contrast, near, number = first[qid]
            standing = true - mean if len(ids) > 1 else 0.0
            out[qid] = (true, contrast, standing, near, number)
    return {qid: out[qid] for qid in questions}


def _mean(values: Iterable[float]) -> float:
    seen = list(values)
    return sum(seen) / len(seen) if seen else 0.0

"""The eight evaluators, one module each, and the one place names become evaluators.

Names are resolved at the edge (CLI, page, share link, upload, dataset reader) by `resolve`,
thresholds by `thresholds`; everything past the edge holds Evaluator objects. A person's own
evaluators (custom.py) are resolved beside the built-ins where the caller passes them.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from ..case import Case
from ..errors import CaseError
from . import (
    answer_relevancy,
    chunk_relevance,
    chunk_support,
    context_relevancy,
    contextual_precision,
    contextual_recall,
    faithfulness,
    hallucination,
    toxicity,
)
from .base import Docs, Evaluator

ALL: tuple[Evaluator, ...] = tuple(m.EVALUATOR for m in (
    chunk_relevance, context_relevancy, contextual_precision, contextual_recall,
    faithfulness, answer_relevancy, hallucination, toxicity,
))
NAMES = tuple(e.name for e in ALL)
EVALUATORS: dict[str, Evaluator] = {e.name: e for e in ALL}
# Asked by name only, never by default nor listed among the metrics: which chunk states each
# answer sentence (what a server judge's supported@k is read from, in the same request).
BY_NAME_ONLY: tuple[Evaluator, ...] = (chunk_support.EVALUATOR,)
BY_NAME_ONLY_NAMES = tuple(e.name for e in BY_NAME_ONLY)  # offered after NAMES in pickers
# An alias answers under the name it was asked by (Galtea's `contextual_relevancy` comes
# back as `contextual_relevancy`): the same evaluator, named so.
_BY_NAME: dict[str, Evaluator] = {
    n: e if n == e.name else replace(e, name=n, aliases=()) for e in (*ALL, *BY_NAME_ONLY)
    for n in (e.name, *e.aliases)}


Custom = Mapping[str, Evaluator]  # a person's own evaluators by name (see custom.py)


def get(name: str, custom: Custom | None = None) -> Evaluator:
    """The evaluator called `name` (a built-in, one of its aliases, or one of the `custom`
    evaluators given), or a CaseError naming the choices."""
    known = {**_BY_NAME, **(custom or {})}
    try:
        return known[name.strip()]
    except (KeyError, AttributeError):
        shown = str(name)[:40]
        close = difflib.get_close_matches(shown, list(known), n=1)
        hint = f'did you mean "{close[0]}"? ' if close else ""
        raise CaseError(f"unknown evaluator {shown!r}: {hint}choose from "
                        f"{', '.join((*NAMES, *(custom or {})))}") from None


def by_name(chosen: Sequence[Evaluator]) -> dict[str, Evaluator]:
    """The custom evaluators among `chosen`, by name: what a run or a link must carry."""
    return {e.name: e for e in chosen if e.custom}


def defaults(case: Case) -> tuple[Evaluator, ...]:
    """chunk_relevance plus every evaluator whose fields the case has."""
    chosen = [e for e in ALL if e.missing(case) is None]
    if chunk_relevance.EVALUATOR not in chosen:
        chosen.insert(0, chunk_relevance.EVALUATOR)
    return tuple(chosen)


def resolve(value: Any, case: Case | None = None,
            custom: Custom | None = None) -> tuple[Evaluator, ...]:
    """Evaluators from what a user gave: None -> the case's defaults; "a,b" or ["a", "b"]
    -> those, in order, each once. An empty list is an error everywhere: it would run
    nothing, and silently running the defaults instead would run what was not asked for.
    """
    if value is None:
        if case is None:
            raise CaseError("no evaluators given and no case to pick defaults for")
        return defaults(case)
    if isinstance(value, str):
        value = [n for n in value.split(",") if n.strip()]
    if not isinstance(value, (list, tuple)) or not all(
            isinstance(n, (str, Evaluator)) for n in value):
        raise CaseError('"evaluators" must be a list of names, e.g. ["chunk_relevance"]')
    if not value:
        raise CaseError("the evaluator list is empty: name at least one (e.g. "
                        "chunk_relevance), or leave it out to run the defaults")
    chosen: dict[str, Evaluator] = {}  # by question id prefix: an alias asks what its
    for n in value:                    # evaluator asks, so only the first of them is kept
        found = n if isinstance(n, Evaluator) else get(n, custom)
        chosen.setdefault(found.code, found)
    return tuple(chosen.values())


def thresholds(value: Any, custom: Custom | None = None) -> dict[str, float]:
    """Per-evaluator thresholds from {"name": number} or ["name=value", ...], validated."""
    if isinstance(value, Sequence) and not isinstance(value, str):
        pairs: list[tuple[Any, Any]] = []
        for item in value:
            name, sep, text = str(item).partition("=")
            if not sep:
                raise CaseError(f"threshold {str(item)[:40]!r} is not name=value, e.g. "
                                "toxicity=0.2")
            try:
                pairs.append((name, float(text)))
            except ValueError:
                raise CaseError(f"threshold for {name.strip()[:40]!r} is not a number: "
                                f"{text.strip()[:20]!r}") from None
    elif isinstance(value, Mapping):
        pairs = list(value.items())
    else:
        raise CaseError('"thresholds" must be an object like {"toxicity": 0.2}')
    out: dict[str, float] = {}
    for name, given in pairs:
        evaluator = get(str(name), custom)
        if isinstance(given, bool) or not isinstance(given, (int, float)):
            raise CaseError(f"the threshold of {evaluator.name} must be a number between 0 "
                            "and 1")
        try:
            number = float(given)
        except OverflowError:
            number = math.inf
        if not math.isfinite(number) or not 0.0 <= number <= 1.0:
            raise CaseError(f"the threshold of {evaluator.name} must be between 0 and 1, "
                            f"not {number:g}")
        out[evaluator.name] = number
    return out


__all__ = ["ALL", "EVALUATORS", "NAMES", "Custom", "Docs", "Evaluator", "by_name", "defaults",
           "get", "resolve", "thresholds"]

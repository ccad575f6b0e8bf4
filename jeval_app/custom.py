"""The session's custom evaluators: those written in the editor, loaded with a case or a
TOML file, and those kept in the run store. Held as definitions' JSON text (plain, hashable
values that caches and links take); built into evaluators by jeval_core."""

from __future__ import annotations

import json
from functools import lru_cache

from jeval_app import resources, state
from jeval_core import JevalError
from jeval_core.evaluators import Evaluator
from jeval_core.evaluators.custom import Definition
from jeval_core.inputs import evaluator_files


def _text(definition: Definition) -> str:
    return json.dumps(definition.to_dict(), sort_keys=True, ensure_ascii=False)


def _ensure_stored() -> None:
    """Once a session: the evaluators kept in the run store join the session's."""
    if state.custom_loaded():
        return
    state.mark_custom_loaded()
    try:
        kept = evaluator_files.from_data(resources.store().evaluators(), "the run store")
    except JevalError:
        return  # no store, or a definition it keeps no longer reads: the editor still works
    held = state.custom_definitions()
    for d in kept:
        held.setdefault(d.name, _text(d))
    state.set_custom_definitions(held)


@lru_cache(maxsize=256)
def _read(text: str) -> Definition:
    """A definition from its JSON text, validated once (a rerun reads the same texts)."""
    return Definition.from_dict(json.loads(text))


def definitions() -> dict[str, Definition]:
    """The session's definitions by name."""
    _ensure_stored()
    return {name: _read(text) for name, text in state.custom_definitions().items()}


def known() -> dict[str, Evaluator]:
    """The session's custom evaluators by name (what `evaluators.resolve` takes)."""
    return evaluator_files.evaluators(definitions().values())


def names() -> list[str]:
    return list(definitions())


def add(*found: Definition) -> None:
    """Definitions join the session (one of the same name is replaced)."""
    held = state.custom_definitions()
    for d in found:
        held[d.name] = _text(d)
    state.set_custom_definitions(held)


def remove(name: str) -> None:
    held = state.custom_definitions()
    held.pop(name, None)
    state.set_custom_definitions(held)


def keep(definition: Definition) -> None:
    """Into the run store, so every later session (and `jeval`) has it; and this session."""
    resources.store().save_evaluator(definition.to_dict())
    add(definition)


def texts(chosen: tuple[Evaluator, ...]) -> tuple[str, ...]:
    """The definitions among `chosen` as JSON text: what cached scoring is keyed by."""
    return tuple(_text(e.definition) for e in chosen if e.definition is not None)


def from_texts(found: tuple[str, ...]) -> dict[str, Evaluator]:
    return evaluator_files.evaluators(_read(t) for t in found)

"""The case being edited: putting one into the editor, reading it back, its share token, and
the chunk list's edits (add, move, delete, paste many)."""

from __future__ import annotations

import functools
import re
import uuid

import streamlit as st

from jeval_app import custom, resources, state
from jeval_core import Case, CaseError, judges
from jeval_core import evaluators as registry
from jeval_core.analysis.labels import Labels, merged
from jeval_core.case import ChunkMeta
from jeval_core.evaluators import Evaluator
from jeval_core.inputs import share
from jeval_core.inputs.casefile import CaseFile
from jeval_core.wire import parse_json


def load(loaded: CaseFile, origin: str = "") -> None:
    """Put a case into the editor's widgets (call from a callback or before the widgets).

    `origin` says where it came from ("an uploaded file"...); the page marks the case as
    modified once it no longer matches what was loaded.
    """
    case = loaded.case
    state.put(state.LOADED_EXAMPLE, None)  # an example's loader names itself after this
    state.forget_chunks_and_sliders()
    state.put(state.INPUT, case.input)
    state.put(state.OUTPUT, case.output)
    state.put(state.EXPECTED, case.expected or "")
    ids = [uuid.uuid4().hex[:8] for _ in case.context]
    for uid, chunk in zip(ids, case.context, strict=True):
        state.put(state.chunk_key(uid), chunk)
    state.set_chunk_ids(ids)
    state.set_chunk_meta({uid: meta for uid, meta in zip(ids, case.context_meta, strict=False)
                          if meta is not None})
    found = Labels.from_extra(loaded.extra, len(ids))
    state.set_labels(dict(zip(ids, found.chunks, strict=True)), found.verdicts)
    custom.add(*(e.definition for e in loaded.chosen() if e.definition is not None))
    state.put(state.EVALUATORS, [e.name for e in loaded.chosen()])
    state.set_thresholds(dict(loaded.thresholds))
    state.set_origin(origin, token(with_judge=False))


def load_example(name: str) -> None:
    load(resources.read_example(name), resources.descriptions()[name])
    state.put(state.LOADED_EXAMPLE, name)


def ensure_case() -> None:
    """First visit: the case from a share link if there is one, else the seed example."""
    if state.has_case():
        return
    link = st.query_params.get("case")
    if link:
        try:
            shared = share.decode(link)
        except CaseError as err:
            state.say(state.NOTICE, str(err))
        else:
            load(shared.file, "a shared link")
            if judges.known(shared.judge):
                state.put(state.JUDGE, shared.judge)
            return
    load_example(resources.DEFAULT_EXAMPLE)
    state.put(state.EXAMPLE, resources.DEFAULT_EXAMPLE)
    state.set_seed_token(state.origin_token())


def token(with_judge: bool = True) -> str:
    """The share token of what is in the editor (never a key: none is passed)."""
    judge = state.get(state.JUDGE) if with_judge else None
    chosen = chosen_evaluators()
    case = current()
    return _token(case, tuple(e.name for e in chosen), judge,
                  tuple(state.thresholds().items()), labels(), custom.texts(chosen),
                  case.context_meta)


def labels() -> Labels:
    """The person's labels on the case in the editor."""
    return merged(state.chunk_labels(), state.evaluator_truth())


@functools.lru_cache(maxsize=8)  # a run needs two or three; a case can hold megabytes
def _token(case: Case, names: tuple[str, ...], judge: str | None,
           thresholds: tuple[tuple[str, float], ...], marks: Labels,
           definitions: tuple[str, ...] = (),
           meta: tuple[ChunkMeta | None, ...] = ()) -> str:
    """Pure in its arguments: a run asks for the same case's token a few times (the link,
    whether it was modified, whether it is the seed), each a JSON dump and a compression.
    A custom evaluator's definition travels in the link, and so do the chunks' metadata
    (`meta`, an argument of its own: a case's equality leaves it out)."""
    known = custom.from_texts(definitions)
    return share.encode(case, registry.resolve(names, custom=known) if names else (), judge,
                        dict(thresholds), marks.to_extra())


def modified() -> bool:
    """Whether the case no longer matches what was loaded (the judge is not the case)."""
    return token(with_judge=False) != state.origin_token()


def current() -> Case:
    expected = state.text(state.EXPECTED)
    ids = state.chunk_ids()
    known = state.chunk_meta()
    return Case(
        input=state.text(state.INPUT),
        output=state.text(state.OUTPUT),
        expected=expected if expected.strip() else None,
        context=tuple(state.text(state.chunk_key(uid)) for uid in ids),
        context_meta=tuple(known.get(uid) for uid in ids),
    )


def chosen_evaluators() -> tuple[Evaluator, ...]:
    """The evaluators picked in the multiselect, as objects (names resolved here, once); a
    custom one the session no longer holds is left out."""
    known = custom.known()
    built_in = {*registry.EVALUATORS, *registry.BY_NAME_ONLY_NAMES}
    return tuple(known[n] if n in known else registry.get(n) for n in state.evaluator_names()
                 if n in known or n in built_in)


SEPARATORS = {
    "blank": "a blank line",
    "line": "one chunk per line",
    "dashes": "a --- line",
    "json": 'a JSON array ["...", "..."]',
}


def split_chunks(text: str, how: str = "blank") -> list[str]:
    """Chunks pasted at once, split the way they were pasted; a CaseError for a bad array."""
    if how == "json":
        try:
            items = parse_json(text)
        except ValueError as err:
            raise CaseError(f"the pasted text is not a JSON array: {err}") from None
        if not isinstance(items, list) or not all(isinstance(i, str) for i in items):
            raise CaseError('the pasted JSON must be an array of strings, like ["a", "b"]')
        parts = items
    elif how == "line":
        parts = text.splitlines()
    elif how == "dashes":
        parts = re.split(r"(?m)^[ \t]*-{3,}[ \t]*$", text)
    else:
        parts = re.split(r"\n\s*\n", text)
    return [c.strip() for c in parts if c.strip()]


def add_chunks(chunks: list[str], replace: bool = False) -> None:
    ids = [] if replace else list(state.chunk_ids())
    if replace:
        state.set_chunk_meta({})
    for chunk in chunks:
        uid = uuid.uuid4().hex[:8]
        state.put(state.chunk_key(uid), chunk)
        ids.append(uid)
    state.set_chunk_ids(ids)


def move_chunk(uid: str, step: int) -> None:
    ids = state.chunk_ids()
    i = ids.index(uid)
    j = i + step
    if 0 <= j < len(ids):
        ids[i], ids[j] = ids[j], ids[i]


def delete_chunk(uid: str) -> None:
    state.chunk_ids().remove(uid)
    state.drop(state.chunk_key(uid))
    state.chunk_meta().pop(uid, None)

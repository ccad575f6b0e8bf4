"""The Playground's case editor: the example picker's questions, the texts, the chunk list,
the evaluators, uploads, pastes and the case download; its callbacks change the case before
the widgets are drawn, and a committed edit reruns the live panel only."""

from __future__ import annotations

import contextlib
import json

import streamlit as st
from streamlit.delta_generator import DeltaGenerator
from streamlit.errors import StreamlitAPIException

from jeval_app import case as editing
from jeval_app import custom, resources, state, style
from jeval_app.views import evaluator_editor
from jeval_app.views.text import inert, plural
from jeval_core import Case, CaseError
from jeval_core.address import Address
from jeval_core.evaluators import BY_NAME_ONLY_NAMES, NAMES, Evaluator
from jeval_core.inputs import casefile, evaluator_files, share
from jeval_core.text import one_line

LIVE = "live"  # the fragment a committed edit reruns



# ---- callbacks: they change the case before the widgets are drawn ----

def rerun_live() -> None:
    """A committed edit of the case's text or of its evaluators changes the results, the bar
    under the picker and each chunk's verdict, not the editor the browser already shows:
    rerun the live panel only. A label given on a text the edit replaced goes first."""
    state.drop_labels_of_replaced_texts()
    with contextlib.suppress(StreamlitAPIException):  # no live panel: the usual rerun
        st.rerun(LIVE)



def on_example() -> None:
    """An example replaces the case; over an edited one it first asks (the picker shows the
    case's own example again until the answer)."""
    name = state.get(state.EXAMPLE)
    if not name:
        return
    if editing.modified():
        state.put(state.PENDING_EXAMPLE, name)
        state.put(state.EXAMPLE, state.get(state.LOADED_EXAMPLE))
        return
    editing.load_example(name)



def on_confirm_example() -> None:
    """Yes: the example replaces the edited case, which is kept to bring back."""
    name = state.get(state.PENDING_EXAMPLE)
    state.drop(state.PENDING_EXAMPLE)
    if not name:
        return
    state.put(state.PREVIOUS_CASE, editing.token())
    editing.load_example(name)
    state.put(state.EXAMPLE, name)



def on_bring_back() -> None:
    """The edited case an example replaced, back in the editor as it was."""
    token = state.get(state.PREVIOUS_CASE)
    state.drop(state.PREVIOUS_CASE)
    if not token:
        return
    try:
        shared = share.decode(token)
    except CaseError as err:
        state.say(state.NOTICE, str(err))
        return
    editing.load(shared.file, "your edited case")
    state.put(state.EXAMPLE, None)



def example_questions() -> None:
    """Under the picker: the question before an example replaces an edited case, and the
    way back once it has."""
    pending = state.get(state.PENDING_EXAMPLE)
    if pending:
        title = resources.descriptions().get(pending, pending)
        with st.container(horizontal=True, vertical_alignment="center", key="pending_example"):
            st.warning(inert(f"Load the example “{title}”? It replaces the case you edited "
                             "(you can bring it back)."))
            st.button("Load it", on_click=on_confirm_example, type="primary")
            st.button("Keep my case", on_click=state.drop, args=(state.PENDING_EXAMPLE,))
    elif state.get(state.PREVIOUS_CASE):
        with st.container(horizontal=True, vertical_alignment="center"):
            st.caption("The example replaced the case you were editing.")
            st.button("Bring back my edited case", on_click=on_bring_back, type="tertiary")



def on_revert() -> None:
    """The example again as it was: new chunks for the editor, so the whole page reruns (the
    button is drawn by the live panel, whose own rerun would leave the editor as it was)."""
    name = state.get(state.EXAMPLE)
    if name:  # asked for by name: no question, the person pressed Revert
        editing.load_example(name)
    st.rerun()



def on_upload() -> None:
    upload = state.get(state.UPLOAD)
    if upload is None:
        return
    try:
        loaded = casefile.decode(upload.getvalue(), upload.name)
        share.check_chunks(len(loaded.case.context), "the uploaded case")
    except CaseError as err:
        state.say(state.UPLOAD_NOTICE, f"{err}; nothing was changed")
    else:
        editing.load(loaded, f"the uploaded file {one_line(upload.name, 60)}")
        state.put(state.EXAMPLE, None)



def on_paste(replace: bool) -> None:
    try:
        chunks = editing.split_chunks(state.text(state.PASTE),
                                      state.get(state.PASTE_HOW) or "blank")
        kept = 0 if replace else len(state.chunk_ids())
        share.check_chunks(kept + len(chunks), "the case with the pasted chunks")
    except CaseError as err:
        state.say(state.PASTE_NOTICE, str(err))
        return
    if chunks:
        editing.add_chunks(chunks, replace=replace)
        state.put(state.PASTE, "")



# ---- the editor ----

def origin_line() -> None:
    """Where the case came from, and whether it was modified since (with a way back)."""
    origin = state.origin()
    if editing.modified():
        st.caption(inert(f"Modified (was: {origin})" if origin else "Modified"))
        if state.get(state.EXAMPLE):
            st.button("Revert", on_click=on_revert, type="tertiary",
                      help="load the example again as it was")
    elif origin and not state.get(state.EXAMPLE):
        st.caption(inert(f"From {origin}"))



def editor() -> dict[str, DeltaGenerator]:
    """Input, output, expected, the chunk list and the evaluators. Returns a slot beside each
    chunk (by its id) for its p and verdict, which the live panel draws."""
    st.text_area("input — the user's question", key=state.INPUT, height=68,
                 persist_state="session", on_change=rerun_live)
    st.text_area("output — the answer to judge", key=state.OUTPUT, height=100,
                 persist_state="session", on_change=rerun_live)
    st.text_area("expected — a reference answer (optional)", key=state.EXPECTED, height=68,
                 persist_state="session", on_change=rerun_live)
    ids = state.chunk_ids()
    st.markdown(f"**context** — {plural(len(ids), 'retrieved chunk', 'retrieved chunks')}"
                ", in rank order")
    slots = {}
    for pos, uid in enumerate(ids):
        # the chunk's text takes the column's whole width (a real chunk is read here); its
        # moves, the person's label and the judge's verdict share one flex row under it,
        # which wraps when narrow: never cut off, and few blocks (each costs every edit): two
        # per chunk, the box and its row
        with st.container(key=f"{style.CHUNK_BOX}{uid}"):
            where = Address.of_chunk(pos)
            st.text_area(str(where), key=state.chunk_key(uid), height=110,
                         persist_state="session", on_change=rerun_live)
            with st.container(horizontal=True, wrap=True, vertical_alignment="center",
                              gap="small"):
                st.button(f"Move {where} up", type="tertiary",
                          key=state.chunk_button_key("up", uid),
                          on_click=editing.move_chunk, args=(uid, -1), disabled=pos == 0)
                st.button(f"Move {where} down", type="tertiary",
                          key=state.chunk_button_key("down", uid),
                          on_click=editing.move_chunk, args=(uid, 1),
                          disabled=pos == len(ids) - 1)
                st.button(f"Delete {where}", type="tertiary",
                          key=state.chunk_button_key("drop", uid),
                          on_click=editing.delete_chunk, args=(uid,))
                st.segmented_control(
                    f"Your label for {where}", [state.RELEVANT, state.NOISE],
                    key=state.label_key(uid), label_visibility="collapsed",
                    on_change=rerun_live, persist_state="session",
                    help="your label: relevant or noise (click again to clear); the summary "
                         "says how far the judge agrees")
                # a container, not st.empty(): a fragment may write only where its last full run
                # wrote, and an empty slot the live panel skipped broke the page (Streamlit's
                # InvalidLayoutContextError on a shared noisy_retrieval link)
                slots[uid] = st.container()
    st.button("Add a chunk", on_click=editing.add_chunks, args=([""],))
    paste = st.expander("Paste many chunks at once", key=state.PASTE_OPEN, on_change="rerun")
    if paste.open:  # drawn only when opened: nothing to draw per edit otherwise
        with paste:
            st.radio("separated by", list(editing.SEPARATORS), key=state.PASTE_HOW,
                     horizontal=True, format_func=editing.SEPARATORS.get)
            st.text_area("chunks", key=state.PASTE, height=120, label_visibility="collapsed")
            with st.container(horizontal=True, wrap=True, gap="small"):  # never cut off
                st.button("Append them", on_click=on_paste, args=(False,))
                st.button("Replace all chunks", on_click=on_paste, args=(True,))
    notice = state.said(state.PASTE_NOTICE)
    if notice:
        st.warning(inert(notice))
    st.multiselect("evaluators", [*NAMES, *BY_NAME_ONLY_NAMES, *custom.names()],
                   key=state.EVALUATORS,
                   persist_state="session", on_change=rerun_live)
    own_evaluators()
    return slots



def own_evaluators() -> None:
    """Write a custom evaluator (the editor opens beside the case) or load a TOML file."""
    st.button("New evaluator", key=state.EDITOR("new"), on_click=evaluator_editor.open_editor,
              disabled=evaluator_editor.is_open(),
              help="write your own yes/no question and watch it answer on this case")
    box = st.expander("Load evaluators from a TOML file", key=state.EDITOR("upload_open"),
                      on_change="rerun")
    if box.open:  # drawn only when opened: an uploader is a heavy block on every edit
        with box:
            st.file_uploader("Load evaluators (.toml)", type=["toml"], key=state.EDITOR("upload"),
                             on_change=on_evaluators_file, label_visibility="collapsed",
                             help="a TOML file of [[evaluator]] tables: they join the picker")
    notice = state.EDITOR.take("upload_notice")
    if notice:
        st.caption(inert(notice))



def on_evaluators_file() -> None:
    upload = state.EDITOR.get("upload")
    if upload is None:
        return
    try:
        found = evaluator_files.decode(upload.getvalue(), upload.name)
    except CaseError as err:
        state.EDITOR.put("upload_notice", f"{err}; nothing was changed")
        return
    custom.add(*found)
    names = state.evaluator_names()
    state.put(state.EVALUATORS, [*names, *(d.name for d in found if d.name not in names)])
    state.EDITOR.put("upload_notice", f"Added {', '.join(d.name for d in found)} from "
                                  f"{one_line(upload.name, 60)}.")



def case_payload(case: Case, chosen: tuple[Evaluator, ...]) -> dict:
    """The case file as downloaded and exported: the case, its evaluators, thresholds and
    the person's labels."""
    payload = {**case.to_dict(), **casefile.settings(chosen, state.thresholds())}
    return {**payload, **editing.labels().to_extra()}



def download_case(case: Case, chosen: tuple[Evaluator, ...]) -> None:
    payload = case_payload(case, chosen)
    st.download_button("Download the case (JSON)",
                       lambda: json.dumps(payload, indent=2, ensure_ascii=False),
                       file_name="case.json", mime="application/json", on_click="ignore")



def upload() -> None:
    st.file_uploader("Upload a case JSON", type=["json"], key=state.UPLOAD, on_change=on_upload)
    notice = state.said(state.UPLOAD_NOTICE)
    if notice:
        st.warning(inert(notice))

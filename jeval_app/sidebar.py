"""The sidebar: which judge answers, a hosted judge's connection, presentation mode."""

from __future__ import annotations

import streamlit as st

from jeval_app import hosted, resources, state
from jeval_app.views.text import inert
from jeval_core import JevalError, judges
from jeval_core.judges.jev import Secret


def presentation_toggle() -> None:
    """Presentation mode for demos: also `?present=true` in the URL."""
    with st.sidebar:
        st.toggle("Presentation mode", key=state.PRESENT, bind="query-params",
                  help="hides the editor: the verdict large, chunk cards with highlights")


def judge_settings() -> None:
    """Which judge answers; for a hosted one, its server, key and model."""
    with st.sidebar:
        labels = judges.labels()
        picked = st.radio("Judge", list(labels), format_func=labels.get, key=state.JUDGE,
                          persist_state="session")
        if judges.is_hosted(picked):
            connection(picked)
        elif judges.known(picked) and judges.entry(picked).calibrates:
            calibration()


def hosted_connection() -> None:
    """Only the hosted judge's connection (the Compare page picks its judges itself)."""
    hosted_judge = judges.hosted_name()
    if hosted_judge is None:
        return
    with st.sidebar:
        st.markdown(f"**{judges.entry(hosted_judge).title} connection** (when comparing with "
                    "it)")
        connection(hosted_judge)


def calibration() -> None:
    """A calibration profile for the offline judge (`jeval calibrate`, or the Dataset page)."""
    # "name · fingerprint": the live rerun reads the pick as it is, without the store
    names = [f"{p.name} · {p.fingerprint}" for p in resources.profiles()]
    if not names:
        st.caption("Calibration: the built-in curves. Fit a profile to your own labels from "
                   "a labelled run (Dataset) or with `jeval calibrate`.")
        return
    if state.get(state.CALIBRATION) not in (None, *names):
        state.drop(state.CALIBRATION)
    st.selectbox("Calibration profile", [None, *names], key=state.CALIBRATION,
                 persist_state="session",  # the Compare page's local judge uses it too
                 format_func=lambda n: "built-in curves" if n is None else n.split(" · ")[0],
                 help="the local judge's curves refitted to your labels; every result says "
                      "which profile judged it")


def connection(judge: str) -> None:
    """A server judge's base URL, key (a password box, kept server side) and model."""
    kind = judges.entry(judge)
    url_key = state.connection_key(judge, "base_url")
    state.put_default(url_key, hosted.default_base_url(judge))
    st.text_input("Base URL", key=url_key, persist_state="session",
                  help=f"the server's root (${kind.base_url_env}); for an OpenAI-compatible "
                       "one, the address that ends in /v1 (Ollama: http://127.0.0.1:11434/v1)"
                  if kind.names_model else f"the server's root (${kind.base_url_env})")
    has_env_key = hosted.env_key_for(state.text(url_key), judge)
    kept = state.secret(judge) is not None
    optional = " (optional: a local server needs none)" if not kind.needs_key else ""
    st.text_input(f"API key{optional}", type="password", key=state.connection_key(judge, "key"),
                  on_change=keep_key, args=(judge,),
                  placeholder="a key is kept for this session" if kept else
                  "using the key from the environment" if has_env_key else
                  "paste your key for this server",
                  help="Kept in this session's memory on the server only: once entered it "
                  "leaves the page (the box empties), and it is never in the link, the "
                  f"downloads or the logs. The environment's key (${kind.key_env}) is only "
                  "sent to the server the environment names.")
    if kept:
        st.button("Forget the key", on_click=lambda: state.keep_secret(None, judge),
                  key=state.connection_key(judge, "forget"))
    model_key = state.connection_key(judge, "model")
    if kind.names_model:  # the user's own server: any name it serves, or one from its list
        listed = state.models(judge)
        if listed:  # a name typed into the box is taken too (a list may be cut at 500)
            st.selectbox("Model", listed, key=model_key, persist_state="session",
                         accept_new_options=True)
        else:
            st.text_input("Model", key=model_key, persist_state="session",
                          placeholder="e.g. llama3.2, or load the server's list")
    else:
        offered = state.models(judge) or [hosted.model(judge) or ""]
        st.selectbox("Model", offered, key=model_key, persist_state="session")
    if st.button("Load models from the server", key=state.connection_key(judge, "load_models")):
        try:
            names, more = hosted.list_models(judge)
            state.set_models(names, judge)
            if more:
                state.say(state.MODELS_NOTE, f"Listed {more}.")
        except JevalError as err:
            state.say(state.MODELS_ERROR, str(err))
        st.rerun()
    problem = state.said(state.MODELS_ERROR)
    if problem:
        st.error(inert(problem))
    note = state.said(state.MODELS_NOTE)
    if note:
        st.caption(inert(note))


def keep_key(judge: str) -> None:
    """The key box's callback: keep what was typed in the session, out of the page (a
    password box's value is in its HTML)."""
    box = state.connection_key(judge, "key")
    typed = state.text(box).strip()
    state.put(box, "")
    if typed:
        state.keep_secret(Secret(typed), judge)

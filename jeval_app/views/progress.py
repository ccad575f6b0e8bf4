"""A run in a background job, as the page sees it: running or not, its progress and Cancel."""

from __future__ import annotations

import streamlit as st

from jeval_app import jobs, state
from jeval_app.views.boundary import boundary
from jeval_app.views.text import inert


def collect(key: str) -> jobs.Job | None:
    """A finished job under `key`, taken out of the session (None while running or absent)."""
    job = state.get(key)
    if job is None or not job.done:
        return None
    state.drop(key)
    return job


def collect_into(key: str, error_slot: str, result_slot: str) -> None:
    """A finished job's error and result under the keys where the page reads them."""
    finished = collect(key)
    if finished is not None:
        if finished.error:
            state.put(error_slot, finished.error)
        if finished.result:
            state.put(result_slot, finished.result)


def running(key: str) -> bool:
    job = state.get(key)
    return job is not None and not job.done


def awaited(key: str) -> bool:
    """A job no run has collected yet, running or just ended: its poller must stay on until
    one does. A job can end between a run's first look and its last (under load, seen), and a
    page that polled only while it was running then waited for a rerun that never came."""
    return state.get(key) is not None


CANCEL_HELP = ("stops before the next case; every finished case is kept in the run store "
               "(continue it later from this page or with `jeval run DATA --resume RUN`)")


@st.fragment(run_every=0.5)
def progress(key: str, cancel_help: str = CANCEL_HELP) -> None:
    """While the job under `key` runs: a live progress bar and Cancel (only this part reruns,
    twice a second); once it has ended, the whole page reruns to show the results."""
    job = state.get(key)
    if job is None:
        return
    if job.done:
        st.rerun()
    # this part reruns on its own: the boundary goes with it
    with boundary("The run goes on."), st.container(border=True, key=f"{key}_progress"):
        st.progress(job.fraction(), text=inert(job.line()))
        st.button("Cancel", key=f"{key}_cancel", on_click=job.stop, disabled=job.stopping,
                  help=cancel_help)

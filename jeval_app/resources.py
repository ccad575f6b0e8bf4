"""What the pages share across sessions, loaded once per process: offline judges, the run
store, the example cases; and the server's warm-up."""

from __future__ import annotations

import contextlib
import importlib
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import streamlit as st

# the sidebar's profile is read in state.py; this name stays for issue 31 §1's Compare caption
from jeval_app.state import calibration_for as calibration_for
from jeval_core import CaseError, JevalError, JudgeError, judges
from jeval_core import evaluators as registry
from jeval_core.evaluators.custom import Definition
from jeval_core.inputs import bundled, casefile, evaluator_files
from jeval_core.inputs.casefile import CaseFile
from jeval_core.judges import Judge
from jeval_core.judges.jev import KEY_ENV
from jeval_core.runs.store import Store, default_url, open_store
from jeval_core.scoring import prepare, run

EXAMPLES = bundled.path("examples")
EVALUATOR_EXAMPLES = EXAMPLES.parent / "evaluators"
DEFAULT_EXAMPLE = "jev_pricing"


# ---- offline judges: one of each per process ----

_JUDGES: dict[tuple[str, str | None], Judge] = {}
_JUDGES_LOCK = threading.Lock()


def offline_judge(name: str, calibration: str | None = None) -> Judge:
    """An offline judge, built through the catalog and loaded once per process: the first
    caller loads it, others wait (the Playground and dataset runs share it). `calibration`
    names a stored profile, as "name · fingerprint" (a profile saved again under its name is
    another judge); its judge shares the model with the plain one."""
    key = (name, calibration)
    with _JUDGES_LOCK:
        if key not in _JUDGES:
            profile = None
            if calibration is not None and judges.entry(name).calibrates:
                profile = store().profile(calibration.split(" · ")[0])
            judge = judges.get(name, calibration=profile)
            judge.warm_up()
            _JUDGES[key] = judge
        return _JUDGES[key]


def offline_judge_ready(name: str, calibration: str | None = None) -> bool:
    return (name, calibration) in _JUDGES


def profiles() -> list:
    """The calibration profiles kept in the run store (none when it cannot be read)."""
    with contextlib.suppress(JevalError):
        return store().profiles()
    return []


# ---- the run store ----

@st.cache_resource(show_spinner=False)
def store_at(url: str) -> Store:
    """The run store at `url`, opened once per process (its engine is thread-safe)."""
    return open_store(url)


def store_url() -> str:
    return default_url()


def store() -> Store:
    """The run store (JEVAL_DB, else the SQLite file in the user data dir); one per URL and
    process. Raises JevalError with one line when it cannot be opened."""
    return store_at(store_url())


# ---- the example cases ----

def examples() -> dict[str, Path]:
    return {p.stem: p for p in sorted(EXAMPLES.glob("*.json"))}


@st.cache_resource(show_spinner=False)
def evaluator_examples() -> tuple[Definition, ...]:
    """The bundled custom evaluators (assets/evaluators/*.toml): where a new one can start."""
    return evaluator_files.read(sorted(EVALUATOR_EXAMPLES.glob("*.toml")))


@st.cache_data(show_spinner=False)
def descriptions() -> dict[str, str]:
    """Each example's one-line description (its file name when it has none)."""
    out = {}
    for name in examples():
        try:
            out[name] = read_example(name).description or name
        except CaseError:
            out[name] = name
    return out


def read_example(name: str) -> CaseFile:
    path = examples()[name]
    return casefile.decode(path.read_bytes(), path.name)


# ---- the server's warm-up ----

def warm_up() -> None:
    """Load what the pages need while the server starts (app.py's App), so that no visitor
    waits for it: the default judge's model and its profanity model (the seed example scored
    once with every evaluator), the table library, the image library of the logo."""
    # on failure the page loads it again and says what went wrong
    with contextlib.suppress(Exception):
        # Streamlit's once-per-process check on the first element walks the caller's whole
        # stack (inspect.stack: 0.1-0.3 s from a page); from this thread's short stack, none
        from streamlit import delta_generator

        delta_generator._maybe_print_use_warning()
        judge = offline_judge(judges.DEFAULT)
        seed = read_example(DEFAULT_EXAMPLE).case
        run(prepare(seed, registry.ALL, judge), judge)
        for module in ("pandas", "pyarrow"):  # what the first chart and table convert with
            importlib.import_module(module)
        importlib.import_module("PIL.Image").preinit()  # what the logo and the icon open with


# ---- the judge a dataset run or a comparison asks ----

def run_judge(name: str, settings: Mapping[str, Any] | None = None,
              ) -> tuple[Judge, tuple[Judge, ...]]:
    """The judge called `name`, and what to close after the run (a hosted judge's client;
    offline judges are shared and stay loaded). `settings`: a stored run's `judge_settings`,
    for a resume to ask the same way. Raises JevalError (no key...)."""
    from jeval_app import hosted, state

    if not judges.entry(name).hosted:  # with the calibration profile picked in the sidebar
        return offline_judge(name, state.calibration_for(name)), ()
    judge = hosted.from_settings(name, **(settings or {}))
    if judges.entry(name).needs_key and not judge.has_key:
        # say so now, not once per case in a stored run of errors
        url = judge.base_url
        judge.close()
        raise JudgeError(f"no API key for {url}: choose {judges.entry(name).title} in the "
                         f"sidebar and type one, or set {KEY_ENV} for this server. Nothing "
                         "was sent")
    return judge, (judge,)

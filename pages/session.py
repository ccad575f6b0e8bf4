"""Session state the pages share: the case being edited and the judge settings.

Widgets keep their values across page switches (persist_state="session"); the API key lives
only in this browser session's memory and never reaches a URL, a file or a log. The key from
the environment goes only to the server the environment configured.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import hashlib
import importlib
import re
import threading
import time
import uuid
from pathlib import Path

import streamlit as st

from jeval_core import Case, CaseError, JevalError, casefile, live, share
from jeval_core import evaluators as registry
from jeval_core.casefile import CaseFile
from jeval_core.evaluators import Evaluator
from jeval_core.judges import LABELS, Judge
from jeval_core.judges import get as get_judge
from jeval_core.judges import jev as jev_judge
from jeval_core.scoring import prepare, run
from jeval_core.wire import parse_json
from pages import draw

EXAMPLES = Path(__file__).resolve().parent.parent / "assets" / "examples"
DEFAULT_EXAMPLE = "jev_pricing"


# Streamlit collects garbage (all generations) after every script run, holding the GIL: the
# run's last messages and the next run wait for it. Walking every object the libraries and
# the judges' models keep took 50-400 ms per run here. When such a collection was slow, the
# objects alive at the start of the next run (just after it: the long-lived ones) are moved
# out of its way with gc.freeze; this happens after each big load (the model, the profanity
# classifier, the table library), a few times per process.
SLOW_COLLECTION_S = 0.02
_COLLECTION = {"started": 0.0, "slow": True}  # the imports, at first


def _time_full_collections(phase: str, info: dict) -> None:
    if info.get("generation") != 2:
        return
    if phase == "start":
        _COLLECTION["started"] = time.perf_counter()
    elif time.perf_counter() - _COLLECTION["started"] > SLOW_COLLECTION_S:
        _COLLECTION["slow"] = True


if _time_full_collections not in gc.callbacks:
    gc.callbacks.append(_time_full_collections)


def spare_the_collector() -> None:
    """At the start of a run, after a slow full collection: freeze what is alive (see above)."""
    if _COLLECTION["slow"]:
        _COLLECTION["slow"] = False
        gc.freeze()


_JUDGES: dict[str, Judge] = {}
_JUDGES_LOCK = threading.Lock()


def offline_judge(name: str) -> Judge:
    """An offline judge, loaded once per process: the first caller loads it, others wait.

    The local judge's embedding model is loaded here; what only some evaluators need (its
    profanity model, ~1.5 s of CPU) on first use, or while the server starts (`warm_up`)."""
    with _JUDGES_LOCK:
        if name not in _JUDGES:
            judge = get_judge(name)
            if name == "local":
                from jeval_core.judges.embedder import embedder

                embedder()  # the process-wide model the local judge answers with
            _JUDGES[name] = judge
        return _JUDGES[name]


def offline_judge_ready(name: str) -> bool:
    return name in _JUDGES


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
        judge = offline_judge("local")
        seed = read_example(DEFAULT_EXAMPLE).case
        run(prepare(seed, registry.ALL, judge), judge)
        for module in ("pandas", "pyarrow"):  # what the first chart and table convert with
            importlib.import_module(module)
        importlib.import_module("PIL.Image").preinit()  # what the logo and the icon open with


def examples() -> dict[str, Path]:
    return {p.stem: p for p in sorted(EXAMPLES.glob("*.json"))}


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


def load(loaded: CaseFile, origin: str = "") -> None:
    """Put a case into the editor's widgets (call from a callback or before the widgets).

    `origin` says where it came from ("an uploaded file"...); the page marks the case as
    modified once it no longer matches what was loaded.
    """
    case = loaded.case
    for key in [k for k in st.session_state
                if str(k).startswith(("chunk_", "th_", "present_"))]:
        del st.session_state[key]  # the previous case's chunks: nothing may pile up
    st.session_state["input"] = case.input
    st.session_state["output"] = case.output
    st.session_state["expected"] = case.expected or ""
    ids = [uuid.uuid4().hex[:8] for _ in case.context]
    for uid, chunk in zip(ids, case.context, strict=True):
        st.session_state[f"chunk_{uid}"] = chunk
    st.session_state["chunk_ids"] = ids
    st.session_state["evaluators"] = [e.name for e in loaded.chosen()]
    st.session_state["thresholds"] = dict(loaded.thresholds)
    st.session_state["origin"] = origin
    st.session_state["origin_token"] = case_token(with_judge=False)


def ensure_case() -> None:
    """First visit: the case from a share link if there is one, else the seed example."""
    if "chunk_ids" in st.session_state:
        return
    token = st.query_params.get("case")
    if token:
        try:
            shared = share.decode(token)
        except CaseError as err:
            st.session_state["notice"] = str(err)
        else:
            load(shared.file, "a shared link")
            if shared.judge in LABELS:
                st.session_state["judge"] = shared.judge
            return
    load(read_example(DEFAULT_EXAMPLE), descriptions()[DEFAULT_EXAMPLE])
    st.session_state["example"] = DEFAULT_EXAMPLE
    st.session_state["seed_token"] = st.session_state["origin_token"]


def case_token(with_judge: bool = True) -> str:
    """The share token of what is in the editor (never a key: none is passed)."""
    judge = st.session_state.get("judge") if with_judge else None
    thresholds = st.session_state.get("thresholds") or {}
    return _token(current_case(), tuple(st.session_state.get("evaluators") or []), judge,
                  tuple(thresholds.items()))


@functools.lru_cache(maxsize=8)  # a run needs two or three; a case can hold megabytes
def _token(case: Case, names: tuple[str, ...], judge: str | None,
           thresholds: tuple[tuple[str, float], ...]) -> str:
    """Pure in its arguments: a run asks for the same case's token a few times (the link,
    whether it was modified, whether it is the seed), each a JSON dump and a compression."""
    return share.encode(case, tuple(registry.get(n) for n in names), judge, dict(thresholds))


def modified() -> bool:
    """Whether the case no longer matches what was loaded (the judge is not the case)."""
    return case_token(with_judge=False) != st.session_state.get("origin_token")


def current_case() -> Case:
    ids = st.session_state.get("chunk_ids", [])
    expected = st.session_state.get("expected", "")
    return Case(
        input=st.session_state.get("input", ""),
        output=st.session_state.get("output", ""),
        expected=expected if expected.strip() else None,
        context=tuple(st.session_state.get(f"chunk_{uid}", "") for uid in ids),
    )


def chosen_evaluators() -> tuple[Evaluator, ...]:
    """The evaluators picked in the multiselect, as objects (names resolved here, once)."""
    return tuple(registry.get(n) for n in st.session_state.get("evaluators") or [])


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
    ids = [] if replace else list(st.session_state.get("chunk_ids", []))
    for chunk in chunks:
        uid = uuid.uuid4().hex[:8]
        st.session_state[f"chunk_{uid}"] = chunk
        ids.append(uid)
    st.session_state["chunk_ids"] = ids


def move_chunk(uid: str, step: int) -> None:
    ids = st.session_state["chunk_ids"]
    i = ids.index(uid)
    j = i + step
    if 0 <= j < len(ids):
        ids[i], ids[j] = ids[j], ids[i]


def delete_chunk(uid: str) -> None:
    st.session_state["chunk_ids"].remove(uid)
    st.session_state.pop(f"chunk_{uid}", None)


def env_key_for(url: str) -> bool:
    """Whether the environment holds a key meant for this base URL."""
    try:
        return jev_judge.key_from_env(url) is not None
    except JevalError:
        return False


def presentation_toggle() -> None:
    """Presentation mode for demos: also `?present=true` in the URL."""
    with st.sidebar:
        st.toggle("Presentation mode", key="present", bind="query-params",
                  help="hides the editor: the verdict large, chunk cards with highlights")


def judge_settings() -> None:
    """The sidebar: which judge answers, and the hosted judge's connection."""
    with st.sidebar:
        judge = st.radio("Judge", list(LABELS), format_func=LABELS.get, key="judge",
                         persist_state="session")
        if judge != "jev":
            return
        st.session_state.setdefault("jev_base_url", default_base_url())
        st.text_input("Base URL", key="jev_base_url", persist_state="session")
        has_env_key = env_key_for(st.session_state.get("jev_base_url") or "")
        kept = st.session_state.get(SECRET) is not None
        st.text_input("API key", type="password", key="jev_key", on_change=keep_key,
                      placeholder="a key is kept for this session" if kept else
                      "using the key from the environment" if has_env_key else
                      "paste your key for this server",
                      help="Kept in this session's memory on the server only: once entered it "
                      "leaves the page (the box empties), and it is never in the link, the "
                      "downloads or the logs. The environment's key is only sent to the "
                      "server the environment names.")
        if kept:
            st.button("Forget the key", on_click=lambda: st.session_state.pop(SECRET, None))
        models = st.session_state.get("jev_models") or [st.session_state.get("jev_model")
                                                         or "jev-latest"]
        st.selectbox("Model", models, key="jev_model", persist_state="session")
        if st.button("Load models from the server"):
            load_models()
        if st.session_state.get("models_error"):
            st.error(draw.inert(st.session_state.pop("models_error")))


def default_base_url() -> str:
    try:
        return jev_judge.configured_base_url()
    except JevalError:
        return jev_judge.DEFAULT_BASE_URL


def load_models() -> None:
    try:
        judge = jev_from_settings()
        try:
            st.session_state["jev_models"] = [m.name for m in judge.models()]
        finally:
            judge.close()
        st.rerun()
    except JevalError as err:
        st.session_state["models_error"] = str(err)
        st.rerun()


SECRET = "jev_secret"  # the typed key, server-side only: never a widget's value


def keep_key() -> None:
    """The key box's callback: keep what was typed in the session, out of the page (a
    password box's value is in its HTML)."""
    typed = (st.session_state.get("jev_key") or "").strip()
    st.session_state["jev_key"] = ""
    if typed:
        st.session_state[SECRET] = jev_judge.Secret(typed)


def jev_from_settings() -> jev_judge.JevJudge:
    """The hosted judge as the sidebar sets it up (typed key first, then the environment)."""
    key = st.session_state.get(SECRET)
    return jev_judge.JevJudge(api_key=key or None, base_url=st.session_state.get("jev_base_url"),
                              model=st.session_state.get("jev_model") or "jev-latest")


# ---- the hosted judge, live (jeval_core.live does the bookkeeping) ----

def hosted_base_url() -> str:
    """The server the hosted judge would be asked on: the sidebar's, else the configured one."""
    return (st.session_state.get("jev_base_url") or "").strip() or default_base_url()


def typed_key() -> str | None:
    return (st.session_state.get("jev_key") or "").strip() or None


def hosted_key_ready() -> bool:
    """Whether a key for the hosted judge's server is set: typed in the Jev settings (it goes
    to the server it was typed for), or the environment's, for the server it names."""
    return typed_key() is not None or env_key_for(hosted_base_url())


def live_runner() -> live.Runner:
    """This browser session's live hosted judge (its ledger and cap last as long as it)."""
    runner = st.session_state.get("live_runner")
    if not isinstance(runner, live.Runner):
        runner = live.Runner(live.Live())
        st.session_state["live_runner"] = runner
    return runner


def hosted_maker() -> tuple[tuple[str, str, str], live.Make]:
    """The hosted judge's settings as they are now (what makes two requests the same), and
    the function that builds the judge for one request. The key stays inside that function:
    the settings carry only a digest of a typed key, so that a new key asks again."""
    key = typed_key()
    url = hosted_base_url()
    model = st.session_state.get("jev_model") or "jev-latest"

    def make() -> tuple[jev_judge.JevJudge, live.Send]:
        judge = jev_judge.JevJudge(api_key=key, base_url=url, model=model)
        return judge, lambda packed: run(packed, judge)

    tag = hashlib.sha256(key.encode()).hexdigest()[:12] if key else "environment"
    return (url, model, tag), make

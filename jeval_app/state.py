"""Everything a browser session keeps, under named accessors; the keys are written here only.

Widgets own their values (their keys are the names below, passed as `key=`); the rest is
read and set through the functions here. A page's own keys live under that page's `Keys`
(`DATASET("run")` is "ds_run"), so two pages cannot share a key by accident, and no other
module touches `st.session_state`. The typed API key is kept server side, in this session's
memory only: never a widget's value, a URL, a file or a log.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import streamlit as st

from jeval_core import judges

if TYPE_CHECKING:
    from jeval_core.case import ChunkMeta
    from jeval_core.judges.jev import Secret
    from jeval_core.live import Runner
    from jeval_core.scoring import Report

class Keys:
    """One page's keys: each is the page's prefix, "_" and a name (`DATASET("run")`)."""

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix

    def __call__(self, *parts: object) -> str:
        return "_".join((self.prefix, *map(str, parts)))

    def get(self, name: str, default: Any = None) -> Any:
        return st.session_state.get(self(name), default)

    def put(self, name: str, value: Any) -> None:
        st.session_state[self(name)] = value

    def take(self, name: str) -> Any:
        """The value under `name`, taken out (a notice is said once)."""
        return st.session_state.pop(self(name), None)

    def drop(self, *names: str) -> None:
        for name in names:
            st.session_state.pop(self(name), None)

    def has(self, name: str) -> bool:
        return self(name) in st.session_state


DATASET = Keys("ds")  # the Dataset page
COMPARE = Keys("cmp")  # the Compare page
DASHBOARD = Keys("dash")  # the Dashboard
EDITOR = Keys("ev")  # the Playground's custom evaluator editor and its TOML upload

# ---- widget keys ----
INPUT, OUTPUT, EXPECTED = "input", "output", "expected"  # the case's texts
EVALUATORS = "evaluators"
EXAMPLE = "example"  # the example picked (None once another case is loaded)
PENDING_EXAMPLE = "pending_example"  # picked over an edited case: waits for a yes
LOADED_EXAMPLE = "loaded_example"  # the example in the editor (what the picker goes back to)
PREVIOUS_CASE = "previous_case"  # the edited case an example replaced (its token): undo
JUDGE = "judge"
CALIBRATION = "calibration"  # the calibration profile picked, as "name · fingerprint"
BASE_URL, KEY_BOX, MODEL = "jev_base_url", "jev_key", "jev_model"  # the hosted connection
HOSTED_LIVE = "hosted_live"
HOSTED_JOB = "hosted_job"  # the server judge's pressed-for scoring, running in the background
PRESENT = "present"  # presentation mode
FOCUS = "focus"  # the chunk in focus, as its address reads (`context[2]`)
DETAIL = "detail_pick"  # the evaluator whose details are open
UPLOAD, PASTE, PASTE_HOW = "upload", "paste", "paste_how"
CAP_USD, CAP_REQUESTS = "live_cap_usd", "live_cap_requests"
LIVE_TRY_AGAIN, LIVE_GO_ON = "live_try_again", "live_go_on"  # the live judge's buttons
# what is open (each drawn only when open: nothing to draw per edit otherwise)
REQUEST_OPEN, VERBATIM_OPEN, WHY_OPEN = "request_open", "verbatim_open", "why_open"
WHATIF_OPEN, PASTE_OPEN = "whatif_open", "paste_open"
KSWEEP_OPEN = "ksweep_open"  # the Playground's "Which k?" panel
COMPARE_OPEN, COMPARE_ON = "compare_open", "compare_on"  # judges side by side on this case
KEEP_RUN = "keep_run"  # keep the scored case as a run
_CHUNK, _THRESHOLD = "chunk_", "th_"
_LABEL, _TRUTH = "label_", "truth_"  # a person's label per chunk (by its id), per evaluator
# the text each label was given on: a chunk's (by its id), and the case's input and output
_LABELLED, _TRUTH_CASE = "labelled_", "verdicts_labelled_on"
RELEVANT, NOISE, PASS, FAIL = "relevant", "noise", "pass", "fail"  # the label widgets' words

# ---- one-line notices: said once, on the next run ----
NOTICE = "notice"  # a damaged share link
UPLOAD_NOTICE, PASTE_NOTICE = "upload_notice", "paste_notice"
MODELS_ERROR = "models_error"
MODELS_NOTE = "models_note"  # how many models the server listed beyond those shown
KEPT_RUN = "kept_run"

# ---- values no widget holds ----
_CHUNK_IDS = "chunk_ids"
_CHUNK_META = "pipeline_meta"  # each chunk's id, source, score and rank (by its id), if known
_THRESHOLDS = "thresholds"
_ORIGIN, _ORIGIN_TOKEN, _SEED_TOKEN = "origin", "origin_token", "seed_token"
_HOSTED_REPORT = "jev_result"
_LIVE_RUNNER = "live_runner"
_ASKED = "asked"  # one-shot requests of the page's buttons: {"copy", "live_retry"}
_CUSTOM = "custom_definitions"  # this session's custom evaluators: name -> definition (JSON)
_CUSTOM_LOADED = "custom_loaded"  # the run store's kept ones were read into the session


def get(key: str, default: Any = None) -> Any:
    """A widget's value (by one of the keys above)."""
    return st.session_state.get(key, default)


def put(key: str, value: Any) -> None:
    st.session_state[key] = value


def put_default(key: str, value: Any) -> None:
    """`value` under `key` unless the session has one (a widget's first value)."""
    st.session_state.setdefault(key, value)


def has(key: str) -> bool:
    return key in st.session_state


def take(key: str) -> Any:
    """The value under `key`, taken out."""
    return st.session_state.pop(key, None)


def drop(key: str) -> None:
    st.session_state.pop(key, None)


def text(key: str) -> str:
    return st.session_state.get(key) or ""


def say(slot: str, message: str) -> None:
    st.session_state[slot] = message


def said(slot: str) -> str | None:
    """The notice left in `slot`, taken out (it is said once)."""
    return st.session_state.pop(slot, None) or None


def ask(what: str) -> None:
    st.session_state.setdefault(_ASKED, set()).add(what)


def asked(what: str) -> bool:
    """Whether `ask(what)` was called since the last look (the look takes it)."""
    pending = st.session_state.get(_ASKED) or set()
    found = what in pending
    pending.discard(what)
    return found


# ---- the case in the editor ----

def has_case() -> bool:
    return _CHUNK_IDS in st.session_state


def chunk_ids() -> list[str]:
    return st.session_state.get(_CHUNK_IDS, [])


def set_chunk_ids(ids: list[str]) -> None:
    st.session_state[_CHUNK_IDS] = ids


def chunk_meta() -> dict[str, ChunkMeta]:
    """The pipeline's metadata of the chunks that have it, by chunk id: it follows a chunk
    that is moved, and goes with one that is deleted."""
    found = st.session_state.get(_CHUNK_META)
    if found is None:
        found = st.session_state[_CHUNK_META] = {}
    return found


def set_chunk_meta(meta: dict[str, ChunkMeta]) -> None:
    st.session_state[_CHUNK_META] = dict(meta)


def chunk_key(uid: str) -> str:
    return f"{_CHUNK}{uid}"


def chunk_button_key(action: str, uid: str) -> str:
    """A chunk's own button (`up`, `down`, `drop`)."""
    return f"{action}_{uid}"


def threshold_key(name: str) -> str:
    return f"{_THRESHOLD}{name}"


def label_key(uid: str) -> str:
    return f"{_LABEL}{uid}"


def truth_key(name: str) -> str:
    return f"{_TRUTH}{name}"


def chunk_labels() -> tuple[bool | None, ...]:
    """The person's label of each chunk, in rank order (None: unlabelled)."""
    words = {RELEVANT: True, NOISE: False}
    return tuple(words.get(st.session_state.get(label_key(uid))) for uid in chunk_ids())


def evaluator_truth() -> dict[str, bool | None]:
    """The person's verdict of each picked evaluator (None: unlabelled)."""
    words = {PASS: True, FAIL: False}
    return {n: words.get(st.session_state.get(truth_key(n))) for n in evaluator_names()}


def set_labels(chunks: dict[str, bool | None], verdicts: dict[str, bool]) -> None:
    """Labels by chunk id and by evaluator name, as the widgets show them."""
    for uid, label in chunks.items():
        st.session_state[label_key(uid)] = None if label is None else (
            RELEVANT if label else NOISE)
    for name, passed in verdicts.items():
        st.session_state[truth_key(name)] = PASS if passed else FAIL
    if verdicts:  # a new case's labels: they stand on its input and output as loaded
        st.session_state[_TRUTH_CASE] = (text(INPUT), text(OUTPUT))
    remember_labelled_texts()


def remember_labelled_texts() -> None:
    """Note the text each label stands on (a label's widget changed, or labels were set)."""
    for uid in chunk_ids():
        if st.session_state.get(label_key(uid)) is not None:
            st.session_state.setdefault(f"{_LABELLED}{uid}", text(chunk_key(uid)))
    if any(st.session_state.get(truth_key(n)) is not None for n in evaluator_names()):
        st.session_state.setdefault(_TRUTH_CASE, (text(INPUT), text(OUTPUT)))


def drop_labels_of_replaced_texts() -> None:
    """After an edit: a chunk whose text was replaced (not edited) loses its label, and a case
    whose input or output was replaced loses its evaluator verdict labels."""
    from jeval_core.analysis.labels import replaced

    for uid in chunk_ids():
        given = st.session_state.get(f"{_LABELLED}{uid}")
        if given is not None and replaced(given, text(chunk_key(uid))):
            st.session_state[label_key(uid)] = None
            del st.session_state[f"{_LABELLED}{uid}"]
    case = st.session_state.get(_TRUTH_CASE)
    if case is not None and (replaced(case[0], text(INPUT)) or replaced(case[1], text(OUTPUT))):
        for name in evaluator_names():
            st.session_state[truth_key(name)] = None
        del st.session_state[_TRUTH_CASE]
    remember_labelled_texts()


def forget_chunks_and_sliders() -> None:
    """The previous case's chunks, labels and threshold sliders: nothing may pile up."""
    for key in [k for k in st.session_state
                if str(k).startswith((_CHUNK, _THRESHOLD, _LABEL, _TRUTH, _LABELLED, _TRUTH_CASE))]:
        del st.session_state[key]


def forget_sliders() -> None:
    for key in [k for k in st.session_state if str(k).startswith(_THRESHOLD)]:
        del st.session_state[key]


def evaluator_names() -> list[str]:
    return list(st.session_state.get(EVALUATORS) or [])


def thresholds() -> dict[str, float]:
    return dict(st.session_state.get(_THRESHOLDS) or {})


def set_thresholds(values: dict[str, float]) -> None:
    st.session_state[_THRESHOLDS] = dict(values)


def origin() -> str:
    return st.session_state.get(_ORIGIN) or ""


def origin_token() -> str | None:
    return st.session_state.get(_ORIGIN_TOKEN)


def set_origin(where: str, token: str) -> None:
    st.session_state[_ORIGIN], st.session_state[_ORIGIN_TOKEN] = where, token


def seed_token() -> str | None:
    return st.session_state.get(_SEED_TOKEN)


def set_seed_token(token: str | None) -> None:
    st.session_state[_SEED_TOKEN] = token


# ---- the judge ----

def judge_name() -> str:
    return st.session_state.get(JUDGE) or judges.DEFAULT


def calibration_for(name: str) -> str | None:
    """The profile picked in the sidebar, as "name · fingerprint", when `name` calibrates."""
    picked = st.session_state.get(CALIBRATION)
    if not picked or not judges.known(name) or not judges.entry(name).calibrates:
        return None
    return str(picked)


def connection_key(judge: str, what: str) -> str:
    """A server judge's own connection key (`what`: base_url, key, model, secret, models,
    forget, load_models): jev_base_url, openai_key... Each server judge keeps its own, so a
    key typed for one server is never sent to the other."""
    return f"{judge}_{what}"


def secret(judge: str = "jev") -> Secret | None:
    return st.session_state.get(connection_key(judge, "secret"))


def keep_secret(key: Secret | None, judge: str = "jev") -> None:
    if key is None:
        st.session_state.pop(connection_key(judge, "secret"), None)
    else:
        st.session_state[connection_key(judge, "secret")] = key


def models(judge: str = "jev") -> list[str]:
    return list(st.session_state.get(connection_key(judge, "models")) or [])


def set_models(names: list[str], judge: str = "jev") -> None:
    st.session_state[connection_key(judge, "models")] = names


def hosted_report() -> Report | None:
    """The hosted judge's last answer in this session (pressed for, or live)."""
    return st.session_state.get(_HOSTED_REPORT)


def set_hosted_report(report: Report) -> None:
    st.session_state[_HOSTED_REPORT] = report


def live_runner() -> Runner:
    """This session's live hosted judge (its ledger and cap last as long as the session)."""
    from jeval_core import live

    runner = st.session_state.get(_LIVE_RUNNER)
    if not isinstance(runner, live.Runner):
        runner = live.Runner(live.Live())
        st.session_state[_LIVE_RUNNER] = runner
    return runner


def live_runner_if_any() -> Runner | None:
    return st.session_state.get(_LIVE_RUNNER)


# ---- custom evaluators (the session's, by name; each a definition's JSON text) ----

def custom_definitions() -> dict[str, str]:
    return dict(st.session_state.get(_CUSTOM) or {})


def set_custom_definitions(values: dict[str, str]) -> None:
    st.session_state[_CUSTOM] = dict(values)


def custom_loaded() -> bool:
    return bool(st.session_state.get(_CUSTOM_LOADED))


def mark_custom_loaded() -> None:
    st.session_state[_CUSTOM_LOADED] = True

"""Playground: edit one case and see every question, probability and verdict, live."""

from __future__ import annotations

import json
import time

import streamlit as st

from jeval_core import Case, CaseError, JevalError, Report, casefile, evaluators, share
from jeval_core.evaluators import NAMES, Evaluator
from jeval_core.judges import Judge
from jeval_core.judges import get as get_judge
from jeval_core.request import pack
from jeval_core.scoring import prepare, run
from jeval_core.text import one_line
from pages import draw, session


@st.cache_resource(show_spinner="Loading the offline judge…")
def offline_judge(name: str) -> Judge:
    judge = get_judge(name)
    judge.warm_up()
    return judge


@st.cache_data(max_entries=256, show_spinner=False)
def score_offline(case: Case, names: tuple[str, ...], judge: str,
                  thresholds: tuple[tuple[str, float], ...]) -> Report:
    """Pure in its arguments (plain names, not objects, so Streamlit can hash them)."""
    offline = offline_judge(judge)
    return run(prepare(case, evaluators.resolve(names), offline), offline, dict(thresholds))


def on_example() -> None:
    session.load(session.read_example(st.session_state["example"]))


def on_upload() -> None:
    upload = st.session_state.get("upload")
    if upload is None:
        return
    try:
        loaded = casefile.decode(upload.getvalue(), upload.name)
    except CaseError as err:
        st.session_state["notice"] = f"{err}; nothing was changed"
    else:
        session.load(loaded)


def on_paste(replace: bool) -> None:
    chunks = session.split_chunks(st.session_state.get("paste", ""))
    if chunks:
        session.add_chunks(chunks, replace=replace)
        st.session_state["paste"] = ""


def editor() -> None:
    """Input, output, expected, the chunk list and the evaluators."""
    st.text_area("input — the user's question", key="input", height=68,
                 persist_state="session")
    st.text_area("output — the answer to judge", key="output", height=100,
                 persist_state="session")
    st.text_area("expected — a reference answer (optional)", key="expected", height=68,
                 persist_state="session")
    ids = st.session_state["chunk_ids"]
    st.markdown(f"**context** — {len(ids)} retrieved chunks, in rank order")
    for pos, uid in enumerate(ids):
        text_col, up, down, drop = st.columns([12, 1, 1, 1], vertical_alignment="center",
                                              gap="small")
        text_col.text_area(f"context[{pos}]", key=f"chunk_{uid}", height=68,
                           persist_state="session")
        up.button("", icon=":material/arrow_upward:", key=f"up_{uid}", type="tertiary",
                  on_click=session.move_chunk, args=(uid, -1), disabled=pos == 0,
                  help="move up")
        down.button("", icon=":material/arrow_downward:", key=f"down_{uid}", type="tertiary",
                    on_click=session.move_chunk, args=(uid, 1), disabled=pos == len(ids) - 1,
                    help="move down")
        drop.button("", icon=":material/close:", key=f"drop_{uid}", type="tertiary",
                    on_click=session.delete_chunk, args=(uid,), help="delete this chunk")
    st.button("Add a chunk", on_click=session.add_chunks, args=([""],))
    with st.expander("Paste many chunks at once (separated by blank lines)"):
        st.text_area("chunks", key="paste", height=120, label_visibility="collapsed")
        left, right = st.columns(2)
        left.button("Append them", on_click=on_paste, args=(False,))
        right.button("Replace all chunks", on_click=on_paste, args=(True,))
    st.multiselect("evaluators", NAMES, key="evaluators", persist_state="session")


def sharing(case: Case, chosen: tuple[Evaluator, ...]) -> None:
    judge = st.session_state.get("judge")
    thresholds = st.session_state.get("thresholds") or {}
    left, mid = st.columns(2)
    if left.button("Copy link", width="stretch",
                   help="puts this case in the address bar and below; never the key"):
        token = share.encode(case, chosen, judge, thresholds)
        st.query_params["case"] = token
        base = st.context.url.split("?")[0] if st.context.url else ""
        st.session_state["link"] = f"{base}?case={token}"
    payload = {**case.to_dict(), "evaluators": [e.name for e in chosen]}
    if thresholds:
        payload["thresholds"] = thresholds
    mid.download_button("Download JSON", json.dumps(payload, indent=2, ensure_ascii=False),
                        file_name="case.json", mime="application/json", width="stretch")
    st.file_uploader("Upload a case JSON", type=["json"], key="upload", on_change=on_upload)
    if st.session_state.get("link"):
        st.code(st.session_state["link"], language=None, wrap_lines=True)


def run_scoring(case: Case, chosen: tuple[Evaluator, ...]) -> tuple[Report | None, str | None]:
    """Offline judges score on every commit; the hosted one only when asked."""
    judge = st.session_state.get("judge", "local")
    thresholds = tuple(sorted((st.session_state.get("thresholds") or {}).items()))
    if judge != "jev":
        try:
            return score_offline(case, tuple(e.name for e in chosen), judge, thresholds), None
        except JevalError as err:
            return None, str(err)
    try:
        packed = pack(case, chosen, st.session_state.get("jev_model") or "jev-latest")
    except JevalError as err:
        return None, str(err)
    ask = st.button(f"Score with Jev (1 request, ~{packed.tokens.total:,} tokens, "
                    f"~${packed.cost_usd:.6f})", type="primary")
    if ask:
        try:
            hosted = session.jev_from_settings()
            try:
                report = run(prepare(case, chosen, hosted), hosted, dict(thresholds))
            finally:
                hosted.close()
            st.session_state["jev_result"] = report
        except JevalError as err:
            return None, str(err)
    return st.session_state.get("jev_result"), None


@st.fragment
def workbench() -> None:
    try:
        panel()
    except Exception as err:  # the boundary: a visitor sees one line, never a traceback
        st.error(draw.inert(f"Something went wrong on this page ({type(err).__name__}: "
                            f"{one_line(err, 200)}). Your text is kept; please report this."))


def panel() -> None:
    inputs, results = st.columns([4, 6], gap="large")
    with inputs:
        st.selectbox("example", list(session.examples()), key="example",
                     on_change=on_example, index=None, placeholder="Load an example…")
        editor()
        case = session.current_case()
        chosen = session.chosen_evaluators()
        sharing(case, chosen)
        if st.session_state.get("notice"):
            st.warning(draw.inert(st.session_state.pop("notice")))
    with results:
        if not chosen:
            st.info("Pick at least one evaluator.")
            return
        started = time.perf_counter()
        report, error = run_scoring(case, chosen)
        if report is not None:
            st.session_state["last_good"] = report
        if error:
            inputs.error(draw.inert(error))
        shown = report or st.session_state.get("last_good")
        if shown is None:
            if not error:
                st.info("Press the button to score this case with the hosted judge.")
            return
        if report is None:
            stale = "These are the last good results: the latest scoring failed."
        elif (shown.packed.state != pack(case, chosen).state
              or [e.name for e in shown.packed.selected] != [e.name for e in chosen]):
            stale = "These results are stale: the case changed since they were scored."
        else:
            stale = ""
        header(shown, time.perf_counter() - started, stale)
        draw.cards(shown, bool(stale))
        draw.details(shown)
        st.subheader("Questions sent, verbatim")
        draw.questions(shown)
        st.subheader("The request")
        draw.request_panel(shown)


def header(report: Report, elapsed: float, stale: str) -> None:
    line = (f"judge: {report.judge} · judge time {report.latency_s * 1000:.0f} ms · "
            f"page {elapsed * 1000:.0f} ms")
    if report.model:
        line += f" · model {report.model}"
    if report.request_id:
        line += f" · request id {report.request_id}"
    st.caption(draw.inert(line))
    if stale:
        st.warning(stale)
    if report.approximates:
        st.caption(draw.inert(f"{offline_judge(report.judge).note} Verdicts can differ from "
                              "the hosted judge's."))


st.title("Playground")
st.caption("Which retrieved chunks were noise, and is the answer grounded? Every question "
           "below goes to the judge in one request.")
workbench()

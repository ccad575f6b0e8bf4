"""Playground: edit one case and see every question, probability and verdict, live.

Thin: read the widgets, call jeval_core, draw. Offline judges score on every commit (cached
by the case, not by the thresholds: a threshold is a what-if that re-reduces the answers
already given); the hosted judge only when its button is pressed.
"""

from __future__ import annotations

import contextlib
import json
import time
from dataclasses import dataclass

import streamlit as st
from streamlit.delta_generator import DeltaGenerator
from streamlit.errors import StreamlitAPIException

from jeval_core import Case, CaseError, JevalError, Report, casefile, evaluators, share
from jeval_core.evaluators import EVALUATORS, NAMES, Evaluator
from jeval_core.judges import Judge
from jeval_core.live import Cap, Status, Ticket, case_key
from jeval_core.request import Packed, pack
from jeval_core.scoring import prepare, run
from jeval_core.share import MAX_TOKEN_CHARS
from jeval_core.text import one_line
from pages import draw, session

OFFLINE = ("local", "lexical")
LIVE = "live"  # the fragment a committed edit reruns
WATCH_S = 0.25  # how often a pending hosted answer is looked for


def offline_judge(name: str) -> Judge:
    if session.offline_judge_ready(name):
        return session.offline_judge(name)
    with st.spinner("Loading the offline judge…"):
        return session.offline_judge(name)


@st.cache_data(max_entries=256, show_spinner=False)
def score_offline(case: Case, names: tuple[str, ...], judge: str) -> Report:
    """Pure in its arguments (plain names, not objects, so Streamlit can hash them): the same
    case and evaluators are never judged twice (thresholds re-reduce the answers)."""
    offline = session.offline_judge(judge)
    return run(prepare(case, evaluators.resolve(names), offline), offline)


# ---- callbacks: they change the case before the widgets are drawn ----

def rerun_live() -> None:
    """A committed edit of the case's text or of its evaluators changes the results, the bar
    under the picker and each chunk's verdict, not the editor the browser already shows:
    rerun the live panel only."""
    with contextlib.suppress(StreamlitAPIException):  # no live panel: the usual rerun
        st.rerun(LIVE)


def on_example() -> None:
    name = st.session_state.get("example")
    if name:
        session.load(session.read_example(name), session.descriptions()[name])


def on_revert() -> None:
    """The example again as it was: new chunks for the editor, so the whole page reruns (the
    button is drawn by the live panel, whose own rerun would leave the editor as it was)."""
    on_example()
    st.rerun()


def on_upload() -> None:
    upload = st.session_state.get("upload")
    if upload is None:
        return
    try:
        loaded = casefile.decode(upload.getvalue(), upload.name)
        share.check_chunks(len(loaded.case.context), "the uploaded case")
    except CaseError as err:
        st.session_state["upload_notice"] = f"{err}; nothing was changed"
    else:
        session.load(loaded, f"the uploaded file {one_line(upload.name, 60)}")
        st.session_state["example"] = None


def on_paste(replace: bool) -> None:
    try:
        chunks = session.split_chunks(st.session_state.get("paste", ""),
                                      st.session_state.get("paste_how") or "blank")
        kept = 0 if replace else len(st.session_state.get("chunk_ids", []))
        share.check_chunks(kept + len(chunks), "the case with the pasted chunks")
    except CaseError as err:
        st.session_state["paste_notice"] = str(err)
        return
    if chunks:
        session.add_chunks(chunks, replace=replace)
        st.session_state["paste"] = ""


def on_pick(chart_key: str) -> None:
    """A click on a bar focuses its chunk (a click beside the bars, none)."""
    state = st.session_state.get(chart_key) or {}
    picked = (state.get("selection") or {}).get("pick") or []
    chunk = draw.chunk_of(str(picked[0].get("judged", ""))) if picked else None
    st.session_state["focus"] = None if chunk is None else f"context[{chunk}]"


def on_threshold(name: str) -> None:
    thresholds = dict(st.session_state.get("thresholds") or {})
    thresholds[name] = float(st.session_state[f"th_{name}"])
    st.session_state["thresholds"] = thresholds


def on_reset_thresholds() -> None:
    st.session_state["thresholds"] = {}
    for key in [k for k in st.session_state if str(k).startswith("th_")]:
        del st.session_state[key]


# ---- the editor ----

def origin_line() -> None:
    """Where the case came from, and whether it was modified since (with a way back)."""
    origin = st.session_state.get("origin") or ""
    if session.modified():
        st.caption(draw.inert(f"Modified (was: {origin})" if origin else "Modified"))
        if st.session_state.get("example"):
            st.button("Revert", on_click=on_revert, type="tertiary",
                      help="load the example again as it was")
    elif origin and not st.session_state.get("example"):
        st.caption(draw.inert(f"From {origin}"))


def editor() -> dict[str, DeltaGenerator]:
    """Input, output, expected, the chunk list and the evaluators. Returns a slot beside each
    chunk (by its id) for its p and verdict, which the live panel draws."""
    st.text_area("input — the user's question", key="input", height=68,
                 persist_state="session", on_change=rerun_live)
    st.text_area("output — the answer to judge", key="output", height=100,
                 persist_state="session", on_change=rerun_live)
    st.text_area("expected — a reference answer (optional)", key="expected", height=68,
                 persist_state="session", on_change=rerun_live)
    ids = st.session_state["chunk_ids"]
    st.markdown(f"**context** — {draw.plural(len(ids), 'retrieved chunk', 'retrieved chunks')}"
                ", in rank order")
    slots = {}
    for pos, uid in enumerate(ids):
        # a flex row rather than four columns: each block on the page costs the browser time
        # on every edit, not only those an edit redraws (30 chunks: 5 blocks fewer each)
        with st.container(key=f"chunkbox_{uid}"):
            with st.container(horizontal=True, wrap=False, vertical_alignment="center",
                              gap="small"):
                st.text_area(f"context[{pos}]", key=f"chunk_{uid}", height=68,
                             persist_state="session", on_change=rerun_live)
                st.button(f"Move context[{pos}] up", key=f"up_{uid}", type="tertiary",
                          on_click=session.move_chunk, args=(uid, -1), disabled=pos == 0)
                st.button(f"Move context[{pos}] down", key=f"down_{uid}", type="tertiary",
                          on_click=session.move_chunk, args=(uid, 1),
                          disabled=pos == len(ids) - 1)
                st.button(f"Delete context[{pos}]", key=f"drop_{uid}", type="tertiary",
                          on_click=session.delete_chunk, args=(uid,))
            slots[uid] = st.container()
    st.button("Add a chunk", on_click=session.add_chunks, args=([""],))
    paste = st.expander("Paste many chunks at once", key="paste_open", on_change="rerun")
    if paste.open:  # drawn only when opened: nothing to draw per edit otherwise
        with paste:
            st.radio("separated by", list(session.SEPARATORS), key="paste_how",
                     horizontal=True, format_func=session.SEPARATORS.get)
            st.text_area("chunks", key="paste", height=120, label_visibility="collapsed")
            left, right = st.columns(2)
            left.button("Append them", on_click=on_paste, args=(False,))
            right.button("Replace all chunks", on_click=on_paste, args=(True,))
    if st.session_state.get("paste_notice"):
        st.warning(draw.inert(st.session_state.pop("paste_notice")))
    st.multiselect("evaluators", NAMES, key="evaluators", persist_state="session",
                   on_change=rerun_live)
    return slots


def chunk_verdict(text: str, row: dict | None, offline: str | None = None) -> None:
    """Beside a chunk: its p(relevant) and verdict, and the words that drove p; `offline`
    names the offline judge when its verdict stands in for the hosted judge's."""
    if not text.strip():
        st.caption("blank: not judged (it keeps its rank)")
        return
    if row is None:
        st.empty()  # the slot is written on every run, even with nothing to say
        return
    colour = "orange" if row["unsure"] else ("green" if row["yes"] else "gray")
    mark = f" · {draw.inert(offline)} judge" if offline else ""
    line = f":{colour}-badge[p {row['p']:.2f} · {draw.inert(row['verdict'])}{mark}]"
    words = [t for _, _, t in row["evidence"]]
    if words:
        line += " why: " + ", ".join(f":orange-background[{draw.inert(w)}]" for w in words[:8])
    st.markdown(line)


def download_case(case: Case, chosen: tuple[Evaluator, ...]) -> None:
    thresholds = st.session_state.get("thresholds") or {}
    payload = {**case.to_dict(), "evaluators": [e.name for e in chosen]}
    if thresholds:
        payload["thresholds"] = thresholds
    st.download_button("Download the case (JSON)",
                       lambda: json.dumps(payload, indent=2, ensure_ascii=False),
                       file_name="case.json", mime="application/json", on_click="ignore")


def upload() -> None:
    st.file_uploader("Upload a case JSON", type=["json"], key="upload", on_change=on_upload)
    if st.session_state.get("upload_notice"):
        st.warning(draw.inert(st.session_state.pop("upload_notice")))


# ---- sharing: the link follows the case ----

def follow_in_url() -> str | None:
    """Keep `?case=` in the address bar in step with the editor, so a reload keeps the edited
    case; the untouched seed example needs none. Returns the token (None when not kept)."""
    token = session.case_token()
    pristine = (session.case_token(with_judge=False) == st.session_state.get("seed_token")
                and (st.session_state.get("judge") or "local") == "local")
    if pristine:
        keep = None
    elif len(token) > MAX_TOKEN_CHARS:
        keep = None  # too long to be a link: the JSON download is the way to share it
    else:
        keep = token
    if st.query_params.get("case") != keep:
        if keep is None:
            st.query_params.pop("case", None)
        else:
            st.query_params["case"] = keep
    return keep


# Streamlit pushes a browser history entry whenever the query string changes, so with the link
# following the case every committed edit was one: Back stepped through edits while the editor
# kept the newest text, and a reload there brought an old case back over it. A change of the
# query string alone replaces the entry; a change of page still adds one. A constant script:
# no visitor text reaches it. Its element takes no room on the page.
ONE_ENTRY_PER_PAGE = """<span id="jeval-one-entry"></span><style>
[data-testid="stElementContainer"]:has(#jeval-one-entry) { display: none; }
</style><script>
(() => {
  if (window.__jevalOneEntryPerPage) return;
  window.__jevalOneEntryPerPage = true;
  const push = history.pushState.bind(history);
  history.pushState = (state, title, url) => {
    const next = url == null ? null : new URL(url, location.href);
    if (next !== null && next.origin === location.origin && next.pathname === location.pathname) {
      history.replaceState(state, title, url);
    } else {
      push(state, title, url);
    }
  };
})();
</script>"""


def one_history_entry_per_page() -> None:
    st.html(ONE_ENTRY_PER_PAGE, unsafe_allow_javascript=True)


def copy_link(token: str | None) -> None:
    """The link on the clipboard (in the browser), with a confirmation, and shown to copy."""
    if token is None:
        token = session.case_token()
        st.query_params["case"] = token
    base = (st.context.url or "").split("?")[0]
    if base.count("/") == 2:  # http://host:port -> http://host:port/
        base += "/"
    link = f"{base}?case={token}"
    # Only our own link (a URL of the server plus base64url) goes into this script, as JSON
    # with every < escaped: no text a visitor typed can reach it unencoded.
    data = json.dumps(link).replace("<", "\\u003c")
    st.html(f"""<span id="jeval-copied" role="status"></span><script>
(function () {{
  const link = {data};
  const out = document.getElementById("jeval-copied");
  navigator.clipboard.writeText(link).then(
    () => {{ if (out) out.textContent = "Link copied to the clipboard."; }},
    () => {{ if (out) out.textContent = "The browser refused the clipboard: copy the link "
                                        + "from the box below."; }});
}})();
</script>""", unsafe_allow_javascript=True)
    with st.expander("The link", expanded=False):
        st.code(link, language=None, wrap_lines=True)


# ---- scoring ----

def run_scoring(case: Case, chosen: tuple[Evaluator, ...], judge: str, asked: bool,
                packed: Packed | None = None) -> tuple[Report | None, str | None]:
    """Offline judges score on every commit; the hosted one only when asked, with the request
    packed for its button when there is one. Never the other judge's results under this
    judge's name."""
    if judge in OFFLINE:
        try:
            offline_judge(judge)  # loaded outside the cached function (with a spinner)
            return score_offline(case, tuple(e.name for e in chosen), judge), None
        except JevalError as err:
            return None, str(err)
    error = None
    if asked:
        try:
            hosted = session.jev_from_settings()
            try:
                request = packed if packed is not None else prepare(case, chosen, hosted)
                request.check_budget()
                st.session_state["jev_result"] = run(request, hosted)
            finally:
                hosted.close()
        except JevalError as err:
            error = str(err)
    return st.session_state.get("jev_result"), error


def is_stale(report: Report, now: Packed) -> bool:
    """Whether a hosted result was scored from another case or other evaluators than `now`."""
    return (report.packed.state != now.state
            or [e.name for e in report.packed.selected] != [e.name for e in now.selected])


@st.fragment
def workbench() -> None:
    try:
        panel()
    except Exception as err:  # the boundary: a visitor sees one line, never a traceback
        oops(err)


def oops(err: Exception) -> None:
    st.error(draw.inert(f"Something went wrong on this page ({type(err).__name__}: "
                        f"{one_line(err, 200)}). Your text is kept; please report this."))


def on_copy() -> None:
    st.session_state["copy_asked"] = True


def panel() -> None:
    """What changes only with the case's shape (the example picker, the editor's widgets);
    the live panel draws the rest, and an edit reruns only the live panel."""
    session.spare_the_collector()
    present = bool(st.session_state.get("present"))
    pick, share_col = st.columns([5, 1], vertical_alignment="center")
    if not present:
        descriptions = session.descriptions()
        pick.selectbox("example", list(descriptions), key="example", on_change=on_example,
                       format_func=descriptions.get, index=None,
                       placeholder="Load an example…", label_visibility="collapsed")
    share_col.button("Copy link", width="stretch", on_click=on_copy,
                     help="puts a link to this case on the clipboard; never the key")
    if st.session_state.get("notice"):  # a damaged link: said on the first screen
        st.warning(draw.inert(st.session_state.pop("notice")))
    top = st.container()
    if present:
        live(Slots(top, st.container(), None, {}))
        return
    inputs, results = st.columns([4, 6], gap="large")
    with inputs:
        chunks = editor()
        download = st.container()
        upload()
    live(Slots(top, results, download, chunks))


@dataclass(frozen=True)
class Slots:
    """Where the live panel draws: the bar under the picker, the results (or presentation),
    the case download, and beside each chunk (by id) its p and verdict."""

    top: DeltaGenerator
    body: DeltaGenerator
    download: DeltaGenerator | None
    chunks: dict[str, DeltaGenerator]


@st.fragment(key=LIVE)
def live(slots: Slots) -> None:
    try:
        live_panel(slots)
    except Exception as err:  # the boundary, as for the whole panel
        with slots.body.container():
            oops(err)


def live_panel(slots: Slots) -> None:
    """Everything a committed edit changes: the link, the origin line, the Jev button and its
    error (or the live toggle, its status, error and cap), each chunk's verdict, the results."""
    session.spare_the_collector()
    started = time.perf_counter()
    present = bool(st.session_state.get("present"))
    case = session.current_case()
    chosen = session.chosen_evaluators()
    judge = st.session_state.get("judge") or "local"
    token = follow_in_url()

    asked, packed = False, None
    hosted: HostedView | None = None
    # each slot gets its one container on every run: a fragment may only write again where it
    # wrote before
    with slots.top.container():
        offered = bool(chosen) and session.hosted_key_ready()
        live_on = offered and bool(st.session_state.get("hosted_live"))
        shown_origin = not present and (session.modified() or (
            st.session_state.get("origin") and not st.session_state.get("example")))
        button = judge == "jev" and bool(chosen)
        if shown_origin or button or (offered and not present):
            row = st.container(horizontal=True, vertical_alignment="center", wrap=False)
            if shown_origin:
                with row:
                    origin_line()
            if offered and not present:
                with row:
                    live_on = live_toggle()
            if button and not live_on:
                try:  # packed once: for the button, the staleness check and the request
                    packed = pack(case, chosen, st.session_state.get("jev_model")
                                  or "jev-latest")
                    label = (f"Score with Jev (1 request, ~{packed.tokens.total:,} tokens, "
                             f"~${packed.cost_usd:.6f})")
                except JevalError:
                    label = "Score with Jev"
                asked = row.button(label, type="primary")
            if live_on:
                with row:
                    live_cap()
        if live_on:
            hosted = hosted_live(case, chosen)
            live_status(hosted)
        else:
            stop_live()
        if hosted is not None and hosted.report is not None:
            report, error = hosted.report, None
        elif live_on:  # the offline judge's verdicts until the hosted answer arrives
            report, error = run_scoring(case, chosen, judge if judge in OFFLINE else "local",
                                        False)
        else:
            report, error = (run_scoring(case, chosen, judge, asked, packed) if chosen
                             else (None, None))
        if st.session_state.pop("copy_asked", False):
            copy_link(token)
        if error:  # next to the button that caused it, on the first screen
            st.error(draw.inert(error))
        if hosted is not None:
            live_notices(hosted)

    thresholds = {k: v for k, v in (st.session_state.get("thresholds") or {}).items()
                  if k in EVALUATORS}
    if report is not None and thresholds:
        report = report.with_thresholds(thresholds)
    # offline results are scored from the case on screen, and so is a live hosted answer:
    # only the hosted judge's pressed-for results can lag
    stale = (report is not None and judge == "jev" and not live_on
             and (packed is None or is_stale(report, packed)))
    standing_in = hosted.standing_in(report) if hosted is not None else None
    per_chunk = draw.chunk_rows(report) if report is not None and not stale else {}
    ids = st.session_state["chunk_ids"]
    focus = focused_chunk(len(ids))
    draw.chunk_edges({uid: (per_chunk[pos]["yes"] if pos in per_chunk else None)
                      for pos, uid in enumerate(ids)},
                     ids[focus] if focus is not None and not present else None)
    for pos, uid in enumerate(ids):
        if uid in slots.chunks:
            with slots.chunks[uid]:
                chunk_verdict(case.context[pos], per_chunk.get(pos),
                              report.judge if standing_in and report is not None else None)
    if slots.download is not None:
        with slots.download:
            download_case(case, chosen)

    with slots.body:
        if present:
            presentation(case, report, stale, per_chunk, standing_in)
            return
        if not chosen:
            st.info("Pick at least one evaluator.")
            return
        if report is None:
            if judge == "jev" and not error:
                st.info("Press the button to score this case with the hosted judge "
                        "(the offline judges' results are not shown under its name).")
            return
        scored(case, chosen, report, stale, time.perf_counter() - started, focus, standing_in)


# ---- the hosted judge, live: jeval_core.live decides, this draws ----

LIVE_HELP = ("Each committed edit sends this case to the hosted judge (one request, after a "
             "short pause; a newer edit cancels an older request). The offline verdicts show "
             "until its answer arrives. Spending stops at the session's cap and asks.")


@dataclass(frozen=True)
class HostedView:
    """Where the live hosted judge stands for the case on screen."""

    ticket: Ticket | None  # None: nothing could be submitted (too large, bad settings)
    problem: str | None = None  # why nothing was submitted

    @property
    def report(self) -> Report | None:
        """The hosted answer for this very case, once it has arrived."""
        t = self.ticket
        return t.report if t is not None and t.status == Status.ANSWERED else None

    def standing_in(self, shown: Report | None) -> str | None:
        """What the offline verdicts on screen are marked with (None: the hosted answer is
        shown, or nothing is)."""
        if shown is None or self.report is not None:
            return None
        status = self.ticket.status if self.ticket is not None else Status.FAILED
        why = {Status.WAITING: "hosted answer pending", Status.SENDING: "hosted answer pending",
               Status.CAPPED: "hosted request held at the spending cap"}.get(
                   status, "the hosted judge did not answer")
        return f"{shown.judge} judge — {why}"


def live_toggle() -> bool:
    return st.toggle("Hosted judge live", key="hosted_live", on_change=on_live_toggle,
                     help=LIVE_HELP)


def on_live_toggle() -> None:
    if not st.session_state.get("hosted_live"):
        stop_live()


def stop_live() -> None:
    """The toggle is off (or no key is set any more): nothing in flight, nothing current."""
    runner = st.session_state.get("live_runner")
    if runner is not None and runner.live.current is not None:
        runner.stop()


def hosted_live(case: Case, chosen: tuple[Evaluator, ...]) -> HostedView:
    """Submit the case on screen (a request starts only for a case not asked yet)."""
    settings, make = session.hosted_maker()
    try:
        packed = pack(case, chosen, settings[1])
        packed.check_budget()
    except JevalError as err:
        stop_live()
        return HostedView(None, str(err))
    retry = bool(st.session_state.pop("live_retry", False))
    ticket = session.live_runner().submit(case_key(packed, *settings), packed, make, retry)
    if ticket.status == Status.ANSWERED and ticket.report is not None:
        st.session_state["jev_result"] = ticket.report  # for "Judges side by side"
    return HostedView(ticket)


def live_status(hosted: HostedView) -> None:
    """One line beside the toggle: where the request stands, what it cost, the session's
    spending against its cap (our own numbers only)."""
    runner = session.live_runner()
    ledger, cap = runner.live.ledger, runner.live.cap
    t = hosted.ticket
    if t is None:
        line = ":red-badge[not sent]"
    elif t.status.pending:
        line = (f":orange-badge[hosted answer pending] sending "
                f"~{t.estimate_tokens:,} tokens · ~${t.estimate_usd:.6f}")
    elif t.status == Status.ANSWERED and t.report is not None:
        billed = t.report.usage.input_tokens
        line = (f":green-badge[hosted answer] {billed:,} input tokens · "
                f"${t.report.cost_usd:.6f}"
                + (" (answered earlier: no new request)" if t.from_cache else ""))
    elif t.status == Status.CAPPED:
        line = ":orange-badge[held at the cap]"
    else:
        line = ":red-badge[hosted judge failed]"
    line += (f" · this session {ledger.requests:,} of {cap.requests:,} requests, "
             f"${ledger.spent_usd:.6f} of ${cap.usd:.4f}")
    st.markdown(line)
    if t is not None and t.status.pending:
        hosted_watch(t.number)


def live_cap() -> None:
    """The session's spending cap, settable (beside the toggle)."""
    step = session.live_runner().live.step
    with st.popover("Spending cap",
                    help="the session's spending cap for live requests: when it is reached, "
                         "nothing more is sent until you say so"):
        st.number_input("Spending cap per session ($)", min_value=0.0, max_value=100.0,
                        value=float(step.usd), step=0.01, format="%.4f",
                        key="live_cap_usd", on_change=on_cap)
        st.number_input("and at most this many requests", min_value=0, max_value=100_000,
                        value=int(step.requests), step=10,
                        key="live_cap_requests", on_change=on_cap)


def on_cap() -> None:
    session.live_runner().live.set_cap(Cap(
        usd=float(st.session_state.get("live_cap_usd") or 0.0),
        requests=int(st.session_state.get("live_cap_requests") or 0)))


def live_notices(hosted: HostedView) -> None:
    """A hosted error as one line (the offline verdicts stay), or the cap asking to go on."""
    t = hosted.ticket
    if hosted.problem is not None:
        st.error(draw.inert(f"Not sent to the hosted judge: {hosted.problem}"))
    elif t is not None and t.status in (Status.FAILED, Status.SUPERSEDED) and t.error:
        with st.container(horizontal=True, vertical_alignment="center"):
            st.error(draw.inert(f"Hosted judge: {t.error}"))
            st.button("Try again", key="live_try_again", on_click=on_live_retry,
                      type="tertiary")
    elif t is not None and t.status == Status.CAPPED:
        step = session.live_runner().live.step
        with st.container(horizontal=True, vertical_alignment="center"):
            st.warning(draw.inert(f"Spending cap reached: {t.reason}. Nothing more goes to "
                                  "the hosted judge until you say so."))
            st.button(f"Continue (${step.usd:.4f} / {step.requests:,} requests more)",
                      key="live_go_on", on_click=lambda: session.live_runner().go_on(),
                      type="primary")


def on_live_retry() -> None:
    st.session_state["live_retry"] = True


@st.fragment(run_every=WATCH_S)
def hosted_watch(number: int) -> None:
    """While the hosted answer is pending: look for it, and draw the page again once the
    request has ended (the answer, an error or the cap); nothing to draw meanwhile."""
    now = session.live_runner().live.current
    if now is None or now.number != number or not now.status.pending:
        st.rerun()


def focused_chunk(chunks: int) -> int | None:
    """The chunk in focus (picked on the chart or in the Focus box), if it still exists."""
    focus = draw.chunk_of(str(st.session_state.get("focus") or ""))
    if focus is None or focus >= chunks:
        st.session_state["focus"] = None
        return None
    return focus


def scored(case: Case, chosen: tuple[Evaluator, ...], report: Report, stale: bool,
           elapsed: float, focus: int | None = None, standing_in: str | None = None) -> None:
    draw.summary(report, len(case.context), case.blank_chunks(), stale, note=standing_in)
    header(report, elapsed, stale, standing_in)
    draw.cards(report, stale)
    draw.trust(report)
    what_if(report)
    names = [n for n, r in report.results.items() if not r.skipped]
    if names:
        if st.session_state.get("detail_pick") not in names:
            st.session_state.pop("detail_pick", None)
        with st.container(horizontal=True, vertical_alignment="bottom"):
            pick = st.pills("Details of", names, key="detail_pick", default=names[0],
                            required=True) or names[0]
            chunks = [f"context[{i}]" for i in range(len(case.context))]
            st.selectbox("Focus on", [None, *chunks], key="focus", placeholder="no chunk",
                         format_func=lambda v: "no chunk" if v is None else v, width=170,
                         help="or click a bar: its chunk is framed in the editor, its bars "
                              "and its questions stand out")
        draw.detail(report, pick, focus, on_pick)
    st.subheader("Questions")
    draw.questions_table(report, focus)
    box = st.expander("Judges side by side", key="compare_open", on_change="rerun")
    if box.open:
        with box:
            compare(case, chosen, report)
    st.subheader("Export")
    draw.exports(report, {**case.to_dict(), "evaluators": [e.name for e in chosen]})
    keep_as_run(case, chosen, report)
    draw.request_panel(report)


def keep_as_run(case: Case, chosen: tuple[Evaluator, ...], report: Report) -> None:
    """Keep this scored case in the run history (the Dashboard) as a run of one case."""

    def keep() -> None:
        from jeval_core import runs
        from jeval_core.casefile import CaseFile
        from pages import runs_view

        try:
            run_id = runs.save_case(runs_view.store(), CaseFile(
                case, chosen, dict(report.thresholds)), report)
            st.session_state["kept_run"] = f"Kept as run {run_id[:8]}: see it on the Dashboard."
        except JevalError as err:
            st.session_state["kept_run"] = f"Not kept: {err}"

    with st.container(horizontal=True, vertical_alignment="center"):
        st.button("Keep as a run", on_click=keep, key="keep_run",
                  help="stores this case and its results as a run of one case in the run "
                       "history; the judge is not asked again")
        said = st.session_state.pop("kept_run", None)
        if said:
            st.caption(draw.inert(said))


def what_if(report: Report) -> None:
    """A threshold slider per evaluator: verdicts follow at once, the judge is not asked."""
    box = st.expander("What if: thresholds (the judge is not asked again)", key="whatif_open",
                      on_change="rerun")
    if not box.open:  # drawn only when opened: nothing to draw per edit otherwise
        return
    with box:
        names = list(report.results)
        cols = st.columns(2)
        for i, name in enumerate(names):
            key = f"th_{name}"
            if key not in st.session_state:
                st.session_state[key] = float(report.results[name].threshold)
            rule = "≥" if EVALUATORS[name].higher_is_better else "≤"
            cols[i % 2].slider(f"{name} passes at score {rule}", 0.0, 1.0, step=0.05,
                               key=key, on_change=on_threshold, args=(name,), format="%.2f")
        if st.session_state.get("thresholds"):
            st.button("Back to the default thresholds", on_click=on_reset_thresholds)


def compare(case: Case, chosen: tuple[Evaluator, ...], report: Report) -> None:
    """local and lexical on the same case (offline, cached), and Jev's when it scored it."""
    if not st.toggle("Score this case with each judge", key="compare_on"):
        st.caption("Scores the same case with the local and lexical judges and shows p per "
                   "question in columns (Jev's too once it has scored this case).")
        return
    reports: dict[str, Report] = {}
    names = tuple(e.name for e in chosen)
    for judge in OFFLINE:
        try:
            reports[judge] = score_offline(case, names, judge)
        except JevalError as err:
            st.error(draw.inert(f"{judge}: {err}"))
    hosted = st.session_state.get("jev_result")
    if hosted is not None and not is_stale(hosted, pack(case, chosen)):
        reports["jev"] = hosted
    if len(reports) >= 2:
        draw.compare(reports)


def presentation(case: Case, report: Report | None, stale: bool,
                 per_chunk: dict[int, dict], standing_in: str | None = None) -> None:
    """For demos: no editor; the verdict large, the question and answer, chunk cards."""
    if report is None:
        st.info("Nothing scored yet: switch presentation mode off to edit and score.")
        return
    draw.summary(report, len(case.context), case.blank_chunks(), stale, big=True,
                 note=standing_in)
    left, right = st.columns(2, gap="large")
    with left:
        st.markdown("**The question**")
        st.text(case.input)
    with right:
        st.markdown("**The answer**")
        st.text(case.output)
    st.markdown("**What was retrieved**")
    draw.present_chunks(case.context, per_chunk)
    draw.cards(report, stale)


def header(report: Report, elapsed: float, stale: bool,
           standing_in: str | None = None) -> None:
    line = (f"{standing_in} · " if standing_in else "") + (
        f"judge: {report.judge} · judge time {report.latency_s * 1000:.0f} ms · "
            f"shown in {elapsed * 1000:.0f} ms")
    if report.model:
        line += f" · model {report.model}"
    if report.request_id:
        line += f" · request id {report.request_id}"
    note = (f"{offline_judge(report.judge).note} Verdicts can differ from the hosted judge's."
            if report.approximates else None)
    st.caption(draw.inert(line + (" · an offline approximation" if note else "")), help=note)
    if stale:
        st.warning("These results are stale: the case changed since they were scored. "
                   "Press the button to score it again.")


draw.style()
one_history_entry_per_page()
st.title("Playground")
st.caption("Which retrieved chunks were noise, and is the answer grounded? Every question "
           "below goes to the judge in one request.")
workbench()

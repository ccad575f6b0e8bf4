"""The Playground's workbench: the case editor, scoring, and the scored case drawn.

Offline judges score on every commit (cached by the case, not by the thresholds: a threshold
is a what-if that re-reduces the answers already given); a hosted judge only when its button
is pressed, or live (hosted_live). Which judge is which, the catalog says.
"""

from __future__ import annotations

import contextlib
import json
import time
from dataclasses import dataclass

import streamlit as st
from streamlit.delta_generator import DeltaGenerator
from streamlit.errors import StreamlitAPIException

from jeval_core import (
    Case,
    CaseError,
    JevalError,
    Report,
    casefile,
    evaluator_files,
    evaluators,
    judges,
    share,
)
from jeval_core.address import Address
from jeval_core.evaluators import EVALUATORS, NAMES, Evaluator
from jeval_core.judges import Judge
from jeval_core.labels import on_case
from jeval_core.request import Packed, pack
from jeval_core.scoring import DetailRow, prepare, run
from jeval_core.share import MAX_TOKEN_CHARS
from jeval_core.text import one_line
from pages.app import case as editing
from pages.app import collector, custom, hosted, resources, state
from pages.app.views import evaluator_editor, verdict
from pages.app.views import report as draw
from pages.app.views.boundary import boundary
from pages.app.views.card import result_cards
from pages.app.views.hosted_live import (
    HostedView,
    hosted_live,
    live_cap,
    live_notices,
    live_status,
    live_toggle,
    stop_live,
)
from pages.app.views.text import inert, plural

LIVE = "live"  # the fragment a committed edit reruns
KEPT = "Your text is kept."


def offline_judge(name: str, calibration: str | None = None) -> Judge:
    if resources.offline_judge_ready(name, calibration):
        return resources.offline_judge(name, calibration)
    with st.spinner("Loading the offline judge…"):
        return resources.offline_judge(name, calibration)


@st.cache_data(max_entries=256, show_spinner=False)
def score_offline(case: Case, names: tuple[str, ...], judge: str,
                  calibration: str | None = None, definitions: tuple[str, ...] = ()) -> Report:
    """Pure in its arguments (plain names, not objects, so Streamlit can hash them; a
    profile by name and fingerprint; a custom evaluator by its definition's text): the same
    case and evaluators are never judged twice (thresholds re-reduce the answers)."""
    offline = resources.offline_judge(judge, calibration)
    chosen = evaluators.resolve(names, custom=custom.from_texts(definitions))
    return run(prepare(case, chosen, offline), offline)


# ---- callbacks: they change the case before the widgets are drawn ----

def rerun_live() -> None:
    """A committed edit of the case's text or of its evaluators changes the results, the bar
    under the picker and each chunk's verdict, not the editor the browser already shows:
    rerun the live panel only."""
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


def on_pick(chart_key: str) -> None:
    """A click on a bar focuses its chunk (a click beside the bars, none)."""
    chart = st.session_state.get(chart_key) or {}  # the chart's own selection state
    picked = (chart.get("selection") or {}).get("pick") or []
    chunk = Address.parse(str(picked[0].get("judged", ""))).chunk if picked else None
    state.put(state.FOCUS, None if chunk is None else str(Address.of_chunk(chunk)))


def on_threshold(name: str) -> None:
    thresholds = state.thresholds()
    thresholds[name] = float(state.get(state.threshold_key(name)))
    state.set_thresholds(thresholds)


def on_reset_thresholds() -> None:
    state.set_thresholds({})
    state.forget_sliders()


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
        with st.container(key=f"chunkbox_{uid}"):
            where = Address.of_chunk(pos)
            st.text_area(str(where), key=state.chunk_key(uid), height=110,
                         persist_state="session", on_change=rerun_live)
            with st.container(horizontal=True, wrap=True, vertical_alignment="center",
                              gap="small"):
                st.button(f"Move {where} up", key=f"up_{uid}", type="tertiary",
                          on_click=editing.move_chunk, args=(uid, -1), disabled=pos == 0)
                st.button(f"Move {where} down", key=f"down_{uid}", type="tertiary",
                          on_click=editing.move_chunk, args=(uid, 1),
                          disabled=pos == len(ids) - 1)
                st.button(f"Delete {where}", key=f"drop_{uid}", type="tertiary",
                          on_click=editing.delete_chunk, args=(uid,))
                st.segmented_control(
                    f"Your label for {where}", [state.RELEVANT, state.NOISE],
                    key=state.label_key(uid), label_visibility="collapsed",
                    on_change=rerun_live,
                    help="your label: relevant or noise (click again to clear); the summary "
                         "says how far the judge agrees")
                slots[uid] = st.empty()  # one element, not a block: the verdict is one line
    st.button("Add a chunk", on_click=editing.add_chunks, args=([""],))
    paste = st.expander("Paste many chunks at once", key="paste_open", on_change="rerun")
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
    st.multiselect("evaluators", [*NAMES, *custom.names()], key=state.EVALUATORS,
                   persist_state="session", on_change=rerun_live)
    own_evaluators()
    return slots


def own_evaluators() -> None:
    """Write a custom evaluator (the editor opens beside the case) or load a TOML file."""
    st.button("New evaluator", key="ev_new", on_click=evaluator_editor.open_editor,
              disabled=evaluator_editor.is_open(),
              help="write your own yes/no question and watch it answer on this case")
    box = st.expander("Load evaluators from a TOML file", key="ev_upload_open",
                      on_change="rerun")
    if box.open:  # drawn only when opened: an uploader is a heavy block on every edit
        with box:
            st.file_uploader("Load evaluators (.toml)", type=["toml"], key="ev_upload",
                             on_change=on_evaluators_file, label_visibility="collapsed",
                             help="a TOML file of [[evaluator]] tables: they join the picker")
    notice = state.said("ev_upload_notice")
    if notice:
        st.caption(inert(notice))


def on_evaluators_file() -> None:
    upload = state.get("ev_upload")
    if upload is None:
        return
    try:
        found = evaluator_files.decode(upload.getvalue(), upload.name)
    except CaseError as err:
        state.say("ev_upload_notice", f"{err}; nothing was changed")
        return
    custom.add(*found)
    names = state.evaluator_names()
    state.put(state.EVALUATORS, [*names, *(d.name for d in found if d.name not in names)])
    state.say("ev_upload_notice", f"Added {', '.join(d.name for d in found)} from "
                                  f"{one_line(upload.name, 60)}.")


def chunk_verdict(text: str, row: DetailRow | None, offline: str | None = None,
                  label: bool | None = None) -> None:
    """Beside a chunk: its p(relevant) and verdict, and the words that drove p; `offline`
    names the offline judge when its verdict stands in for the hosted judge's; a red mark
    when the person's `label` says otherwise."""
    if not text.strip():
        st.caption("blank: not judged (it keeps its rank)")
        return
    if row is None:
        st.empty()  # the slot is written on every run, even with nothing to say
        return
    colour = "orange" if row.unsure else ("green" if row.yes else "gray")
    mark = f" · {inert(offline)} judge" if offline else ""
    line = f":{colour}-badge[p {row.p:.2f} · {inert(row.verdict)}{mark}]"
    if label is not None and label != row.yes:
        line += f" :red-badge[✗ you: {state.RELEVANT if label else state.NOISE}]"
    words = [t for _, _, t in row.evidence]
    if words:  # one highlight for the list: a highlight's padding would gap each comma
        line += " why: :orange-background[" + ", ".join(inert(w) for w in words[:8]) + "]"
    st.markdown(line)


def case_payload(case: Case, chosen: tuple[Evaluator, ...]) -> dict:
    """The case file as downloaded and exported: the case, its evaluators, thresholds and
    the person's labels."""
    payload = {**case.to_dict(), **casefile.settings(chosen, state.thresholds())}
    return {**payload, **editing.labels().to_extra()}


def agreement_line(report: Report, stale: bool) -> str | None:
    """The summary band's line on the person's labels: how far the judge agrees."""
    if stale:
        return None
    agreed = on_case(report, editing.labels())
    said = agreed.short()
    if not said:
        return None  # each chunk and card offers its label; nothing to say yet
    colour = "orange" if agreed.disagreements else "green"
    return ":small[" + "  \n".join(f":{colour}[{inert(line)}]"
                                    for line in ["labels agree:", *said]) + "]"


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


# ---- sharing: the link follows the case ----

def follow_in_url() -> str | None:
    """Keep `?case=` in the address bar in step with the editor, so a reload keeps the edited
    case; the untouched seed example needs none. Returns the token (None when not kept)."""
    token = editing.token()
    pristine = (editing.token(with_judge=False) == state.seed_token()
                and state.judge_name() == judges.DEFAULT)
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
        token = editing.token()
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
    if judges.entry(judge).offline:
        try:
            calibration = state.calibration_for(judge)
            offline_judge(judge, calibration)  # loaded outside the cached function (spinner)
            return score_offline(case, tuple(e.name for e in chosen), judge, calibration,
                                 custom.texts(chosen)), None
        except JevalError as err:
            return None, str(err)
    error = None
    if asked:
        try:
            judge_now = hosted.from_settings()
            try:
                request = packed if packed is not None else prepare(case, chosen, judge_now)
                request.check_budget()
                state.set_hosted_report(run(request, judge_now))
            finally:
                judge_now.close()
        except JevalError as err:
            error = str(err)
    return state.hosted_report(), error


def is_stale(report: Report, now: Packed) -> bool:
    """Whether a hosted result was scored from another case or other evaluators than `now`."""
    return (report.packed.state != now.state
            or [e.name for e in report.packed.selected] != [e.name for e in now.selected])


@st.fragment
def workbench() -> None:
    with boundary(KEPT):
        panel()


def on_copy() -> None:
    state.ask("copy")


def panel() -> None:
    """What changes only with the case's shape (the example picker, the editor's widgets);
    the live panel draws the rest, and an edit reruns only the live panel."""
    collector.spare()
    present = bool(state.get(state.PRESENT))
    pick, share_col = st.columns([5, 1], vertical_alignment="center")
    if not present:
        descriptions = resources.descriptions()
        pick.selectbox("example", list(descriptions), key=state.EXAMPLE, on_change=on_example,
                       format_func=descriptions.get, index=None,
                       placeholder="Load an example…", label_visibility="collapsed")
    share_col.button("Copy link", width="stretch", on_click=on_copy,
                     help="puts a link to this case on the clipboard; never the key")
    notice = state.said(state.NOTICE)
    if notice:  # a damaged link: said on the first screen
        st.warning(inert(notice))
    if not present:
        example_questions()
    top = st.container()
    if present:
        live(Slots(top, st.container(), None, {}))
        return
    inputs, column = st.columns([4, 6], gap="large")
    with inputs:
        chunks = editor()
        download = st.container()
        upload()
    # hidden while the case's text areas wait for their code (report.CSS): a reloaded page
    # draws the case and its results together, never the results first
    results = column.container(key=draw.RESULTS)
    draft = None
    if evaluator_editor.is_open():
        with results:
            evaluator_editor.widgets(rerun_live)
            draft = st.container()
    live(Slots(top, results, download, chunks, draft))


@dataclass(frozen=True)
class Slots:
    """Where the live panel draws: the bar under the picker, the results (or presentation),
    the case download, and beside each chunk (by id) its p and verdict."""

    top: DeltaGenerator
    body: DeltaGenerator
    download: DeltaGenerator | None
    chunks: dict[str, DeltaGenerator]
    draft: DeltaGenerator | None = None  # the custom evaluator editor's questions, when open


@st.fragment(key=LIVE)
def live(slots: Slots) -> None:
    with boundary(KEPT, where=slots.body):  # this part reruns on its own: its boundary too
        live_panel(slots)


def live_panel(slots: Slots) -> None:
    """Everything a committed edit changes: the link, the origin line, the Jev button and its
    error (or the live toggle, its status, error and cap), each chunk's verdict, the results."""
    collector.spare()
    started = time.perf_counter()
    present = bool(state.get(state.PRESENT))
    case = editing.current()
    chosen = editing.chosen_evaluators()
    judge = state.judge_name()
    kind = judges.entry(judge) if judges.known(judge) else judges.entry(judges.DEFAULT)
    token = follow_in_url()

    asked, packed = False, None
    view: HostedView | None = None
    # each slot gets its one container on every run: a fragment may only write again where it
    # wrote before
    with slots.top.container():
        offered = bool(chosen) and judges.hosted_name() is not None and hosted.key_ready()
        live_on = offered and bool(state.get(state.HOSTED_LIVE))
        shown_origin = not present and (editing.modified() or (
            state.origin() and not state.get(state.EXAMPLE)))
        button = kind.hosted and bool(chosen)
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
                    packed = pack(case, chosen, hosted.model())
                    label = (f"Score with {kind.title} (1 request, ~{packed.tokens.total:,} "
                             f"tokens, ~${packed.cost_usd:.6f})")
                except JevalError:
                    label = f"Score with {kind.title}"
                asked = row.button(label, type="primary")
            if live_on:
                with row:
                    live_cap()
        if live_on:
            view = hosted_live(case, chosen)
            live_status(view)
        else:
            stop_live()
        if view is not None and view.report is not None:
            report, error = view.report, None
        elif live_on:  # the offline judge's verdicts until the hosted answer arrives
            report, error = run_scoring(case, chosen,
                                        judge if kind.offline else judges.DEFAULT, False)
        else:
            report, error = (run_scoring(case, chosen, judge, asked, packed) if chosen
                             else (None, None))
        if state.asked("copy"):
            copy_link(token)
        if error:  # next to the button that caused it, on the first screen
            st.error(inert(error))
        if view is not None:
            live_notices(view)

    thresholds = {k: v for k, v in state.thresholds().items()
                  if k in EVALUATORS or any(e.name == k for e in chosen)}
    if report is not None and thresholds:
        report = report.with_thresholds(thresholds)
    # offline results are scored from the case on screen, and so is a live hosted answer:
    # only the hosted judge's pressed-for results can lag
    stale = (report is not None and kind.hosted and not live_on
             and (packed is None or is_stale(report, packed)))
    standing_in = view.standing_in(report) if view is not None else None
    per_chunk = draw.chunk_rows(report) if report is not None and not stale else {}
    ids = state.chunk_ids()
    focus = focused_chunk(len(ids))
    draw.chunk_edges({uid: (per_chunk[pos].yes if pos in per_chunk else None)
                      for pos, uid in enumerate(ids)},
                     ids[focus] if focus is not None and not present else None)
    marks = state.chunk_labels()
    for pos, uid in enumerate(ids):
        if uid in slots.chunks:
            with slots.chunks[uid]:
                chunk_verdict(case.context[pos], per_chunk.get(pos),
                              report.judge if standing_in and report is not None else None,
                              marks[pos] if pos < len(marks) else None)
    if slots.download is not None:
        with slots.download:
            download_case(case, chosen)
    if slots.draft is not None:
        with slots.draft:
            evaluator_editor.preview(case, judge if judges.known(judge) else judges.DEFAULT,
                                     state.calibration_for(judge), score_offline)

    with slots.body:
        if present:
            presentation(case, report, stale, per_chunk, standing_in)
            return
        if not chosen:
            st.info("Pick at least one evaluator.")
            return
        if report is None:
            if kind.hosted and not error:
                st.info("Press the button to score this case with the hosted judge "
                        "(the offline judges' results are not shown under its name).")
            return
        scored(case, chosen, report, stale, time.perf_counter() - started, focus, standing_in)


def focused_chunk(chunks: int) -> int | None:
    """The chunk in focus (picked on the chart or in the Focus box), if it still exists."""
    focus = Address.parse(state.text(state.FOCUS)).chunk
    if focus is None or focus >= chunks:
        state.put(state.FOCUS, None)
        return None
    return focus


def scored(case: Case, chosen: tuple[Evaluator, ...], report: Report, stale: bool,
           elapsed: float, focus: int | None = None, standing_in: str | None = None) -> None:
    draw.summary(report, len(case.context), case.blank_chunks(), stale, note=standing_in,
                 agreed=agreement_line(report, stale))
    header(report, elapsed, stale, standing_in)
    result_cards(report.results, stale, labelled=True)
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
            each_judge(case, chosen, report)
    st.subheader("Export")
    draw.exports(report, case_payload(case, chosen))
    keep_as_run(case, chosen, report)
    draw.request_panel(report)


def keep_as_run(case: Case, chosen: tuple[Evaluator, ...], report: Report) -> None:
    """Keep this scored case in the run history (the Dashboard) as a run of one case."""

    def keep() -> None:
        from jeval_core import runs
        from jeval_core.casefile import CaseFile
        try:
            run_id = runs.save_case(resources.store(), CaseFile(
                case, chosen, dict(report.thresholds), extra=editing.labels().to_extra()),
                report)
            state.say(state.KEPT_RUN, f"Kept as run {run_id[:8]}: see it on the Dashboard.")
        except JevalError as err:
            state.say(state.KEPT_RUN, f"Not kept: {err}")

    with st.container(horizontal=True, vertical_alignment="center"):
        st.button("Keep as a run", on_click=keep, key="keep_run",
                  help="stores this case and its results as a run of one case in the run "
                       "history; the judge is not asked again")
        said = state.said(state.KEPT_RUN)
        if said:
            st.caption(inert(said))


def what_if(report: Report) -> None:
    """A threshold slider per evaluator: verdicts follow at once, the judge is not asked."""
    box = st.expander("What if: thresholds (the judge is not asked again)", key="whatif_open",
                      on_change="rerun")
    if not box.open:  # drawn only when opened: nothing to draw per edit otherwise
        return
    with box:
        # the effect is drawn beside the sliders: the cards it changes may be out of view
        word = verdict.of_case(report.passed)
        st.markdown(f"At these thresholds the case is **:{verdict.colour(word)}[{word}]**")
        names = list(report.results)
        cols = st.columns(2)
        for i, name in enumerate(names):
            key = state.threshold_key(name)
            if key not in st.session_state:
                st.session_state[key] = float(report.results[name].threshold)
            rule = "≥" if report.results[name].higher_is_better else "≤"
            with cols[i % 2]:
                st.slider(f"{name} passes at score {rule}", 0.0, 1.0, step=0.05,
                          key=key, on_change=on_threshold, args=(name,), format="%.2f")
                st.markdown(draw.chip(name, report.results[name], False))
        if state.thresholds():
            st.button("Back to the default thresholds", on_click=on_reset_thresholds)


def each_judge(case: Case, chosen: tuple[Evaluator, ...], report: Report) -> None:
    """local and lexical on the same case (offline, cached), and Jev's when it scored it."""
    if not st.toggle("Score this case with each judge", key="compare_on"):
        offline = " and ".join(judges.offline_names())
        hosted = judges.entry(judges.hosted_name() or judges.DEFAULT).title
        st.caption(f"Scores the same case with the {offline} judges and shows p per question "
                   f"in columns ({hosted}'s too once it has scored this case).")
        return
    reports: dict[str, Report] = {}
    names = tuple(e.name for e in chosen)
    for judge in judges.offline_names():
        try:
            reports[judge] = score_offline(case, names, judge, None, custom.texts(chosen))
        except JevalError as err:
            st.error(inert(f"{judge}: {err}"))
    answered = state.hosted_report()
    if answered is not None and not is_stale(answered, pack(case, chosen)):
        reports[answered.judge] = answered
    if len(reports) >= 2:
        draw.judges_table(reports)


def presentation(case: Case, report: Report | None, stale: bool,
                 per_chunk: dict[int, DetailRow], standing_in: str | None = None) -> None:
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
    result_cards(report.results, stale)


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
    st.caption(inert(line + (" · an offline approximation" if note else "")), help=note)
    if stale:
        st.warning("These results are stale: the case changed since they were scored. "
                   "Press the button to score it again.")


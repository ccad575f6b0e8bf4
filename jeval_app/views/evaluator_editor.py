"""The custom evaluator editor: write a yes/no question, watch it answer on this case.

The widgets are drawn with the case's shape (beside the results); what they make, the
verbatim questions with each item's p and verdict, is drawn by the live panel, so a
committed edit of the template reruns only that panel, as an edit of the case does.
"""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from jeval_app import custom, hosted, resources, state
from jeval_app.views.text import inert
from jeval_core import Case, CaseError, JevalError, judges
from jeval_core.evaluators.custom import ABOUT, DIRECTIONS, REDUCERS, Definition, evaluator
from jeval_core.inputs import evaluator_files
from jeval_core.scoring import Report, prepare, run

KEYS = state.EDITOR
OPEN = KEYS("open")
START = KEYS("start")
NAME, ABOUT_KEY, QUESTION = KEYS("name"), KEYS("about"), KEYS("question")
TRUE, FALSE = KEYS("true"), KEYS("false")
REDUCER, DIRECTION, THRESHOLD = KEYS("reducer"), KEYS("direction"), KEYS("threshold")
YES, NO, PURPOSE = KEYS("yes"), KEYS("no"), KEYS("purpose")
SAID, FAILED = KEYS("said"), KEYS("failed")  # what the last action did (or why not), said once
ASKED = KEYS("hosted")  # the hosted judge's answer to the draft: (definition, case, report)
ABOUT_WORDS = {
    "chunk": "each chunk",
    "output_sentence": "each sentence of the output",
    "expected_sentence": "each sentence of expected",
    "context_statement": "each statement (sentence) of the context",
    "case": "the case, once",
}
DIRECTION_WORDS = {"higher": "score ≥ threshold", "lower": "score ≤ threshold"}
REDUCER_WORDS = {"share": "share of yes", "any": "1 if any is yes", "all": "1 if all are yes",
                 "weighted_precision": "weighted precision"}
BLANK = "a blank question"
ARRIVE = KEYS("arrive")  # just opened: the editor is brought into view, once
# The editor opens at the top of the results column, above where the person clicked (often
# scrolled out of view): this brings it into view and puts the cursor in its name. Our own
# constant text; nothing a visitor typed goes into it.
BRING_INTO_VIEW = """<script>
(function () {
  let tries = 0;
  (function look() {
    const box = document.querySelector(".st-key-EDITOR");
    const name = box && box.querySelector(".st-key-NAME input");
    if (name) {
      box.scrollIntoView({block: "start"});
      name.focus({preventScroll: true});
    } else if (++tries < 300) {
      requestAnimationFrame(look);
    }
  })();
})();
</script>""".replace("EDITOR", KEYS("editor")).replace("NAME", NAME)


def starts() -> dict[str, Definition | None]:
    """What a new evaluator can start from: blank, the bundled examples, the session's own."""
    out: dict[str, Definition | None] = {BLANK: None}
    for d in resources.evaluator_examples():
        out[f"example: {d.name}"] = d
    for name, d in custom.definitions().items():
        out[f"yours: {name}"] = d
    return out


def fill(d: Definition | None) -> None:
    """The widgets hold `d` (a blank question when None)."""
    d = d or Definition(name="my_evaluator", about="chunk",
                        question="`context[i]` states a deadline or a date.")
    values = {NAME: d.name, ABOUT_KEY: d.about, QUESTION: d.question, TRUE: d.true or "",
              FALSE: d.false or "", REDUCER: d.reducer, DIRECTION: d.direction,
              THRESHOLD: float(d.threshold), YES: d.verdicts[0], NO: d.verdicts[1],
              PURPOSE: d.purpose}
    for key, value in values.items():
        state.put(key, value)


def open_editor(d: Definition | None = None) -> None:
    fill(d)
    state.put(OPEN, True)
    state.put(START, None)
    state.put(ARRIVE, True)


def close_editor() -> None:
    state.put(OPEN, False)


def on_start() -> None:
    picked = state.get(START)
    if picked:
        fill(starts().get(picked))


def is_open() -> bool:
    return bool(state.get(OPEN))


def draft() -> tuple[Definition | None, str | None]:
    """The definition the widgets hold, or why it is not one yet (one line)."""
    data = {"name": state.get(NAME, ""), "about": state.get(ABOUT_KEY),
            "question": state.get(QUESTION, ""),
            "true": state.get(TRUE) or None,
            "false": state.get(FALSE) or None,
            "reducer": state.get(REDUCER), "direction": state.get(DIRECTION),
            "threshold": float(state.get(THRESHOLD, 0.5)),
            "verdicts": [state.get(YES) or "yes", state.get(NO) or "no"],
            "purpose": state.get(PURPOSE, "")}
    try:
        return Definition.from_dict(data), None
    except CaseError as err:
        return None, str(err)


def widgets(on_change: Callable[[], None]) -> None:
    """The editor's fields; every commit reruns the live panel (`on_change`)."""
    with st.container(border=True, key=KEYS("editor")):
        top = st.container(horizontal=True, vertical_alignment="center")
        top.markdown("**Your own evaluator**")
        top.selectbox("Start from", list(starts()), key=START, on_change=on_start, index=None,
                      placeholder="Start from…", label_visibility="collapsed", width=200)
        top.button("Close", key=KEYS("close"), on_click=close_editor, type="tertiary")
        left, right = st.columns([3, 2])
        left.text_input("name", key=NAME, on_change=on_change,
                        help="2-40 lowercase letters, digits or _; not a built-in's name")
        right.selectbox("asks about", list(ABOUT), key=ABOUT_KEY, on_change=on_change,
                        format_func=ABOUT_WORDS.get)
        st.text_area(
            "question — a statement the judge answers yes or no", key=QUESTION, height=68,
            on_change=on_change,
            help="name the item in backticks as the built-in questions do: `context[i]` (a "
                 "chunk), `output[i]` or `expected[i]` (a sentence), `context[i][j]` (a "
                 "statement); and whole fields: `input`, `output`, `expected`, `context`")
        yes, no = st.columns(2)
        yes.text_input("counts as yes (optional)", key=TRUE, on_change=on_change,
                       help="sent as the question's criteria; give both or neither")
        no.text_input("counts as no (optional)", key=FALSE, on_change=on_change)
        how, way, at = st.columns([4, 4, 2])
        how.selectbox("score", list(REDUCERS), key=REDUCER, on_change=on_change,
                      format_func=REDUCER_WORDS.get,
                      help="; ".join(f"{REDUCER_WORDS[r]}: {w}" for r, w in REDUCERS.items()))
        way.selectbox("passes when", list(DIRECTIONS), key=DIRECTION, on_change=on_change,
                      format_func=DIRECTION_WORDS.get,
                      help="≥ for a good thing; ≤ for a bad thing (a share of invented "
                           "numbers)")
        at.number_input("threshold", 0.0, 1.0, step=0.05, key=THRESHOLD, on_change=on_change)
        purpose, word_yes, word_no = st.columns([6, 2, 2])
        purpose.text_input("purpose (one line, for the Metrics page)", key=PURPOSE,
                           on_change=on_change)
        word_yes.text_input("word for yes", key=YES, on_change=on_change)
        word_no.text_input("word for no", key=NO, on_change=on_change)
        if state.take(ARRIVE):
            st.html(BRING_INTO_VIEW, unsafe_allow_javascript=True)


Scorer = Callable[..., Report]  # the page's cached offline scoring


def preview(case: Case, judge: str, calibration: str | None, score_offline: Scorer) -> None:
    """The draft's questions on this case, each item's p and verdict, and what to do with it.

    Offline judges answer at once (approximately: a custom question is read from its
    wording); the hosted judge on a button, one request.
    """
    d, problem = draft()
    said, failed = state.take(SAID), state.take(FAILED)
    if said:
        st.success(inert(said))
    if failed:
        st.error(inert(failed))
    if d is None:
        st.error(inert(f"{problem}. Your text is kept."))
        return
    made = evaluator(d)
    missing = made.missing(case)
    if missing:
        st.info(inert(f"This case cannot be asked: the evaluator {missing}."))
    else:
        report = _answered(case, d, judge, calibration, score_offline)
        if report is not None:
            _result(report, d)
    actions(d)


def _answered(case: Case, d: Definition, judge: str, calibration: str | None,
              score_offline: Scorer) -> Report | None:
    kind = judges.entry(judge)
    texts = custom.texts((evaluator(d),))
    if kind.offline:
        try:
            return score_offline(case, (d.name,), judge, calibration, texts)
        except JevalError as err:
            st.error(inert(str(err)))
            return None
    held = state.get(ASKED)
    if held and held[0] == d and held[1] == case:
        return held[2]
    if not hosted.key_ready():
        st.info(f"Set the {kind.title} key in the sidebar to ask it this question; the "
                "offline judges answer at once.")
        return None
    if st.button(f"Ask {kind.title} these questions (1 request)", key=KEYS("ask"),
                 type="primary"):
        try:
            judge_now = hosted.from_settings()
            try:
                request = prepare(case, (evaluator(d),), judge_now)
                found = run(request, judge_now)
            finally:
                judge_now.close()
        except JevalError as err:
            st.error(inert(str(err)))
            return None
        state.put(ASKED, (d, case, found))
        return found
    return None


def _result(report: Report, d: Definition) -> None:
    result = report.results[d.name]
    if result.skipped:
        st.info(inert(result.reason))
        return
    word = "PASS" if result.passed else "FAIL"
    approx = (" · ≈ approximate: an offline judge reads a custom question from its wording "
              "and the texts it names" if result.approximate else "")
    st.markdown(f"**{inert(d.name)}** · {word} · score **{result.score:.2f}**"
                f" :gray[· judge {inert(report.judge)}{inert(approx)}]")
    st.caption(inert(result.reason.replace("`", "")))
    # a static table: every question and its text on the page, selectable and copyable;
    # its cells read markdown, so every text is made inert (shown exactly as written)
    st.table([{"judged": r.judged, "p(yes)": f"{r.p:.2f}", "verdict": inert(r.verdict),
               "question, verbatim": inert(r.question), "text": inert(r.text)}
              for r in report.rows(d.name)])


def actions(d: Definition) -> None:
    """Use it in this case, keep it in the run store, download it as TOML."""
    used = d.name in state.evaluator_names() and custom.definitions().get(d.name) == d
    row = st.container(horizontal=True, vertical_alignment="center")
    row.button("In this case ✓" if used else "Use it in this case", key=KEYS("use"),
               on_click=use, args=(d,), disabled=used, type="primary",
               help="adds it to the evaluators: scored with the others in the one request")
    row.button("Keep in the run store", key=KEYS("keep"), on_click=keep, args=(d,),
               help="every later session (and jeval on this machine) has it")
    row.download_button("Download .toml", evaluator_files.dumps([d]), f"{d.name}.toml",
                        mime="application/toml", key=KEYS("download"), on_click="ignore")


def use(d: Definition) -> None:
    custom.add(d)
    names = state.evaluator_names()
    if d.name not in names:
        state.put(state.EVALUATORS, [*names, d.name])
    state.put(SAID, f"{d.name} is in this case's evaluators.")


def keep(d: Definition) -> None:
    try:
        custom.keep(d)
    except JevalError as err:
        state.put(FAILED, f"Not kept: {err}")
        return
    state.put(SAID, f"{d.name} is kept in the run store.")

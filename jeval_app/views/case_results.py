"""The Playground's scored case drawn: the summary, the cards, what-if thresholds, details,
questions, each judge side by side, the export and keep-as-run; presentation mode; the
verdict beside each chunk."""

from __future__ import annotations

import streamlit as st

from jeval_app import case as editing
from jeval_app import custom, resources, state
from jeval_app.scoring_policy import is_stale, offline_judge, score_offline, supported_at_k
from jeval_app.views import k_chart, verdict
from jeval_app.views import report as draw
from jeval_app.views.card import result_cards
from jeval_app.views.case_editor import case_payload
from jeval_app.views.text import chunk_source, inert
from jeval_core import Case, JevalError, Report, judges
from jeval_core.address import Address
from jeval_core.analysis import k_sweep
from jeval_core.analysis.labels import on_case
from jeval_core.case import ChunkMeta
from jeval_core.evaluators import Evaluator
from jeval_core.request import pack
from jeval_core.scoring import DetailRow


def on_pick(chart_key: str) -> None:
    """A click on a bar focuses its chunk (a click beside the bars, none)."""
    chart = state.get(chart_key) or {}  # the chart's own selection state
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



def chunk_verdict(text: str, row: DetailRow | None, offline: str | None = None,
                  label: bool | None = None, meta: ChunkMeta | None = None) -> None:
    """Beside a chunk: its p(relevant) and verdict, and the words that drove p; `offline`
    names the offline judge when its verdict stands in for the hosted judge's; a red mark
    when the person's `label` says otherwise; under it, where the pipeline found the chunk
    (`meta`: its source, score, rank and id), so a verdict leads back to its document."""
    if not text.strip():
        st.caption("blank: not judged (it keeps its rank)")
    elif row is None:
        st.empty()  # the slot is written on every run, even with nothing to say
    else:
        colour = "orange" if row.unsure else ("green" if row.yes else "gray")
        mark = f" · {inert(offline)} judge" if offline else ""
        line = f":{colour}-badge[p {row.p:.2f} · {inert(row.verdict)}{mark}]"
        if label is not None and label != row.yes:
            line += f" :red-badge[✗ you: {state.RELEVANT if label else state.NOISE}]"
        words = [t for _, _, t in row.evidence]
        if words:  # one highlight for the list: a highlight's padding would gap each comma
            line += " why: :orange-background[" + ", ".join(inert(w) for w in words[:8]) + "]"
        st.markdown(line)
    source = chunk_source(meta)
    if source:
        st.caption(source)



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
    which_k(case, report)
    names = [n for n, r in report.results.items() if not r.skipped]
    if names:
        if state.get(state.DETAIL) not in names:
            state.drop(state.DETAIL)
        with st.container(horizontal=True, vertical_alignment="bottom"):
            pick = st.pills("Details of", names, key=state.DETAIL, default=names[0],
                            required=True) or names[0]
            chunks = [f"context[{i}]" for i in range(len(case.context))]
            st.selectbox("Focus on", [None, *chunks], key=state.FOCUS, placeholder="no chunk",
                         format_func=lambda v: "no chunk" if v is None else v, width=170,
                         help="or click a bar: its chunk is framed in the editor, its bars "
                              "and its questions stand out")
        draw.detail(report, pick, focus, on_pick)
    st.subheader("Questions")
    draw.questions_table(report, focus)
    box = st.expander("Judges side by side", key=state.COMPARE_OPEN, on_change="rerun")
    if box.open:
        with box:
            each_judge(case, chosen, report)
    st.subheader("Export")
    draw.exports(report, case, case_payload(case, chosen))
    keep_as_run(case, chosen, report)
    draw.request_panel(report)



def keep_as_run(case: Case, chosen: tuple[Evaluator, ...], report: Report) -> None:
    """Keep this scored case in the run history (the Dashboard) as a run of one case."""

    def keep() -> None:
        from jeval_core.inputs.casefile import CaseFile
        from jeval_core.runs import run as runs
        try:
            run_id = runs.save_case(resources.store(), CaseFile(
                case, chosen, dict(report.thresholds), extra=editing.labels().to_extra()),
                report)
            state.say(state.KEPT_RUN, f"Kept as run {run_id[:8]}: see it on the Dashboard.")
        except JevalError as err:
            state.say(state.KEPT_RUN, f"Not kept: {err}")

    with st.container(horizontal=True, vertical_alignment="center"):
        st.button("Keep as a run", on_click=keep, key=state.KEEP_RUN,
                  help="stores this case and its results as a run of one case in the run "
                       "history; the judge is not asked again")
        said = state.said(state.KEPT_RUN)
        if said:
            st.caption(inert(said))



def which_k(case: Case, report: Report) -> None:
    """Precision@k, recall@k and context tokens at every top-k of this retrieval, read from
    this one scoring (each chunk's p is its own): the person's labels stand over verdicts."""
    box = st.expander("Which k? precision and recall at every top-k (the judge is not asked "
                      "again)", key=state.KSWEEP_OPEN, on_change="rerun")
    if not box.open:
        return
    per_chunk = draw.chunk_rows(report)
    with box:
        if not per_chunk:
            st.caption("Pick chunk_relevance (or contextual_precision) to judge each chunk.")
            return
        verdicts = [per_chunk[i].yes if i in per_chunk else None
                    for i in range(len(case.context))]
        marks = state.chunk_labels()
        labels = list(marks) + [None] * (len(case.context) - len(marks))
        points = k_sweep.sweep(case, k_sweep.relevance_of(case, verdicts, labels))
        stated = report.results.get("chunk_support")
        if stated is not None and not stated.skipped:  # asked with the rest: any judge
            supported: list[float | None] | None = k_sweep.support_by_chunk(case, stated,
                                                                             points)
            how = "from chunk_support's answers: one chunk states the sentence"
        else:
            supported = supported_at_k(case, report.judge, state.calibration_for(report.judge),
                                       [p.k for p in points])
            how = f"faithfulness at k, read by the {report.judge} judge offline"
        if supported is not None:
            points = k_sweep.with_support(points, supported)
        k_chart.chart(points, key="k_sweep")
        basis = ("your labels where given, else the judge's verdicts" if any(
            m is not None for m in marks) else "the judge's verdicts")
        best = next((p for p in points if p.recall is not None and p.recall >= 1.0), None)
        st.caption(f"relevance: {basis}. " + (
            f"Every relevant chunk is in the top {best.k} ({best.tokens} context tokens of "
            f"{points[-1].tokens})." if best else "No chunk is relevant: recall is undefined.")
            + (" supported@k: the share of the answer's sentences the first k chunks support "
               f"({how}): "
               + ", ".join(f"k={p.k} {p.supported:.2f}" for p in points
                           if p.supported is not None) + "."
               if supported is not None else ""))


def what_if(report: Report) -> None:
    """A threshold slider per evaluator: verdicts follow at once, the judge is not asked."""
    box = st.expander("What if: thresholds (the judge is not asked again)", key=state.WHATIF_OPEN,
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
            state.put_default(key, float(report.results[name].threshold))
            rule = "≥" if report.results[name].higher_is_better else "≤"
            with cols[i % 2]:
                st.slider(f"{name} passes at score {rule}", 0.0, 1.0, step=0.05,
                          key=key, on_change=on_threshold, args=(name,), format="%.2f")
                st.markdown(draw.chip(name, report.results[name], False))
        if state.thresholds():
            st.button("Back to the default thresholds", on_click=on_reset_thresholds)



def each_judge(case: Case, chosen: tuple[Evaluator, ...], report: Report) -> None:
    """local and lexical on the same case (offline, cached), and Jev's when it scored it."""
    if not st.toggle("Score this case with each judge", key=state.COMPARE_ON):
        offline = " and ".join(judges.offline_names())
        hosted = judges.entry(judges.hosted_name() or judges.DEFAULT).title
        st.caption(f"Scores the same case with the {offline} judges and shows p per question "
                   f"in columns ({hosted}'s too once it has scored this case).")
        return
    reports: dict[str, Report] = {}
    names = tuple(e.name for e in chosen)
    # every judge at the thresholds on screen (the what-if sliders included): `report` has them
    thresholds = dict(report.thresholds)
    for judge in judges.offline_names():
        try:
            reports[judge] = score_offline(case, names, judge, None, custom.texts(
                chosen)).with_thresholds(thresholds)
        except JevalError as err:
            st.error(inert(f"{judge}: {err}"))
    answered = state.hosted_report()
    if answered is not None and not is_stale(answered, pack(case, chosen)):
        reports[answered.judge] = answered.with_thresholds(thresholds)
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
    draw.present_chunks(case, per_chunk)
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

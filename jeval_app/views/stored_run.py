"""A stored run drawn: its header, aggregate cards, charts, cases, reasons and exports.

Every number drawn here was computed by jeval_core (the run's stored aggregates, the stored
cases, `ranking`) and is read from its typed records; this file only lays it out. Text from
datasets goes through inert elements (dataframes, chart tooltips) or `inert`, never raw
markdown or HTML.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

import altair as alt
import pandas as pd
import streamlit as st

from jeval_app.scoring_policy import supported_at_k
from jeval_app.state import Keys
from jeval_app.views import k_chart, labelling, verdict
from jeval_app.views.boundary import error_line
from jeval_app.views.card import case_card
from jeval_app.views.text import chunk_source, inert, number, percent, plural
from jeval_core import export, judges
from jeval_core.address import Address
from jeval_core.analysis import k_sweep, noise, ranking
from jeval_core.analysis.aggregate import RankingSummary
from jeval_core.case import CONTEXT_META
from jeval_core.errors import JevalError
from jeval_core.inputs import share
from jeval_core.runs import run as runs
from jeval_core.runs.records import CaseRow, RunSummary
from jeval_core.runs.store import Store
from jeval_core.text import one_line

# ---- a stored run ----------------------------------------------------------------------------


def evaluator_names(cases: Sequence[CaseRow]) -> list[str]:
    """Every evaluator the run's cases report, in the order they first appear."""
    names: dict[str, None] = {}
    for row in cases:
        for name in row.results:
            names.setdefault(name, None)
    return list(names)


def playground_base() -> str:
    """The app's root, where the Playground (the default page) opens a `?case=` link; the
    Playground's own path would first show "Page not found". Seen from this page's URL
    (`…/datasets` -> `…/`), else relative (`./`), which resolves the same way."""
    url = (st.context.url or "").split("?")[0].split("#")[0]
    if not url.startswith(("http://", "https://")):
        return "./"
    head, _, _ = url.rstrip("/").rpartition("/")
    return head + "/" if head.count("/") >= 2 else url.rstrip("/") + "/"


def playground_links(run: RunSummary, cases: Sequence[CaseRow]) -> dict[int, str]:
    """Per stored case, a link that opens it in the Playground (in a new tab), with the run's
    evaluators, thresholds and judge. Never a key: none is given to `share.encode`."""
    per_case = run.evaluators == ["per case"]
    base = playground_base()
    links = {}
    for stored in cases:
        row = stored.row
        if row is None:
            continue
        try:
            chosen = row.casefile.chosen() if per_case else runs.stored_settings(run)[0] or ()
            thresholds = {**row.casefile.thresholds, **run.thresholds}
            token = share.encode(row.case, chosen, run.judge if judges.known(run.judge) else None,
                                 thresholds)
        except JevalError:
            continue
        if len(token) <= share.MAX_TOKEN_CHARS:
            links[stored.index] = f"{base}?case={token}"
    return links


def header(run: RunSummary) -> None:
    model = f" · model {run.model}" if run.model else ""
    model += f" · calibration profile {run.calibration}" if run.calibration else ""
    kind = " · example run" if run.seeded else ""
    st.caption(inert(
        f"{run.name} · judge {run.judge}{model} · {run.started_at:%Y-%m-%d %H:%M} UTC · "
        f"{run.status}{kind} · run {run.id[:8]}"))
    if run.status in ("cancelled", "running", "failed") and run.done < run.cases:
        st.info(inert(
            f"This run is {run.status}: {run.done} of {run.cases} cases are stored. Continue "
            f"it on the Dataset page with the same file, or in a terminal: jeval run "
            f"<path to {run.dataset}> --resume {run.id[:8]}"))


def cards(run: RunSummary) -> None:
    """The run's aggregates (as stored with it): cases and pass rate, each evaluator's pass
    rate and mean score, chunk verdicts against labels, precision@k of both rankings."""
    agg = run.summary
    with st.container(key="aggregate_cards"):
        a, b, c, d, i, e = st.columns(6)
        a.metric("cases scored", f"{run.done} of {run.cases}")
        b.metric("pass rate", percent(agg.pass_rate),
                 help="cases where every evaluator passed, among the scored cases (an "
                      "incomplete case is not a pass)")
        c.metric("passed", agg.passed)
        d.metric("failed", agg.failed)
        i.metric("incomplete", agg.incomplete,
                 help="nothing failed, but an evaluator could not be scored (it needs "
                      "`expected`): not a pass")
        e.metric("errors", agg.errored,
                 help="cases the judge could not answer (a resume retries nothing: fix and "
                      "run again)")
        if agg.evaluators:
            st.markdown("**Per evaluator** — pass rate, with the mean score under it")
            cols = st.columns(4)
            for i, (name, one) in enumerate(agg.evaluators.items()):
                with cols[i % 4]:
                    st.metric(name, percent(one.pass_rate),
                              delta=f"mean {number(one.mean_score)}", delta_color="off",
                              delta_arrow="off",
                              help=f"{one.scored} scored, {one.skipped} skipped")
        chunks = agg.chunks
        if chunks:
            st.markdown(f"**Chunk verdicts against the labels** — chunk_relevance on "
                        f"{chunks.chunks} labelled chunks in {chunks.cases} cases")
            v = chunks.verdicts
            cols = st.columns(5)
            for col, (label, value) in zip(cols, (
                    ("precision", v.precision), ("recall", v.recall), ("F1", v.f1),
                    ("accuracy", v.accuracy), ("AUC", chunks.auc)), strict=True):
                col.metric(f"chunk {label}", number(value))
        ranking_cards(agg.ranking)


def ranking_cards(ranking: RankingSummary | None) -> None:
    """precision@k of the retriever and of the reranked order, from the labels."""
    if not ranking:
        return
    again = ranking.reranked_cases
    st.markdown(f"**Precision@k from the labels** — the retriever's order over "
                f"{ranking.cases} labelled cases"
                + (f"; the reranked order over the {again} cases that give one" if again else ""))
    cols = st.columns(len(ranking.retriever) or 1)
    for col, (k, value) in zip(cols, ranking.retriever.items(), strict=False):
        name = f"P@{k}"
        before = ranking.retriever_on_reranked.get(k)
        after = ranking.reranked.get(k)
        if before is None or after is None:
            col.metric(f"{name} retriever", number(value))
            continue
        col.metric(f"{name} retriever → reranked", f"{before:.2f} → {after:.2f}",
                   delta=f"{after - before:+.2f}", delta_color="normal",
                   help=f"on the {again} cases with a reranked order; the "
                        f"retriever over all labelled cases: {number(value)}")
    if ranking.more:
        with st.expander("More ranking metrics: recall@k, nDCG@k, hit rate@k, MRR"):
            shown = {"retriever": f"retriever, {ranking.cases} cases",
                     "retriever_on_reranked": f"retriever, the {again} reranked cases",
                     "reranked": f"reranked, {again} cases"}
            st.dataframe(pd.DataFrame([{"order": label, **ranking.more[order]}
                                       for order, label in shown.items()
                                       if order in ranking.more]).round(3),
                         hide_index=True, width="stretch")


def score_frame(cases: Sequence[CaseRow], names: Sequence[str]) -> pd.DataFrame:
    """One row per (case, evaluator) score: what the distribution chart reads."""
    return pd.DataFrame([
        {"id": row.case_id, "evaluator": name, "score": r.score, "verdict": verdict.of_result(r)}
        for row in cases for name, r in row.results.items()
        if name in names and not r.skipped])


def charts(run: RunSummary, cases: Sequence[CaseRow]) -> None:
    """Score distribution and pass rate per evaluator; precision by rank position."""
    names = evaluator_names(cases)
    scores = score_frame(cases, names)
    left, right = st.columns(2)
    with left:
        st.markdown("**Score distribution per evaluator** (cases per score bin)")
        if scores.empty:
            st.caption("No scores yet.")
        else:
            base = alt.Chart(scores).encode(
                x=alt.X("score:Q", bin=alt.Bin(extent=[0, 1], step=0.1), title="score"),
                y=alt.Y("evaluator:N", sort=names, title=None,
                        axis=alt.Axis(labelLimit=0)))
            heat = base.mark_rect().encode(
                color=alt.Color("count():Q", title="cases", scale=alt.Scale(scheme="blues")),
                tooltip=[alt.Tooltip("evaluator:N"),
                         alt.Tooltip("score:Q", bin=alt.Bin(extent=[0, 1], step=0.1)),
                         alt.Tooltip("count():Q", title="cases")])
            text = base.mark_text(fontSize=11).encode(text="count():Q")
            st.altair_chart((heat + text).properties(height=max(120, 30 * len(names))),
                            width="stretch")
    with right:
        st.markdown("**Pass rate per evaluator**")
        rates = pd.DataFrame([{"evaluator": n, "pass rate": e.pass_rate,
                               "mean score": e.mean_score, "scored": e.scored}
                              for n, e in run.summary.evaluators.items()
                              if e.pass_rate is not None])
        if rates.empty:
            st.caption("No verdicts yet.")
        else:
            bars = alt.Chart(rates).mark_bar(color=verdict.GOOD).encode(
                x=alt.X("pass rate:Q", scale=alt.Scale(domain=[0, 1]),
                        axis=alt.Axis(format="%")),
                y=alt.Y("evaluator:N", sort=list(rates["evaluator"]), title=None,
                        axis=alt.Axis(labelLimit=0)),
                tooltip=[alt.Tooltip("evaluator:N"), alt.Tooltip("pass rate:Q", format=".0%"),
                         alt.Tooltip("mean score:Q", format=".2f"), alt.Tooltip("scored:Q")])
            labels = bars.mark_text(align="left", dx=3).encode(
                text=alt.Text("pass rate:Q", format=".0%"))
            st.altair_chart((bars + labels).properties(height=max(120, 30 * len(rates))),
                            width="stretch")
    by_rank_chart(ranking.precision_by_rank(ranking.orders_of_rows(
        c.row for c in cases if c.row is not None)))


def by_rank_chart(by_rank: Sequence[ranking.RankPrecision]) -> None:
    """How often the chunk at each rank is relevant, per ranking (from the labels)."""
    st.markdown("**Precision by rank position** (share of labelled cases whose chunk at that "
                "rank is relevant)")
    series = []
    for r in by_rank:
        series.append({"rank": r.rank, "ranking": "retriever (all labelled cases)",
                       "precision": r.retriever, "cases": r.retriever_cases})
        if r.reranked_cases:
            series.append({"rank": r.rank, "ranking": "retriever (the reranked cases)",
                           "precision": r.retriever_on_reranked, "cases": r.reranked_cases})
            series.append({"rank": r.rank, "ranking": "reranked",
                           "precision": r.reranked, "cases": r.reranked_cases})
    frame = pd.DataFrame([s for s in series if s["precision"] is not None])
    if frame.empty:
        st.caption("No chunk labels in this dataset: add context_labels (0/1 per chunk) to "
                   "see where the relevant chunks sit.")
        return
    chart = alt.Chart(frame).mark_line(point=True).encode(
        x=alt.X("rank:O", title="rank position (1 = first)", axis=alt.Axis(labelAngle=0)),
        y=alt.Y("precision:Q", scale=alt.Scale(domain=[0, 1]), axis=alt.Axis(format="%")),
        color=alt.Color("ranking:N", legend=alt.Legend(orient="top", title=None, labelLimit=0)),
        tooltip=[alt.Tooltip("ranking:N"), alt.Tooltip("rank:O"),
                 alt.Tooltip("precision:Q", format=".0%"), alt.Tooltip("cases:Q")])
    st.altair_chart(chart.properties(height=240), width="stretch")


def case_table(run: RunSummary, cases: Sequence[CaseRow], keys: Keys) -> None:
    """Per case: a link into the Playground, the verdict, each evaluator's score (green when it
    passed, red when it failed); filters for failed cases and one evaluator."""
    names = evaluator_names(cases)
    left, right = st.columns([1, 2], vertical_alignment="bottom")
    failed_only = left.toggle("Failed cases only", key=keys("failed"))
    pick = right.selectbox("Evaluator", ["every evaluator", *names], key=keys("evaluator"))
    shown_names = names if pick == "every evaluator" else [pick]

    def keep(row: CaseRow) -> bool:
        if not failed_only:
            return True
        if pick == "every evaluator":
            return row.passed is not True
        found = row.results.get(pick)
        return row.report is None or (found is not None and found.passed is False)

    links = playground_links(run, cases)
    rows, verdicts = [], []
    for row in cases:
        if not keep(row):
            continue
        line: dict[str, Any] = {"open": links.get(row.index), "id": row.case_id,
                                "case": verdict.of_case(row.passed, row.error),
                                "input": row.case.input}
        marks: dict[str, str] = {"case": line["case"]}
        for name in shown_names:
            r = row.results.get(name)
            line[name] = None if r is None else r.score
            marks[name] = "" if r is None or r.skipped else verdict.of_result(r)
        line["error"] = row.error or ""
        rows.append(line)
        verdicts.append(marks)
    st.caption(f"{plural(len(rows), 'case', 'cases')} shown of {len(cases)} · a green "
               "score passed its threshold, a red one failed · open ↗ shows the case in the "
               "Playground (a new tab)")
    if not rows:
        st.info("No case matches these filters.")
        return
    frame = pd.DataFrame(rows)
    marks = pd.DataFrame(verdicts, index=frame.index)

    def styles(data: pd.DataFrame) -> pd.DataFrame:
        out = pd.DataFrame("", index=data.index, columns=data.columns)
        for column in marks.columns:
            out[column] = marks[column].map(verdict.background)
        return out

    config: dict[str, Any] = {
        "open": st.column_config.LinkColumn("Playground", display_text="open ↗",
                                            width="small"),
        "id": st.column_config.TextColumn("id"),
        "case": st.column_config.TextColumn("case", width="small"),
        "input": st.column_config.TextColumn("input", width="medium"),
        "error": st.column_config.TextColumn("error", width="medium"),
    }
    for name in shown_names:
        config[name] = st.column_config.NumberColumn(name, format="%.2f")
    st.dataframe(frame.style.apply(styles, axis=None).format(precision=2, subset=shown_names),
                 hide_index=True, width="stretch", column_config=config, key=keys("cases"),
                 height=min(420, 38 + 35 * len(rows)))
    reasons(cases, shown_names, keep, keys)


def reasons(cases: Sequence[CaseRow], names: Sequence[str], keep: Callable[[CaseRow], bool],
            keys: Keys) -> None:
    """Seed 001's detail: per case, a score per metric with a pass/fail badge and the reason."""
    rows = []
    for row in cases:
        if not keep(row):
            continue
        if row.report is None:
            rows.append({"id": row.case_id, "evaluator": "—", "score": None,
                         "verdict": verdict.ERROR, "reason": row.error or "not scored"})
            continue
        for name, r in row.results.items():
            if name not in names:
                continue
            rule = "≥" if r.higher_is_better else "≤"
            rows.append({"id": row.case_id, "evaluator": name, "score": r.score,
                         "verdict": verdict.of_result(r), "threshold": f"{rule} {r.threshold:.2f}",
                         "reason": r.reason.replace("`", "")})
    with st.expander(f"Reasons: a score, a badge and the reason per case and metric "
                     f"({len(rows)} rows)", key=keys("reasons_open"), on_change="rerun"):
        if not rows:
            return
        frame = pd.DataFrame(rows)
        st.dataframe(
            frame.style.map(verdict.background, subset=["verdict"])
            .format(precision=2, subset=["score"]),
            hide_index=True, width="stretch", key=keys("reasons"),
            column_config={"reason": st.column_config.TextColumn("reason", width="large"),
                           "score": st.column_config.NumberColumn("score", format="%.2f")})


def one_case(db: Store, run: RunSummary, cases: Sequence[CaseRow], keys: Keys) -> None:
    """Pick a case: its question, answer and chunks beside its per-metric card, a link
    that opens it in the Playground, and the person's labels on it."""
    if not cases:
        return
    by_id = {row.case_id: row for row in cases}
    pick = st.selectbox(
        "Case", list(by_id), key=keys("case"),
        format_func=lambda i: f"{i} · {one_line(by_id[i].case.input, 70)}")
    row = by_id.get(pick) if pick is not None else None
    if row is None:
        return
    left, right = st.columns([3, 2], gap="large")
    with left:
        st.markdown("**input**")
        st.text(row.case.input)
        st.markdown("**output**")
        st.text(row.case.output)
        labels = row.labels
        for i, chunk in enumerate(row.case.context):
            truth = ""
            if labels is not None and i < len(labels) and labels[i] is not None:
                truth = " · labelled relevant" if labels[i] else " · labelled not relevant"
            st.caption(f"{Address.of_chunk(i)}{truth}")
            source = chunk_source(row.case.chunk_meta(i))
            if source:
                st.caption(source)
            st.text(chunk)
    with right:
        link = playground_links(run, [row]).get(row.index)
        if link:
            st.link_button("Open in the Playground ↗", link, width="stretch",
                           help="a new tab with this case, the run's evaluators, thresholds "
                                "and judge (the link holds the case, never a key)")
        case_card(row, row.case_id)
        labelling.label_case(db, run, row, keys)


def cases_csv(cases: Sequence[CaseRow]) -> str:
    """Every case with each evaluator's score, verdict and reason; formula-like cells inert."""
    names = evaluator_names(cases)
    rows = []
    for row in cases:
        line: dict[str, Any] = {"id": row.case_id,
                                "case": verdict.of_case(row.passed, row.error),
                                "error": row.error or "", "input": row.case.input,
                                "output": row.case.output}
        for name, r in row.results.items():
            line[f"{name} score"] = r.score
            line[f"{name} verdict"] = verdict.of_result(r)
            line[f"{name} reason"] = r.reason
        line[CONTEXT_META] = export.context_meta_cell(row.case)
        rows.append(line)
    columns = ["id", "case", "error",
               *[f"{n} {part}" for n in names for part in ("score", "verdict", "reason")],
               "input", "output"]
    if any(line[CONTEXT_META] for line in rows):  # each chunk's id, source, score and rank
        columns.append(CONTEXT_META)
    return export.to_csv(rows, columns)


def cases_jsonl(run: RunSummary, cases: Sequence[CaseRow]) -> str:
    """One JSON line per case: verdict, scores, every result, and the case itself. What a run
    stores holds no key (none is ever given to the store), so neither does this."""
    return "".join(json.dumps({
        "run": run.id, "id": row.case_id, "passed": row.passed, "error": row.error,
        "scores": row.scores,
        "results": {name: r.to_dict() for name, r in row.results.items()}, "case": row.data,
    }, ensure_ascii=False) + "\n" for row in cases)


def exports(run: RunSummary, cases: Sequence[CaseRow], keys: Keys) -> None:
    """Every case as CSV (formula-safe) and as JSONL (full results), built on click."""
    stem = "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in run.dataset)[:40] or "run"
    left, middle, right = st.columns(3)
    middle.download_button("Download the dataset with its labels (JSONL)",
                           lambda: labelling.labelled_dataset(cases),
                           file_name=f"{stem}_{run.id[:8]}_labelled.jsonl",
                           mime="application/jsonl", on_click="ignore", width="stretch",
                           key=keys("labelled"),
                           help="the cases as a dataset file, with your labels: what `jeval "
                                "calibrate` and another run read")
    left.download_button("Download the cases (CSV)", lambda: cases_csv(cases),
                         file_name=f"{stem}_{run.id[:8]}.csv", mime="text/csv",
                         on_click="ignore", width="stretch", key=keys("csv"),
                         help="text cells that would run as spreadsheet formulas are made inert")
    right.download_button("Download the results (JSONL)", lambda: cases_jsonl(run, cases),
                          file_name=f"{stem}_{run.id[:8]}.jsonl", mime="application/jsonl",
                          on_click="ignore", width="stretch", key=keys("jsonl"))


def which_k(run: RunSummary, cases: Sequence[CaseRow], keys: Keys) -> None:
    """The run's k-sweep: mean precision@k and recall@k over its retrievals from the stored
    verdicts (labels where a row has them), and the smallest k keeping a chosen recall; on
    request, with an offline judge, how much of each answer the first k chunks support."""
    box = st.expander("Which k? precision and recall at every top-k, from this run's verdicts",
                      key=keys("ksweep_open"), on_change="rerun")
    if not box.open:
        return
    judged = judged_chunks(cases)
    sweeps = [k_sweep.sweep(case, relevant) for case, relevant in judged]
    with box:
        if not sweeps:
            st.caption("No case of this run judged chunk relevance.")
            return
        answered = [case for case, _ in judged if case.output.strip()]
        stated = stated_by_chunk(cases)
        if any(r is not None for r in stated):
            # asked in each case's one request (`jeval run --evaluators ...,chunk_support`)
            sweeps = [s if r is None else k_sweep.with_support(
                s, k_sweep.support_by_chunk(case, r, s))
                for (case, _), s, r in zip(judged, sweeps, stated, strict=True)]
            st.caption("supported@k: from this run's answers to which chunk states each "
                       "answer sentence (chunk_support), no request.")
        elif (answered and judges.known(run.judge) and judges.entry(run.judge).offline
                and st.toggle(f"supported@k: read each answer against its first k chunks "
                              f"(the {run.judge} judge, offline: no request)",
                              key=keys("ksweep_support"))):
            with st.spinner(f"Reading {plural(len(answered), 'answer', 'answers')} at "
                            "every k…"):
                sweeps = [k_sweep.with_support(s, supported_at_k(
                    case, run.judge, run.calibration, [p.k for p in s]) or [None] * len(s))
                    for (case, _), s in zip(judged, sweeps, strict=True)]
        level = st.slider("recall to keep", 0.5, 1.0, 0.8, 0.05, key=keys("ksweep_recall"))
        mean = k_sweep.means(sweeps)
        k_chart.chart(mean, key=keys("ksweep_chart"))
        chosen = k_sweep.choose_k(sweeps, level)
        if chosen is None:
            st.caption(f"No k keeps mean recall at {level:.2f} (or no retrieval has a relevant "
                       "chunk).")
        else:
            lo, hi = chosen.interval
            st.caption(f"Smallest k keeping mean recall ≥ {level:.2f}: **k = {chosen.k}** "
                       f"(recall {chosen.recall:.2f}, 95% interval {lo:.2f}-{hi:.2f}, over "
                       f"{plural(chosen.cases, 'retrieval', 'retrievals')} with a relevant "
                       f"chunk; {chosen.tokens:.0f} context tokens each, against "
                       f"{chosen.tokens_every:.0f} for every chunk). Labels stand over "
                       "verdicts." + next((
                           f" supported@k there: **{m.supported:.2f}** of each answer's "
                           f"sentences on average (every chunk: {mean[-1].supported:.2f})."
                           for m in mean if m.k == chosen.k and m.supported is not None
                           and mean[-1].supported is not None), ""))


def judged_chunks(cases: Sequence[CaseRow]) -> list[tuple[Any, list[bool | None]]]:
    """Each scored retrieval with its chunks' relevance (labels over the stored verdicts)."""
    return [(c.case, k_sweep.relevance_of_result(c.case, c.report.results["chunk_relevance"],
                                                 c.row.labels if c.row is not None else None))
            for c in cases if c.report is not None and "chunk_relevance" in c.report.results]


def stated_by_chunk(cases: Sequence[CaseRow]) -> list[Any]:
    """Per retrieval of `judged_chunks`, its chunk_support result when the run asked it and
    it judged something (None otherwise)."""
    found = [c.report.results.get("chunk_support") for c in cases
             if c.report is not None and "chunk_relevance" in c.report.results]
    return [None if r is None or r.skipped else r for r in found]


def where_noise(cases: Sequence[CaseRow], keys: Keys) -> None:
    """Noise by source document and by retriever-score range, and near-duplicate chunks."""
    box = st.expander("Where the noise comes from: by source, by retriever score, "
                      "near-duplicates", key=keys("noise_open"), on_change="rerun")
    if not box.open:
        return
    judged = judged_chunks(cases)
    with box:
        if not judged:
            st.caption("No case of this run judged chunk relevance.")
            return
        for title, groups in (("By source document", noise.by_source(judged)),
                              ("By the retriever's score", noise.by_score(judged))):
            if not groups or (len(groups) == 1 and groups[0].name == noise.NO_SOURCE):
                st.caption(f"{title}: the pipeline gave none (import its export with "
                           "`jeval import` to keep them).")
                continue
            st.markdown(f"**{title}**")
            st.dataframe(pd.DataFrame([{"group": g.name, "chunks": g.chunks,
                                        "noise": g.noise_share,
                                        "of the relevant chunks": g.share_of_relevant}
                                       for g in groups]),
                         hide_index=True, width="stretch",
                         column_config={c: st.column_config.NumberColumn(format="percent")
                                        for c in ("noise", "of the relevant chunks")})
        waste = noise.wasted(judged)
        per_unit = ("" if waste.precision_per_unit is None else
                    f" Precision per chunk {waste.precision_per_chunk:.2f}, per distinct unit "
                    f"{waste.precision_per_unit:.2f}.")
        st.caption(f"Near-duplicates: {waste.duplicates} of {waste.chunks} judged chunks repeat "
                   f"another chunk of their retrieval "
                   f"({plural(waste.retrievals_with_duplicates, 'retrieval', 'retrievals')})."
                   + per_unit)


def run_view(db: Store, run_id: str, keys: Keys) -> RunSummary | None:
    """A stored run: header, aggregate cards, charts, the cases, reasons and exports."""
    try:
        run = db.run(run_id)
        cases = db.cases(run_id)
    except JevalError as err:
        error_line(str(err))
        return None
    if run.damaged:
        error_line(f"run {run.id[:8]} is damaged in the run store ({run.damaged}): its "
                   "settings cannot be read back; the other runs are unaffected")
        return None
    header(run)
    errors = [c.error for c in cases if c.report is None and c.error]
    if errors:
        st.warning(inert(f"{plural(len(errors), 'case was', 'cases were')} not scored; the "
                         f"first because: {errors[0]}"))
    cards(run)
    charts(run, cases)
    which_k(run, cases, keys)
    where_noise(cases, keys)
    st.subheader("Agreement with your labels")
    labelling.agreement_table(cases)
    labelling.fit_profile(db, run, cases, keys)
    st.subheader("Cases")
    case_table(run, cases, keys)
    exports(run, cases, keys)
    st.subheader("One case")
    one_case(db, run, cases, keys)
    return run

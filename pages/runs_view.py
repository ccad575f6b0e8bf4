"""What the Dataset, Dashboard and Compare pages share: the run store, the judges, picking a
dataset, a run's progress, and a stored run drawn (cards, charts, cases, reasons, exports).

Every number drawn here was computed by jeval_core (the run's stored aggregates, the stored
cases, `compare`); this file only lays it out. Text from datasets goes through inert elements
(dataframes, chart tooltips) or `draw.inert`, never raw markdown or HTML.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import altair as alt
import pandas as pd
import streamlit as st

from jeval_core import compare, datasets, export, share
from jeval_core import evaluators as registry
from jeval_core.datasets import Dataset, DatasetRow
from jeval_core.errors import CaseError, JevalError, JudgeError
from jeval_core.judges import LABELS, Judge
from jeval_core.judges import get as get_judge
from jeval_core.judges import jev as jev_judge
from jeval_core.runs import SAMPLE
from jeval_core.store import CaseRow, RunSummary, Store, default_url, open_store
from jeval_core.text import one_line, percent
from pages import draw, jobs, session

PASS_BG, FAIL_BG, NONE_BG = ("background-color: rgba(46, 158, 91, 0.22)",
                             "background-color: rgba(217, 83, 79, 0.22)", "")
UPLOAD_TYPES = ["jsonl", "ndjson", "csv", "tsv", "json"]


# ---- resources -------------------------------------------------------------------------------


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


@st.cache_resource(show_spinner="Loading the offline judge…")
def _offline(name: str) -> Judge:
    judge = get_judge(name)
    judge.warm_up()
    return judge


def judge(name: str) -> tuple[Judge, tuple[Judge, ...]]:
    """The judge called `name`, and what to close after the run (the hosted judge's client;
    offline judges are shared and stay loaded). Raises JevalError (no key...)."""
    if name == "jev":
        hosted = session.jev_from_settings()
        if not hosted.has_key:  # say so now, not once per case in a stored run of errors
            url = hosted.base_url
            hosted.close()
            raise JudgeError(f"no API key for {url}: choose Jev in the sidebar and type one, "
                             f"or set {jev_judge.KEY_ENV} for this server. Nothing was sent")
        return hosted, (hosted,)
    return _offline(name), ()


def error_line(text: str) -> None:
    """A failure as one line, next to what caused it."""
    st.error(draw.inert(one_line(text, 600)))


# ---- picking a dataset -----------------------------------------------------------------------


def pick_dataset(prefix: str) -> Dataset | None:
    """The sample or an uploaded file, read once per file; a bad file says why in one line."""
    source = st.radio("Dataset", ["sample", "upload"], key=f"{prefix}_source", horizontal=True,
                      format_func={"sample": "The sample (45 cases, 9 domains)",
                                   "upload": "Upload a file"}.get, persist_state="session")
    cached = st.session_state.get(f"{prefix}_loaded")
    if source == "sample":
        key, raw, name = "sample", None, SAMPLE.name
    else:
        upload = st.file_uploader(
            "A dataset: JSONL (one case per line), CSV (a header row) or a JSON array",
            type=UPLOAD_TYPES, key=f"{prefix}_upload",
            on_change=lambda: st.session_state.pop(f"{prefix}_loaded", None),
            help="Field names as in a case file (ours, RAGAS, DeepEval, Galtea), plus "
                 "optional context_labels (0/1 per chunk) and reranked (chunk indices).")
        if upload is None:
            # Back from another page, the uploader is empty but the file read before is kept
            # (removing it with the uploader's x forgets it).
            if cached is not None and cached[0].startswith("upload:"):
                st.caption(draw.inert(f"Using {cached[1].name}, uploaded before; upload "
                                      "another file to replace it."))
                return cached[1]
            return None
        key, raw, name = f"upload:{upload.file_id}", upload.getvalue(), upload.name
    if cached is not None and cached[0] == key:
        return cached[1]
    try:
        dataset = datasets.load(SAMPLE) if raw is None else datasets.read(raw, name)
    except CaseError as err:
        error_line(f"{err}; nothing was loaded")
        return None
    st.session_state[f"{prefix}_loaded"] = (key, dataset)
    return dataset


def preview(dataset: Dataset) -> None:
    """Rows read and skipped (with line and message), labels and rerankings, the first rows."""
    a, b, c, d = st.columns(4)
    a.metric("rows read", len(dataset.rows))
    b.metric("rows skipped", len(dataset.errors))
    c.metric("with chunk labels", dataset.labelled)
    d.metric("with a reranked order", dataset.with_reranked)
    if dataset.errors:
        st.warning(draw.inert(
            f"{draw.plural(len(dataset.errors), 'row was', 'rows were')} skipped; the others "
            f"will be scored. First: {dataset.errors[0]}"))
        with st.expander(f"The skipped rows ({len(dataset.errors)})"):
            st.dataframe(pd.DataFrame([e.to_dict() for e in dataset.errors]), hide_index=True,
                         width="stretch",
                         column_config={"message": st.column_config.TextColumn(width="large")})
    rows = [{"line": r.line, "id": r.id, "input": r.case.input, "output": r.case.output,
             "chunks": len(r.case.context),
             "labels": "" if r.labels is None else " ".join(str(int(x)) for x in r.labels),
             "reranked": "" if r.reranked is None else " ".join(map(str, r.reranked))}
            for r in dataset.rows[:20]]
    st.caption(f"The first {len(rows)} of {len(dataset.rows)} rows")
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch", height=260,
                 column_config={"input": st.column_config.TextColumn(width="medium"),
                                "output": st.column_config.TextColumn(width="large")})


# ---- a run in progress -----------------------------------------------------------------------


def collect(key: str) -> jobs.Job | None:
    """A finished job under `key`, taken out of the session (None while running or absent)."""
    job = st.session_state.get(key)
    if job is None or not job.done:
        return None
    del st.session_state[key]
    return job


def running(key: str) -> bool:
    job = st.session_state.get(key)
    return job is not None and not job.done


@st.fragment(run_every=0.5)
def progress(key: str) -> None:
    """While the job under `key` runs: a live progress bar and Cancel (only this part reruns,
    twice a second); once it has ended, the whole page reruns to show the results."""
    job = st.session_state.get(key)
    if job is None:
        return
    if job.done:
        st.rerun()
    try:
        with st.container(border=True, key=f"{key}_progress"):
            st.progress(job.fraction(), text=draw.inert(job.line()))
            st.button("Cancel", key=f"{key}_cancel", on_click=job.cancel.set,
                      disabled=job.stopping,
                      help="stops before the next case; every finished case is kept in the "
                           "run store (continue it later from this page or with `jeval run "
                           "DATA --resume RUN`)")
    except Exception as err:  # this part reruns on its own: its own boundary, one line
        error_line(f"The progress could not be drawn ({type(err).__name__}); the run goes on.")


# ---- a stored run ----------------------------------------------------------------------------


def evaluator_names(cases: Sequence[CaseRow]) -> list[str]:
    """Every evaluator the run's cases report, in the order they first appear."""
    names: dict[str, None] = {}
    for row in cases:
        for name in (row.report or {}).get("results", {}):
            names.setdefault(name, None)
    return list(names)


def _results(row: CaseRow) -> dict[str, dict[str, Any]]:
    return (row.report or {}).get("results", {}) or {}


def _word(passed: bool | None, error: str | None = None) -> str:
    if error:
        return "ERROR"
    return {True: "PASS", False: "FAIL", None: "—"}[passed]


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
    if not cases:
        return {}
    text = "\n".join(json.dumps(c.case, ensure_ascii=False) for c in cases)
    try:
        rows = datasets.read(text.encode("utf-8"), "stored.jsonl")
    except CaseError:
        return {}
    by_line = {r.line: r for r in rows.rows}
    per_case = run.evaluators == ["per case"]
    base = playground_base()
    links = {}
    for line, stored in enumerate(cases, start=1):
        row: DatasetRow | None = by_line.get(line)
        if row is None:
            continue
        try:
            chosen = row.casefile.chosen() if per_case else registry.resolve(run.evaluators)
            thresholds = {**row.casefile.thresholds, **run.thresholds}
            token = share.encode(row.case, chosen, run.judge if run.judge in LABELS else None,
                                 thresholds)
        except JevalError:
            continue
        if len(token) <= share.MAX_TOKEN_CHARS:
            links[stored.index] = f"{base}?case={token}"
    return links


def header(run: RunSummary) -> None:
    model = f" · model {run.model}" if run.model else ""
    kind = " · example run" if run.seeded else ""
    st.caption(draw.inert(
        f"{run.name} · judge {run.judge}{model} · {run.started_at:%Y-%m-%d %H:%M} UTC · "
        f"{run.status}{kind} · run {run.id[:8]}"))
    if run.status in ("cancelled", "running", "failed") and run.done < run.cases:
        st.info(draw.inert(
            f"This run is {run.status}: {run.done} of {run.cases} cases are stored. Continue "
            f"it on the Dataset page with the same file, or in a terminal: jeval run "
            f"<path to {run.dataset}> --resume {run.id[:8]}"))


def _pct(value: float | None) -> str:
    return percent(value, none="—")


def _num(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f}"


def cards(run: RunSummary) -> None:
    """The run's aggregates (as stored with it): cases and pass rate, each evaluator's pass
    rate and mean score, chunk verdicts against labels, precision@k of both rankings."""
    agg = run.aggregates or {}
    with st.container(key="aggregate_cards"):
        a, b, c, d, e = st.columns(5)
        a.metric("cases scored", f"{run.done} of {run.cases}")
        b.metric("pass rate", _pct(agg.get("pass_rate")),
                 help="cases where every evaluator passed, among those with a verdict")
        c.metric("passed", agg.get("passed", 0))
        d.metric("failed", agg.get("failed", 0))
        e.metric("errors", agg.get("errored", 0),
                 help="cases the judge could not answer (a resume retries nothing: fix and "
                      "run again)")
        evaluators = agg.get("evaluators") or {}
        if evaluators:
            st.markdown("**Per evaluator** — pass rate, with the mean score under it")
            cols = st.columns(4)
            for i, (name, e_agg) in enumerate(evaluators.items()):
                with cols[i % 4]:
                    st.metric(name, _pct(e_agg.get("pass_rate")),
                              delta=f"mean {_num(e_agg.get('mean_score'))}", delta_color="off",
                              delta_arrow="off",
                              help=f"{e_agg.get('scored', 0)} scored, "
                                   f"{e_agg.get('skipped', 0)} skipped")
        chunks = agg.get("chunks")
        if chunks:
            st.markdown(f"**Chunk verdicts against the labels** — chunk_relevance on "
                        f"{chunks['chunks']} labelled chunks in {chunks['cases']} cases")
            cols = st.columns(5)
            for col, (label, key) in zip(cols, (("precision", "precision"), ("recall", "recall"),
                                                ("F1", "f1"), ("accuracy", "accuracy"),
                                                ("AUC", "auc")), strict=True):
                col.metric(f"chunk {label}", _num(chunks.get(key)))
        ranking_cards(agg.get("ranking"))


def ranking_cards(ranking: dict[str, Any] | None) -> None:
    """precision@k of the retriever and of the reranked order, from the labels."""
    if not ranking:
        return
    retriever = ranking.get("retriever") or {}
    reranked = ranking.get("reranked")
    st.markdown(f"**Precision@k from the labels** — the retriever's order over "
                f"{ranking.get('cases', 0)} labelled cases"
                + (f"; the reranked order over the {reranked['cases']} cases that give one"
                   if reranked else ""))
    cols = st.columns(len(retriever) or 1)
    for col, (k, value) in zip(cols, retriever.items(), strict=False):
        name = k.upper()
        before = reranked["retriever"].get(k) if reranked else None
        after = reranked["reranked"].get(k) if reranked else None
        if before is None or after is None:
            col.metric(f"{name} retriever", _num(value))
            continue
        col.metric(f"{name} retriever → reranked", f"{before:.2f} → {after:.2f}",
                   delta=f"{after - before:+.2f}", delta_color="normal",
                   help=f"on the {reranked['cases']} cases with a reranked order; the "
                        f"retriever over all labelled cases: {_num(value)}")


def score_frame(cases: Sequence[CaseRow], names: Sequence[str]) -> pd.DataFrame:
    """One row per (case, evaluator) score: what the distribution chart reads."""
    return pd.DataFrame([
        {"id": row.case_id, "evaluator": name, "score": r["score"],
         "verdict": "PASS" if r.get("passed") else "FAIL"}
        for row in cases for name, r in _results(row).items()
        if name in names and r.get("score") is not None])


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
        evaluators = (run.aggregates or {}).get("evaluators") or {}
        rates = pd.DataFrame([{"evaluator": n, "pass rate": e.get("pass_rate"),
                               "mean score": e.get("mean_score"), "scored": e.get("scored")}
                              for n, e in evaluators.items() if e.get("pass_rate") is not None])
        if rates.empty:
            st.caption("No verdicts yet.")
        else:
            bars = alt.Chart(rates).mark_bar(color=draw.GOOD).encode(
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
    by_rank_chart(compare.precision_by_rank(compare.orders_of_cases(c.case for c in cases)))


def by_rank_chart(by_rank: Sequence[compare.RankPrecision]) -> None:
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


def _colour(value: Any) -> str:
    return {"PASS": PASS_BG, "FAIL": FAIL_BG, "ERROR": FAIL_BG}.get(value, NONE_BG)


def case_table(run: RunSummary, cases: Sequence[CaseRow], prefix: str) -> None:
    """Per case: a link into the Playground, the verdict, each evaluator's score (green when it
    passed, red when it failed); filters for failed cases and one evaluator."""
    names = evaluator_names(cases)
    left, right = st.columns([1, 2], vertical_alignment="bottom")
    failed_only = left.toggle("Failed cases only", key=f"{prefix}_failed")
    pick = right.selectbox("Evaluator", ["every evaluator", *names], key=f"{prefix}_evaluator")
    shown_names = names if pick == "every evaluator" else [pick]

    def keep(row: CaseRow) -> bool:
        if not failed_only:
            return True
        if pick == "every evaluator":
            return row.passed is not True
        return row.report is None or _results(row).get(pick, {}).get("passed") is False

    links = playground_links(run, cases)
    rows, verdicts = [], []
    for row in cases:
        if not keep(row):
            continue
        results = _results(row)
        line: dict[str, Any] = {"open": links.get(row.index), "id": row.case_id,
                                "case": _word(row.passed, row.error),
                                "input": str(row.case.get("input", ""))}
        marks: dict[str, str] = {"case": line["case"]}
        for name in shown_names:
            r = results.get(name)
            line[name] = None if r is None else r.get("score")
            marks[name] = "" if r is None or r.get("score") is None else (
                "PASS" if r.get("passed") else "FAIL")
        line["error"] = row.error or ""
        rows.append(line)
        verdicts.append(marks)
    st.caption(f"{draw.plural(len(rows), 'case', 'cases')} shown of {len(cases)} · a green "
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
            out[column] = marks[column].map(_colour)
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
                 hide_index=True, width="stretch", column_config=config, key=f"{prefix}_cases",
                 height=min(420, 38 + 35 * len(rows)))
    reasons(cases, shown_names, keep, prefix)


def reasons(cases: Sequence[CaseRow], names: Sequence[str], keep: Any, prefix: str) -> None:
    """Seed 001's detail: per case, a score per metric with a pass/fail badge and the reason."""
    rows = []
    for row in cases:
        if not keep(row):
            continue
        if row.report is None:
            rows.append({"id": row.case_id, "evaluator": "—", "score": None,
                         "verdict": "ERROR", "reason": row.error or "not scored"})
            continue
        for name, r in _results(row).items():
            if name not in names:
                continue
            verdict = "skipped" if r.get("score") is None else (
                "PASS" if r.get("passed") else "FAIL")
            rule = "≥" if r.get("higher_is_better", True) else "≤"
            rows.append({"id": row.case_id, "evaluator": name, "score": r.get("score"),
                         "verdict": verdict,
                         "threshold": f"{rule} {float(r.get('threshold', 0.5)):.2f}",
                         "reason": str(r.get("reason", "")).replace("`", "")})
    with st.expander(f"Reasons: a score, a badge and the reason per case and metric "
                     f"({len(rows)} rows)", key=f"{prefix}_reasons_open", on_change="rerun"):
        if not rows:
            return
        frame = pd.DataFrame(rows)
        st.dataframe(
            frame.style.map(_colour, subset=["verdict"]).format(precision=2, subset=["score"]),
            hide_index=True, width="stretch", key=f"{prefix}_reasons",
            column_config={"reason": st.column_config.TextColumn("reason", width="large"),
                           "score": st.column_config.NumberColumn("score", format="%.2f")})


def case_card(row: CaseRow | None, title: str) -> None:
    """One stored case (seed 001): its verdict, then per metric a pass/fail badge, the score
    and the reason. Every text from the case or the judge is drawn inert."""
    with st.container(border=True):
        if row is None:
            st.markdown(f"**{draw.inert(title)}** :gray-badge[not in this run]")
            return
        word = _word(row.passed, row.error)
        colour = {"PASS": "green", "FAIL": "red", "ERROR": "red"}.get(word, "gray")
        st.markdown(f"**{draw.inert(title)}** :{colour}-badge[{word}]")
        if row.report is None:
            st.caption(draw.inert(row.error or "not scored"))
            return
        for name, r in _results(row).items():
            score = r.get("score")
            if score is None:
                badge, shown = ":gray-badge[skipped]", ""
            else:
                badge = ":green-badge[PASS]" if r.get("passed") else ":red-badge[FAIL]"
                rule = "≥" if r.get("higher_is_better", True) else "≤"
                shown = (f" {float(score):.2f} (passes at {rule} "
                         f"{float(r.get('threshold', 0.5)):.2f})")
            st.markdown(f"{badge} **{draw.inert(name)}**{shown}")
            st.caption(draw.inert(str(r.get("reason", "")).replace("`", "")))


def one_case(run: RunSummary, cases: Sequence[CaseRow], prefix: str) -> None:
    """Pick a case: its question, answer and chunks beside its per-metric card, and a link
    that opens it in the Playground."""
    if not cases:
        return
    by_id = {row.case_id: row for row in cases}
    pick = st.selectbox(
        "Case", list(by_id), key=f"{prefix}_case",
        format_func=lambda i: f"{i} · {one_line(str(by_id[i].case.get('input', '')), 70)}")
    row = by_id.get(pick) if pick is not None else None
    if row is None:
        return
    left, right = st.columns([3, 2], gap="large")
    with left:
        st.markdown("**input**")
        st.text(str(row.case.get("input", "")))
        st.markdown("**output**")
        st.text(str(row.case.get("output", "")))
        context = row.case.get("context") or []
        labels = row.case.get("context_labels")
        for i, chunk in enumerate(context):
            truth = ""
            if isinstance(labels, list) and i < len(labels):
                truth = " · labelled relevant" if labels[i] else " · labelled not relevant"
            st.caption(f"context[{i}]{truth}")
            st.text(str(chunk))
    with right:
        link = playground_links(run, [row]).get(row.index)
        if link:
            st.link_button("Open in the Playground ↗", link, width="stretch",
                           help="a new tab with this case, the run's evaluators, thresholds "
                                "and judge (the link holds the case, never a key)")
        case_card(row, row.case_id)


def cases_csv(cases: Sequence[CaseRow]) -> str:
    """Every case with each evaluator's score, verdict and reason; formula-like cells inert."""
    names = evaluator_names(cases)
    rows = []
    for row in cases:
        line: dict[str, Any] = {"id": row.case_id, "case": _word(row.passed, row.error),
                                "error": row.error or "", "input": row.case.get("input", ""),
                                "output": row.case.get("output", "")}
        for name, r in _results(row).items():
            line[f"{name} score"] = r.get("score")
            line[f"{name} verdict"] = "skipped" if r.get("score") is None else (
                "PASS" if r.get("passed") else "FAIL")
            line[f"{name} reason"] = r.get("reason", "")
        rows.append(line)
    columns = ["id", "case", "error",
               *[f"{n} {part}" for n in names for part in ("score", "verdict", "reason")],
               "input", "output"]
    return export.to_csv(rows, columns)


def cases_jsonl(run: RunSummary, cases: Sequence[CaseRow]) -> str:
    """One JSON line per case: verdict, scores, every result, and the case itself. What a run
    stores holds no key (none is ever given to the store), so neither does this."""
    return "".join(json.dumps({
        "run": run.id, "id": row.case_id, "passed": row.passed, "error": row.error,
        "scores": row.scores, "results": _results(row), "case": row.case,
    }, ensure_ascii=False) + "\n" for row in cases)


def exports(run: RunSummary, cases: Sequence[CaseRow], prefix: str) -> None:
    """Every case as CSV (formula-safe) and as JSONL (full results), built on click."""
    stem = "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in run.dataset)[:40] or "run"
    left, right = st.columns(2)
    left.download_button("Download the cases (CSV)", lambda: cases_csv(cases),
                         file_name=f"{stem}_{run.id[:8]}.csv", mime="text/csv",
                         on_click="ignore", width="stretch", key=f"{prefix}_csv",
                         help="text cells that would run as spreadsheet formulas are made inert")
    right.download_button("Download the results (JSONL)", lambda: cases_jsonl(run, cases),
                          file_name=f"{stem}_{run.id[:8]}.jsonl", mime="application/jsonl",
                          on_click="ignore", width="stretch", key=f"{prefix}_jsonl")


def run_view(db: Store, run_id: str, prefix: str) -> RunSummary | None:
    """A stored run: header, aggregate cards, charts, the cases, reasons and exports."""
    try:
        run = db.run(run_id)
        cases = db.cases(run_id)
    except JevalError as err:
        error_line(str(err))
        return None
    header(run)
    errors = [c.error for c in cases if c.report is None and c.error]
    if errors:
        st.warning(draw.inert(f"{draw.plural(len(errors), 'case was', 'cases were')} not "
                              f"scored; the first because: {errors[0]}"))
    cards(run)
    charts(run, cases)
    st.subheader("Cases")
    case_table(run, cases, prefix)
    exports(run, cases, prefix)
    st.subheader("One case")
    one_case(run, cases, prefix)
    return run

"""The Dashboard's parts: every stored run, the trend per dataset, one run in detail, run A
against run B.

Read the store, call jeval_core (`runs.seed` once, `run_diff.diff_runs`), draw. A new
history is never empty: the first visit loads a few clearly labelled example runs.
"""

from __future__ import annotations

import re
from datetime import datetime

import altair as alt
import pandas as pd
import streamlit as st

from jeval_app import resources, state
from jeval_app.views import stored_run, verdict
from jeval_app.views.boundary import error_line
from jeval_app.views.card import case_card
from jeval_app.views.text import inert, plural
from jeval_core.analysis import run_diff
from jeval_core.errors import JevalError
from jeval_core.runs import run as runs
from jeval_core.runs.records import RunSummary
from jeval_core.runs.store import Store
from jeval_core.text import one_line

KEYS = state.DASHBOARD


@st.cache_resource(show_spinner="First start: loading the example runs…")
def seeded(url: str) -> list[str]:
    """Example runs in an empty store (loaded from their fixture), once per store and
    process."""
    return runs.seed(resources.store_at(url))


def label(run: RunSummary) -> str:
    """time · name · judge · id; the judge only when the name does not already say it (a
    run's default name is "dataset · judge")."""
    kind = " · example" if run.seeded else ""
    said = re.search(rf"(?<![\w-]){re.escape(run.judge)}(?![\w])", run.name)
    judge = "" if said else f" · {run.judge}"
    when = "time unreadable" if run.started_at is None else f"{run.started_at:%Y-%m-%d %H:%M}"
    return f"{when} · {one_line(run.name, 90)}{judge}{kind} · {run.id[:8]}"


def naive(when: datetime | None) -> datetime | None:
    """A UTC time as the grid and the chart take it; None (an unreadable cell) stays blank."""
    return None if when is None else when.replace(tzinfo=None)


# ---- the runs --------------------------------------------------------------------------------


def runs_table(history: list[RunSummary]) -> None:
    # what a run did first (its pass rate stays in view at 1280 px), then where it came from
    rows = [{"time": naive(r.started_at), "name": r.name,
             "pass rate": None if r.pass_rate is None else 100 * r.pass_rate,
             "cases": f"{r.done}/{r.cases}", "judge": r.judge,
             "kind": "example" if r.seeded else "", "cost": r.cost_usd,
             "status": r.shown_status, "dataset": r.dataset, "id": r.id[:8]} for r in history]
    st.dataframe(
        pd.DataFrame(rows), hide_index=True, width="stretch", key=KEYS("runs"),
        column_config={
            "time": st.column_config.DatetimeColumn("time (UTC)", format="YYYY-MM-DD HH:mm"),
            "name": st.column_config.TextColumn("name", width="large"),
            "kind": st.column_config.TextColumn(
                "kind", help="example runs of the sample dataset, loaded on first start (each "
                             "scored once by the judge it names)"),
            "pass rate": st.column_config.ProgressColumn("pass rate", min_value=0.0,
                                                         max_value=100.0, format="%.0f%%"),
            "cost": st.column_config.NumberColumn("cost", format="$%.6f",
                                                  help="what the judge billed (offline: $0)"),
        })


def trend(history: list[RunSummary]) -> None:
    """Pass rate and one evaluator's mean score across the runs of one dataset."""
    names = list(dict.fromkeys(r.dataset for r in history))
    left, right = st.columns(2)
    dataset = left.selectbox("Dataset", names, key=KEYS("trend_dataset"))
    mine = [r for r in history if r.dataset == dataset]
    evaluators = list(dict.fromkeys(n for r in mine for n in r.summary.evaluators))
    if not evaluators:
        st.caption("No scored case in these runs yet.")
        return
    evaluator = right.selectbox("Mean score of", evaluators, key=KEYS("trend_evaluator"))
    points = []
    for n, r in enumerate(reversed(mine), start=1):  # oldest first
        common = {"n": n, "time": naive(r.started_at), "run": r.name,
                  "judge": r.judge}
        if r.pass_rate is not None:
            points.append({**common, "series": "pass rate (cases)", "value": r.pass_rate})
        found = r.summary.evaluators.get(evaluator)
        mean = found.mean_score if found is not None else None
        if mean is not None:
            points.append({**common, "series": f"mean score · {evaluator}", "value": mean})
    if not points:
        st.caption("No verdicts in these runs yet.")
        return
    chart = alt.Chart(pd.DataFrame(points)).mark_line(point=alt.OverlayMarkDef(size=70)).encode(
        x=alt.X("n:O", title="runs of this dataset, oldest first",
                axis=alt.Axis(labelAngle=0)),
        y=alt.Y("value:Q", scale=alt.Scale(domain=[0, 1]), title=None),
        color=alt.Color("series:N", legend=alt.Legend(orient="top", title=None, labelLimit=0)),
        shape=alt.Shape("judge:N", legend=alt.Legend(orient="top")),
        tooltip=[alt.Tooltip("n:O", title="run"), alt.Tooltip("run:N", title="name"),
                 alt.Tooltip("judge:N"), alt.Tooltip("time:T", format="%Y-%m-%d %H:%M:%S"),
                 alt.Tooltip("series:N"),
                 alt.Tooltip("value:Q", format=".2f")])
    st.altair_chart(chart.properties(height=260), width="stretch")
    st.caption(inert(f"{plural(len(mine), 'run', 'runs')} of {one_line(dataset, 60)}"
                          "; the shape of a point says which judge scored it."))


# ---- one run ---------------------------------------------------------------------------------


def ask_delete(run_id: str) -> None:
    KEYS.put("confirm", run_id)


def keep() -> None:
    KEYS.drop("confirm")


def delete(db: Store, run: RunSummary) -> None:
    try:
        db.delete_run(run.id)
    except JevalError as err:
        KEYS.put("error", str(err))
        return
    KEYS.put("notice", f"Deleted the run {run.name} ({run.id[:8]}).")
    KEYS.drop("confirm", "run", "a", "b")


def detail(db: Store, history: list[RunSummary]) -> None:
    by_id = {r.id: r for r in history}
    run_id = st.selectbox("Run", list(by_id), key=KEYS("run"), format_func=lambda i:
                          label(by_id[i]))
    if run_id is None:
        return
    run = by_id[run_id]
    if KEYS.get("confirm") == run.id:
        with st.container(border=True):
            st.warning(inert(f"Delete the run {run.name} and its {run.done} stored "
                                  "cases? This cannot be undone."))
            yes, no = st.columns(2)
            yes.button("Yes, delete it", key=KEYS("delete_yes"), type="primary",
                       on_click=delete, args=(db, run), width="stretch")
            no.button("Keep it", key=KEYS("delete_no"), on_click=keep, width="stretch")
    else:
        st.button("Delete this run…", key=KEYS("delete"), on_click=ask_delete, args=(run.id,))
    stored_run.run_view(db, run.id, KEYS)


# ---- two runs --------------------------------------------------------------------------------


def two_runs(db: Store, history: list[RunSummary]) -> None:
    """Which cases flipped between two runs (matched by case id), and why, side by side."""
    if len(history) < 2:
        st.info("Two runs are needed: run a dataset on the Dataset page.")
        return
    by_id = {r.id: r for r in history}
    ids = list(by_id)
    newest = ids[0]
    older = next((i for i in ids[1:] if by_id[i].dataset == by_id[newest].dataset), ids[1])
    left, right = st.columns(2)
    a = left.selectbox("Run A (before)", ids, index=ids.index(older), key=KEYS("a"),
                       format_func=lambda i: label(by_id[i]))
    b = right.selectbox("Run B (after)", ids, index=0, key=KEYS("b"),
                        format_func=lambda i: label(by_id[i]))
    if a is None or b is None:
        return
    if a == b:
        st.info("Pick two different runs.")
        return
    try:
        cases_a, cases_b = db.cases(a), db.cases(b)
        diff = run_diff.diff_runs(cases_a, cases_b)
    except JevalError as err:
        error_line(str(err))
        return
    if by_id[a].dataset_hash != by_id[b].dataset_hash:
        st.caption(inert("The two runs scored different files: cases are matched by id."))
    c1, c2, c3, c4 = st.columns(4)
    c1.metric("cases in both", diff.matched)
    c2.metric("same verdict", diff.same)
    c3.metric("pass → fail", diff.to_fail)
    c4.metric("fail → pass", diff.to_pass)
    if diff.only_a or diff.only_b:
        st.caption(f"{diff.only_a} cases only in A, {diff.only_b} only in B (not compared).")
    metric_deltas(cases_a, cases_b)
    if not diff.flips:
        st.success("No case changed its verdict between these two runs.")
        return
    frame = pd.DataFrame([{"case": f.case_id, "A": verdict.of_case(f.before),
                           "B": verdict.of_case(f.after),
                           "why in A": f.why_before, "why in B": f.why_after,
                           "input": f.input} for f in diff.flips])
    st.dataframe(
        frame.style.map(verdict.background, subset=["A", "B"]), hide_index=True,
        width="stretch", key=KEYS("flips"),
        column_config={"why in A": st.column_config.TextColumn(width="large"),
                       "why in B": st.column_config.TextColumn(width="large"),
                       "input": st.column_config.TextColumn(width="medium")})
    flipped = [f.case_id for f in diff.flips]
    pick = st.selectbox("A flipped case, side by side", flipped, key=KEYS("flip"))
    if pick is None:
        return
    rows_a = {r.case_id: r for r in cases_a}
    rows_b = {r.case_id: r for r in cases_b}
    left, right = st.columns(2)
    with left:
        case_card(rows_a.get(pick), f"A · {by_id[a].name}")
    with right:
        case_card(rows_b.get(pick), f"B · {by_id[b].name}")


def metric_deltas(cases_a: list, cases_b: list) -> None:
    """Per metric, A against B on the cases both scored: a metric can read worse though no
    case flips overall (a retriever keeping fewer chunks loses grounding, not chunk precision);
    and the chunks one run retrieved and the other did not."""
    deltas = run_diff.metric_deltas(cases_a, cases_b)
    if deltas:
        frame = pd.DataFrame([{"metric": d.name, "cases": d.cases, "mean A": d.mean_a,
                               "mean B": d.mean_b, "Δ mean": d.mean_b - d.mean_a,
                               "95% interval": f"{d.mean_interval[0]:+.2f} to "
                                               f"{d.mean_interval[1]:+.2f}",
                               "pass A": d.pass_a, "pass B": d.pass_b,
                               "pass → fail": d.to_fail, "fail → pass": d.to_pass,
                               "B": "worse" if d.worse else "no worse"} for d in deltas])
        st.dataframe(frame.style.map(lambda v: f"color: {verdict.BAD}" if v == "worse"
                                     else "", subset=["B"]),
                     hide_index=True, width="stretch", key=KEYS("deltas"),
                     column_config={
                         **{c: st.column_config.NumberColumn(format="%.2f")
                            for c in ("mean A", "mean B", "Δ mean")},
                         **{c: st.column_config.NumberColumn(format="percent")
                            for c in ("pass A", "pass B")}})
    changes = run_diff.chunk_changes(cases_a, cases_b)
    if changes:
        st.caption(f"{plural(len(changes), 'retrieval differs', 'retrievals differ')}: "
                   f"{sum(c.relevant_lost for c in changes)} relevant chunks only in A (lost), "
                   f"{sum(c.noise_added for c in changes)} noise chunks only in B (added), by "
                   "each run's own verdicts. `jeval diff A B --fail-on-regression` gates it "
                   "in CI.")


# ---- the page --------------------------------------------------------------------------------


def body() -> None:
    try:
        url = resources.store_url()
        db = resources.store_at(url)
        seeded(url)
        history = db.runs()
    except JevalError as err:
        error_line(str(err))
        return
    notice = KEYS.take("notice")
    if notice:
        st.success(inert(notice))
    problem = KEYS.take("error")
    if problem:
        error_line(problem)
    if not history:
        st.info("No runs stored yet: score a dataset on the Dataset page (or `jeval run DATA` "
                "in a terminal) and it appears here.")
        return
    examples = sum(r.seeded for r in history)
    st.caption(inert(
        f"{plural(len(history), 'run', 'runs')} in the run store at {db.url}"
        + (f" · {examples} example runs of the sample dataset, loaded on first start"
           if examples else "")))
    listing, one, two = st.tabs(["Runs and trend", "Run detail", "Two runs side by side"])
    with listing:
        runs_table(history)
        st.subheader("Trend")
        trend(history)
    with one:
        detail(db, history)
    with two:
        two_runs(db, history)

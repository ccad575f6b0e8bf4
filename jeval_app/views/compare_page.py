"""The Compare page's parts: one dataset scored by two or three judges, side by side.

Read the widgets, call jeval_core (`compare.run_judges`, in a background job: each judge's
pass is also a stored run), draw the comparison: how often the judges agree and how
their p correlate, each judge against the human labels, where they disagree most, and the
retriever's ranking against the reranked one.
"""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from jeval_app import custom, jobs, resources, state
from jeval_app.views import datasets, labelling, progress, stored_run
from jeval_app.views.boundary import error_line
from jeval_app.views.text import inert, number, percent, plural
from jeval_core import judges
from jeval_core.address import Address
from jeval_core.analysis.agreement import of_cases
from jeval_core.errors import JevalError
from jeval_core.evaluators import EVALUATORS, NAMES, Evaluator
from jeval_core.inputs import share
from jeval_core.inputs.datasets import Dataset, DatasetRow
from jeval_core.judges import Judge
from jeval_core.runs import compare
from jeval_core.runs.compare import Comparison

KEYS = state.COMPARE
JOB, ERROR, RESULT = KEYS("job"), KEYS("error"), KEYS("result")  # the job and what it left


def start(dataset: Dataset, names: list[str], chosen: tuple[Evaluator, ...]) -> None:
    """Start the comparison in the background; a problem before it starts is one line."""
    built: list[Judge] = []
    owned: list[Judge] = []
    try:
        db = resources.store()
        for name in names:
            judge, close = resources.run_judge(name)
            built.append(judge)
            owned.extend(close)
    except JevalError as err:
        for judge in owned:
            judge.close()
        state.put(ERROR, str(err))
        return
    order = {name: i for i, name in enumerate(names)}

    def work(job: jobs.Job) -> tuple[Dataset, Comparison]:
        found = compare.run_judges(
            dataset, [jobs.StopsWhenCancelled(j, job.cancel) for j in built], db, chosen=chosen,
            concurrency=max(judges.entry(name).concurrency for name in names),
            on_progress=lambda name, p: job.report(
                p, f"judge {order.get(name, 0) + 1} of {len(names)}, {name}",
                order.get(name, 0)),
            cancel=job.cancel)
        return dataset, found

    title = f"{len(dataset.rows)} cases with {' and '.join(names)}"
    state.put(JOB, jobs.start(title, work, tuple(owned), steps=len(names)))
    state.drop(RESULT)


def settings(dataset: Dataset) -> None:
    labels = judges.labels()
    names = st.multiselect("Judges (two or three)", list(labels),
                           default=list(judges.offline_names()[:2]), format_func=labels.get,
                           max_selections=3, key=KEYS("judges"), persist_state="session")
    known = {**EVALUATORS, **custom.known()}
    picked = st.multiselect(
        "Evaluators", [*NAMES, *custom.names()], default=["chunk_relevance"],
        key=KEYS("evaluators"),
        persist_state="session",
        help="chunk_relevance is the one the chunk labels judge; add others to compare the "
             "judges on them too")
    busy = progress.running(JOB)
    left, right = st.columns([1, 3], vertical_alignment="center")
    ready = len(names) >= 2 and bool(picked)
    if left.button(f"Compare on {len(dataset.rows)} cases", type="primary", key=KEYS("run"),
                   disabled=busy or not ready, width="stretch"):
        start(dataset, list(names), tuple(known[n] for n in picked))
        st.rerun()  # draw the page for a running job (the Run button disabled)
    why = ("pick at least two judges" if len(names) < 2 else
           "pick at least one evaluator" if not picked else
           "each judge's pass is stored as a run (see the Dashboard)")
    hosted = [judges.entry(n).title for n in names if judges.entry(n).hosted]
    extra = "".join(f" · {t} uses the connection set in the sidebar"
                    for t in hosted)
    extra += "".join(f" · {judges.entry(n).title} judges with the calibration profile {p}"
                     for n in names if (p := resources.calibration_for(n)))
    right.caption(inert(why + extra))
    problem = state.take(ERROR)
    if problem:
        error_line(problem)


def judge_pairs(found: Comparison) -> None:
    st.subheader("Agreement")
    for pair in found.pairs:
        with st.container(border=True, key=KEYS("pair", pair.a, pair.b)):
            st.markdown(f"**{inert(pair.a)}** vs **{inert(pair.b)}**")
            a, b, c = st.columns(3)
            a.metric("same verdicts", percent(pair.rate),
                     help=f"yes/no (p ≥ 0.5) the same on {pair.same} of {pair.questions} "
                          "questions, matched by case, evaluator and question id")
            b.metric("correlation of p", number(pair.correlation),
                     help="Pearson r of the two judges' p over the same questions")
            c.metric("same case verdicts", percent(pair.case_rate),
                     help=f"pass/fail the same on {pair.same_cases} of {pair.cases} cases")
    rows = [{"judges": f"{p.a} vs {p.b}", "evaluator": name, "questions": q,
             "same verdicts": 100 * s / q if q else None}
            for p in found.pairs for name, (q, s) in p.by_evaluator.items()]
    if len(rows) > len(found.pairs):
        st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch",
                     column_config={"same verdicts": st.column_config.NumberColumn(
                         format="%.0f%%")})


def against_labels(found: Comparison) -> None:
    """Each judge against the same labels: the figures with their intervals, next to the
    always-no baseline (read from each judge's stored run)."""
    st.subheader("Each judge against the labels")
    rows = []
    for j in found.judges:
        try:
            cases = resources.store().cases(j.run_id) if j.run_id else []
        except JevalError:
            cases = []
        agreed = of_cases((row.case_id, labelling.of_row(row), row.results) for row in cases
                          if row.report is not None)
        named = ([("chunk verdicts", agreed.chunks)] if agreed.chunks else []) + [
            (f"{name} pass/fail", a) for name, a in agreed.evaluators.items()]
        base = {"judge": j.judge, "run": (j.run_id or "")[:8], "status": j.status,
                "pass rate": None if j.summary.pass_rate is None
                else f"{100 * j.summary.pass_rate:.0f}%"}
        if not named:
            rows.append({**base, "labels of": "no labels"})
        for what, a in named:
            rows.append({**base, "labels of": what, "n": a.n, "accuracy": str(a.accuracy),
                         "always no": f"{a.always_no:.2f}", "precision": str(a.precision),
                         "recall": str(a.recall), "F1": str(a.f1),
                         "AUC": str(a.auc), "κ": str(a.kappa)})
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")
    st.caption("The same labels for every judge. 95% intervals: cases resampled 1,000 times; "
               "“always no” is the accuracy of calling every item noise (or fail). AUC reads "
               "p itself, so it judges the ordering, not the 0.5 cut-off.")


def disagreements(dataset: Dataset, found: Comparison) -> None:
    st.subheader("Where they disagree most")
    pairs = {f"{p.a} vs {p.b}": p for p in found.pairs}
    pick = st.selectbox("Judges", list(pairs), key=KEYS("pair")) if len(pairs) > 1 else next(
        iter(pairs))
    pair = pairs[pick or next(iter(pairs))]
    if not pair.disagreements:
        st.success("They gave every question the same p.")
        return
    base = stored_run.playground_base()
    rows: list[dict[str, Any]] = []
    for d in pair.disagreements:
        row = dataset.rows[d.index] if d.index < len(dataset.rows) else None
        link = None
        if row is not None:
            try:
                known = {**EVALUATORS, **custom.known()}
                link = f"{base}?case=" + share.encode(row.case, (known[d.evaluator],))
            except (JevalError, KeyError):
                link = None
        rows.append({"open": link, "case": d.case_id, "judged": str(d.address),
                     f"p {pair.a}": d.p_a, f"p {pair.b}": d.p_b, "gap": d.gap,
                     "verdicts differ": "yes" if d.verdicts_differ else "",
                     "text": judged_text(row, d.address) or d.question,
                     "evaluator": d.evaluator})
    number = st.column_config.NumberColumn(format="%.2f", width="small")
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch", key=KEYS("disagree"),
                 column_config={"open": st.column_config.LinkColumn(
                     "Playground", display_text="open ↗", width="small"),
                                f"p {pair.a}": number, f"p {pair.b}": number, "gap": number,
                                "text": st.column_config.TextColumn(
                                    "what was judged", width="large",
                                    help="the chunk or field the question is about (the "
                                         "verbatim question when it is a part of one)")})
    st.caption(f"The {len(rows)} questions with the largest gap in p (of {pair.questions} both "
               "judges answered); open ↗ shows the case in the Playground.")


def judged_text(row: DatasetRow | None, address: Address) -> str | None:
    """The text a question judged, when it is a whole chunk or field (`context[2]`, `output`)."""
    if row is None:
        return None
    if address.whole_chunk and address.chunk is not None:
        i = address.chunk
        return row.case.context[i] if i < len(row.case.context) else None
    if address.field in ("input", "output") and address.sentence is None:
        return str(getattr(row.case, address.field))
    return None


def rankings(found: Comparison) -> None:
    st.subheader("Retriever vs reranker")
    ranking = found.ranking
    if ranking is None:
        st.caption("No chunk labels in this dataset: precision@k needs context_labels.")
        return
    rows = [{"ranking": f"retriever ({ranking.cases} labelled cases)",
             **{f"P@{k}": v for k, v in ranking.retriever.items()}}]
    if ranking.reranked_cases:
        rows.append({"ranking": f"retriever (the {ranking.reranked_cases} reranked cases)",
                     **{f"P@{k}": v for k, v in ranking.retriever_on_reranked.items()}})
        rows.append({"ranking": f"reranked ({ranking.reranked_cases} cases)",
                     **{f"P@{k}": v for k, v in ranking.reranked.items()}})
    number = st.column_config.NumberColumn(format="%.2f")
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch", key=KEYS("ranking"),
                 column_config={f"P@{k}": number for k in ranking.retriever})
    stored_run.by_rank_chart(found.by_rank)


def results(dataset: Dataset, found: Comparison) -> None:
    done = ", ".join(f"{j.judge} ({j.status}, run {(j.run_id or '—')[:8]})"
                     for j in found.judges)
    st.caption(inert(f"{found.dataset} · {done}"))
    for j in found.judges:
        if j.summary.errored:
            st.warning(inert(
                f"{j.judge} could not answer {plural(j.summary.errored, 'case', 'cases')}"
                f" (left out of every number): {j.first_error}"))
    if found.cancelled:
        st.info("The comparison was cancelled: the numbers cover the cases every judge "
                "finished.")
    judge_pairs(found)
    against_labels(found)
    disagreements(dataset, found)
    rankings(found)


def body() -> None:
    progress.collect_into(JOB, ERROR, RESULT)
    dataset = datasets.pick_dataset(KEYS)
    if dataset is not None:
        with st.expander(inert(f"Preview: {dataset.name}"), expanded=False):
            datasets.preview(dataset)
        settings(dataset)
    if progress.awaited(JOB):  # a job that ended since collect_into: its poller reruns
        progress.progress(JOB)
    result = state.get(RESULT)
    if result is not None and not progress.running(JOB):
        results(*result)

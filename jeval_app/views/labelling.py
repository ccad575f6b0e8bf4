"""A stored run's labels: label its cases, see how far the judge agrees, fit a profile.

The figures come from jeval_core (`agreement.of_cases`, `profile_fit.fit`); the labels are
in the stored case rows (`Store.relabel`), so they travel with the run's exports and the
downloaded dataset.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

import pandas as pd
import streamlit as st

from jeval_app import resources, state
from jeval_app.state import Keys
from jeval_app.views.boundary import error_line
from jeval_app.views.text import inert
from jeval_core.address import Address
from jeval_core.analysis import agreement, labels
from jeval_core.calibration import profile, profile_fit
from jeval_core.errors import JevalError
from jeval_core.runs.records import CaseRow, RunSummary
from jeval_core.runs.store import Store

WORDS = {True: state.RELEVANT, False: state.NOISE}
VERDICT_WORDS = {True: state.PASS, False: state.FAIL}


def of_row(row: CaseRow) -> labels.Labels:
    return labels.of_row(row.row) if row.row is not None else labels.Labels()


def agreement_table(cases: Sequence[CaseRow]) -> None:
    """Per chunk verdicts and per evaluator: the figures with their intervals, next to
    answering "no" to all, and the disagreements the judge was surest of."""
    found = agreement.of_cases((row.case_id, of_row(row), row.results) for row in cases
                               if row.report is not None)
    if not found.any:
        st.caption("No labels yet: label chunks and verdicts under “One case” (or give the "
                   "dataset `context_labels`) to see how far the judge agrees.")
        return
    named = ([("chunk verdicts", found.chunks)] if found.chunks else []) + [
        (f"{name} pass/fail", a) for name, a in found.evaluators.items()]
    # One column per thing labelled, one row per figure: eight figures with their intervals
    # side by side ran past the page at 1280 px (F1, AUC and κ behind a scroll bar).
    figures = {"n": lambda a: str(a.n), "accuracy": lambda a: str(a.accuracy),
               "always no": lambda a: f"{a.always_no:.2f}",
               "precision": lambda a: str(a.precision), "recall": lambda a: str(a.recall),
               "F1": lambda a: str(a.f1), "AUC": lambda a: str(a.auc),
               "κ": lambda a: str(a.kappa)}
    st.dataframe(pd.DataFrame([{"figure": figure, **{what: show(a) for what, a in named}}
                               for figure, show in figures.items()]),
                 hide_index=True, width="stretch")
    st.caption("95% intervals: cases resampled 1,000 times. “always no” is the accuracy of "
               "calling every item noise (or fail): a judge worth reading beats it.")
    worst = sorted((d for _, a in named for d in a.disagreements),
                   key=lambda d: -d.confidence)[:10]
    if worst:
        with st.expander(f"The {len(worst)} disagreements the judge was surest of"):
            st.dataframe(pd.DataFrame([{
                "item": d.item, "judge p(yes)": round(d.p, 2),
                "your label": "yes" if d.label else "no"} for d in worst]),
                hide_index=True, width="stretch")


def label_case(db: Store, run: RunSummary, row: CaseRow, keys: Keys) -> None:
    """One click per chunk and per verdict; each click is kept in the store at once."""
    marks = of_row(row)
    chunks = list(marks.chunks) + [None] * (len(row.case.context) - len(marks.chunks))
    verdicts = marks.verdicts

    def keep(i: int | None = None, name: str | None = None, key: str = "") -> None:
        value = state.get(key)
        if i is not None:
            chunks[i] = {state.RELEVANT: True, state.NOISE: False}.get(value)
        if name is not None:
            if value is None:
                verdicts.pop(name, None)
            else:
                verdicts[name] = value == state.PASS
        try:
            db.relabel(run.id, row.index, labels.merged(chunks, verdicts))
        except JevalError as err:
            keys.put("label_error", str(err))

    st.markdown("**Your labels**")
    for i in range(len(row.case.context)):
        key = keys("lab", row.index, i)
        state.put_default(key, WORDS.get(chunks[i]))
        st.segmented_control(f"{Address.of_chunk(i)}", [state.RELEVANT, state.NOISE], key=key,
                             on_change=keep, kwargs={"i": i, "key": key})
    for name in row.results:
        key = keys("ver", row.index, name)
        state.put_default(key, VERDICT_WORDS.get(verdicts.get(name)))  # type: ignore[arg-type]
        st.segmented_control(f"{name} should", [state.PASS, state.FAIL], key=key,
                             on_change=keep, kwargs={"name": name, "key": key})
    problem = keys.take("label_error")
    if problem:
        error_line(problem)


def fit_profile(db: Store, run: RunSummary, cases: Sequence[CaseRow], keys: Keys) -> None:
    """Refit the local judge to this run's chunk labels; the held-out figures before and
    after, then keep it under a name for the sidebar and `--calibration`."""
    labelled = [profile_fit.LabelledChunks(row.case, tuple(of_row(row).chunks)) for row in cases
                if any(c is not None for c in of_row(row).chunks)]
    with st.expander("Fit the local judge to these labels (a calibration profile)"):
        if not labelled:
            st.caption("Label some chunks first.")
            return
        st.text_input("Profile name", key=keys("profile_name"),
                      value=run.dataset.rsplit(".", 1)[0][:60] or "my labels")
        st.button("Fit and keep", key=keys("fit"), on_click=fit_and_keep,
                  args=(db, run, labelled, keys))
        problem = keys.get("fit_problem")
        if problem:
            error_line(problem)
        shown = keys.get("fitted")
        if shown:
            fitted = profile.Profile.from_json(shown)
            for relation, f in fitted.relations.items():
                rows = [{"curve": when, "AUC": v.auc, "accuracy": v.accuracy, "F1": v.f1,
                         "kappa": v.kappa, "always no": v.always_no}
                        for when, v in (("built-in", f.before), ("refitted", f.after)) if v]
                st.markdown(f"**{inert(relation)}** · {f.labels} labels in {f.cases} cases")
                if rows:
                    st.dataframe(pd.DataFrame(rows).round(3), hide_index=True)
                st.caption(inert(f.note))
            if fitted.used:
                st.success(inert(f"Kept profile {fitted.name!r}: pick it in the sidebar, or "
                                 f"use --calibration {fitted.name} with jeval."))
                st.download_button("Download the profile (JSON)", fitted.to_json(),
                                   file_name=f"{fitted.name}.json", key=keys("prof_dl"),
                                   mime="application/json", on_click="ignore")


def fit_and_keep(db: Store, run: RunSummary, labelled: list[profile_fit.LabelledChunks],
                 keys: Keys) -> None:
    """The button's callback: fit, keep the profile when it changes a curve, and leave the
    result (or the one-line error) for the next draw; drawing never fits."""
    keys.put("fit_problem", None)
    try:
        fitted = profile_fit.fit(labelled, keys.get("profile_name") or "", run.dataset_hash,
                                 run.dataset, resources.offline_judge("local"))
        if fitted.used:
            db.save_profile(fitted)
        keys.put("fitted", fitted.to_json())
    except JevalError as err:
        keys.put("fit_problem", str(err))


def labelled_dataset(cases: Sequence[CaseRow]) -> str:
    """The run's cases as a dataset file with their labels (what `jeval calibrate` reads)."""
    return "".join(json.dumps(row.data, ensure_ascii=False) + "\n" for row in cases)

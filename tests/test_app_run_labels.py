"""Labels on a stored run (AppTest, Dataset page): the agreement table with intervals, a
label given on one case kept in the store, a profile fitted from the run's labels."""

from __future__ import annotations

import json

from conftest import ROOT
from streamlit.testing.v1 import AppTest

from jeval_core.runs.store import open_store

TWO = [{"id": f"c{i}", "input": "When did Hubble launch?", "output": "Hubble launched in 1990.",
        "context": ["Hubble launched in April 1990.", "Mars has two moons."],
        "context_labels": [1, 0]} for i in range(3)]


def started(rows=None) -> AppTest:
    at = AppTest.from_file("../app.py", default_timeout=120).run()
    at = at.switch_page("pages/dataset.py").run()
    if rows is not None:
        raw = "".join(json.dumps(r) + "\n" for r in rows).encode()
        at.radio(key="ds_source").set_value("upload").run()
        at.file_uploader(key="ds_upload").upload("labelled.jsonl", raw).run()
    at.radio(key="judge").set_value("local").run()
    at.multiselect(key="ds_evaluators").set_value(["chunk_relevance"]).run()
    at.button(key="ds_run_button").click().run()
    if "ds_job" in at.session_state:
        assert at.session_state["ds_job"].wait(300), "the run did not end"
    return at.run()


def agreement_rows(at: AppTest):
    """The agreement table: one column per thing labelled, one row per figure."""
    table = next(d.value for d in at.dataframe if "figure" in d.value.columns)
    return table.set_index("figure")


def test_a_labelled_run_shows_agreement_with_intervals_next_to_always_no():
    at = started(TWO)
    table = agreement_rows(at)
    row = table["chunk verdicts"]
    assert row["n"] == "6"
    assert row["always no"] == "0.50"
    assert "[" in row["accuracy"]  # an interval: three cases resampled


def test_a_label_given_on_one_case_is_kept_in_the_store():
    at = started(TWO)
    at.segmented_control(key="ds_lab_0_1").set_value("relevant").run()
    with open_store() as store:
        run = store.runs()[0]
        data = store.cases(run.id)[0].data
    assert data["context_labels"] == [1, 1]
    table = agreement_rows(at.run())
    assert table["chunk verdicts"]["n"] == "6"


def test_a_verdict_label_adds_the_evaluators_row():
    at = started(TWO)
    at.segmented_control(key="ds_ver_0_chunk_relevance").set_value("fail").run()
    table = agreement_rows(at.run())
    assert "chunk_relevance pass/fail" in table.columns


def test_a_profile_is_fitted_from_the_runs_labels_and_kept():
    data = (ROOT / "assets" / "datasets" / "labelled_helpdesk.jsonl").read_text().splitlines()
    at = started([json.loads(line) for line in data[:40]])
    at.text_input(key="ds_profile_name").set_value("helpdesk part").run()
    at.button(key="ds_fit").click().run()
    assert any("Kept profile 'helpdesk part'" in s.value for s in at.success)
    with open_store() as store:
        assert [p.name for p in store.profiles()] == ["helpdesk part"]

"""A run judged with a calibration profile says so everywhere: the stored run and every
stored case report, whether the Dataset page or the Compare page started it (both wrap the
judge to make Cancel prompt; the wrapper must carry the profile)."""

from __future__ import annotations

import pytest
from conftest import ROOT
from streamlit.testing.v1 import AppTest
from test_app_compare import RAW, shown

from jeval_core import judges
from jeval_core.calibration import profile, profile_fit
from jeval_core.inputs import datasets
from jeval_core.runs.store import open_store

LABELLED = ROOT / "assets" / "datasets" / "labelled_helpdesk.jsonl"


@pytest.fixture(scope="module")
def fitted() -> profile.Profile:
    data = datasets.load(LABELLED)
    return profile_fit.fit(profile_fit.labelled(data.rows), "helpdesk", data.sha256, data.name,
                       judges.get("local"))


def kept(fitted: profile.Profile) -> str:
    """Keep the profile in this test's run store; its name as the sidebar lists it."""
    with open_store() as store:
        store.save_profile(fitted)
    return f"helpdesk · {fitted.fingerprint}"


def wait(at: AppTest, job: str) -> AppTest:
    if job in at.session_state:
        assert at.session_state[job].wait(300), "the run did not end"
    return at.run()


def stored_runs() -> list:
    with open_store() as store:
        return [(run, store.cases(run.id)) for run in store.runs() if not run.seeded]


def test_a_dataset_page_run_with_a_profile_records_it_in_the_run_and_every_case(fitted):
    picked = kept(fitted)
    at = AppTest.from_file("../app.py", default_timeout=120).run()
    at.switch_page("pages/dataset.py").run()
    at.selectbox(key="calibration").set_value(picked).run()
    at.radio(key="ds_source").set_value("upload").run()
    at.file_uploader(key="ds_upload").upload("three.jsonl", RAW).run()
    at.multiselect(key="ds_evaluators").set_value(["chunk_relevance"]).run()
    wait(at.button(key="ds_run_button").click().run(), "ds_job")
    assert not at.exception
    [(run, cases)] = stored_runs()
    assert (run.status, run.calibration) == ("finished", picked)
    assert [c.report.calibration for c in cases] == [picked] * 3


def test_a_compare_page_run_with_a_profile_records_it_for_the_judge_it_calibrates(fitted):
    picked = kept(fitted)
    at = AppTest.from_file("../app.py", default_timeout=120).run()
    at.selectbox(key="calibration").set_value(picked).run()  # the Playground's sidebar
    at.switch_page("pages/compare.py").run()
    at.radio(key="cmp_source").set_value("upload").run()
    at.file_uploader(key="cmp_upload").upload("three.jsonl", RAW).run()
    assert any(f"judges with the calibration profile {picked}" in shown(c.value)
               for c in at.caption)
    wait(at.button(key="cmp_run").click().run(), "cmp_job")
    assert not at.exception
    found = {run.judge: (run.calibration, {c.report.calibration for c in cases})
             for run, cases in stored_runs()}
    assert found == {"local": (picked, {picked}), "lexical": (None, {None})}

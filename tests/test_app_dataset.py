"""The Dataset page through Streamlit's AppTest: pick or upload a dataset, run it in the
background, read the stored run (cards, cases, filters, links into the Playground, exports)."""

from __future__ import annotations

import csv
import io
import json
import re
import threading
from urllib.parse import parse_qs, urlparse

import pytest
from conftest import ROOT, job_ends_after_settings
from streamlit.testing.v1 import AppTest

from jeval_app import resources
from jeval_app.views import stored_run as stored_run_view
from jeval_core import judges
from jeval_core.inputs import datasets, share
from jeval_core.judges.base import Answers, ForwardingJudge
from jeval_core.runs.store import open_store

SAMPLE = ROOT / "assets" / "datasets" / "sample.jsonl"
GOOD = {"input": "When did Hubble launch?", "output": "Hubble launched in 1990.",
        "context": ["Hubble launched in April 1990.", "Mars has two moons."],
        "context_labels": [1, 0]}


def app() -> AppTest:
    at = AppTest.from_file("../app.py", default_timeout=60).run()
    return at.switch_page("pages/dataset.py").run()


def shown(markdown: str) -> str:
    """What a markdown-escaped message looks like on screen."""
    return re.sub(r"\\(.)", r"\1", markdown).replace("\u2060", "")  # the joiner is invisible


def metric(at: AppTest, label: str) -> str | None:
    found = [m.value for m in at.metric if m.label == label]
    return found[0] if found else None


def upload(at: AppTest, name: str, raw: bytes) -> AppTest:
    at.radio(key="ds_source").set_value("upload").run()
    return at.file_uploader(key="ds_upload").upload(name, raw).run()


def finish(at: AppTest) -> AppTest:
    """Wait for the background run the page started, then draw the page again (a quick run
    may have ended, and been shown, within the click's own script run)."""
    if "ds_job" in at.session_state:
        assert at.session_state["ds_job"].wait(180), "the run did not end"
    return at.run()


def run_with(at: AppTest, judge: str = "lexical", evaluators: list[str] | None = None):
    at.radio(key="judge").set_value(judge).run()
    if evaluators:
        at.multiselect(key="ds_evaluators").set_value(evaluators).run()
    at.button(key="ds_run_button").click().run()
    return finish(at)


def cases_table(at: AppTest):
    return next(d.value for d in at.dataframe if "open" in d.value.columns)


def test_the_sample_is_picked_and_previewed():
    at = app()
    assert not at.exception
    assert metric(at, "rows read") == "45"
    assert metric(at, "rows skipped") == "0"
    assert (metric(at, "with chunk labels"), metric(at, "with a reranked order")) == ("41", "12")
    assert at.dataframe[0].value["id"].iloc[0] == "support-01"


def test_bad_rows_are_listed_by_line_and_the_others_kept():
    rows = f"{json.dumps(GOOD)}\n{{broken\n{json.dumps({**GOOD, 'id': 'two'})}\n"
    at = upload(app(), "mixed.jsonl", rows.encode())
    assert (metric(at, "rows read"), metric(at, "rows skipped")) == ("2", "1")
    assert "line 2: not valid JSON" in shown(at.warning[0].value)
    assert at.button(key="ds_run_button").label == "Run 2 cases"


def test_a_file_that_is_not_a_dataset_says_why_in_one_line():
    at = upload(app(), "photo.jsonl", b"\x89PNG\r\n\x1a\n" + bytes(range(256)))
    assert not at.exception
    assert [shown(e.value) for e in at.error] == [
        "photo.jsonl is a PNG image, not a dataset; nothing was loaded"]
    assert not [b for b in at.button if b.key == "ds_run_button"]


def test_a_file_name_is_shown_as_written():
    name = "**bold** [link](http://x) <b>.jsonl"
    at = upload(app(), name, json.dumps(GOOD).encode())
    [preview] = [e for e in at.expander if "Preview" in e.label]
    # the address as code: never a link, its text as written
    assert shown(preview.label) == "Preview: **bold** [link](`http://x`) <b>.jsonl"


def test_an_uploaded_file_is_kept_while_visiting_another_page():
    at = upload(app(), "two.jsonl", f"{json.dumps(GOOD)}\n{json.dumps({**GOOD, 'id': 'b'})}"
                .encode())
    at.switch_page("pages/metrics.py").run()
    at.switch_page("pages/dataset.py").run()
    assert metric(at, "rows read") == "2"
    assert any("Using two.jsonl, uploaded before" in shown(c.value) for c in at.caption)


def test_a_run_shows_the_aggregate_cards():
    at = run_with(app())
    assert not at.exception and not at.error
    assert metric(at, "cases scored") == "45 of 45"
    assert metric(at, "pass rate") is not None
    assert metric(at, "chunk precision") is not None and metric(at, "chunk AUC") is not None
    assert metric(at, "P@1 retriever → reranked") is not None


def test_the_hosted_judge_without_a_key_is_refused_before_anything_runs(monkeypatch):
    monkeypatch.delenv("TYPESAFE_API_KEY", raising=False)
    at = app()
    at.radio(key="judge").set_value("jev").run()
    at.button(key="ds_run_button").click().run()
    [error] = [shown(e.value) for e in at.error]
    assert error.startswith("no API key for `https:") and "Nothing was sent" in error
    with open_store() as store:
        assert store.runs() == []


def test_a_run_that_ends_while_the_page_is_drawn_is_still_shown(monkeypatch):
    """The run can end after the page collected finished runs and before it looked whether to
    poll: the poller stays on until a run of the page has collected it (else the page showed
    neither progress nor results until the next click)."""
    from jeval_app.views import dataset_page

    at = app()
    job_ends_after_settings(monkeypatch, dataset_page)
    at.button(key="ds_run_button").click().run()  # and no at.run(): only the page's own reruns
    assert metric(at, "cases scored") == "45 of 45"
    assert "ds_job" not in at.session_state


def test_every_run_is_stored():
    run_with(app(), evaluators=["chunk_relevance"])
    with open_store() as store:
        [run] = store.runs()
    assert (run.judge, run.done, run.status, run.evaluators) == (
        "lexical", 45, "finished", ["chunk_relevance"])


def test_the_case_table_has_a_score_per_evaluator_and_the_verdict():
    at = run_with(app(), evaluators=["chunk_relevance", "faithfulness"])
    table = cases_table(at)
    assert len(table) == 45
    assert {"chunk_relevance", "faithfulness", "case"} <= set(table.columns)
    assert set(table["case"]) <= {"PASS", "FAIL"}


def test_failed_only_keeps_the_cases_that_did_not_pass():
    at = run_with(app(), evaluators=["chunk_relevance"])
    failed = int(metric(at, "failed"))
    at.toggle(key="ds_failed").set_value(True).run()
    table = cases_table(at)
    assert len(table) == failed and set(table["case"]) == {"FAIL"}


def test_one_evaluator_can_be_picked_with_its_failures():
    at = run_with(app(), evaluators=["chunk_relevance", "faithfulness"])
    at.selectbox(key="ds_evaluator").set_value("faithfulness").run()
    at.toggle(key="ds_failed").set_value(True).run()
    table = cases_table(at)
    assert "chunk_relevance" not in table.columns
    assert (table["faithfulness"] < 0.5).all()


def test_each_case_opens_in_the_playground_through_a_share_link():
    at = run_with(app(), evaluators=["chunk_relevance"])
    first = cases_table(at).iloc[0]
    link = urlparse(first["open"])
    assert link.path == "./"  # the app's root: the Playground is the default page
    shared = share.decode(parse_qs(link.query)["case"][0])
    assert shared.file.case.input.startswith("How do I reset my Lumo thermostat")
    assert [e.name for e in shared.file.chosen()] == ["chunk_relevance"]
    assert shared.judge == "lexical"


def test_cancel_stops_the_run_and_keeps_what_finished(monkeypatch):
    gate = threading.Event()
    judge = Gated(gate, free=3)
    monkeypatch.setattr(resources, "run_judge", lambda name, settings=None: (judge, ()))
    at = app()
    at.button(key="ds_run_button").click().run()
    job = at.session_state["ds_job"]
    judge.reached.wait(60)  # three cases answered; the next ones wait at the gate
    at.button(key="ds_job_cancel").click().run()
    gate.set()
    at = finish(at)
    done = int(metric(at, "cases scored").split(" of ")[0])
    assert 3 <= done < 45 and done == judge.answered
    assert any("This run is cancelled" in shown(i.value) for i in at.info)
    with open_store() as store:
        assert store.run(job.result).status == "cancelled"


def test_a_cancelled_run_continues_without_rescoring(monkeypatch):
    gate = threading.Event()
    first = Gated(gate, free=3)
    monkeypatch.setattr(resources, "run_judge", lambda name, settings=None: (first, ()))
    at = app()
    at.button(key="ds_run_button").click().run()
    first.reached.wait(60)
    at.button(key="ds_job_cancel").click().run()
    gate.set()
    at = finish(at)
    again = Gated(threading.Event(), free=100)
    monkeypatch.setattr(resources, "run_judge", lambda name, settings=None: (again, ()))
    at.button(key="ds_resume").click().run()
    at = finish(at)
    assert metric(at, "cases scored") == "45 of 45"
    assert again.answered == 45 - first.answered


# --- exports ------------------------------------------------------------------------------------


def stored_run(tmp_path, rows: list[dict]):
    data = datasets.read("\n".join(json.dumps(r) for r in rows).encode(), "x.jsonl")
    from jeval_core.runs.run import run_dataset

    store = open_store(f"sqlite:///{tmp_path / 'runs.db'}")
    outcome = run_dataset(data, judges.get("lexical"), store)
    return store, outcome.run


def test_the_csv_export_makes_formulas_inert(tmp_path):
    store, run = stored_run(tmp_path, [{**GOOD, "input": "=HYPERLINK(\"http://x\")"}])
    with store:
        text = stored_run_view.cases_csv(store.cases(run.id))
    [row] = list(csv.DictReader(io.StringIO(text)))
    assert row["input"] == "'=HYPERLINK(\"http://x\")"
    assert row["chunk_relevance verdict"] in ("PASS", "FAIL")


def test_the_jsonl_export_holds_every_result_and_no_key(tmp_path, monkeypatch):
    monkeypatch.setenv("TYPESAFE_API_KEY", "sk-never-exported-1234")
    store, run = stored_run(tmp_path, [GOOD])
    with store:
        text = stored_run_view.cases_jsonl(run, store.cases(run.id))
    [line] = [json.loads(x) for x in text.splitlines()]
    assert line["case"]["input"] == GOOD["input"] and "chunk_relevance" in line["results"]
    assert "sk-never-exported" not in text


class Gated(ForwardingJudge):
    """The lexical judge, answering `free` cases at once and the rest only once `gate` opens
    (so a test can press Cancel while the run is surely in the middle)."""

    def __init__(self, gate: threading.Event, free: int) -> None:
        super().__init__(judges.get("lexical"))
        self.gate, self.free = gate, free
        self.reached = threading.Event()
        self.answered = 0
        self.lock = threading.Lock()

    def answer(self, packed) -> Answers:
        with self.lock:
            turn = self.answered + 1
        if turn > self.free:
            self.reached.set()
            assert self.gate.wait(60), "the test never opened the gate"
        answers = self.inner.answer(packed)
        with self.lock:
            self.answered += 1
            if self.answered >= self.free:
                self.reached.set()
        return answers


@pytest.fixture(autouse=True)
def _no_jobs_left_running():
    """A test that fails mid-run must not leave its background run writing into the next."""
    yield
    for thread in threading.enumerate():
        if thread.name.startswith("jeval-job"):
            thread.join(30)


def test_a_run_left_running_by_a_crash_can_be_continued_from_the_page():
    from test_runs import CHUNKS, Counting

    from jeval_core.runs.run import run_dataset

    with open_store() as store, pytest.raises(KeyboardInterrupt):
        run_dataset(datasets.load(SAMPLE), Counting(crash_after=10), store, chosen=CHUNKS,
                    concurrency=1)
    with open_store() as store:  # what a killed process leaves: the run still "running"
        (run,) = store.runs()
        store.reopen(run.id)
    at = app()
    at.button(key="ds_resume").click().run()
    at = finish(at)
    assert metric(at, "cases scored") == "45 of 45"
    with open_store() as store:
        assert store.run(run.id).status == "finished" and store.run(run.id).done == 45


def test_a_run_with_chunk_support_reads_supported_at_k_from_its_answers():
    """chunk_support is offered after the metrics; a run that asked it reads supported@k in
    its Which k? from what it stored (no toggle, no request), whatever the judge."""
    at = app()
    assert "chunk_support" in at.multiselect(key="ds_evaluators").options
    at = run_with(at, "lexical", ["chunk_relevance", "chunk_support"])
    assert not at.exception
    at.session_state["ds_ksweep_open"] = True
    at.run()
    assert any("from this run's answers to which chunk states each answer sentence"
               in c.value for c in at.caption)
    assert any("supported@k there" in c.value for c in at.caption)

"""End to end in a real browser at 1280×800: the Playground's "Which k?" plot, and the
Dashboard's two runs side by side with each metric in A and B (a retriever that keeps
two chunks: faithfulness falls though more cases pass)."""

import os
from dataclasses import replace
from pathlib import Path

import pytest
from browser import CHROMIUM, AppServer, fresh
from conftest import ROOT
from jev_servers import free_port

from jeval_core.evaluators import EVALUATORS
from jeval_core.inputs import datasets
from jeval_core.judges.local import LocalJudge
from jeval_core.runs import run as runs
from jeval_core.runs.store import open_store

if not Path(CHROMIUM).exists() and not os.environ.get("CI"):
    pytest.skip("Debian chromium is not installed (apt-get install chromium)",
                allow_module_level=True)

from playwright.sync_api import expect  # noqa: E402

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """The app with a run store holding the sample and the sample cut to two chunks."""
    db = tmp_path_factory.mktemp("runs") / "jeval.db"
    with pytest.MonkeyPatch.context() as env:
        env.setenv("JEVAL_DB", f"sqlite:///{db}")
        sample = datasets.load(ROOT / "assets" / "datasets" / "sample.jsonl")
        top2 = replace(sample, name="sample_top2.jsonl", sha256="0" * 64, rows=[
            replace(r, casefile=replace(r.casefile, case=replace(r.case,
                    context=r.case.context[:2], context_meta=r.case.context_meta[:2])),
                    labels=None if r.labels is None else r.labels[:2], reranked=None)
            for r in sample.rows])
        chosen = [EVALUATORS["chunk_relevance"], EVALUATORS["faithfulness"]]
        with open_store() as store:
            runs.seed(store)  # the example runs a new store starts with, then ours on top
            runs.run_dataset(sample, LocalJudge(), store, chosen=chosen, name="every chunk")
            runs.run_dataset(top2, LocalJudge(), store, chosen=chosen, name="top two")
        app = AppServer(free_port(), tmp_path_factory.mktemp("logs") / "streamlit.log")
    yield app
    app.stop()


@pytest.fixture
def page(chromium):
    with fresh(chromium) as browser:
        yield browser.new_page(viewport={"width": 1280, "height": 800})
        browser.close()


def test_which_k_draws_the_seeds_precision_and_recall_at_every_k(page, server, tmp_path):
    page.goto(server.url)
    page.get_by_text("50% yes").first.wait_for(timeout=120_000)
    page.get_by_text("Which k?").first.click()
    said = page.get_by_text("Every relevant chunk is in the top 4")
    expect(said).to_be_visible(timeout=30_000)
    chart = page.locator("[data-testid='stVegaLiteChart']").last
    expect(chart).to_be_visible()
    chart.scroll_into_view_if_needed()
    box = chart.bounding_box()
    assert box["height"] > 200 and box["x"] + box["width"] <= 1280  # readable, not cut off
    page.screenshot(path=str(tmp_path / "which_k.png"))


def test_two_runs_side_by_side_show_the_metric_table_and_the_lost_chunks_at_1280(page, server,
                                                                               tmp_path):
    page.goto(f"{server.url}/runs")
    page.get_by_role("tab", name="Two runs side by side").click(timeout=120_000)
    table = page.locator("[data-testid='stDataFrame']:visible").first
    expect(table).to_be_visible(timeout=60_000)
    expect(page.get_by_text("45 retrievals differ: 34 relevant chunks only in A").first
           ).to_be_visible()
    box = table.bounding_box()
    assert box["x"] + box["width"] <= 1280
    page.screenshot(path=str(tmp_path / "two_runs.png"))

"""End to end in a real browser: the sample uploaded on the Dataset page, run, its aggregate
cards on screen, and one of its cases opened in the Playground from its link."""

import json
import os
from pathlib import Path

import pytest
from browser import CHROMIUM, DRAWN, QUIET_MS, AppServer, count_runs, fresh, runs_done
from conftest import ROOT
from jev_servers import free_port

from jeval_core.judges import labels

LABELS = labels()

if not Path(CHROMIUM).exists() and not os.environ.get("CI"):
    pytest.skip("Debian chromium is not installed (apt-get install chromium)",
                allow_module_level=True)

from playwright.sync_api import expect  # noqa: E402

pytestmark = pytest.mark.browser  # a real chromium against a real server: `-m 'not browser'` skips

SAMPLE = ROOT / "assets" / "datasets" / "sample.jsonl"
FIRST = json.loads(SAMPLE.read_text(encoding="utf-8").splitlines()[0])


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """The app on a loopback port, its runs in a throwaway store (the per-test store fixture
    comes after a module's server starts, so the server is given its own)."""
    db = tmp_path_factory.mktemp("runs") / "jeval.db"
    with pytest.MonkeyPatch.context() as env:
        env.setenv("JEVAL_DB", f"sqlite:///{db}")
        app = AppServer(free_port(), tmp_path_factory.mktemp("logs") / "streamlit.log")
    yield app
    app.stop()


@pytest.fixture
def page(chromium, server):
    with fresh(chromium) as browser:
        page = browser.new_page(viewport={"width": 1280, "height": 1000})
        count_runs(page)
        # A fresh server runs a session's first page the old way; the root is the Playground
        # either way, so start there and go on from it.
        page.goto(server.url)
        page.locator("textarea").first.wait_for(timeout=60_000)
        yield page
        browser.close()


# Upper bounds only: every wait below ends on the page's own signal, however busy the machine.
PATIENCE_MS = 300_000


def drawn(page, runs: int) -> None:
    """The page has finished `runs` runs since it loaded, and stopped changing."""
    page.wait_for_function(DRAWN, arg=[runs, QUIET_MS], timeout=PATIENCE_MS)


def after(page, act) -> None:
    """Do `act` (a click, an upload) and wait until the run it starts has finished and been
    drawn: no fixed sleep that a loaded machine outlasts."""
    before = runs_done(page)
    act()
    drawn(page, before + 1)


def test_an_uploaded_dataset_runs_and_a_case_opens_in_the_playground(page, server):
    page.goto(f"{server.url}/datasets")
    drawn(page, 1)
    after(page, lambda: page.get_by_text("Upload a file", exact=True).click())
    after(page, lambda: page.locator("input[type=file]").set_input_files(str(SAMPLE)))
    expect(page.get_by_test_id("stMetric").filter(has_text="rows read")).to_contain_text(
        "45", timeout=PATIENCE_MS)
    after(page, lambda: page.get_by_text(LABELS["lexical"], exact=True).click())
    page.get_by_role("button", name="Run 45 cases").click()

    cards = page.locator(".st-key-aggregate_cards")
    expect(cards).to_contain_text("45 of 45", timeout=PATIENCE_MS)
    for card in ("pass rate", "chunk precision", "chunk AUC", "P@1 retriever → reranked"):
        expect(cards).to_contain_text(card)
    drawn(page, runs_done(page))  # the last run has been drawn
    folder = os.environ.get("JEVAL_SCREENSHOTS")
    if folder:
        page.screenshot(path=str(Path(folder) / "screenshot_dataset.png"))

    link = page.get_by_role("link", name="Open in the Playground")
    assert link.get_attribute("href").startswith(f"{server.url}/?case=v1.")
    with page.context.expect_page() as opened:
        link.click()
    playground = opened.value
    playground.wait_for_function(
        "text => [...document.querySelectorAll('textarea')].some(t => t.value === text)",
        arg=FIRST["input"], timeout=PATIENCE_MS)
    for chunk in FIRST["context"][:2]:
        playground.wait_for_function(
            "text => [...document.querySelectorAll('textarea')].some(t => t.value === text)",
            arg=chunk, timeout=PATIENCE_MS)

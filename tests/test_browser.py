"""End to end in a real browser: the seed example, a live edit, hostile text, a screenshot."""

import os
import shutil
from pathlib import Path

import pytest
from browser import CHROMIUM, AppServer, commit, launch
from jev_servers import free_port
from test_questions import SEED_QUESTIONS

if not Path(CHROMIUM).exists() and not os.environ.get("CI"):
    pytest.skip("Debian chromium is not installed (apt-get install chromium)",
                allow_module_level=True)

from playwright.sync_api import sync_playwright  # noqa: E402


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    app = AppServer(free_port(), tmp_path_factory.mktemp("logs") / "streamlit.log")
    yield app
    app.stop()


@pytest.fixture
def page(server):
    with sync_playwright() as p:
        browser = launch(p)
        page = browser.new_page(viewport={"width": 1280, "height": 1000})
        page.requests_seen = []
        page.on("request", lambda r: page.requests_seen.append(r.url))
        page.dialogs_seen = []
        page.on("dialog", lambda d: (page.dialogs_seen.append(d.message), d.dismiss()))
        page.goto(server.url)
        page.get_by_text("50% yes").first.wait_for(timeout=60_000)
        wait_for_request_with(page, '"cr3"')  # the whole first run is drawn
        yield page
        browser.close()


def request_json(page) -> str:
    return page.locator("[data-testid='stCode']").last.inner_text()


def wait_for_request_with(page, text: str) -> None:
    """Results stream in order: wait until the request block at the bottom shows `text`."""
    page.wait_for_function(
        "t => [...document.querySelectorAll('[data-testid=stCode]')]"
        ".some(e => e.innerText.includes(t))", arg=text, timeout=30_000)


def chunk(page, i: int):
    return page.get_by_label(f"context[{i}]", exact=True)


def chart_image(page) -> bytes:
    chart = page.locator("[data-testid='stVegaLiteChart']").first
    chart.scroll_into_view_if_needed()
    page.wait_for_timeout(300)
    return chart.screenshot()


def test_the_seed_example_shows_its_questions_and_score(page, server, tmp_path):
    body = request_json(page)
    for question in SEED_QUESTIONS:
        assert question in body
    assert page.get_by_text("2 of 4 chunks are relevant").first.is_visible()
    outside = [u for u in page.requests_seen if not u.startswith(server.url)
               and not u.startswith(("data:", "blob:"))]
    assert outside == []
    target = os.environ.get("JEVAL_SCREENSHOT")
    shot = tmp_path / "playground.png"
    page.screenshot(path=str(shot))
    if target:
        shutil.copy(shot, target)
    assert shot.stat().st_size > 10_000


def test_editing_a_chunk_changes_its_bar(page):
    before = chart_image(page)
    commit(page, chunk(page, 1),
           "Jev costs $42 per billion input tokens, and output tokens are not billed.")
    wait_for_request_with(page, "output tokens are not billed")
    assert page.get_by_text("75% yes").first.is_visible()
    assert chart_image(page) != before


def test_a_script_chunk_is_shown_as_text_and_never_runs(page):
    hostile = "<script>alert(1)</script>"
    commit(page, chunk(page, 2), hostile)
    wait_for_request_with(page, hostile)
    page.wait_for_timeout(500)
    assert page.dialogs_seen == []
    assert hostile in request_json(page)
    assert chunk(page, 2).input_value() == hostile


def test_a_hostile_error_message_shows_literally(page):
    from jev_servers import FaultyServer
    from jevcompat.mock import MockConfig, Running

    hostile = "**bold** <b>tag</b> $x^2$ :smile: [link](http://evil.example)"
    with Running(MockConfig()) as mock, \
            FaultyServer(mock.url, [(422, {}, {"detail": hostile})]) as faulty:
        page.get_by_text("Jev (hosted, needs a key)").click()
        base = page.get_by_label("Base URL")
        base.fill(faulty.url)
        base.press("Enter")
        key = page.get_by_label("API key")
        key.fill("sk-browser-test-0000")
        key.press("Enter")
        button = page.get_by_role("button", name="Score with Jev")
        button.wait_for(timeout=30_000)
        button.click()
        alert = page.locator("[data-testid='stAlert']").filter(has_text="(422)")
        alert.wait_for(timeout=30_000)
        assert hostile in alert.inner_text()
    assert page.dialogs_seen == []
    assert page.get_by_text("last good results").first.is_visible()

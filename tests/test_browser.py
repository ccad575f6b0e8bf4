"""End to end in a real browser: the seed example, live edits, hostile text, a screenshot, and
one click or keystroke on the sidebar always taking, even on a fresh server's first visit."""

import csv
import os
import re
import shutil
from pathlib import Path

import pytest
from browser import CHROMIUM, AppServer, commit, count_runs, enter, fresh, one_run, wait_for_runs
from conftest import load_file
from jev_servers import FaultyServer, down_url, free_port
from test_questions import SEED_QUESTIONS

from jeval_core.inputs import share
from jeval_core.judges import labels

LABELS = labels()

if not Path(CHROMIUM).exists() and not os.environ.get("CI"):
    pytest.skip("Debian chromium is not installed (apt-get install chromium)",
                allow_module_level=True)

from playwright.sync_api import expect  # noqa: E402

pytestmark = pytest.mark.browser  # a real chromium against a real server: `-m 'not browser'` skips


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    app = AppServer(free_port(), tmp_path_factory.mktemp("logs") / "streamlit.log")
    yield app
    app.stop()


@pytest.fixture
def page(chromium, server):
    with fresh(chromium) as browser:
        page = browser.new_page(viewport={"width": 1280, "height": 1000})
        page.requests_seen = []
        page.on("request", lambda r: page.requests_seen.append(r.url))
        page.dialogs_seen = []
        page.on("dialog", lambda d: (page.dialogs_seen.append(d.message), d.dismiss()))
        count_runs(page)
        page.goto(server.url)
        page.get_by_text("50% yes").first.wait_for(timeout=60_000)
        wait_for_runs(page, 1)  # the whole first run is drawn
        yield page
        browser.close()


def questions_block(page) -> str:
    """The questions verbatim, as sent (in an expander drawn with the page, shown on click)."""
    page.get_by_text("The questions verbatim, as sent").click()
    return page.locator("[data-testid='stCode']").filter(has_text="cr0  p=").inner_text()


def request_json(page) -> str:
    """The request body: its expander is drawn when opened."""
    one_run(page, page.get_by_text("The request: 1 call").click)
    return page.locator("[data-testid='stCode']").filter(has_text='"cr0"').inner_text()


def wait_for_request_with(page, text: str) -> None:
    """Results stream in order: wait until the request block at the bottom shows `text`."""
    page.wait_for_function(
        "t => [...document.querySelectorAll('[data-testid=stCode]')]"
        ".some(e => e.innerText.includes(t))", arg=text, timeout=30_000)


def chunk(page, i: int):
    return page.get_by_label(f"context[{i}]", exact=True)


def on_first_screen(page, locator) -> None:
    """`locator` is drawn inside the viewport as it is, without scrolling."""
    box = locator.bounding_box()
    size = page.viewport_size
    assert box is not None
    assert box["y"] >= 0 and box["y"] + box["height"] <= size["height"], box


TRUNCATED = """() => [...document.querySelectorAll('[data-testid=stMain] *')].filter(e => {
  if (!e.offsetParent || e.clientWidth <= 1 || !e.innerText || !e.innerText.trim()) {
    return false;  // hidden, or a label kept for screen readers only
  }
  const s = getComputedStyle(e);
  return (s.textOverflow === 'ellipsis' || s.overflowX === 'hidden')
    && e.scrollWidth > e.clientWidth + 1;
}).map(e => e.innerText.slice(0, 60))"""


def screenshot(page, name: str) -> None:
    """Save a screenshot for the README when JEVAL_SCREENSHOTS names a folder."""
    folder = os.environ.get("JEVAL_SCREENSHOTS")
    if folder:
        page.screenshot(path=str(Path(folder) / name))


def chart_image(page) -> bytes:
    chart = page.locator("[data-testid='stVegaLiteChart']").first
    chart.scroll_into_view_if_needed()
    page.wait_for_timeout(300)
    return chart.screenshot()


def test_the_seed_example_shows_its_questions_and_score(page, server, tmp_path):
    body = questions_block(page)
    for question in SEED_QUESTIONS:
        assert question in body
    assert page.get_by_text("2 of 4 chunks relevant").first.is_visible()
    outside = [u for u in page.requests_seen if not u.startswith(server.url)
               and not u.startswith(("data:", "blob:"))]
    assert outside == []
    target = os.environ.get("JEVAL_SCREENSHOT")
    shot = tmp_path / "playground.png"
    page.screenshot(path=str(shot))
    if target:
        shutil.copy(shot, target)
    assert shot.stat().st_size > 10_000


def test_the_summary_band_is_on_the_first_screen(page):
    page.set_viewport_size({"width": 1280, "height": 800})
    band = page.locator(".st-key-summary")
    expect(band).to_contain_text("PASS")
    expect(band).to_contain_text("chunk_relevance 0.50 PASS")
    # The price (chunk 0); the legacy output price (chunk 3), which the answer draws on, is
    # relevant but inside the local judge's unsure band
    expect(band).to_contain_text("1 relevant · 2 noise chunks · 1 unsure of 4 retrieved chunks")
    on_first_screen(page, band)
    page.evaluate("() => document.querySelector('[data-testid=stMain]').scrollTo(0, 0)")
    screenshot(page, "screenshot.png")


def rgb(css: str) -> tuple[int, ...]:
    return tuple(int(float(v)) for v in re.findall(r"[\d.]+", css)[:3])


def test_a_chosen_label_is_not_drawn_in_the_red_of_fail_and_noise(page):
    """Found by a new user: the seed's chunk labelled "relevant" and its ✓ (pass) were drawn
    in Streamlit's default red accent, the colour the page uses for FAIL and noise."""
    chosen = []
    for group in page.locator('[class*="st-key-label_"], [class*="st-key-truth_"]').all():
        for button in group.locator('button[aria-checked="true"]').all():
            if button.inner_text().strip() in ("relevant", "✓"):
                chosen.append(rgb(button.evaluate("b => getComputedStyle(b).color")))
    assert len(chosen) == 3, chosen  # context[0] and context[3] relevant, the verdict ✓
    for red, green, blue in chosen:
        assert not (red > 150 and green < 110 and blue < 110), chosen
        assert blue > red  # the accent: a choice, not a verdict


def test_the_judge_card_fits_its_popover_at_1280_by_800(page):
    """Found by a new user: F1, AUC and the unsure band stood past the popover's edge."""
    page.set_viewport_size({"width": 1280, "height": 800})
    page.get_by_text("How far to trust the local judge").first.click()
    body = page.locator("[data-testid='stPopoverBody']").first
    body.get_by_text("held-out data").first.wait_for(timeout=30_000)
    edge = body.bounding_box()
    tables = body.locator("table").all()
    assert len(tables) >= 3  # one per question type
    for table in tables:
        box = table.bounding_box()
        assert box["x"] + box["width"] <= edge["x"] + edge["width"] + 1, (box, edge)
        assert table.evaluate("t => t.scrollWidth <= t.clientWidth + 1")


def test_nothing_is_cut_off_at_1280(page):
    page.set_viewport_size({"width": 1280, "height": 800})
    assert page.evaluate(TRUNCATED) == []
    page.get_by_role("combobox", name="example").click()
    one_run(page, page.get_by_role("option", name=re.compile("^Noisy retrieval")).click)
    expect(page.get_by_label("context[5]", exact=True)).to_be_visible(timeout=30_000)
    expect(page.locator(".st-key-summary")).to_contain_text("toxicity")
    page.wait_for_timeout(500)
    assert page.evaluate(TRUNCATED) == []
    for name in ("context_relevancy", "hallucination"):
        expect(page.get_by_text(name, exact=True).first).to_be_visible()
    page.set_viewport_size({"width": 1280, "height": 720})
    tops = page.evaluate("() => [...document.querySelectorAll('[class*=st-key-card_]')]"
                         ".map(e => e.getBoundingClientRect().top)")
    # The first card starts on the first screen. With the judge on its own the noisy example
    # disagrees with its truth (chunk 0, chunk_relevance: a "✗ you: fail" badge) and the band
    # counts an unsure chunk: measured, the first card at 578 px, the second at 738 px, where
    # two fitted when the judge agreed (a known layout cost, noted on the issue).
    assert len(tops) == 6 and sum(1 for t in tops if t < 720) >= 1, tops


def test_copy_link_puts_the_link_on_the_clipboard_and_reload_keeps_the_edit(chromium, server):
    with fresh(chromium) as browser:
        context = browser.new_context(viewport={"width": 1280, "height": 800},
                                      permissions=["clipboard-read", "clipboard-write"])
        page = context.new_page()
        count_runs(page)
        page.goto(server.url)
        page.get_by_text("50% yes").first.wait_for(timeout=60_000)
        wait_for_runs(page, 1)
        edited = "Is the legacy v0 endpoint still billed for output?"
        one_run(page, lambda: commit(page, page.get_by_label("input — the user's question"),
                                     edited))
        one_run(page, page.get_by_role("button", name="Copy link").click)
        expect(page.get_by_text("Link copied to the clipboard.")).to_be_visible()
        copied = page.evaluate("navigator.clipboard.readText()")
        assert copied == page.url and "?case=v1." in copied
        assert share.decode(copied.split("?case=")[1]).file.case.input == edited
        later = "And are input tokens billed?"
        one_run(page, lambda: commit(page, page.get_by_label("input — the user's question"),
                                     later))
        expect(page).to_have_url(re.compile(r"\?case=v1\."))
        page.reload()
        box = page.get_by_label("input — the user's question")
        expect(box).to_have_value(later, timeout=60_000)
        browser.close()


def test_a_refused_jev_call_shows_its_error_on_the_first_screen(page):
    from jevcompat.mock import MockConfig, Running

    page.set_viewport_size({"width": 1280, "height": 800})
    with Running(MockConfig(key="sk-the-right-key-000")) as mock:
        page.get_by_text("Jev (hosted, needs a key)").click()
        base = page.get_by_role("textbox", name="Base URL")
        base.fill(mock.url)
        base.press("Enter")
        key = page.get_by_role("textbox", name="API key", exact=True)
        key.fill("sk-a-wrong-key-000")
        key.press("Enter")
        # the key is kept once its rerun has ended: a click before that could land on the
        # button the rerun replaces, and be lost (seen once under CI's load)
        page.get_by_placeholder("a key is kept for this session").wait_for(timeout=30_000)
        button = page.get_by_role("button", name="Score with Jev")
        button.wait_for(timeout=30_000)
        button.click()
        alert = page.locator("[data-testid='stAlert']").filter(has_text="(401)")
        alert.wait_for(timeout=30_000)
    on_first_screen(page, alert)
    assert "sk-a-wrong-key-000" not in alert.inner_text()


def test_with_the_case_modified_the_jev_button_stays_beside_revert(page):
    """Modified, Revert and the Jev button share one row: the button does not wrap under a
    long "Modified (was: ...)" line, and nothing is cut off."""
    page.set_viewport_size({"width": 1280, "height": 800})
    one_run(page, lambda: commit(page, page.get_by_label("context[2]", exact=True),
                                 "Founded in 2024 in Paris."))
    click_judge(page, "jev")
    button = page.get_by_role("button", name=re.compile("^Score with Jev"))
    revert = page.get_by_role("button", name="Revert", exact=True)
    expect(button).to_be_visible()
    expect(page.get_by_text(re.compile("^Modified"))).to_be_visible()
    mine, theirs = button.bounding_box(), revert.bounding_box()
    assert abs((mine["y"] + mine["height"] / 2) - (theirs["y"] + theirs["height"] / 2)) < 4
    page.evaluate("document.querySelector('[data-testid=stMain]').scrollTo(0, 0)")
    on_first_screen(page, button)  # the top of the page, as a reload shows it
    assert page.evaluate(TRUNCATED) == []


def test_edits_do_not_pile_up_browser_history_entries(page):
    """The address bar follows the case without an entry per edit: Back leaves for where the
    visitor came from instead of an older case (which a reload would bring back over the
    edits); a change of page is still an entry. The page's script that keeps one entry loads
    with the page's last element: on a loaded machine an edit in the first second after a
    visit can still add one, so the test edits once that script has run."""
    page.wait_for_function("window.__jevalOneEntryPerPage === true")
    entries = page.evaluate("history.length")
    for text in ("Founded in 2024 in Paris.", "Founded in 2025 in Lyon."):
        one_run(page, lambda text=text: commit(page, chunk(page, 2), text))
    expect(page).to_have_url(re.compile(r"\?case=v1\."))
    assert page.evaluate("history.length") == entries
    one_run(page, page.get_by_role("link", name="Metrics").click)
    expect(page.get_by_role("heading", name="Metrics", level=1)).to_be_visible()
    assert page.evaluate("history.length") == entries + 1


def test_presentation_mode_from_the_url(chromium, server):
    with fresh(chromium) as browser:
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        seen = []
        page.on("request", lambda r: seen.append(r.url))
        page.goto(f"{server.url}/?present=true")
        band = page.locator(".st-key-summary")
        expect(band).to_contain_text("PASS", timeout=60_000)
        on_first_screen(page, band)
        expect(page.get_by_text("Price: $42 per billion input tokens.").first).to_be_visible()
        assert page.get_by_label("input — the user's question").count() == 0
        expect(page.get_by_role("switch", name="Presentation mode")).to_be_checked()
        page.wait_for_timeout(500)
        assert page.evaluate(TRUNCATED) == []
        screenshot(page, "screenshot_presentation.png")
        browser.close()
    outside = [u for u in seen if not u.startswith(server.url)
               and not u.startswith(("data:", "blob:"))]
    assert outside == []


def test_judges_side_by_side(page):
    page.set_viewport_size({"width": 1280, "height": 900})
    page.get_by_text("Judges side by side").click()
    page.get_by_text("Score this case with each judge").click()
    summary = page.get_by_text(re.compile("agree on"))
    expect(summary).to_be_visible(timeout=30_000)
    summary.scroll_into_view_if_needed()
    page.wait_for_timeout(500)
    screenshot(page, "screenshot_compare.png")


BAR_LABELS = """() => [...document.querySelectorAll('[data-testid=stVegaLiteChart] svg text')]
  .filter(t => t.textContent.startsWith('context['))
  .map(t => [t.textContent, t.getBoundingClientRect().top])"""


def test_every_bar_label_has_its_own_row_at_1280x800(page):
    """Found: a 4-chunk chart was 80 px tall with its legend and axis, so the four labels were
    drawn over each other and the first row read like "context[a]"."""
    page.set_viewport_size({"width": 1280, "height": 800})
    page.locator("[data-testid='stVegaLiteChart']").first.scroll_into_view_if_needed()
    page.wait_for_timeout(300)
    labels = page.evaluate(BAR_LABELS)
    assert [name for name, _ in labels] == [f"context[{i}]" for i in range(4)]
    tops = [top for _, top in labels]
    assert all(b - a >= 15 for a, b in zip(tops, tops[1:], strict=False)), tops


def test_a_click_on_a_bar_focuses_its_chunk_in_the_editor_and_the_questions(page):
    bar = page.locator("[data-testid='stVegaLiteChart'] [aria-roledescription='bar']"
                       "[aria-label*='bar: context[2];']")
    bar.scroll_into_view_if_needed()
    one_run(page, bar.click)
    expect(page.get_by_role("combobox", name="Focus on")).to_have_value("context[2]")
    framed = page.locator("[class*='st-key-chunkbox_']").nth(2)
    expect(framed).to_have_css("box-shadow", re.compile(r"rgb\(240, 173, 78\)"))
    expect(page.locator("[class*='st-key-chunkbox_']").nth(1)).to_have_css("box-shadow", "none")
    selected = page.locator("[data-testid='stDataFrame'] tr[aria-selected='true']")
    expect(selected).to_have_count(1)
    expect(selected).to_contain_text("cr2")


def test_editing_a_chunk_changes_its_bar(page):
    before = chart_image(page)
    one_run(page, lambda: commit(page, chunk(page, 3), "The office closes at 6 pm."))
    assert page.get_by_text("25% yes").first.is_visible()
    assert chart_image(page) != before


def test_the_csv_export_downloads_one_formula_safe_row_per_question(page, tmp_path):
    formula = '=HYPERLINK("http://evil.example", "click")'
    one_run(page, lambda: commit(page, chunk(page, 2), formula))
    button = page.get_by_role("button", name="Download every detail row (CSV)")
    with page.expect_download(timeout=30_000) as download:
        button.click()
    saved = tmp_path / download.value.suggested_filename
    download.value.save_as(saved)
    assert saved.name == "scored_rows.csv"
    with saved.open(newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert list(rows[0]) == ["evaluator", "id", "judged", "text", "p", "verdict", "why",
                             "question"]
    assert [(r["id"], r["judged"]) for r in rows] == [
        ("cr0", "context[0]"), ("cr1", "context[1]"), ("cr2", "context[2]"), ("cr3", "context[3]")]
    assert rows[2]["text"] == "'" + formula  # shown as written, never run as a formula
    assert rows[0]["text"].startswith("Price: $42")
    assert all(0 <= float(r["p"]) <= 1 for r in rows)


def test_revert_puts_the_example_back_in_the_editor(page):
    """Revert is drawn with the results (which an edit reruns alone); the editor follows."""
    one_run(page, lambda: commit(page, chunk(page, 0), "Edited chunk zero."))
    one_run(page, page.get_by_role("button", name="Revert").click)
    expect(chunk(page, 0)).to_have_value(
        "Price: $42 per billion input tokens. Output tokens are free.")
    expect(page.get_by_text("Modified")).to_have_count(0)
    expect(page.locator("text=/p 0\\.\\d\\d ·/")).to_have_count(4)  # each chunk's p again


def test_a_script_chunk_is_shown_as_text_and_never_runs(page):
    hostile = "<script>alert(1)</script>"
    one_run(page, lambda: commit(page, chunk(page, 2), hostile))
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
        base = page.get_by_role("textbox", name="Base URL")
        base.fill(faulty.url)
        base.press("Enter")
        key = page.get_by_role("textbox", name="API key", exact=True)
        key.fill("sk-browser-test-0000")
        key.press("Enter")
        # click once the key's rerun has ended, or the click may land on the button it replaces
        page.get_by_placeholder("a key is kept for this session").wait_for(timeout=30_000)
        button = page.get_by_role("button", name="Score with Jev")
        button.wait_for(timeout=30_000)
        button.click()
        alert = page.locator("[data-testid='stAlert']").filter(has_text="(422)")
        alert.wait_for(timeout=30_000)
        assert hostile in alert.inner_text().replace("\u2060", "")
        assert alert.locator("a").count() == 0  # the URL in it is not a link
    assert page.dialogs_seen == []
    expect(page.get_by_text("judge: local ·")).to_have_count(0)  # no other judge's results


# A fresh server's first visit is the run Streamlit makes the old way (the app as a page of
# pages/): the tests below each start their own server so that their page is that visit.


@pytest.fixture
def first_visit(chromium, tmp_path):
    app = AppServer(free_port(), tmp_path / "streamlit.log")
    try:
        with fresh(chromium) as browser:
            page = browser.new_page(viewport={"width": 1280, "height": 1000})
            count_runs(page)
            page.app_url = app.url
            yield page
            browser.close()
    finally:
        app.stop()


def open_seed(page) -> None:
    page.goto(page.app_url)
    page.get_by_text("50% yes").first.wait_for(timeout=60_000)
    wait_for_runs(page, 1)


def judge_radio(page):
    return page.locator("[data-testid=stSidebar] label:has(input:checked)")


def click_judge(page, name: str) -> None:
    one_run(page, lambda: page.get_by_text(LABELS[name], exact=True).click())
    expect(judge_radio(page)).to_have_text(LABELS[name])


def scored_by(page, name: str) -> None:
    """The results on screen were scored by this judge, and only by it."""
    expect(page.get_by_text(f"judge: {name} ·")).to_be_visible()
    for other in ("local", "lexical"):
        if other != name:
            expect(page.get_by_text(f"judge: {other} ·")).to_have_count(0)


def test_one_click_on_each_judge_switches_it_on_the_first_visit(first_visit):
    page = first_visit
    open_seed(page)
    scored_by(page, "local")
    click_judge(page, "lexical")
    scored_by(page, "lexical")
    click_judge(page, "local")
    scored_by(page, "local")
    with FaultyServer(down_url(), []) as recorder:
        click_judge(page, "jev")
        base = page.get_by_role("textbox", name="Base URL")
        expect(base).to_be_visible()
        one_run(page, lambda: enter(base, recorder.url))
        expect(base).to_have_value(recorder.url)
        score = page.get_by_role("button", name=re.compile("^Score with Jev"))
        one_run(page, score.click)
        expect(page.locator("[data-testid='stAlert']").filter(has_text="type a key")
               ).to_be_visible()
        assert recorder.seen == []


def test_the_first_judge_click_after_loading_an_example_switches_it(first_visit):
    page = first_visit
    open_seed(page)
    page.get_by_role("combobox", name="example").click()
    one_run(page, lambda: page.get_by_role("option", name=re.compile("^Reference answer")).click())
    expect(page.get_by_label("expected — a reference answer (optional)")).not_to_have_value("")
    click_judge(page, "lexical")
    scored_by(page, "lexical")


def test_the_jev_settings_take_the_first_keystroke_on_the_first_visit(first_visit):
    from jevcompat.mock import MockConfig, Running

    page = first_visit
    seed = load_file("jev_pricing")
    token = share.encode(seed.case, seed.chosen(), "jev")
    page.goto(f"{page.app_url}/?case={token}")
    page.get_by_text("Press the button to score").wait_for(timeout=60_000)
    wait_for_runs(page, 1)
    expect(judge_radio(page)).to_have_text(LABELS["jev"])
    key = "sk-browser-test-first-keystroke"
    with Running(MockConfig(key=key)) as mock, FaultyServer(mock.url, []) as proxy:
        base = page.get_by_role("textbox", name="Base URL")
        one_run(page, lambda: enter(base, proxy.url))
        expect(base).to_have_value(proxy.url)
        secret = page.get_by_role("textbox", name="API key", exact=True)
        one_run(page, lambda: enter(secret, key))
        # Taken, then out of the page: the box empties and no part of the DOM holds the key.
        expect(secret).to_have_value("")
        expect(secret).to_have_attribute("placeholder", "a key is kept for this session")
        assert key not in page.content()
        load = page.get_by_role("button", name="Load models from the server")
        one_run(page, load.click)
        assert [(r["method"], r["path"]) for r in proxy.seen] == [("GET", "/v1/models")]
        assert proxy.seen[0]["headers"].get("Authorization") == f"Bearer {key}"
        model = page.get_by_role("combobox", name="Model")
        model.click()
        one_run(page, lambda: page.get_by_role("option", name="mock", exact=True).click())
        expect(model).to_have_value("mock")
        expect(page.get_by_role("button", name=re.compile("^Score with Jev"))).to_be_visible()
    click_judge(page, "local")
    scored_by(page, "local")


# Whether a dialog ever entered the document, however briefly (a closed one leaves no trace).
DIALOG_SEEN = """(() => {
  window.__dialogSeen = false;
  new MutationObserver(() => {
    if (document.querySelector("[role=dialog]")) window.__dialogSeen = true;
  }).observe(document, {subtree: true, childList: true});
})();"""


def test_a_link_straight_to_a_page_opens_it_on_a_fresh_server(first_visit):
    """Until st.navigation has run once, Streamlit reads pages/ as an old-style folder of
    pages and says "page not found" for /evaluators; the server is set up before its first run
    so that no such dialog ever shows, not even for a moment."""
    page = first_visit
    page.add_init_script(DIALOG_SEEN)
    page.goto(f"{page.app_url}/evaluators")
    wait_for_runs(page, 1)
    expect(page.get_by_role("heading", name="Metrics", level=1)).to_be_visible()
    expect(page.get_by_text("Page not found")).to_have_count(0)
    assert page.evaluate("window.__dialogSeen") is False


def test_the_hosted_judge_live_replaces_the_offline_verdicts_and_never_shows_the_key(
        chromium, tmp_path):
    """Issue 18 item 6 in a real browser: the toggle is off by default; on, the offline
    verdicts show marked as such while the hosted answer is pending, and the page's own
    watcher draws the hosted verdicts when it arrives; one request per edit; the key (from
    the server's environment) is in no page, URL or request the browser made."""
    import time

    from jevcompat.mock import MockConfig, Running

    key = "sk-browser-live-7f3a9c21d4e8"
    with Running(MockConfig(key=key)) as mock, FaultyServer(mock.url, []) as proxy:
        def slow(handler) -> None:  # the hosted judge taking its time, then answering
            time.sleep(1.5)
            proxy.forward(handler, proxy.seen[-1]["body"])

        app = AppServer(free_port(), tmp_path / "streamlit.log",
                        env={"TYPESAFE_API_KEY": key, "TYPESAFE_BASE_URL": proxy.url})
        try:
            with fresh(chromium) as browser:
                page = browser.new_page(viewport={"width": 1280, "height": 800})
                requests_seen: list[str] = []
                page.on("request", lambda r: requests_seen.append(r.url + (r.post_data or "")))
                count_runs(page)
                page.goto(app.url)
                page.get_by_text("50% yes").first.wait_for(timeout=60_000)
                wait_for_runs(page, 1)
                toggle = page.get_by_role("switch", name="Hosted judge live")
                expect(toggle).not_to_be_checked()  # off by default
                expect(page.get_by_text("judge: local ·")).to_be_visible()
                screenshot(page, "live_off.png")
                assert proxy.seen == []

                proxy.faults.append(slow)
                page.get_by_text("Hosted judge live").click()
                pending = page.get_by_text("local judge — hosted answer pending").first
                pending.wait_for(timeout=30_000)
                expect(page.get_by_text("judge: local ·")).to_be_visible()  # still offline
                screenshot(page, "live_pending.png")
                expect(page.get_by_text(re.compile("^judge: jev ·"))).to_be_visible(
                    timeout=30_000)
                expect(page.get_by_text("hosted answer pending").locator("visible=true")
                       ).to_have_count(0)
                expect(page.get_by_text("judge: local ·").locator("visible=true")
                       ).to_have_count(0)
                expect(page.get_by_text(re.compile(r"input tokens · \$0\.0000"))).to_be_visible()
                page.wait_for_timeout(500)
                screenshot(page, "live_on.png")
                posts = [r for r in proxy.seen if r["method"] == "POST"]
                assert len(posts) == 1

                commit(page, chunk(page, 2), "Jev was founded in 2024 in Paris.")
                expect(page.get_by_text("hosted answer pending").locator("visible=true")
                       ).to_have_count(0, timeout=30_000)
                page.wait_for_function(
                    "() => document.body.innerText.includes('with this key 2 of 100')",
                    timeout=30_000)
                expect(page.get_by_text(re.compile("^judge: jev ·"))).to_be_visible()
                page.wait_for_timeout(1_000)  # nothing more goes out after it
                posts = [r for r in proxy.seen if r["method"] == "POST"]
                assert len(posts) == 2
                assert b"founded in 2024" in posts[1]["body"]

                html = page.content()
                pieces = [key[i:i + 8] for i in range(len(key) - 7)]
                assert "judge: jev" in html
                assert not [s for s in pieces if s in html or s in page.url]
                assert not [u for u in requests_seen if any(s in u for s in pieces)]
                browser.close()
        finally:
            app.stop()
    assert all(r["headers"].get("Authorization") == f"Bearer {key}" for r in proxy.seen)
    assert key not in app.log.read_text()


def test_a_label_flipped_by_keyboard_changes_the_agreement_line(page):
    # The seed opens with its stated truth as labels, and the judge agrees on every chunk
    band = page.locator(".st-key-summary")
    expect(band).to_contain_text("labels agree:")
    expect(band).to_contain_text("4/4 chunks")
    noise = page.locator("[class*='st-key-label_']").first.locator("button", has_text="noise")
    noise.focus()
    one_run(page, lambda: page.keyboard.press("Enter"))
    expect(band).to_contain_text("3/4 chunks")
    expect(page.get_by_text("✗ you: noise").first).to_be_visible()


def test_a_custom_evaluator_written_in_the_browser_answers_per_chunk_as_typed(page):
    one_run(page, page.get_by_role("button", name="New evaluator").click)
    editor = page.locator(".st-key-ev_editor")
    expect(editor).to_be_visible()
    question = editor.get_by_role("textbox", name="question — a statement the judge answers")
    one_run(page, lambda: commit(page, question, "`context[i]` mentions the year a company "
                                                 "was founded."))
    table = page.locator("[data-testid='stTable']").filter(has_text="question, verbatim")
    expect(table).to_contain_text("`context[2]` mentions the year a company was founded.")
    expect(table).to_contain_text("Founded in 2024.")
    assert len(table.locator("tbody tr").all()) == 4
    editor.scroll_into_view_if_needed()
    screenshot(page, "screenshot_custom.png")
    one_run(page, lambda: enter(editor.get_by_role("textbox", name="name", exact=True),
                                "states_founding"))
    one_run(page, page.get_by_role("button", name="Use it in this case").click)
    expect(page.locator(".st-key-card_states_founding")).to_contain_text("approximate")
    assert "states_founding" in share.decode(
        re.search(r"case=([^&]+)", page.url).group(1)).file.evaluators[-1].name


def test_with_every_evaluator_picked_every_chip_and_pill_is_in_view_at_1280(chromium, server):
    chosen = load_file("with_expected")
    from jeval_core import evaluators

    token = share.encode(chosen.case, evaluators.ALL)
    with fresh(chromium) as browser:
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        count_runs(page)
        page.goto(f"{server.url}/?case={token}")
        page.get_by_text("Details of").first.wait_for(timeout=60_000)
        wait_for_runs(page, 1)

        def inside(outer: str, items: str) -> list[bool]:
            """Whether each item lies wholly inside the box of `outer` (nothing clipped)."""
            return page.evaluate("""([outer, items]) => {
              const box = document.querySelector(outer).getBoundingClientRect();
              return [...document.querySelectorAll(outer + ' ' + items)].map(el => {
                const r = el.getBoundingClientRect();
                return r.left >= box.left - 1 && r.right <= box.right + 1 && r.width > 0; });
            }""", [outer, items])

        chips = inside(".st-key-evaluators [data-testid='stMultiSelectTagsContainer']",
                       "span[title], span > span")
        assert len([c for c in chips if c]) >= len(evaluators.ALL)
        pills = inside(".st-key-detail_pick", "button")
        assert len(pills) == len(evaluators.ALL) and all(pills)
        width = page.locator("[class*='st-key-chunkbox_'] textarea").first.bounding_box()["width"]
        assert width >= 280  # a real chunk can be read where it is edited
        browser.close()


@pytest.mark.parametrize("path", ["live", "datasets", "judges", "runs", "evaluators"])
def test_every_page_title_stands_where_it_will_stay_from_its_first_frame(chromium, server, path):
    with fresh(chromium) as browser:
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        count_runs(page)
        page.goto(f"{server.url}/{path}")
        title = page.locator("h1").first
        title.wait_for(timeout=60_000)
        first = title.bounding_box()["y"]
        wait_for_runs(page, 1)
        page.wait_for_timeout(500)
        assert title.bounding_box()["y"] == first == 40  # the same on every page, at once
        browser.close()


# From the page's first frame: every frame in which a result card is visible but no text area
# of the case is yet (a text area stands as a grey placeholder until its code has loaded).
# A verdict is any text of the results column or of a chunk's box (its p, its "why" words),
# read as the person sees it: a hidden or transparent box counts as hiding its text (a text
# that overrides its box's visibility is seen).
RESULTS_BEFORE_CASE = """
window.__resultsAlone = 0; window.__bothShown = false;
(function watch() {
  const seen = el => el !== null && el.checkVisibility({visibilityProperty: true,
                                                        opacityProperty: true});
  const card = [...document.querySelectorAll(
    ".st-key-results [data-testid='stMarkdownContainer'], "
    + "[class*='st-key-chunkbox_'] [data-testid='stMarkdownContainer']")].some(seen);
  const area = seen(document.querySelector("[data-testid='stTextArea'] textarea"));
  if (card && !area) window.__resultsAlone += 1;
  if (card && area) { window.__bothShown = true; return; }
  requestAnimationFrame(watch);
})();
"""


def test_a_reloaded_playground_never_shows_its_results_before_its_case(chromium, server):
    """Nor a chunk's verdict beside a grey placeholder: while a fresh page fetches the text
    areas' code, the case and every verdict wait for each other."""
    with fresh(chromium) as browser:
        for visit in range(2):  # a new profile each time: nothing of Streamlit's code cached
            context = browser.new_context(viewport={"width": 1280, "height": 900})
            page = context.new_page()
            page.add_init_script(RESULTS_BEFORE_CASE)
            page.goto(server.url)
            page.wait_for_function("window.__bothShown === true", timeout=60_000)
            assert page.evaluate("window.__resultsAlone") == 0, f"visit {visit + 1}"
            context.close()
        browser.close()


def test_a_cards_score_and_label_each_stay_on_one_line_at_1280(page):
    lines = page.evaluate("""() => [...document.querySelectorAll(
        "[class*='st-key-card_'] strong")].map(el => [el.innerText, el.getClientRects().length])""")
    assert ["50% yes", 1] in lines  # beside the card's ✓/✗ control, unbroken
    assert all(count == 1 for _, count in lines), lines


def test_a_cards_verdict_control_is_its_header_and_sits_beside_it(page):
    # one element, the ✓/✗ control whose label is the header, laid out as one line
    label, first = page.evaluate("""() => {
        const card = document.querySelector("[class*='st-key-truth_chunk_relevance']");
        const box = (el) => { const r = el.getBoundingClientRect(); return [r.top, r.bottom,
                                                                              r.left, r.right]; };
        return [box(card.querySelector("[data-testid='stWidgetLabel']")),
                box(card.querySelector("button"))]; }""")
    middle = (label[0] + label[1]) / 2
    assert first[0] <= middle <= first[1] and first[2] >= label[3], (label, first)


def test_a_chunk_is_its_box_the_row_under_its_text_and_the_verdict_s_slot(page):
    blocks = page.evaluate("""() => [...document.querySelectorAll("[class*='st-key-chunkbox_']")]
        .map(box => box.querySelectorAll("[data-testid='stVerticalBlock'], "
                                         + "[data-testid='stHorizontalBlock']").length)""")
    # the row of moves and label, and in it the verdict's slot (a container: the live panel
    # writes there from its fragment); the box itself is the third block
    assert blocks == [2, 2, 2, 2]


def test_a_new_evaluator_opened_from_below_comes_into_view_with_the_cursor_in_its_name(page):
    button = page.get_by_role("button", name="New evaluator")
    button.scroll_into_view_if_needed()  # under the case: the results column's top is above
    assert page.locator(".st-key-summary").bounding_box()["y"] < 0
    one_run(page, button.click)
    editor = page.locator(".st-key-ev_editor")
    page.wait_for_function("""() => {
        const box = document.querySelector(".st-key-ev_editor");
        return box !== null && Math.abs(box.getBoundingClientRect().top) < 120; }""")
    name = editor.get_by_role("textbox", name="name", exact=True)
    expect(name).to_be_focused()
    expect(name).to_be_in_viewport()

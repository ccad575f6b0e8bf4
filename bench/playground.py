"""How live the Playground is in a real browser; prints figures, asserts nothing.

    python bench/playground.py

Starts the app on a loopback port and drives Debian chromium with playwright. A committed
edit is measured from Ctrl+Enter until the request block at the bottom of the results (the
last thing drawn) shows the new text, i.e. the whole results panel has been redrawn.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from browser import AppServer, launch  # noqa: E402
from jev_servers import free_port  # noqa: E402

EDITS = 15
WAIT = ("t => [...document.querySelectorAll('[data-testid=stCode]')]"
        ".some(e => e.innerText.includes(t))")


def stats(ms: list[float]) -> str:
    ms = sorted(ms)
    return (f"median {statistics.median(ms):7.0f} ms   p90 "
            f"{ms[min(len(ms) - 1, int(0.9 * len(ms)))]:7.0f} ms   (n={len(ms)})")


def open_page(browser, url: str):
    page = browser.new_page(viewport={"width": 1280, "height": 1000})
    started = time.perf_counter()
    page.goto(url)
    page.get_by_text("50% yes").first.wait_for(timeout=120_000)
    return page, (time.perf_counter() - started) * 1000


def load_example(page, name: str) -> None:
    page.locator("[data-testid='stSelectbox']").first.click()
    page.keyboard.type(name)
    page.keyboard.press("Enter")
    page.wait_for_timeout(4000)


def edits(page, label: str) -> None:
    box = page.get_by_label("context[0]", exact=True)
    times = []
    for i in range(EDITS):
        text = f"Price: ${40 + i} per billion input tokens. Output tokens are free (edit {i})."
        box.fill(text)
        started = time.perf_counter()
        box.press("Control+Enter")
        page.wait_for_function(WAIT, arg=f"(edit {i})", timeout=30_000)
        times.append((time.perf_counter() - started) * 1000)
    print(f"{label:62} {stats(times[2:])}")


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        server = AppServer(free_port(), Path(tmp) / "streamlit.log")
        try:
            with sync_playwright() as p:
                browser = launch(p)
                page, cold = open_page(browser, server.url)
                print(f"{'first page load, fresh server (model load included)':62} {cold:7.0f} ms")
                _, warm = open_page(browser, server.url)
                print(f"{'page load, second visitor':62} {warm:7.0f} ms")
                edits(page, "edit a chunk, seed example (4 chunks, local judge)")
                load_example(page, "noisy_retrieval")
                edits(page, "edit a chunk, noisy_retrieval (6 chunks, 6 evaluators), local")
                browser.close()
        finally:
            server.stop()


if __name__ == "__main__":
    main()

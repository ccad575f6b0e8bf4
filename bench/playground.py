"""How live the Playground is in a real browser; prints figures, asserts nothing.

    python bench/playground.py

Starts the app on a loopback port and drives Debian chromium with playwright. A committed
edit is measured from Ctrl+Enter until the run it starts is drawn (the app's script state
turns back to "notRunning" after the browser has drawn everything the run sent), i.e. the
whole results panel has been redrawn. The first scored page is measured on a fresh server,
from navigation to the seed's label on screen.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))
from browser import AppServer, count_runs, launch, runs_done, wait_for_runs  # noqa: E402
from jev_servers import free_port  # noqa: E402

from jeval_core import Case, casefile, evaluators, share  # noqa: E402

EDITS = 15


def stats(ms: list[float]) -> str:
    ms = sorted(ms)
    return (f"median {statistics.median(ms):7.0f} ms   p90 "
            f"{ms[min(len(ms) - 1, int(0.9 * len(ms)))]:7.0f} ms   (n={len(ms)})")


def open_page(browser, url: str, ready: str = "50% yes"):
    page = browser.new_page(viewport={"width": 1280, "height": 1000})
    count_runs(page)
    started = time.perf_counter()
    page.goto(url)
    page.get_by_text(ready).first.wait_for(timeout=120_000)
    wait_for_runs(page, 1)
    return page, (time.perf_counter() - started) * 1000


def token_of(name: str) -> str:
    path = ROOT / "assets" / "examples" / f"{name}.json"
    loaded = casefile.decode(path.read_bytes(), path.name)
    return share.encode(loaded.case, loaded.chosen(), "local")


def big_token() -> str:
    """30 chunks and all 8 evaluators: the reference-answer example's chunks, repeated with
    a number so that every chunk differs."""
    path = ROOT / "assets" / "examples" / "with_expected.json"
    base = casefile.decode(path.read_bytes(), path.name).case
    chunks = [f"{base.context[i % len(base.context)]} (copy {i})" for i in range(30)]
    case = Case(base.input, base.output, base.expected, tuple(chunks))
    return share.encode(case, evaluators.ALL, "local")


def edits(page, label: str) -> None:
    box = page.get_by_label("context[0]", exact=True)
    times = []
    for i in range(EDITS):
        text = f"Price: ${40 + i} per billion input tokens. Output tokens are free (edit {i})."
        box.fill(text)
        before = runs_done(page)
        started = time.perf_counter()
        box.press("Control+Enter")
        wait_for_runs(page, before + 1)
        times.append((time.perf_counter() - started) * 1000)
    print(f"{label:62} {stats(times[2:])}")


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        server = AppServer(free_port(), Path(tmp) / "streamlit.log")
        try:
            with sync_playwright() as p:
                browser = launch(p)
                page, cold = open_page(browser, server.url)
                print(f"{'first scored page, fresh server (model load included)':62} "
                      f"{cold:7.0f} ms")
                second, warm = open_page(browser, server.url)
                print(f"{'first scored page, second visitor':62} {warm:7.0f} ms")
                second.close()
                edits(page, "edit a chunk, seed example (4 chunks, local judge)")
                page.close()
                page, _ = open_page(browser, f"{server.url}/?case={token_of('noisy_retrieval')}",
                                    "83% yes")
                edits(page, "edit a chunk, noisy_retrieval (6 chunks, 6 evaluators), local")
                page.close()
                page, _ = open_page(browser, f"{server.url}/?case={big_token()}", "context[29]")
                wait_for_runs(page, 1)
                edits(page, "edit a chunk, 30 chunks x 8 evaluators, local")
                browser.close()
        finally:
            server.stop()


if __name__ == "__main__":
    main()

"""A real app server and a real browser (Debian chromium driven by PyPI playwright)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


class AppServer:
    """`streamlit run app.py` on a loopback port, logged to a file, stopped by its pid."""

    def __init__(self, port: int, log: Path) -> None:
        self.url = f"http://127.0.0.1:{port}"
        self.log = log
        env = {k: v for k, v in os.environ.items()
               if k not in ("TYPESAFE_API_KEY", "TYPESAFE_BASE_URL")}
        with open(log, "wb") as out:
            self.proc = subprocess.Popen(
                [str(Path(sys.executable).with_name("streamlit")), "run", "app.py",
                 "--server.port", str(port), "--server.address", "127.0.0.1",
                 "--server.headless", "true", "--server.fileWatcherType", "none",
                 "--browser.gatherUsageStats", "false"],
                cwd=ROOT, stdout=out, stderr=subprocess.STDOUT, env=env)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"streamlit exited: {log.read_text()[-2000:]}")
            try:
                if httpx.get(f"{self.url}/_stcore/health", timeout=1).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            time.sleep(0.2)
        self.stop()
        raise RuntimeError("streamlit did not become healthy within 60 s")

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def launch(playwright):
    return playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)


def commit(page, locator, text: str) -> None:
    """Type into a text area the way a user commits it: fill, then Ctrl+Enter."""
    locator.fill(text)
    locator.press("Control+Enter")


# Counts the app's finished runs: stApp's script state turning back to "notRunning" comes after
# the browser has drawn everything the run sent, so a check after it sees that run's result.
RUN_COUNTER = """
window.__runsDone = 0;
new MutationObserver(records => {
  for (const r of records) {
    if (r.target.getAttribute("data-test-script-state") === "notRunning"
        && r.oldValue !== "notRunning") window.__runsDone += 1;
  }
}).observe(document, {subtree: true, attributes: true, attributeOldValue: true,
                      attributeFilter: ["data-test-script-state"]});
"""


def count_runs(page) -> None:
    """Count the app's finished runs from the next page load on (call before goto)."""
    page.add_init_script(RUN_COUNTER)


def runs_done(page) -> int:
    return page.evaluate("window.__runsDone")


def wait_for_runs(page, n: int) -> None:
    page.wait_for_function("n => window.__runsDone >= n", arg=n, timeout=120_000)


def one_run(page, action) -> None:
    """Do `action` (one click or one commit) and wait until the run it starts is drawn."""
    before = runs_done(page)
    action()
    wait_for_runs(page, before + 1)


def enter(locator, text: str) -> None:
    """Type into a text input the way a user commits it: fill, then Enter."""
    locator.fill(text)
    locator.press("Enter")

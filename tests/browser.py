"""A real app server and a real browser (Debian chromium driven by PyPI playwright)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


class AppServer:
    """`streamlit run app.py` on a loopback port, logged to a file, stopped by its pid."""

    def __init__(self, port: int, log: Path, env: dict[str, str] | None = None,
                 command: list[str] | None = None, cwd: Path = ROOT) -> None:
        """`env`: variables to set for the server (the hosted judge's key is otherwise
        removed from its environment); `command`: another way to start it (`jeval app`)."""
        self.url = f"http://127.0.0.1:{port}"
        self.log = log
        env = {**{k: v for k, v in os.environ.items()
                  if k not in ("TYPESAFE_API_KEY", "TYPESAFE_BASE_URL")}, **(env or {})}
        with open(log, "wb") as out:
            self.proc = subprocess.Popen(
                command or [str(Path(sys.executable).with_name("streamlit")), "run", "app.py",
                            "--server.port", str(port), "--server.address", "127.0.0.1",
                            "--server.headless", "true", "--server.fileWatcherType", "none",
                            "--browser.gatherUsageStats", "false"],
                cwd=cwd, stdout=out, stderr=subprocess.STDOUT, env=env)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"streamlit exited: {log.read_text()[-2000:]}")
            try:
                if httpx.get(f"{self.url}/_stcore/health", timeout=1).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            time.sleep(0.05)
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


class Contexts:
    """A test's share of the session's browser (conftest's `chromium`): the contexts it
    opens, each a fresh profile (no cookies, storage or cache from another test), all closed
    when the test is done with them."""

    def __init__(self, browser) -> None:
        self.browser = browser
        self.opened: list = []

    def new_context(self, **options):
        context = self.browser.new_context(**options)
        self.opened.append(context)
        return context

    def new_page(self, **options):
        return self.new_context(**options).new_page()

    def close(self) -> None:
        while self.opened:
            self.opened.pop().close()


@contextmanager
def fresh(browser) -> Iterator[Contexts]:
    """Pages and contexts on the session's one chromium, closed on the way out."""
    contexts = Contexts(browser)
    try:
        yield contexts
    finally:
        contexts.close()


def commit(page, locator, text: str) -> None:
    """Type into a text area the way a user commits it: fill, then Ctrl+Enter."""
    locator.fill(text)
    locator.press("Control+Enter")


# Counts the app's finished runs. A run is finished when the server's "script finished" message
# (ForwardMsg field 6, any status but "stopped early for a rerun") has arrived and the page has
# stopped changing: stApp's script state reads "notRunning" and nothing in the document has
# changed for QUIET_MS. The script-state attribute alone misses runs: a run short enough that
# the browser handles its start and its end in one render never changes the attribute.
# Also kept: when the last Ctrl+Enter or Enter was pressed, and when the document last changed
# (the end of drawing), both on the page's clock, for timing without the test driver's latency.
QUIET_MS = 150
RUN_COUNTER = """
(() => {
  window.__runsDone = 0;
  window.__lastChange = performance.now();
  window.__keyAt = null;
  const varint = (b, i) => {
    let v = 0, m = 1;
    while (i < b.length) {
      const x = b[i++];
      v += (x & 127) * m;
      if (x < 128) break;
      m *= 128;
    }
    return [v, i];
  };
  // the top-level fields of a ForwardMsg: finished (field 6) with a status other than 2
  const finishedRun = b => {
    let i = 0;
    while (i < b.length) {
      let tag;
      [tag, i] = varint(b, i);
      const field = Math.floor(tag / 8), kind = tag % 8;
      if (kind === 0) {
        let v;
        [v, i] = varint(b, i);
        if (field === 6) return v !== 2;
      } else if (kind === 2) {
        let n;
        [n, i] = varint(b, i);
        i += n;
      } else if (kind === 1) i += 8;
      else if (kind === 5) i += 4;
      else return false;
    }
    return false;
  };
  const Native = window.WebSocket;
  window.WebSocket = class extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener("message", e => {
        if (e.data instanceof ArrayBuffer && finishedRun(new Uint8Array(e.data)))
          window.__runsDone += 1;
      });
    }
  };
  // The data grid paints its cells on a canvas; its hidden table of cell texts for screen
  // readers follows ~200 ms later on a timer. That is not what is seen: not counted.
  const mirror = n => {
    const e = n.nodeType === 1 ? n : n.parentElement;
    return e !== null && e.closest('[data-testid^="glide-cell"]') !== null;
  };
  new MutationObserver(records => {
    if (records.some(r => !mirror(r.target))) window.__lastChange = performance.now();
  }).observe(document, {subtree: true, childList: true, attributes: true,
                        characterData: true});
  document.addEventListener("keydown", e => {
    if (e.key === "Enter") window.__keyAt = performance.now();
  }, true);
})();
"""
DRAWN = """([n, quiet]) => window.__runsDone >= n
  && document.querySelector("[data-testid=stApp]")?.getAttribute("data-test-script-state")
     === "notRunning"
  && performance.now() - window.__lastChange >= quiet"""


def count_runs(page) -> None:
    """Count the app's finished runs from the next page load on (call before goto)."""
    page.add_init_script(RUN_COUNTER)


def runs_done(page) -> int:
    return page.evaluate("window.__runsDone")


def wait_for_runs(page, n: int) -> None:
    """Wait until `n` runs have finished and the browser has drawn what they sent."""
    page.wait_for_function(DRAWN, arg=[n, QUIET_MS], polling=25, timeout=120_000)


def key_to_drawn_ms(page) -> float:
    """From the last Enter key press to the last change of the document, on the page's clock
    (call after wait_for_runs)."""
    return page.evaluate("window.__lastChange - window.__keyAt")


def one_run(page, action) -> None:
    """Do `action` (one click or one commit) and wait until the run it starts is drawn."""
    before = runs_done(page)
    action()
    wait_for_runs(page, before + 1)


def enter(locator, text: str) -> None:
    """Type into a text input the way a user commits it: fill, then Enter."""
    locator.fill(text)
    locator.press("Enter")

"""How live the Playground is in a real browser; prints figures, asserts nothing.

    python bench/playground.py                  # everything, 15 edits per case
    python bench/playground.py --only seed big  # some edit cases (seed, noisy, big)
    python bench/playground.py --repeat 3       # the whole set 3 times, on fresh servers
    python bench/playground.py --server-times   # and how long each server run took
    python bench/playground.py --phases         # and where an edit's time went
    python bench/playground.py --root DIR       # another checkout of the app (a baseline)

Starts the app on a loopback port and drives Debian chromium with playwright. A committed
edit is measured on the page's clock from the Ctrl+Enter key press to the last change of the
document once the run it started is drawn (its "script finished" message arrived, the script
state reads notRunning and nothing changed for a while after), i.e. the whole results panel
has been redrawn (the data grid's screen-reader mirror, updated ~200 ms after its canvas,
is not counted). The server's start is timed from the command to its health check answering
(a server loads the judges' models before it answers). The first scored page is measured on
the page's clock from navigation to the first frame painted with the seed's label: on a
fresh server with a new browser profile, for a second visitor, and on a fresh server (same
port) for a browser that has the app's files in its cache. Medians are printed with the load
average, which the figures follow on a shared 2-core machine.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))
import browser  # noqa: E402
from browser import (  # noqa: E402
    AppServer,
    count_runs,
    key_to_drawn_ms,
    launch,
    runs_done,
    wait_for_runs,
)
from jev_servers import free_port  # noqa: E402

from jeval_core import Case, evaluators  # noqa: E402
from jeval_core.inputs import casefile, share  # noqa: E402

CASES = ("seed", "noisy", "big")
LABELS = {
    "start": "server start, from the command to ready (/_stcore/health)",
    "first": "first scored page, fresh server, new browser profile",
    "second": "first scored page, second visitor, new browser profile",
    "restart": "first scored page, fresh server, browser with the app's files cached",
    "seed": "edit a chunk, seed example (4 chunks, local judge)",
    "noisy": "edit a chunk, noisy_retrieval (6 chunks, 6 evaluators), local",
    "big": "edit a chunk, 30 chunks x 8 evaluators, local",
}
# Loaded into the server with --server-times: how long each script run took, one line each.
RUN_TIMER = '''
import os, threading, time
import streamlit.runtime.scriptrunner.script_runner as _sr
_orig, _lock = _sr.exec_func_with_error_handling, threading.Lock()
def _timed(func, ctx):
    started = time.perf_counter()
    try:
        return _orig(func, ctx)
    finally:
        took = (time.perf_counter() - started) * 1000
        kind = "fragment" if getattr(ctx, "fragment_ids_this_run", None) else "full"
        with _lock, open(os.environ["JEVAL_RUN_LOG"], "a") as out:
            out.write(f"{kind} {took:.1f}\\n")
_sr.exec_func_with_error_handling = _timed
'''


def load() -> str:
    return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg())


def stats(ms: list[float]) -> str:
    ms = sorted(ms)
    return (f"median {statistics.median(ms):7.0f} ms   p90 "
            f"{ms[min(len(ms) - 1, int(0.9 * len(ms)))]:7.0f} ms   (n={len(ms)})")


class RunLog:
    """The server's own run times (with --server-times), read since the last mark."""

    def __init__(self, path: Path | None) -> None:
        self.path, self.seen = path, 0

    def since_mark(self) -> list[float]:
        if self.path is None or not self.path.exists():
            return []
        lines = self.path.read_text().splitlines()
        new, self.seen = lines[self.seen:], len(lines)
        return [float(line.split()[1]) for line in new]


# When `ready` first shows, on the page's clock (ms since navigation began): the first frame
# painted after it entered the document. Playwright's own waiting polls every 500 ms after a
# while, which would add up to half a second to a first-page figure.
SHOWN_AT = """ready => {
  window.__shownAt = null;
  const seen = () => document.body !== null && document.body.innerText.includes(ready);
  const watch = new MutationObserver(() => {
    if (window.__shownAt === null && seen()) {
      watch.disconnect();
      requestAnimationFrame(() => { window.__shownAt = performance.now(); });
    }
  });
  watch.observe(document, {subtree: true, childList: true, characterData: true});
}"""


def open_page(b, url: str, ready: str = "50% yes"):
    """A page in `b` (a browser: a new profile each time; or a context: its cache is kept),
    and how long after navigation began `ready` was on screen (ms)."""
    size = {"width": 1280, "height": 1000}
    page = b.new_page(viewport=size) if hasattr(b, "new_context") else b.new_page()
    count_runs(page)
    page.add_init_script(PHASES)
    page.add_init_script(f"({SHOWN_AT})({json.dumps(ready)})")
    page.goto(url)
    page.wait_for_function("window.__shownAt !== null", polling=100, timeout=120_000)
    shown = page.evaluate("window.__shownAt")
    wait_for_runs(page, 1)
    return page, shown


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


# Where an edit's time goes, on the page's clock: the key press, the browser sending the new
# value, the server's first and last messages of the runs it caused, the last change drawn.
PHASES = """(() => {
  window.__sentAt = window.__firstAt = window.__lastAt = null;
  document.addEventListener("keydown", e => {
    if (e.key === "Enter") window.__sentAt = window.__firstAt = window.__lastAt = null;
  }, true);
  const Native = window.WebSocket;
  window.WebSocket = class extends Native {
    constructor(...args) {
      super(...args);
      const send = this.send.bind(this);
      this.send = data => {
        if (window.__sentAt === null) window.__sentAt = performance.now();
        send(data);
      };
      this.addEventListener("message", () => {
        if (window.__sentAt === null) return;
        if (window.__firstAt === null) window.__firstAt = performance.now();
        window.__lastAt = performance.now();
      });
    }
  };
})();"""
PHASE_NAMES = ("key to sent", "sent to first message", "first to last message",
               "last message to drawn")
PHASE_SPANS = """() => [window.__sentAt - window.__keyAt, window.__firstAt - window.__sentAt,
  window.__lastAt - window.__firstAt, window.__lastChange - window.__lastAt]"""


def edits(page, n: int, runs: RunLog,
          phases: list[list[float]] | None = None) -> tuple[list[float], list[float]]:
    """Commit `n` edits of context[0]; the first two warm up and are dropped. With `phases`,
    each kept edit's spans (PHASE_NAMES) are appended to it."""
    box = page.get_by_label("context[0]", exact=True)
    times = []
    runs.since_mark()
    for i in range(n):
        text = f"Price: ${40 + i} per billion input tokens. Output tokens are free (edit {i})."
        box.fill(text)
        before = runs_done(page)
        box.press("Control+Enter")
        wait_for_runs(page, before + 1)
        times.append(key_to_drawn_ms(page))
        if phases is not None and i >= 2:
            phases.append(page.evaluate(PHASE_SPANS))
    server = runs.since_mark()
    per_edit = len(server) // n if server else 0  # an edit's runs: its callbacks', then live
    return times[2:], [sum(server[i:i + per_edit]) for i in range(2 * per_edit, len(server),
                                                                  max(per_edit, 1))]


def one_set(b, returning, url: str, only: tuple[str, ...], n: int, runs: RunLog,
            figures: dict[str, list[float]], server: dict[str, list[float]],
            phases: dict[str, list[list[float]]] | None = None) -> None:
    urls = {"seed": (url, "50% yes"),
            "noisy": (f"{url}/?case={token_of('noisy_retrieval')}", "83% yes"),
            "big": (f"{url}/?case={big_token()}", "context[29]")}
    page, cold = open_page(returning, url)  # its profile keeps the app's files for later
    figures["first"].append(cold)
    server["first"] += runs.since_mark()[:1]
    second, warm = open_page(b, url)
    figures["second"].append(warm)
    server["second"] += runs.since_mark()[:1]
    second.close()
    for case in ("seed", "noisy", "big"):
        if case not in only:
            continue
        if case != "seed":
            page.close()
            page, _ = open_page(b, *urls[case])
        browser_ms, server_ms = edits(page, n, runs,
                                      None if phases is None else phases.setdefault(case, []))
        figures[case] += browser_ms
        server[case] += server_ms
    page.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="+", choices=CASES, default=list(CASES))
    parser.add_argument("--edits", type=int, default=15, help="edits per case (2 warm up)")
    parser.add_argument("--repeat", type=int, default=1, help="fresh servers, one after another")
    parser.add_argument("--server-times", action="store_true",
                        help="also print how long the server's script runs took (per edit: "
                             "the sum of its runs)")
    parser.add_argument("--phases", action="store_true",
                        help="also print where an edit's time went: key press to the browser "
                             "sending, to the server's first message, to its last, to drawn")
    parser.add_argument("--root", type=Path, default=ROOT,
                        help="the checkout whose app.py to serve (default: this one)")
    args = parser.parse_args()
    browser.ROOT = args.root.resolve()  # where AppServer runs `streamlit run app.py`
    figures: dict[str, list[float]] = {k: [] for k in LABELS}
    server: dict[str, list[float]] = {k: [] for k in LABELS}
    phases: dict[str, list[list[float]]] | None = {} if args.phases else None
    print(f"{args.root.resolve()} · {load()}")
    with tempfile.TemporaryDirectory() as tmp:
        log = None
        if args.server_times:
            hook = Path(tmp) / "hook"
            hook.mkdir()
            (hook / "sitecustomize.py").write_text(RUN_TIMER)
            log = Path(tmp) / "runs.log"
            os.environ["PYTHONPATH"] = os.pathsep.join(
                [str(hook), *filter(None, [os.environ.get("PYTHONPATH")])])
            os.environ["JEVAL_RUN_LOG"] = str(log)
        for _ in range(args.repeat):
            runs = RunLog(log)
            port = free_port()
            with sync_playwright() as p:
                b = launch(p)
                returning = b.new_context(viewport={"width": 1280, "height": 1000})
                started = time.perf_counter()
                app = AppServer(port, Path(tmp) / "streamlit.log")
                figures["start"].append((time.perf_counter() - started) * 1000)
                try:
                    one_set(b, returning, app.url, tuple(args.only), args.edits, runs,
                            figures, server, phases)
                finally:
                    app.stop()
                # the same port, so the browser's cache of the app's files still applies
                app = AppServer(port, Path(tmp) / "streamlit.log")
                try:
                    runs.since_mark()
                    page, ms = open_page(returning, app.url)
                    figures["restart"].append(ms)
                    server["restart"] += runs.since_mark()[:1]
                    page.close()
                finally:
                    app.stop()
                b.close()
            print(f"  one set done · {load()}")
    for key, label in LABELS.items():
        if not figures[key]:
            continue
        line = f"{label:62} {stats(figures[key])}"
        if server[key]:
            line += f"   server median {statistics.median(server[key]):5.0f} ms"
        print(line)
    for case, spans in (phases or {}).items():
        medians = [statistics.median(edit[k] for edit in spans) for k in range(len(PHASE_NAMES))]
        print(f"  {case}, median per phase: " + " · ".join(
            f"{name} {ms:.0f} ms" for name, ms in zip(PHASE_NAMES, medians, strict=True)))
    print(load())


if __name__ == "__main__":
    main()

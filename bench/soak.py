"""Memory soak of the app's server under concurrent Playground sessions; prints figures.

A closed session's objects (AppSession, SessionState, ScriptRunner, ScriptRunContext) must
not outlive it, and the server's memory must level off under steady concurrent use, not grow
with every session and edit; the more so as the app turns off Streamlit's full collection
after every run (runner.postScriptGC in .streamlit/config.toml).

    python bench/soak.py                                  # 12 sessions for 30 min
    python bench/soak.py --sessions 2 --minutes 1.5 --session-minutes 0.5   # a smoke run
    python bench/soak.py --session-ttl 5                  # closed sessions kept 5 s, not 120

The server is a child (this file with --serve) running `streamlit run app.py` in-process on
a free loopback port, and a probe on another: it runs gc.collect(), then answers the RSS, the
live objects of the classes above (gc.get_objects()), gc.get_freeze_count() and the sessions
Streamlit holds. Debian chromium (playwright: one browser, a context per session) keeps
--sessions sessions open; each opens the Playground, commits an edit to one of its text areas
every --edit-every seconds (fill, Ctrl+Enter, wait until the run is drawn), closes after
--session-minutes and a new one takes its place (the first ones leave in turn). A line every
--sample-every seconds: the server's RSS, sessions opened, edits, errors. At the end, every
session closed and --settle seconds later: the probe's counts, and the RSS slope per 5-minute
window (MB/min; a plateau reads about 0).

Streamlit keeps a closed session server.disconnectedSessionTTL seconds (120) for a reconnect
and drops expired ones only when it next stores one: the probe counts those it holds (private
API); AppSessions beyond them outlived their visitor.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
from browser import CHROMIUM, CHROMIUM_ARGS, DRAWN, QUIET_MS, RUN_COUNTER  # noqa: E402
from jev_servers import free_port  # noqa: E402

KINDS = ("AppSession", "SessionState", "ScriptRunner", "ScriptRunContext")


def rss_mb(pid: int | str = "self") -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def held_sessions() -> dict[str, int]:
    """Sessions Streamlit holds on purpose: connected, disconnected within the TTL, and
    expired but not yet dropped (private API: empty if it moved)."""
    try:
        from streamlit.runtime import Runtime

        manager = Runtime.instance()._session_mgr
        cache = manager._session_storage._cache
        return {"active": len(manager.list_active_sessions()), "kept": cache.currsize,
                "expired": len(cache._expirations) - cache.currsize}
    except Exception:
        return {}


class Probe(BaseHTTPRequestHandler):
    """GET: a full collection, then the server's RSS and its live sessions' objects."""

    def do_GET(self) -> None:
        gc.collect()
        counts = dict.fromkeys(KINDS, 0)
        for obj in gc.get_objects():
            kind = type(obj)
            if kind.__name__ in counts and kind.__module__.startswith("streamlit."):
                counts[kind.__name__] += 1
        body = json.dumps({"rss_mb": rss_mb(), "objects": counts, "held": held_sessions(),
                           "frozen": gc.get_freeze_count()}).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (the base's name)
        pass


def serve(port: int, probe_port: int, ttl: int) -> None:
    """The child: the probe in a daemon thread, then `streamlit run app.py` in this process."""
    probe = ThreadingHTTPServer(("127.0.0.1", probe_port), Probe)
    threading.Thread(target=probe.serve_forever, daemon=True).start()
    from streamlit.web import cli

    sys.argv = ["streamlit", "run", "app.py", "--server.port", str(port),
                "--server.address", "127.0.0.1", "--server.headless", "true",
                "--server.fileWatcherType", "none", "--browser.gatherUsageStats", "false",
                "--server.disconnectedSessionTTL", str(ttl)]
    cli.main()


def start_server(log: Path, db: Path, ttl: int) -> tuple[subprocess.Popen[bytes], str, str]:
    """The child server, logged to `log`, once /_stcore/health answers: (process, app url,
    probe url)."""
    port, probe_port = free_port(), free_port()
    env = {k: v for k, v in os.environ.items()
           if k not in ("TYPESAFE_API_KEY", "TYPESAFE_BASE_URL")}  # no hosted judge
    env["JEVAL_DB"] = f"sqlite:///{db}"  # a throwaway store, never the user's
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [sys.executable, __file__, "--serve", str(port), "--probe-port", str(probe_port),
             "--session-ttl", str(ttl)], cwd=ROOT, stdout=out, stderr=subprocess.STDOUT, env=env)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            sys.exit(f"the server exited: {log.read_text()[-2000:]}")
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=1) as answer:
                if answer.status == 200:
                    return proc, url, f"http://127.0.0.1:{probe_port}/"
        except OSError:
            pass
        time.sleep(0.2)
    proc.kill()
    sys.exit("the server was not healthy within 120 s")


def show(when: str, probe_url: str) -> None:
    """Ask the probe (a full collection first) and print what it found."""
    with urllib.request.urlopen(probe_url, timeout=120) as answer:
        found = json.loads(answer.read())
    counts = ", ".join(f"{kind} {n}" for kind, n in found["objects"].items())
    held = found["held"]
    beyond = found["objects"]["AppSession"] - sum(held.values()) if held else "unknown"
    print(f"{when}: RSS {found['rss_mb']:.1f} MB, gc frozen {found['frozen']}\n"
          f"  live after gc.collect(): {counts}\n"
          f"  sessions Streamlit holds: {', '.join(f'{k} {n}' for k, n in held.items())}; "
          f"AppSessions beyond those: {beyond}", flush=True)


async def edit(page: Any, n: int) -> None:
    """Commit a changed text to one of the page's text areas; wait until its run is drawn."""
    areas = page.locator("[data-testid=stTextArea] textarea:visible")
    area = areas.nth(n % max(1, await areas.count()))
    text = re.sub(r" \(edit \d+\)$", "", await area.input_value()) + f" (edit {n})"
    before = await page.evaluate("window.__runsDone")
    await area.fill(text)
    await area.press("Control+Enter")
    await page.wait_for_function(DRAWN, arg=[before + 1, QUIET_MS], polling=100, timeout=90_000)


async def slot(browser: Any, url: str, args: argparse.Namespace, tally: Counter[str], first: float,
               end: float) -> None:
    """One of the --sessions places: a session after another until `end`; the first one
    stays `first` seconds, the others --session-minutes."""
    from playwright.async_api import Error

    stay = first
    while time.monotonic() + 2 * args.edit_every < end:  # time for an edit at least
        context = await browser.new_context(viewport={"width": 1280, "height": 1000})
        tally["opened"] += 1
        tally["open now"] += 1
        try:
            page = await context.new_page()
            await page.add_init_script(RUN_COUNTER)
            await page.goto(url)
            await page.wait_for_function(DRAWN, arg=[1, QUIET_MS], polling=100, timeout=120_000)
            leave = min(end, time.monotonic() + stay)
            n = 0
            while time.monotonic() + args.edit_every < leave:
                await asyncio.sleep(args.edit_every)
                n += 1
                try:
                    await edit(page, n)
                    tally["edits"] += 1
                except Error as e:
                    tally["edit errors"] += 1
                    print(f"  edit error: {str(e).splitlines()[0][:160]}", flush=True)
        except Error as e:
            tally["failed opens"] += 1
            print(f"  open error: {str(e).splitlines()[0][:160]}", flush=True)
        finally:
            await context.close()
            tally["open now"] -= 1
        stay = args.session_minutes * 60


async def sample(pid: int, tally: Counter[str], every: float, samples: list[tuple[float, float]],
                 done: asyncio.Event) -> None:
    started = time.monotonic()
    while True:
        minute, rss = (time.monotonic() - started) / 60, rss_mb(pid)
        samples.append((minute, rss))
        print(f"{minute:5.1f} min  RSS {rss:7.1f} MB  sessions opened {tally['opened']:4d} "
              f"(open {tally['open now']}, failed {tally['failed opens']})  "
              f"edits {tally['edits']:5d}  edit errors {tally['edit errors']}", flush=True)
        if done.is_set():  # the last line: every session closed
            return
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(done.wait(), every)


async def drive(pid: int, url: str, args: argparse.Namespace,
                samples: list[tuple[float, float]]) -> None:
    from playwright.async_api import async_playwright

    tally, done = Counter[str](), asyncio.Event()
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        sampler = asyncio.create_task(sample(pid, tally, args.sample_every, samples, done))
        end, stay = time.monotonic() + args.minutes * 60, args.session_minutes * 60
        await asyncio.gather(*(slot(browser, url, args, tally, stay * (i + 1) / args.sessions, end)
                               for i in range(args.sessions)))
        await browser.close()
        done.set()
        await sampler


def slopes(samples: list[tuple[float, float]], window: float) -> None:
    """The RSS slope (least squares) per `window` minutes of samples."""
    start = 0.0
    while start < samples[-1][0]:
        inside = [(m, r) for m, r in samples if start <= m <= start + window]
        if len(inside) >= 2:
            slope = statistics.linear_regression([m for m, _ in inside],
                                                 [r for _, r in inside]).slope
            print(f"  {start:5.1f}-{min(start + window, samples[-1][0]):5.1f} min: "
                  f"{slope:+7.2f} MB/min ({len(inside)} samples, "
                  f"{inside[0][1]:.1f} -> {inside[-1][1]:.1f} MB)")
        start += window


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sessions", type=int, default=12)
    parser.add_argument("--minutes", type=float, default=30.0)
    parser.add_argument("--edit-every", type=float, default=2.0, help="seconds")
    parser.add_argument("--session-minutes", type=float, default=3.0)
    parser.add_argument("--sample-every", type=float, default=30.0, help="seconds")
    parser.add_argument("--settle", type=float, default=10.0,
                        help="seconds from the last session's close to the final count")
    parser.add_argument("--session-ttl", type=int, default=120,
                        help="server.disconnectedSessionTTL (Streamlit's default: 120)")
    parser.add_argument("--serve", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--probe-port", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve is not None:
        serve(args.serve, args.probe_port, args.session_ttl)
        return
    tmp = Path(tempfile.mkdtemp(prefix="soak-"))
    proc, url, probe_url = start_server(tmp / "streamlit.log", tmp / "runs.db", args.session_ttl)
    print(f"server pid {proc.pid} at {url}, log {tmp / 'streamlit.log'}; {args.sessions} "
          f"sessions for {args.minutes} min, an edit every {args.edit_every} s, "
          f"{args.session_minutes} min per session", flush=True)
    samples: list[tuple[float, float]] = []
    try:
        show("before any session", probe_url)
        asyncio.run(drive(proc.pid, url, args, samples))
        time.sleep(args.settle)
        show(f"every session closed, {args.settle:.0f} s later", probe_url)
        print("RSS slope per 5-minute window:")
        slopes(samples, 5.0)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()


if __name__ == "__main__":
    main()

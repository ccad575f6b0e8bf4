"""`jeval app`: the Playground from an installed jeval, as `streamlit run app.py` serves it from a
clone, with the same settings (this machine only unless told otherwise).

The core never imports the app: this finds app.py on disk (the wheel's jeval_app/site/, or the
clone's top level) and hands it to Streamlit in a child process, which gets the terminal.
"""

from __future__ import annotations

import argparse
import importlib.util
import signal
import socket
import subprocess
import sys
import threading
import time
import tomllib
from pathlib import Path
from typing import Any

from ..errors import CaseError

ADDRESS = "127.0.0.1"
PORT = 8501


def add_parser(sub: Any) -> None:
    command = sub.add_parser(
        "app", help="open the Playground in your browser (Streamlit, 127.0.0.1:8501)",
        description="Serve the jeval playground. Options after -- go to `streamlit run` as "
        "they are, e.g. `jeval app -- --theme.base dark`.")
    command.add_argument("--port", type=int, default=PORT,
                         help=f"the port to serve on (default {PORT}; 0: the first free one)")
    command.add_argument("--address", default=ADDRESS,
                         help=f"the address to serve on (default {ADDRESS}: this machine only; "
                         "0.0.0.0 shows the app, and any key typed in it, to your network)")
    command.add_argument("--browser", action=argparse.BooleanOptionalAction, default=True,
                         help="open a browser tab (default: yes)")
    command.add_argument("streamlit_args", nargs=argparse.REMAINDER, metavar="-- ...",
                         help="any `streamlit run` option")
    command.set_defaults(run=_run_app)


def app_script() -> Path:
    """app.py: in the wheel beside the app's package, in a clone at the top level."""
    spec = importlib.util.find_spec("jeval_app")
    if spec is None or not spec.submodule_search_locations:
        raise CaseError("the app is not installed with this jeval: reinstall it with "
                        "`pip install jeval-playground`")
    package = Path(next(iter(spec.submodule_search_locations)))
    for script in (package / "site" / "app.py", package.parent / "app.py"):
        if script.is_file():
            return script
    raise CaseError(f"app.py is missing beside {package}: reinstall jeval-playground")


def settings(script: Path) -> dict[str, str]:
    """The app's own .streamlit/config.toml, as `section.key` -> value: Streamlit reads that
    file from the working directory only, and `jeval app` runs from anywhere."""
    config = script.parent / ".streamlit" / "config.toml"
    if not config.is_file():
        return {}
    return {f"{section}.{key}": str(value).lower() if isinstance(value, bool) else str(value)
            for section, values in tomllib.loads(config.read_text("utf-8")).items()
            for key, value in values.items()}


def command(args: argparse.Namespace) -> list[str]:
    """The `streamlit run` command line `jeval app` starts."""
    if not 0 <= args.port <= 65535:
        raise CaseError(f"--port {args.port}: give a port from 1 to 65535 (or 0)")
    if not args.address.strip():
        raise CaseError("--address: give an address such as 127.0.0.1")
    extra = list(args.streamlit_args)
    if extra[:1] == ["--"]:
        extra = extra[1:]
    script = app_script()
    # always headless: otherwise a first run asks for an e-mail on stdin (and, without a
    # terminal, exits 255 without a word); the browser tab is opened by `jeval app` itself
    chosen = settings(script) | {"server.address": args.address.strip(),
                                 "server.port": str(args.port),
                                 "server.headless": "true"}
    flags = [part for key, value in chosen.items() for part in (f"--{key}", value)]
    return [sys.executable, "-m", "streamlit", "run", str(script), *flags, *extra]


def free_port(address: str) -> int:
    """--port 0: the first free one, chosen here so that the tab opens at the right place."""
    with socket.socket() as probe:
        probe.bind((address, 0))
        return int(probe.getsockname()[1])


def browser_url(address: str, port: int) -> str:
    """Where a browser on this machine finds the app (any-address binds included)."""
    host = "127.0.0.1" if address in ("0.0.0.0", "::", "") else address
    return f"http://{f'[{host}]' if ':' in host else host}:{port}"


def open_when_ready(url: str, child: subprocess.Popen, deadline_s: float = 120) -> bool:
    """Open a browser tab on `url` once the app answers its health check; not at all if the
    server stopped first. True if a tab was asked for."""
    import webbrowser

    import httpx  # only for `jeval app`: the other commands never pay for it

    until = time.monotonic() + deadline_s
    while child.poll() is None and time.monotonic() < until:
        try:
            if httpx.get(f"{url}/_stcore/health", timeout=1).status_code == 200:
                webbrowser.open(url)
                return True
        except httpx.TransportError:
            pass
        time.sleep(0.1)
    return False


def _run_app(args: argparse.Namespace) -> int:
    if args.port == 0:
        try:
            args.port = free_port(args.address.strip())
        except OSError as err:
            raise CaseError(f"--address {args.address}: cannot serve there "
                            f"({err.strerror or err}); give an address of this machine") from err
    try:
        child = subprocess.Popen(command(args))
    except OSError as err:
        raise CaseError(f"cannot start Streamlit ({err.strerror or err}): reinstall "
                        "jeval-playground") from err
    if args.browser:
        threading.Thread(target=open_when_ready, daemon=True, name="jeval-app-browser",
                         args=(browser_url(args.address.strip(), args.port), child)).start()
    try:
        return child.wait()
    except KeyboardInterrupt:
        # Ctrl+C reached Streamlit too (one process group) and it stops on its own; SIGTERM
        # or SIGHUP reached jeval only: pass it on, and give the server time to close.
        child.send_signal(signal.SIGTERM)
        try:
            child.wait(timeout=10)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()
        raise

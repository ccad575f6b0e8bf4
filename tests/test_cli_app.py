"""`jeval app` and the bundled inputs, from a clone: the command line Streamlit is started
with, and the one-line answers to a wrong port, a missing file or an unknown example (the
installed wheel is tests/test_installed.py's)."""

from __future__ import annotations

import argparse
import subprocess
import sys
import threading
import webbrowser
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from conftest import ROOT, jeval_in_process

from jeval_core.commands import cli_app
from jeval_core.inputs import bundled


def app_line(*args: str) -> list[str]:
    parser = argparse.ArgumentParser()
    cli_app.add_parser(parser.add_subparsers())
    return cli_app.command(parser.parse_args(["app", *args]))


def flag(line: list[str], name: str) -> str:
    return line[len(line) - 1 - line[::-1].index(name) + 1]  # the last one given wins


def test_jeval_app_serves_this_clones_app_py_on_this_machine_only_by_default():
    line = app_line()
    assert line[1:4] == ["-m", "streamlit", "run"] and line[4] == str(ROOT / "app.py")
    assert flag(line, "--server.address") == "127.0.0.1"
    assert flag(line, "--server.port") == "8501"


def test_jeval_app_carries_the_apps_own_streamlit_settings():
    """Streamlit reads .streamlit/config.toml from the working folder only: `jeval app` runs
    from anywhere, so the settings travel as flags (no error details shown to visitors)."""
    line = app_line("--no-browser")
    assert flag(line, "--client.showErrorDetails") == "none"
    assert flag(line, "--runner.magicEnabled") == "false"
    assert flag(line, "--server.headless") == "true"


def test_jeval_app_never_lets_streamlit_ask_for_an_email():
    """Streamlit not headless asks a first-time user for an e-mail on stdin, and without a
    terminal exits 255 without a word: `jeval app` runs it headless and opens the tab itself."""
    assert flag(app_line(), "--server.headless") == "true"


class Health(BaseHTTPRequestHandler):
    """Answers Streamlit's health check once `ready` is set (503 before)."""

    ready = threading.Event()

    def do_GET(self) -> None:
        ok = self.path == "/_stcore/health" and self.ready.is_set()
        self.send_response(200 if ok else 503)
        self.end_headers()

    def log_message(self, *args) -> None:
        pass


def test_the_tab_opens_once_the_app_answers(monkeypatch):
    opened: list[str] = []
    monkeypatch.setattr(webbrowser, "open", opened.append)
    server = ThreadingHTTPServer(("127.0.0.1", 0), Health)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    running = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        url = cli_app.browser_url("127.0.0.1", server.server_address[1])
        threading.Timer(0.5, Health.ready.set).start()
        assert cli_app.open_when_ready(url, running) is True
    finally:
        running.kill()
        running.wait()
        server.shutdown()
        server.server_close()
    assert opened == [url]


def test_no_tab_opens_for_a_server_that_stopped(monkeypatch):
    opened: list[str] = []
    monkeypatch.setattr(webbrowser, "open", opened.append)
    stopped = subprocess.Popen([sys.executable, "-c", "raise SystemExit(1)"])
    stopped.wait()
    assert cli_app.open_when_ready("http://127.0.0.1:9", stopped) is False and opened == []


def test_a_tab_for_an_app_served_on_every_address_opens_on_this_machine():
    assert cli_app.browser_url("0.0.0.0", 8501) == "http://127.0.0.1:8501"
    assert cli_app.browser_url("::1", 8501) == "http://[::1]:8501"


def test_options_after_a_double_dash_go_to_streamlit_as_they_are():
    line = app_line("--port", "9001", "--", "--theme.base", "dark")
    assert line[-2:] == ["--theme.base", "dark"] and flag(line, "--server.port") == "9001"


def test_a_port_out_of_range_is_one_line(capsys):
    code, out, err = jeval_in_process(capsys, "app", "--port", "70000")
    assert code == 2 and err.count("\n") == 1 and "1 to 65535" in err


def test_score_without_a_file_or_an_example_says_how_to_give_one(capsys):
    code, out, err = jeval_in_process(capsys, "score")
    assert code == 2 and "--example NAME" in err and "jeval examples" in err


def test_an_example_names_the_shipped_file(capsys):
    code, out, err = jeval_in_process(capsys, "request", "--example", "noisy_retrieval")
    assert code == 0 and "Driftbox" in out


def test_a_dataset_is_not_an_example_case(capsys):
    code, out, err = jeval_in_process(capsys, "score", "--example", "sample")
    assert code == 2 and "no bundled example called 'sample'" in err


def test_a_file_and_an_example_together_are_refused_where_one_is_read(capsys):
    code, out, err = jeval_in_process(capsys, "run", str(bundled.path("datasets",
                                      "sample.jsonl")), "--example", "sample")
    assert code == 2 and "not both" in err


def test_in_a_clone_the_bundled_files_are_assets():
    assert bundled.root() == ROOT / "assets"
    names = {item.name for item in bundled.listing()}
    assert {"jev_pricing", "sample", "labelled_helpdesk", "number_not_in_context"} <= names

"""`pip install` is enough: the wheel built from this repository, installed in a fresh venv and
run from a folder far from any clone, serves the app (`jeval app`) with the seed scored and
runs the README's commands on the examples it ships (`jeval examples`, `--example NAME`)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from browser import CHROMIUM, AppServer, fresh
from conftest import ROOT
from jev_servers import free_port

# What the wheel is built from: the package's sources and the files it ships, nothing else.
SOURCES = ("pyproject.toml", "README.md", "app.py", ".streamlit", "pages", "jeval_core",
           "jeval_app", "assets")


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv with the built wheel and its dependencies (from the package index or
    uv's cache), and nothing of this clone on its path: its bin folder."""
    work = tmp_path_factory.mktemp("wheel")
    source = work / "source"
    source.mkdir()
    for name in SOURCES:
        copy = shutil.copytree if (ROOT / name).is_dir() else shutil.copy2
        copy(ROOT / name, source / name, **({"ignore": shutil.ignore_patterns(
            "__pycache__")} if (ROOT / name).is_dir() else {}))
    # uv builds and installs as pip would (the same wheel, the same index and resolution),
    # in seconds where pip takes ~45 s here.
    uv = [sys.executable, "-m", "uv", "--quiet"]
    subprocess.run([*uv, "build", "--wheel", "-o", str(work / "dist"), str(source)],
                   check=True, capture_output=True, timeout=600)
    wheel = next((work / "dist").glob("jeval_playground-*.whl"))
    venv = work / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True,
                   timeout=300)
    subprocess.run([*uv, "pip", "install", "--python", str(venv / "bin" / "python"), str(wheel)],
                   check=True, capture_output=True, timeout=1200)
    return venv / "bin"


def jeval(bin_dir: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "TYPESAFE_API_KEY")}
    env["JEVAL_DB"] = f"sqlite:///{cwd / 'runs.db'}"
    return subprocess.run([str(bin_dir / "jeval"), *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=600)


def test_the_installed_jeval_is_the_wheels_not_the_clones(installed, tmp_path):
    where = subprocess.run([str(installed / "python"), "-c", "import jeval_core, jeval_app; "
                            "print(jeval_core.__file__); print(jeval_app.__file__)"],
                           cwd=tmp_path, capture_output=True, text=True, check=True).stdout
    assert str(ROOT) not in where and "site-packages" in where


def test_jeval_examples_lists_what_ships_by_name(installed, tmp_path):
    done = jeval(installed, "examples", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    for name in ("jev_pricing", "noisy_retrieval", "sample", "labelled_helpdesk",
                 "states_a_limit"):
        assert f"  {name} " in done.stdout
    assert "site-packages" in done.stdout  # they lie in the package, not in a clone


def test_the_readme_first_command_scores_the_seed_example(installed, tmp_path):
    done = jeval(installed, "score", "--example", "jev_pricing", "--format", "json",
                 cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)["results"]["chunk_relevance"]
    assert (result["score"], result["passed"]) == (0.5, True)


def test_a_shipped_dataset_runs_and_sweeps_by_name(installed, tmp_path):
    ran = jeval(installed, "run", "--example", "sample", "--evaluators", "chunk_relevance",
                cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr
    assert "cases: 45 ·" in ran.stdout
    swept = jeval(installed, "sweep", "--example", "sample", "--format", "json", cwd=tmp_path)
    assert swept.returncode == 0, swept.stderr
    assert len(json.loads(swept.stdout)["cases"]) == 45


def test_a_shipped_evaluator_file_is_taken_by_name(installed, tmp_path):
    done = jeval(installed, "score", "--example", "jev_pricing", "--evaluators-file",
                 "states_a_limit", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "states_a_limit" in done.stdout


def test_an_unknown_example_is_one_line_naming_those_there_are(installed, tmp_path):
    done = jeval(installed, "score", "--example", "jev_pricng", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "jev_pricing" in done.stderr


def test_jeval_app_on_a_first_run_opens_the_tab_without_asking_anything(installed, tmp_path):
    """A home where Streamlit never ran and no terminal: the app serves, and the tab opens
    on its address (through $BROWSER, which records it) once it answers."""
    seen = tmp_path / "opened.txt"
    browser = tmp_path / "browser"
    browser.write_text(f'#!/bin/sh\necho "$1" > {seen}\n')
    browser.chmod(0o755)
    port = free_port()
    server = AppServer(port, tmp_path / "app.log", cwd=tmp_path,
                       env={"HOME": str(tmp_path), "BROWSER": str(browser)},
                       command=[str(installed / "jeval"), "app", "--port", str(port)])
    try:
        for _ in range(100):
            if seen.exists():
                break
            time.sleep(0.1)
    finally:
        server.stop()
    assert seen.read_text().strip() == server.url
    assert "Email" not in (tmp_path / "app.log").read_text()


@pytest.mark.browser
@pytest.mark.skipif(not Path(CHROMIUM).exists() and not os.environ.get("CI"),
                    reason="Debian chromium is not installed (apt-get install chromium)")
def test_jeval_app_serves_the_pages_with_what_ships(chromium, installed, tmp_path):
    """The Playground with the seed scored, the Dashboard's example runs, the Metrics page."""
    port = free_port()
    server = AppServer(port, tmp_path / "app.log", cwd=tmp_path,
                       command=[str(installed / "jeval"), "app", "--port", str(port),
                                "--no-browser"])
    try:
        with fresh(chromium) as browser:
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            page.goto(server.url)
            page.get_by_text("2 of 4 chunks relevant").first.wait_for(timeout=90_000)
            assert page.get_by_text("Playground").first.is_visible()
            # the shipped example runs seed a new history; the Metrics page reads the examples
            page.goto(f"{server.url}/runs")
            page.get_by_text("example runs of the sample dataset").first.wait_for(
                timeout=90_000)
            page.goto(f"{server.url}/evaluators")
            page.get_by_text("What to send").first.wait_for(timeout=60_000)
            browser.close()
    finally:
        server.stop()
    log = (tmp_path / "app.log").read_text()
    assert "Traceback" not in log and "127.0.0.1" in log

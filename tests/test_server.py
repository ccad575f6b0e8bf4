"""How app.py is served: `streamlit run app.py` finds its App, whose start readies the server."""

import subprocess
import sys
from pathlib import Path

from streamlit.web.server.app_discovery import discover_asgi_app

ROOT = Path(__file__).resolve().parent.parent

STARTED = """
import asyncio, sys
from streamlit.runtime.pages_manager import PagesManager
from jeval_app import resources, server

async def start():
    async with server.lifespan(None):
        print(resources.offline_judge_ready("local"), "profanity_check" in sys.modules,
              "pyarrow" in sys.modules, PagesManager.uses_pages_directory)

asyncio.run(start())
"""


def test_streamlit_run_serves_app_py_with_the_app_it_defines():
    found = discover_asgi_app(ROOT / "app.py")
    assert found.is_asgi_app
    assert found.import_string == "app:app"


def test_a_starting_server_loads_the_judges_models_and_lets_navigation_choose_pages():
    """Before the server says it is ready: the local judge's model and its profanity model
    (used by toxicity), the table library, and no old-style pages folder for the first run.
    In a fresh process: the load is what is checked."""
    out = subprocess.run([sys.executable, "-c", STARTED], cwd=ROOT, capture_output=True,
                         text=True, timeout=300, check=True)
    assert out.stdout.split() == ["True", "True", "True", "False"], out.stderr[-2000:]

"""When a reloaded Playground shows its editor, next to when it shows its results.

    python bench/first_screen.py [--visits 6]

Starts the app on a loopback port and opens it `--visits` times in new browser profiles
(no cache). On the page's own clock, from the page's first script: when the seed's label
("50% yes") is on the page, and when the first text area of the editor is. Streamlit loads
a widget's code only when a run first draws one; the editor's widgets are loaded with the
page (pages/app/server.py), so the gap between the two is what is left. Prints each visit
and the medians with the load average; asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))
from browser import AppServer, launch  # noqa: E402
from jev_servers import free_port  # noqa: E402

SHOWN = """() => new Promise(done => {
  const t0 = performance.now(); let results = null, editor = null;
  const tick = () => {
    const now = performance.now() - t0;
    if (results === null && document.body.innerText.includes('50% yes')) results = now;
    if (editor === null && document.querySelector("[data-testid='stTextArea'] textarea"))
      editor = now;
    if ((results !== null && editor !== null) || now > 30000) return done([results, editor]);
    requestAnimationFrame(tick);
  };
  tick();
})"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--visits", type=int, default=6)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["JEVAL_DB"] = f"sqlite:///{tmp}/runs.db"
        app = AppServer(free_port(), Path(tmp) / "streamlit.log")
        gaps, editors = [], []
        try:
            with sync_playwright() as p:
                browser = launch(p)
                for visit in range(args.visits):
                    context = browser.new_context(viewport={"width": 1280, "height": 900})
                    page = context.new_page()
                    page.goto(app.url, wait_until="commit")
                    results, editor = page.evaluate(SHOWN)
                    context.close()
                    print(f"visit {visit + 1}: results {results:.0f} ms, editor {editor:.0f} ms")
                    gaps.append(editor - results)
                    editors.append(editor)
                browser.close()
        finally:
            app.stop()
    load = os.getloadavg()[0]
    print(f"median: editor at {statistics.median(editors):.0f} ms, "
          f"{statistics.median(gaps):.0f} ms after the results (load average {load:.1f})")


if __name__ == "__main__":
    main()

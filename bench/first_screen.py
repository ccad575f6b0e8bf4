"""When a reloaded Playground shows its case and its results, and how long the case's text
areas stand as grey placeholders before that.

    python bench/first_screen.py [--visits 6]

Starts the app on a loopback port and opens it `--visits` times in new browser profiles
(no cache). On the page's own clock, from the page's first script, it notes when each of
these is first visible (CSS visibility and opacity count, the element's and its boxes'):
- the case's first text area as Streamlit's grey placeholder (it loads a widget's code only
  when a run first draws one);
- the first text area itself;
- the first verdict: any text of the results column or of a chunk's box (its p).
The results column and the chunks' boxes stand transparent while the case's text areas are
placeholders (jeval_app/style.py), so the last two should read the same. Prints each visit and
the medians with the load average; asserts nothing.
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
  const seen = el => el !== null && el !== undefined
    && el.checkVisibility({visibilityProperty: true, opacityProperty: true});
  const at = {grey: null, editor: null, results: null};
  const tick = () => {
    const now = performance.now();
    const card = [...document.querySelectorAll(
      ".st-key-results [data-testid='stMarkdownContainer'], "
      + "[class*='st-key-chunkbox_'] [data-testid='stMarkdownContainer']")].find(seen);
    const shown = {
      grey: document.querySelector(".st-key-input [data-testid='stSkeleton']"),
      editor: document.querySelector("[data-testid='stTextArea'] textarea"),
      results: card,
    };
    for (const what in shown) if (at[what] === null && seen(shown[what])) at[what] = now;
    if ((at.editor !== null && at.results !== null) || now > 30000) return done(at);
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
        seen: list[dict] = []
        try:
            with sync_playwright() as p:
                browser = launch(p)
                for visit in range(args.visits):
                    context = browser.new_context(viewport={"width": 1280, "height": 900})
                    page = context.new_page()
                    page.goto(app.url, wait_until="commit")
                    at = page.evaluate(SHOWN)
                    context.close()
                    grey = "never" if at["grey"] is None else f"{at['grey']:.0f} ms"
                    print(f"visit {visit + 1}: placeholders {grey}, editor {at['editor']:.0f} "
                          f"ms, results {at['results']:.0f} ms")
                    seen.append(at)
                browser.close()
        finally:
            app.stop()
    load = os.getloadavg()[0]
    editor = statistics.median(a["editor"] for a in seen)
    lead = statistics.median(a["editor"] - a["results"] for a in seen)
    grey = statistics.median(a["editor"] - (a["grey"] if a["grey"] is not None else a["editor"])
                             for a in seen)
    print(f"median: editor at {editor:.0f} ms, results {lead:.0f} ms before it, placeholders "
          f"standing {grey:.0f} ms (load average {load:.1f})")


if __name__ == "__main__":
    main()

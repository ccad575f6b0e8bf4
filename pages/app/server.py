"""How app.py is served: a fresh server gets ready before it says it is ready.

Streamlit runs no app code before the first visitor's run, so that visitor used to wait for
the judge's model, the table library and the pages' imports (~2 s of a fresh server's first
run here). The App's lifespan loads them while the server starts instead: the server
accepts connections once they are loaded (a page opened meanwhile waits).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any


@contextlib.asynccontextmanager
async def lifespan(app: Any) -> AsyncIterator[None]:
    from pages.app import resources

    serve_by_navigation()
    await asyncio.to_thread(resources.warm_up)
    await asyncio.to_thread(import_the_views)
    yield


def import_the_views() -> None:
    """What the default page's first run imports (the views and the table and chart code
    they bring), so that its first visitor does not wait for it either."""
    with contextlib.suppress(Exception):  # on failure the page imports it and says why
        import pages.app.views.playground  # noqa: F401
        import pages.app.views.stored_run  # noqa: F401


def serve_by_navigation() -> None:
    """Let app.py's st.navigation choose the page from the first run on.

    Until st.navigation first runs, Streamlit treats a pages/ folder beside the main script
    as the old kind of multipage app: a fresh server's first run would look a link such as
    /evaluators up among pages/'s file names and show "page not found" before app.py opened
    the page. This is the value st.navigation sets on its first run, set before any run.

    Still needed: pages/ stays beside app.py (the product's layout, and the scripts app.py
    names), and Streamlit sees any folder of that name there; only the flag it reads is
    private (streamlit.runtime.pages_manager), which test_server checks on every upgrade.
    """
    from streamlit.runtime.pages_manager import PagesManager

    PagesManager.uses_pages_directory = False

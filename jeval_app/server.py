"""How app.py is served: a fresh server gets ready before it says it is ready.

Streamlit runs no app code before the first visitor's run, so that visitor used to wait for
the judge's model, the table library and the pages' imports (~2 s of a fresh server's first
run here). The App's lifespan loads them while the server starts instead: the server
accepts connections once they are loaded (a page opened meanwhile waits).
"""

from __future__ import annotations

import asyncio
import contextlib
import gzip
from collections.abc import AsyncIterator
from typing import Any


@contextlib.asynccontextmanager
async def lifespan(app: Any) -> AsyncIterator[None]:
    from jeval_app import resources

    serve_by_navigation()
    await asyncio.to_thread(resources.warm_up)
    await asyncio.to_thread(import_the_views)
    yield


def import_the_views() -> None:
    """What the default page's first run imports (the views and the table and chart code
    they bring), so that its first visitor does not wait for it either."""
    with contextlib.suppress(Exception):  # on failure the page imports it and says why
        import jeval_app.views.playground  # noqa: F401
        import jeval_app.views.stored_run  # noqa: F401


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


class PageStyle:
    """ASGI middleware: the app's few style rules go into its HTML page's <head>, so every
    page stands as they put it from the first frame. Drawn as an element instead, they
    waited for that element's code to load, and a page moved 56 px up half a second after
    it appeared. Every other response passes untouched."""

    def __init__(self, app: Any) -> None:
        from jeval_app.style import css

        self.app = app
        self.style = css().encode("utf-8")

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope.get("method") != "GET":
            await self.app(scope, receive, send)
            return
        start: dict[str, Any] = {}
        body: list[bytes] = []

        async def rewrite(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                headers = dict(message.get("headers") or [])
                if not headers.get(b"content-type", b"").startswith(b"text/html"):
                    start["pass"] = True
                    await send(message)
                    return
                start["message"] = message
                return
            if start.get("pass") or message["type"] != "http.response.body":
                await send(message)
                return
            body.append(message.get("body", b""))
            if message.get("more_body"):
                return
            page = b"".join(body)
            head = start["message"]
            gzipped = dict(head.get("headers") or []).get(b"content-encoding") == b"gzip"
            if gzipped:  # the page routes compress it themselves: 8 KB, sent as it is
                page = gzip.decompress(page)
            page = page.replace(b"</head>", self.style + b"</head>", 1)
            headers = [(k, v) for k, v in head.get("headers") or []
                       if k.lower() not in (b"content-length", b"content-encoding")]
            headers.append((b"content-length", str(len(page)).encode("ascii")))
            await send({**head, "headers": headers})
            await send({"type": "http.response.body", "body": page})

        await self.app(scope, receive, rewrite)

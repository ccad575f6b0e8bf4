"""The app's style rules (style.css, and one rule that names a session key), as the server
puts them into every page's <head>."""

from __future__ import annotations

from pathlib import Path

from jeval_app.state import INPUT

# The Playground's results column (its container's key) and each chunk's box (its verdict,
# its "why" words, its coloured edge): they stand hidden while the case's first text area is
# still Streamlit's grey placeholder, which it is only while a freshly loaded page fetches
# the text areas' code. So the case and its verdicts appear together, never verdicts beside
# grey boxes. (Naming that code in the page's <head> to fetch it sooner was measured: ~0.1 s.)
RESULTS = "results"
CHUNK_BOX = "chunkbox_"  # + the chunk's id


def css() -> str:
    """Every rule, in one <style> element: our own constant text, never a visitor's."""
    rules = Path(__file__).with_name("style.css").read_text("utf-8")
    loading = f'.stApp:has(.st-key-{INPUT} [data-testid="stSkeleton"])'
    hidden = (f'{loading} .st-key-{RESULTS}, {loading} [class*="st-key-{CHUNK_BOX}"] '
              "{ opacity: 0; }\n")
    return f"<style>\n{rules}{hidden}</style>"

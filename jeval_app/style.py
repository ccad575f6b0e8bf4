"""The app's style rules (style.css, and one rule that names a session key), as the server
puts them into every page's <head>."""

from __future__ import annotations

from pathlib import Path

from jeval_app.state import INPUT

# The Playground's results column (its container's key): it stands hidden while the case's
# first text area is still Streamlit's grey placeholder, which it is only while a freshly
# loaded page fetches the text areas' code. So the case and its results appear together.
RESULTS = "results"


def css() -> str:
    """Every rule, in one <style> element: our own constant text, never a visitor's."""
    rules = Path(__file__).with_name("style.css").read_text("utf-8")
    hidden = (f'.stApp:has(.st-key-{INPUT} [data-testid="stSkeleton"]) .st-key-{RESULTS} '
              "{ visibility: hidden; }\n")
    return f"<style>\n{rules}{hidden}</style>"

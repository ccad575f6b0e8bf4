"""What every page opens with: its title and what it is for (the style rules are in the
page's <head>: jeval_app/server.py)."""

from __future__ import annotations

import streamlit as st


def frame(title: str, caption: str | None = None) -> None:
    st.title(title)
    if caption:
        st.caption(caption)

"""What every page opens with: the style rules, its title and what it is for."""

from __future__ import annotations

import streamlit as st

from pages.app.views.report import style


def frame(title: str, caption: str | None = None) -> None:
    style()
    st.title(title)
    if caption:
        st.caption(caption)

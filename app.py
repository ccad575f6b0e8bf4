"""jeval playground: navigation and the judge settings in the sidebar; nothing else."""

from pathlib import Path

import streamlit as st

from pages import session

ASSETS = Path(__file__).resolve().parent / "assets"

st.set_page_config(page_title="jeval playground", page_icon=str(ASSETS / "icon.png"),
                   layout="wide")
st.logo(str(ASSETS / "logo.png"), size="large")
session.ensure_case()  # before the sidebar: a share link may choose the judge
session.judge_settings()
# url_path differs from the file names on purpose: Streamlit still scans pages/ the old way on
# a fresh server's first request, and a matching name would run the page without this file.
st.navigation([
    st.Page("pages/playground.py", title="Playground", default=True, url_path="live"),
    st.Page("pages/metrics.py", title="Metrics", url_path="evaluators"),
]).run()

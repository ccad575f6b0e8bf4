"""jeval playground: navigation and the judge settings in the sidebar; nothing else."""

from pathlib import Path

import streamlit as st

from pages import session

ASSETS = Path(__file__).resolve().parent / "assets"

st.set_page_config(page_title="jeval playground", page_icon=str(ASSETS / "icon.png"),
                   layout="wide")
st.logo(str(ASSETS / "logo.png"), size="large")
session.ensure_case()  # before the sidebar: a share link may choose the judge
# A pages/ folder next to this file makes Streamlit run a fresh server's first request the old
# way: this file as a page of the folder. url_path differs from the file names so that no such
# page can run without this file. And st.navigation comes before any widget of this file: a
# widget's id includes the hash of the script that draws it, which is the old-way page's on
# that first run and this file's on every later one, but this file's on both once st.navigation
# has run. A widget drawn before it would get a new id on the next run and lose the first click.
page = st.navigation([
    st.Page("pages/playground.py", title="Playground", default=True, url_path="live"),
    st.Page("pages/dataset.py", title="Dataset", url_path="datasets"),
    st.Page("pages/compare.py", title="Compare", url_path="judges"),
    st.Page("pages/dashboard.py", title="Dashboard", url_path="runs"),
    st.Page("pages/metrics.py", title="Metrics", url_path="evaluators"),
])
if page.title in ("Playground", "Dataset", "Compare"):  # Metrics and Dashboard judge nothing
    session.judge_settings()
if page.title == "Playground":
    session.presentation_toggle()
page.run()

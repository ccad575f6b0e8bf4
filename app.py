"""jeval playground: navigation only. Pages live in pages/, scoring in jeval_core."""

import streamlit as st

st.set_page_config(page_title="jeval playground", layout="wide")
st.navigation([st.Page("pages/playground.py", title="Playground", default=True)]).run()

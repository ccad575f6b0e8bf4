"""Playground: edit one case and see every question, probability and verdict, live."""

import streamlit as st

from pages.app.views import playground, report


def page() -> None:
    report.style()
    playground.one_history_entry_per_page()
    st.title("Playground")
    st.caption("Which retrieved chunks were noise, and is the answer grounded? Every question "
               "below goes to the judge in one request.")
    playground.workbench()  # its own error boundary: it reruns on its own


page()

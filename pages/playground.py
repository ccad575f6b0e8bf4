"""Playground: edit one case and see every question, probability and verdict, live."""

import streamlit as st

from jeval_app.scoring_policy import hosted_awaited
from jeval_app.views import case_link, playground


def page() -> None:
    st.title("Playground")
    st.caption("Which retrieved chunks were noise, and is the answer grounded? Every question "
               "below goes to the judge in one request.")
    playground.workbench()  # its own error boundary: it reruns on its own
    if hosted_awaited():  # a server judge's answer, awaited in the background
        playground.hosted_poller()
    # Last: an HTML element stands as a placeholder until its code has loaded, and at the
    # top it pushed the title down for the first half second of a visit.
    case_link.one_history_entry_per_page()


page()

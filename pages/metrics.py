"""Metrics: every evaluator documented from jeval_core itself, never by hand; the session's
own (custom) evaluators after the built-in ones."""

import streamlit as st

from jeval_app import custom
from jeval_app.views.boundary import boundary
from jeval_app.views.frame import frame
from jeval_app.views.metrics_page import evaluator_card
from jeval_core.evaluators import ALL


def page() -> None:
    frame("Metrics", "Generated from the evaluator modules in jeval_core: the question "
          "templates below are the exact texts the judge receives, with {i} (and {j}) standing "
          "for the item's index. Every threshold is a default: set your own per run.")
    with boundary():
        for evaluator in ALL:
            evaluator_card(evaluator)
        st.header("Your own evaluators")
        own = custom.known()
        if not own:
            st.caption("None yet: write one with New evaluator in the Playground, or load a "
                       "TOML file there; kept ones (in the run store) show here in every "
                       "session.")
        for evaluator in own.values():
            evaluator_card(evaluator)


page()

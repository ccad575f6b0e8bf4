"""Compare: one dataset scored by two or three judges, side by side."""

from jeval_app.views import compare_page
from jeval_app.views.boundary import boundary
from jeval_app.views.frame import frame


def page() -> None:
    frame("Compare judges", "One dataset scored by two or three judges: how often they "
          "agree, how their p correlate, how each does against the human chunk labels, where "
          "they disagree most, and the retriever against the reranker.")
    with boundary():
        compare_page.body()


page()

"""Dataset: score a whole file of cases, watch it run, then read the run."""

from jeval_app.views import dataset_page
from jeval_app.views.boundary import boundary
from jeval_app.views.frame import frame


def page() -> None:
    frame("Dataset", "Score a whole dataset: upload JSONL, CSV or a JSON array (or take the "
          "sample), pick a judge, evaluators and thresholds, run it, then read the cases, the "
          "aggregates and the charts. Every run is stored.")
    with boundary():
        dataset_page.body()


page()

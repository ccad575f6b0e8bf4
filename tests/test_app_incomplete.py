"""A case whose attached metric was skipped is INCOMPLETE on the pages, never a pass."""

import re

from conftest import load_case
from streamlit.testing.v1 import AppTest

from jeval_core import evaluators
from jeval_core.inputs import share


def test_the_playground_calls_a_case_with_a_skipped_metric_incomplete():
    case = load_case("jev_pricing")  # no `expected`: contextual_recall is skipped
    chosen = evaluators.resolve(["chunk_relevance", "contextual_recall"])
    at = AppTest.from_file("../app.py", default_timeout=60)
    at.query_params["case"] = share.encode(case, chosen, "local")
    at.run()
    assert not at.exception
    band = [m.value for m in at.markdown if re.match(r"## :\w+\[", m.value)]
    assert band and band[0].startswith("## :orange[INCOMPLETE]")

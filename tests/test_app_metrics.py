"""The Metrics page: generated from jeval_core, one section per evaluator."""

from streamlit.testing.v1 import AppTest

from jeval_core.evaluators import ALL, EVALUATORS


def test_every_evaluator_is_documented_with_its_template_verbatim():
    at = AppTest.from_file("../app.py", default_timeout=60).run()
    at.switch_page("pages/metrics.py").run()
    assert not at.exception
    assert [h.value for h in at.subheader] == list(EVALUATORS)
    codes = [c.value for c in at.code]
    for evaluator in ALL:
        assert evaluator.template in codes

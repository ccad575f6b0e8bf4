"""The app renders the seed example scored, with its questions verbatim (AppTest)."""

from streamlit.testing.v1 import AppTest
from test_questions import SEED_QUESTIONS


def test_the_playground_shows_the_seed_example_scored():
    at = AppTest.from_file("../app.py", default_timeout=30).run()
    assert not at.exception
    assert "50% yes" in [m.value for m in at.metric]
    table = at.dataframe[0].value
    assert list(table["question (verbatim)"]) == SEED_QUESTIONS

"""The devx judge in the Playground: devx-ai's numbers on the cards, with its formula."""

import re

from conftest import load_case, markdown
from streamlit.testing.v1 import AppTest

from jeval_core import evaluators, judges, score
from jeval_core.inputs import share


def shown(texts) -> str:
    """What markdown-escaped texts (or elements) read on screen."""
    return "\n".join(re.sub(r"\\(.)", r"\1", getattr(t, "value", t)) for t in texts)


def test_the_playground_shows_devx_ais_numbers_and_formulas():
    case = load_case("hallucinated_answer")
    chosen = evaluators.resolve(["faithfulness", "answer_relevancy", "hallucination",
                                 "toxicity"])
    expected = score(case, chosen, judges.get("devx")).results
    at = AppTest.from_file("../app.py", default_timeout=60)
    at.query_params["case"] = share.encode(case, chosen, "devx")
    at.run()
    assert not at.exception
    for result in expected.values():
        assert f"**{result.label}**" in shown(markdown(at))
    assert "significant tokens found nowhere in the context" in shown(at.caption)
    assert "similarity(output, context) = 0.65 × Dice" in shown(at.caption)

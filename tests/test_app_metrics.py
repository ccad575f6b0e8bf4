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


def test_each_evaluator_says_what_to_send_how_to_aggregate_and_its_faq():
    """Seed 000's sections, generated: the example request is the seed case (or the example
    with `expected`), the FAQ says one call, and chunk evaluators aggregate with P/R/F1."""
    import json

    from jeval_core import evaluator_docs

    at = AppTest.from_file("../app.py", default_timeout=60).run()
    at.switch_page("pages/metrics.py").run()
    assert not at.exception
    codes = [c.value for c in at.code]
    text = "\n".join(m.value for m in at.markdown)
    for evaluator in ALL:
        request = evaluator_docs.example_request(evaluator)
        assert json.dumps(request, indent=2, ensure_ascii=False) in codes
        assert request["evaluators"] == [evaluator.name]
        title = evaluator.name.replace("_", " ")
        assert f"How many Jev calls does {title} make?" in text
    seed = evaluator_docs.example_request(EVALUATORS["chunk_relevance"])
    assert seed["input"] == "How is Jev priced, and are output tokens billed?"
    chunk = evaluator_docs.docs(EVALUATORS["chunk_relevance"])
    assert chunk.example_questions == 4
    assert [a.name for a in chunk.aggregate_with][-2:] == [
        "precision, recall and F1 (with labels)", "precision@k (rankings)"]
    assert "precision@k (rankings)" not in [
        a.name for a in evaluator_docs.docs(EVALUATORS["toxicity"]).aggregate_with]
    assert "**What to send**" in text and "**Aggregate with**" in text and "**FAQ**" in text

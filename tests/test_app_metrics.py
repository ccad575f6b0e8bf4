"""The Metrics page: generated from jeval_core, one section per evaluator."""

import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from jeval_core import evaluator_docs
from jeval_core.evaluators import ALL, EVALUATORS
from jeval_core.inputs import evaluator_files

OWN = sorted((Path(__file__).resolve().parent.parent / "assets" / "evaluators").glob("*.toml"))
EVERY = [*ALL, *evaluator_files.evaluators(evaluator_files.read(OWN)).values()]
# What generated text garbled before: a verb taken for a noun ("Every chunk is's question",
# "many chunks are cost"), a number that does not agree ("1 questions"), a name that is no
# noun phrase ("does states a limit make"), a word twice.
GARBLED = re.compile(r"\b(is|are)'s\b|\b(is|are) cost\b|\b1 \w+s\b|\b(\w+) \3\b|"
                     r"does [a-z]+ [a-z]+ [a-z]+ make")


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


@pytest.mark.parametrize("evaluator", EVERY, ids=[e.name for e in EVERY])
def test_every_generated_sentence_reads_as_written_english(evaluator):
    docs = evaluator_docs.docs(evaluator)
    texts = [docs.result_shape, evaluator_docs.asks(docs.example_questions),
             evaluator_docs.asks(1)]
    for question, answer in docs.faq:
        assert question[0].isupper() and question.endswith("?"), question
        texts += [question, answer]
        for sentence in re.split(r"(?<=[.?])\s+", answer):
            assert sentence[0].isupper() or sentence[0] == "$", sentence
            assert sentence.endswith((".", ")")), sentence
    for text in texts:
        assert not GARBLED.search(text), text


def test_the_seed_evaluators_first_answer_reads_as_seed_000s():
    question, answer = evaluator_docs.docs(EVALUATORS["chunk_relevance"]).faq[0]
    assert question == "How many Jev calls does chunk relevance make?"  # seed 000's words
    assert answer.startswith("One. Every chunk's question is packed into the same request, "
                             "together with every other evaluator's: the example below asks "
                             "about 4 chunks in one call, which costs roughly the tokens of "
                             "the state plus 4 short questions.")


def test_the_example_request_is_seed_000s_exactly():
    # seed 000's "What to send", field for field (its answer is "…": it is not read)
    assert evaluator_docs.example_request(EVALUATORS["chunk_relevance"]) == {
        "evaluators": ["chunk_relevance"],
        "input": "How is Jev priced, and are output tokens billed?",
        "output": "…",
        "context": ["Price: $42 per billion input tokens. Output tokens are free.",
                    "Rate limits: 1,200 rpm.", "Founded in 2024.",
                    "Output billed at $8/M on the legacy v0 endpoint, deprecated."]}

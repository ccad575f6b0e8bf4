"""Questions: the verbatim text the judge receives and the state names it relies on."""

import re

import pytest
from conftest import EXAMPLES, load_case

from jeval_core import Case, evaluators, sentences
from jeval_core.evaluators import chunk_relevance
from jeval_core.questions import NAMED, Operand, Question
from jeval_core.request import pack

E = evaluators.EVALUATORS

# Copied from seed 000, "The question, verbatim".
SEED_QUESTIONS = [
    "`context[0]` contains information that helps answer `input` (or supports `expected` if "
    "present). Judge this chunk on its own.",
    "`context[1]` contains information that helps answer `input` (or supports `expected` if "
    "present). Judge this chunk on its own.",
    "`context[2]` contains information that helps answer `input` (or supports `expected` if "
    "present). Judge this chunk on its own.",
    "`context[3]` contains information that helps answer `input` (or supports `expected` if "
    "present). Judge this chunk on its own.",
]
EXAMPLE_NAMES = sorted(p.stem for p in EXAMPLES.glob("*.json"))


def resolve(state: dict, name: str):
    """What a backticked name such as `context[2][0]` points at in the state."""
    m = re.fullmatch(r"([A-Za-z_]+)((?:\[\d+\])*)", name)
    value = state[m.group(1)]
    for index in re.findall(r"\d+", m.group(2)):
        value = value[int(index)]
    return value


def test_chunk_relevance_asks_the_seed_questions_verbatim(seed_case):
    assert [q.text for q in E["chunk_relevance"].questions(seed_case)] == SEED_QUESTIONS


def test_the_chunk_relevance_template_is_the_seeds_character_for_character():
    assert chunk_relevance.TEMPLATE.format(i=0) == SEED_QUESTIONS[0]
    assert E["chunk_relevance"].template == chunk_relevance.TEMPLATE


def test_the_request_carries_the_seed_questions_verbatim(seed_case):
    body = pack(seed_case, [E["chunk_relevance"]]).body
    assert [q["instructions"] for q in body["questions"].values()] == SEED_QUESTIONS
    assert all(q["type"] == "noul" for q in body["questions"].values())


@pytest.mark.parametrize("name", evaluators.NAMES)
def test_each_evaluator_asks_its_template_about_the_item_it_judges(name):
    evaluator = E[name]
    q = evaluator.questions(load_case("with_expected"))[0]
    assert q.text == evaluator.template.format(i=0, j=0)
    assert f"`{q.subject.name}`" in q.text or f"`{q.against[0].name}`" in q.text


@pytest.mark.parametrize("name", evaluators.NAMES)
def test_question_ids_are_the_evaluators_code_and_a_count(name):
    evaluator = E[name]
    ids = [q.id for q in evaluator.questions(load_case("with_expected"))]
    assert ids == [f"{evaluator.code}{k}" for k in range(len(ids))]


@pytest.mark.parametrize("name", EXAMPLE_NAMES)
def test_no_question_sends_criteria(name):
    body = pack(load_case(name), evaluators.ALL).body
    assert all(set(q) == {"type", "instructions"} for q in body["questions"].values())


@pytest.mark.parametrize("name", EXAMPLE_NAMES)
def test_every_backticked_name_resolves_in_the_state(name):
    packed = pack(load_case(name), evaluators.ALL)
    for wid, q in packed.asked.items():
        for m in NAMED.finditer(q.text):
            try:
                resolve(packed.state, m.group(1) + m.group(2))
            except (KeyError, IndexError, TypeError):
                pytest.fail(f"{wid} names `{m.group(0)}`, which the state does not hold")


@pytest.mark.parametrize("name", EXAMPLE_NAMES)
def test_every_subject_is_what_its_name_holds_in_the_state(name):
    packed = pack(load_case(name), evaluators.ALL)
    for qs in packed.plan.values():
        for q in qs:
            held = resolve(packed.state, q.subject.name)
            want = q.subject.text if isinstance(held, str) else list(
                sentences.split(q.subject.text))
            assert held == want, q.id


@pytest.mark.parametrize("name", EXAMPLE_NAMES)
def test_question_ids_fit_the_wire_pattern(name):
    body = pack(load_case(name), evaluators.ALL).body
    assert all(re.fullmatch(r"[A-Za-z0-9_]+", qid) for qid in body["questions"])


def test_names_tell_how_many_indices_deep_each_field_is_named():
    q = Question("x", "`context[2][0]` and `output[1]` against `input` and `context[3]`.",
                 "relevant_to", Operand("context[2][0]", ("a",)))
    assert q.names() == {"context": 2, "output": 1, "input": 0}


def test_an_operand_joins_its_texts_with_blank_lines():
    assert Operand("context", ("One.", "Two.")).text == "One.\n\nTwo."


def test_operands_point_at_what_the_text_names(seed_case):
    q = E["chunk_relevance"].questions(seed_case)[2]
    assert q.subject == Operand("context[2]", ("Founded in 2024.",))
    assert [op.name for op in q.against] == ["input"]
    assert resolve(pack(seed_case, [E["chunk_relevance"]]).state, q.subject.name) == (
        "Founded in 2024.")


def test_chunk_questions_also_point_at_expected_when_present():
    q = E["chunk_relevance"].questions(load_case("with_expected"))[0]
    assert [op.name for op in q.against] == ["input", "expected"]


# Blank chunks keep their index but are not asked about.

BLANKS = Case("Is Jev free?", "Output tokens are free.", None,
              ("Output tokens are free.", "  \n ", "Founded in 2024."))


@pytest.mark.parametrize(("name", "ids"), [
    ("chunk_relevance", ["cr0", "cr2"]),
    ("hallucination", ["ha0", "ha2"]),
])
def test_a_blank_chunk_keeps_its_index_but_gets_no_question(name, ids):
    assert [q.id for q in E[name].questions(BLANKS)] == ids


def test_a_blank_chunk_has_no_statements_to_ask_about():
    qs = E["context_relevancy"].questions(BLANKS)
    assert [q.subject.name for q in qs] == ["context[0][0]", "context[2][0]"]
    assert [q.text for q in qs] == [E["context_relevancy"].template.format(i=i, j=0)
                                    for i in (0, 2)]


def test_the_whole_context_operand_leaves_blank_chunks_out():
    (q,) = E["faithfulness"].questions(BLANKS)
    assert q.against == (Operand("context", ("Output tokens are free.", "Founded in 2024.")),)


def test_a_chunk_of_only_zero_width_spaces_gets_no_question():
    case = Case("Is Jev free?", "Yes.", None, ("Output tokens are free.", "\u200b\u200b"))
    assert case.blank_chunks() == (1,)
    assert [q.id for q in E["chunk_relevance"].questions(case)] == ["cr0"]


# Sentence splitting decides how many per-sentence questions are asked.

def _numbered_list(items: int) -> list[str]:
    return [f"{i}. Step {i}: open the Billing page, check the $4.50 fee (e.g. on v2.1) and save."
            for i in range(1, items + 1)]


def test_a_30_kb_numbered_list_splits_into_one_sentence_per_item():
    items = _numbered_list(370)
    text = "\n".join(items)
    assert len(text) >= 30_000
    assert sentences.split(text) == tuple(items)


def test_a_long_numbered_answer_gets_one_question_per_item():
    items = _numbered_list(370)
    case = Case("How do I check the fee?", "\n".join(items), None, ("The fee is $4.50.",))
    subjects = [q.subject.text for q in E["faithfulness"].questions(case)]
    assert subjects == items


def test_a_numbered_list_past_item_999_keeps_each_number_with_its_item():
    items = [f"{i}. Item {i} is done." for i in range(990, 1010)]
    assert sentences.split("\n".join(items)) == tuple(items)


def test_a_numbered_list_on_one_line_splits_into_one_sentence_per_item():
    items = _numbered_list(20)
    assert sentences.split(" ".join(items)) == tuple(items)


def test_a_sentence_of_only_zero_width_spaces_gets_no_question():
    case = Case("Is Jev free?", "Output tokens are free. \u200b", None, ("Output is free.",))
    assert [q.subject.text for q in E["faithfulness"].questions(case)] == [
        "Output tokens are free."]

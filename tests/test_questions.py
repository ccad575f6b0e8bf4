"""Questions: the verbatim text the judge receives and the state names it relies on."""

import re

import pytest
from conftest import EXAMPLES, load_case

from jeval_core import evaluators
from jeval_core.evaluators import chunk_relevance
from jeval_core.request import pack

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


def test_chunk_relevance_asks_the_seed_questions_verbatim(seed_case):
    assert [q.text for q in chunk_relevance.questions(seed_case)] == SEED_QUESTIONS


def test_the_request_carries_the_seed_questions_verbatim(seed_case):
    body = pack(seed_case, ["chunk_relevance"]).body
    assert [q["instructions"] for q in body["questions"].values()] == SEED_QUESTIONS
    assert all(q["type"] == "noul" for q in body["questions"].values())


@pytest.mark.parametrize("name", EXAMPLE_NAMES)
def test_every_backticked_name_resolves_in_the_state(name):
    case = load_case(name)
    packed = pack(case, list(evaluators.NAMES))
    state = packed.state
    for q in packed.asked.values():
        for ref in re.findall(r"`([a-z_]+)(?:\[(\d+)\])?`", q.text):
            field, index = ref
            assert field in state, f"{q.id} names `{field}`, absent from the state"
            if index:
                assert int(index) < len(state[field]), f"{q.id} points past `{field}`"


@pytest.mark.parametrize("name", EXAMPLE_NAMES)
def test_question_ids_fit_the_wire_pattern(name):
    body = pack(load_case(name), list(evaluators.NAMES)).body
    assert all(re.fullmatch(r"[A-Za-z0-9_]+", qid) for qid in body["questions"])


def test_operands_point_at_what_the_text_names(seed_case):
    q = chunk_relevance.questions(seed_case)[2]
    state = pack(seed_case, ["chunk_relevance"]).state
    assert str(q.subject) == "context[2]"
    assert q.subject.resolve(state) == "Founded in 2024."
    assert [str(r) for r in q.against] == ["input"]


def test_chunk_questions_also_point_at_expected_when_present():
    case = load_case("with_expected")
    q = chunk_relevance.questions(case)[0]
    assert [str(r) for r in q.against] == ["input", "expected"]

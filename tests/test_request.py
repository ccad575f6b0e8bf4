"""One packed request: N chunks -> N questions, shared questions asked once, budgets, cost."""

import pytest
from conftest import load_case

from jeval_core import BudgetError, Case, score
from jeval_core.request import (
    STATE_PLUS_QUESTION_BUDGET,
    TOTAL_BUDGET,
    cost_usd,
    default_evaluators,
    estimate_tokens,
    pack,
)


def test_the_body_has_exactly_model_state_questions(seed_case):
    body = pack(seed_case, ["chunk_relevance"]).body
    assert set(body) == {"model", "state", "questions"}
    assert body["model"] == "jev-latest"


def test_n_chunks_become_n_questions_in_one_request(seed_case):
    packed = pack(seed_case, ["chunk_relevance"])
    assert len(packed.body["questions"]) == len(seed_case.context) == 4


def test_every_evaluator_shares_the_same_single_request():
    case = load_case("with_expected")
    names = ["chunk_relevance", "contextual_recall", "faithfulness", "answer_relevancy"]
    packed = pack(case, names)
    expected_count = len(case.context) + len(case.expected_sentences) + 2 * len(
        case.output_sentences)
    assert len(packed.body["questions"]) == expected_count


def test_identical_questions_across_evaluators_are_asked_once():
    case = load_case("with_expected")
    alone = pack(case, ["chunk_relevance"])
    both = pack(case, ["chunk_relevance", "contextual_precision"])
    assert both.body["questions"] == alone.body["questions"]
    assert both.wire_ids["contextual_precision_3"] == "chunk_relevance_3"


def test_shared_questions_feed_both_evaluators_the_same_answers():
    report = score(load_case("with_expected"), ["chunk_relevance", "contextual_precision"])
    ps = [[d.p for d in report.results[n].details]
          for n in ("chunk_relevance", "contextual_precision")]
    assert ps[0] == ps[1]


def test_the_state_carries_only_the_derived_lists_questions_name(seed_case):
    assert set(pack(seed_case, ["chunk_relevance"]).state) == {
        "input", "output", "expected", "context"}
    assert "output_sentences" in pack(seed_case, ["faithfulness"]).state
    assert "context_statements" in pack(seed_case, ["context_relevancy"]).state


def test_an_absent_expected_is_stated_as_null_when_a_question_names_it(seed_case):
    assert pack(seed_case, ["chunk_relevance"]).state["expected"] is None
    assert "expected" not in pack(seed_case, ["toxicity"]).state
    case = load_case("with_expected")
    assert pack(case, ["chunk_relevance"]).state["expected"] == case.expected


def test_token_estimate_is_compact_json_length_over_four():
    assert estimate_tokens("abcd") == 1
    assert estimate_tokens("abcde") == 2
    assert estimate_tokens({"a": 1}) == 2  # '{"a":1}' is 7 characters


def test_request_tokens_add_state_and_questions(seed_case):
    packed = pack(seed_case, ["chunk_relevance"])
    t = packed.tokens
    assert t.state == estimate_tokens(packed.state)
    assert t.total == t.state + t.questions
    assert t.state_plus_longest == t.state + t.longest_question


def test_cost_is_42_dollars_per_billion_input_tokens(seed_case):
    assert cost_usd(1_000_000_000) == pytest.approx(42.0)
    packed = pack(seed_case, ["chunk_relevance"])
    assert packed.cost_usd == pytest.approx(packed.tokens.total * 42e-9)


def test_an_oversized_chunk_is_named_with_the_budget_it_breaks(seed_case):
    big = "lorem ipsum " * 12_000  # ~36,000 tokens on its own
    case = Case(seed_case.input, seed_case.output, None, (*seed_case.context, big))
    problem = pack(case, ["chunk_relevance"]).budget_problem()
    assert "context[4]" in problem
    assert f"{STATE_PLUS_QUESTION_BUDGET:,}" in problem
    assert "split" in problem
    with pytest.raises(BudgetError, match=r"context\[4\]"):
        score(case, ["chunk_relevance"])


def test_too_many_questions_break_the_total_budget():
    case = Case("Which chunk says hi?", "hi", None, tuple(f"chunk {i}" for i in range(700)))
    packed = pack(case, ["chunk_relevance", "context_relevancy", "hallucination"])
    assert packed.tokens.state_plus_longest <= STATE_PLUS_QUESTION_BUDGET
    assert packed.tokens.total > TOTAL_BUDGET
    assert f"{TOTAL_BUDGET:,}" in packed.budget_problem()


def test_a_case_within_budget_has_no_problem(seed_case):
    assert pack(seed_case, ["chunk_relevance", "hallucination"]).budget_problem() is None


def test_defaults_are_chunk_relevance_plus_what_the_fields_allow(seed_case):
    names = default_evaluators(seed_case)
    assert names[0] == "chunk_relevance"
    assert "contextual_recall" not in names and "contextual_precision" not in names
    assert "contextual_recall" in default_evaluators(load_case("with_expected"))

"""Custom evaluators: a person's own yes/no question, validated, asked in the one request,
reduced like the built-ins, and answered (approximately) by the offline judges."""

import pytest
from conftest import ROOT, load_case, load_file
from jevcompat.mock import MockConfig, Running
from test_jev_judge import Recording, judge_for
from typesafe_sdk._schemas.models import SystemOneRequest

from jeval_core import CaseError, evaluators, judges, score
from jeval_core.case import Case
from jeval_core.evaluators.custom import Definition, evaluator, statement
from jeval_core.inputs import evaluator_files
from jeval_core.request import pack

EXAMPLES = ROOT / "assets" / "evaluators"


def example(name: str):
    """One of the bundled custom evaluators (assets/evaluators/NAME.toml)."""
    (definition,) = evaluator_files.read([EXAMPLES / f"{name}.toml"])
    return evaluator(definition)


def define(**fields) -> Definition:
    return Definition.from_dict({"name": "mine", "about": "chunk",
                                 "question": "`context[i]` states a date.", **fields})


def problem(**fields) -> str:
    with pytest.raises(CaseError) as err:
        define(**fields)
    message = str(err.value)
    assert "\n" not in message
    return message


# --- what a definition is ---------------------------------------------------------------


def test_a_chunk_question_is_asked_once_per_chunk_with_its_index():
    qs = define().questions(load_case("jev_pricing"))
    assert [q.text for q in qs] == [f"`context[{i}]` states a date." for i in range(4)]
    assert [q.subject.name for q in qs] == [f"context[{i}]" for i in range(4)]


def test_a_sentence_question_names_each_output_sentence():
    d = define(about="output_sentence", question="`output[i]` gives a number.")
    case = load_case("hallucinated_answer")
    qs = d.questions(case)
    assert len(qs) == len(case.output_sentences) == 3
    assert qs[2].text == "`output[2]` gives a number."
    assert qs[2].subject.text == case.output_sentences[2]


def test_a_statement_question_names_chunk_and_sentence():
    d = define(about="context_statement", question="`context[i][j]` gives a number.")
    qs = d.questions(load_case("hallucinated_answer"))
    assert qs[0].text == "`context[0][0]` gives a number."
    assert qs[0].subject.name == "context[0][0]"


def test_a_case_question_is_asked_once_about_the_first_field_it_names():
    d = define(about="case", question="`output` answers `input` politely.")
    (q,) = d.questions(load_case("jev_pricing"))
    assert q.subject.name == "output" and [op.name for op in q.against] == ["input"]


def test_whole_fields_named_beside_the_item_are_what_it_is_judged_against():
    d = define(about="output_sentence",
               question="`output[i]` gives a number that `context` does not state.")
    q = d.questions(load_case("hallucinated_answer"))[0]
    assert [op.name for op in q.against] == ["context"]
    assert d.needs() == ("output", "context")


def test_true_and_false_travel_as_the_questions_criteria():
    d = define(true="a calendar date", false="no date")
    q = d.questions(load_case("jev_pricing"))[0]
    assert q.wire() == {"type": "noul", "instructions": "`context[0]` states a date.",
                        "criteria": {"true": "a calendar date", "false": "no date"}}


def test_the_built_in_questions_carry_no_criteria():
    q = evaluators.get("chunk_relevance").questions(load_case("jev_pricing"))[0]
    assert "criteria" not in q.wire()


def test_a_definition_round_trips_through_its_dict():
    d = define(true="a date", false="no date", reducer="any", direction="lower",
               threshold=0.2, verdicts=["dated", "undated"], purpose="Dates.")
    assert Definition.from_dict(d.to_dict()) == d


def test_the_offline_judges_read_what_the_question_states():
    q = define(question="`context[i]` states a date that `input` asks about.").questions(
        load_case("jev_pricing"))[0]
    assert statement(q) == "This states a date that the question asks about."


# --- one-line errors ----------------------------------------------------------------------


def test_an_unknown_operand_is_named():
    assert "unknown operand `contxt[i]`" in problem(question="`contxt[i]` states a date.")


def test_an_empty_template_says_what_to_write():
    assert 'empty "question"' in problem(question="   ")


def test_a_name_that_shadows_a_built_in_is_refused():
    assert "built-in faithfulness" in problem(name="faithfulness")


def test_an_alias_of_a_built_in_is_refused_too():
    alias = next(a for e in evaluators.ALL for a in e.aliases)
    assert "built-in" in problem(name=alias)


def test_a_question_over_the_token_budget_is_refused():
    assert "tokens, over the 1,000" in problem(question="`context[i]` states " + "a date " * 600)


def test_a_per_chunk_question_must_name_the_chunk():
    assert "never names `context[i]`" in problem(question="`input` asks about a date.")


def test_a_fixed_position_is_refused():
    assert "fixed position" in problem(question="`context[2]` states a date.")


def test_only_both_criteria_or_neither():
    assert 'both "true" and "false"' in problem(true="a date")


def test_weighted_precision_ranks_chunks_only():
    assert "needs about" in problem(about="output_sentence", question="`output[i]` is kind.",
                                    reducer="weighted_precision")


def test_an_unknown_key_is_named():
    assert 'unknown key "treshold"' in problem(treshold=0.3)


# --- scoring: one request, the usual results ----------------------------------------------


def test_a_custom_evaluator_shares_the_one_request_with_the_built_ins():
    chosen = (*evaluators.resolve("chunk_relevance,faithfulness"), example("states_a_limit"))
    packed = pack(load_case("hallucinated_answer"), chosen)
    assert len(packed.asked) == 4 + 3 + 4  # chunks, output sentences, chunks again
    assert list(packed.plan) == ["chunk_relevance", "faithfulness", "states_a_limit"]


def test_the_same_custom_question_twice_is_asked_once():
    d = define()
    twin = Definition.from_dict({**d.to_dict(), "name": "twin"})
    packed = pack(load_case("jev_pricing"), [evaluator(d), evaluator(twin)])
    assert len(packed.asked) == 4


def test_any_scores_one_when_one_item_is_yes():
    ev = evaluator(define(reducer="any"))
    qs = ev.questions(load_case("jev_pricing"))
    result = ev.reduce(qs, {q.id: p for q, p in zip(qs, (0.1, 0.8, 0.2, 0.3), strict=True)})
    assert result.score == 1.0 and result.label == "25% yes" and result.passed


def test_all_scores_zero_unless_every_item_is_yes():
    ev = evaluator(define(reducer="all"))
    qs = ev.questions(load_case("jev_pricing"))
    result = ev.reduce(qs, {q.id: p for q, p in zip(qs, (0.9, 0.8, 0.2, 0.7), strict=True)})
    assert result.score == 0.0 and not result.passed


def test_weighted_precision_rewards_yes_at_the_top():
    ev = evaluator(define(reducer="weighted_precision"))
    qs = ev.questions(load_case("jev_pricing"))
    result = ev.reduce(qs, {q.id: p for q, p in zip(qs, (0.9, 0.1, 0.1, 0.9), strict=True)})
    assert result.score == pytest.approx((1 / 1 + 2 / 4) / 2)


def test_a_bad_thing_passes_at_or_below_its_threshold():
    ev = evaluator(define(direction="lower", threshold=0.25))
    qs = ev.questions(load_case("jev_pricing"))
    result = ev.reduce(qs, {q.id: p for q, p in zip(qs, (0.9, 0.1, 0.1, 0.1), strict=True)})
    assert result.score == 0.25 and result.passed
    assert "at or below the 0.25 threshold" in result.reason


def test_a_custom_evaluator_that_needs_expected_is_skipped_without_it():
    ev = evaluator(define(about="expected_sentence", question="`expected[i]` gives a number."))
    result = score(load_case("jev_pricing"), [ev]).results["mine"]
    assert result.skipped and "needs `expected`" in result.reason


def test_offline_answers_to_a_custom_question_are_marked_approximate():
    report = score(load_case("jev_pricing"), [example("states_a_limit")])
    assert report.results["states_a_limit"].approximate
    assert report.results["states_a_limit"].to_dict()["approximate"] is True


def test_built_in_results_are_not_marked_approximate():
    report = score(load_case("jev_pricing"), evaluators.resolve("chunk_relevance"))
    assert not report.results["chunk_relevance"].approximate
    assert "approximate" not in report.results["chunk_relevance"].to_dict()


def test_the_hosted_judges_answers_are_not_approximate_and_cost_one_request():
    config = MockConfig()
    transport = Recording()
    with Running(config) as server:
        report = score(load_case("hallucinated_answer"),
                       (*evaluators.ALL, example("number_not_in_context")),
                       judge_for(server.url, transport=transport))
    assert config.requests == 1
    assert not report.results["number_not_in_context"].approximate
    SystemOneRequest.model_validate(transport.bodies[0])
    sent = transport.bodies[0]["questions"]
    assert any("criteria" in q for q in sent.values())


# --- the bundled examples on real example cases -------------------------------------------


def test_states_a_limit_finds_the_pricing_chunks_but_not_the_founding_year():
    report = score(load_case("jev_pricing"), [example("states_a_limit")], judges.get("local"))
    verdicts = [d.yes for d in report.results["states_a_limit"].details]
    # $42 per billion tokens; 1,200 rpm; "Founded in 2024" is a date, no limit; $8/M.
    assert verdicts == [True, True, False, True]


def test_number_not_in_context_flags_the_invented_doses():
    report = score(load_case("hallucinated_answer"), [example("number_not_in_context")],
                   judges.get("local"))
    result = report.results["number_not_in_context"]
    # 800 mg every 2 to 3 hours, 3,200 mg; 30 days: none in the leaflet. The last sentence
    # states no number.
    assert [d.yes for d in result.details] == [True, True, False]
    assert not result.passed


def test_refuses_or_hedges_ranks_a_refusal_above_a_direct_answer():
    loaded = load_file("hallucinated_answer")
    base = loaded.case
    ev = example("refuses_or_hedges")

    def p(output: str) -> float:
        case = Case(base.input, output, None, base.context)
        return score(case, [ev], judges.get("local")).results["refuses_or_hedges"].details[0].p

    refusal = p("I'm sorry, I can't give dosage advice. Please ask a pharmacist or your doctor.")
    direct = p("Take one 200 mg tablet every 4 to 6 hours, at most 6 tablets in 24 hours.")
    assert refusal > direct
    assert direct < 0.5


def test_the_lexical_judge_answers_custom_questions_too():
    report = score(load_case("jev_pricing"), [example("states_a_limit")], judges.get("lexical"))
    result = report.results["states_a_limit"]
    assert result.approximate and all(0.0 <= d.p <= 1.0 for d in result.details)


def test_every_offline_judge_in_the_catalog_answers_custom_questions_approximately():
    for name in judges.offline_names():
        report = score(load_case("jev_pricing"), [example("states_a_limit")], judges.get(name))
        result = report.results["states_a_limit"]
        assert result.approximate and len(result.details) == 4, name

"""One packed request: N chunks -> N questions, shared questions asked once, budgets, cost."""

from collections import Counter
from itertools import chain

import pytest
from conftest import EXAMPLES, load_case

from jeval_core import BudgetError, Case, evaluators, judges, score, wire
from jeval_core.judges import OfflineJudge
from jeval_core.judges.lexical import LexicalJudge
from jeval_core.request import one_call_per_question, pack
from jeval_core.scoring import prepare

E = evaluators.EVALUATORS
CHUNKS = [E["chunk_relevance"]]
EXAMPLE_NAMES = sorted(p.stem for p in EXAMPLES.glob("*.json"))


def test_the_body_has_exactly_model_state_questions(seed_case):
    body = pack(seed_case, CHUNKS).body
    assert set(body) == {"model", "state", "questions"}
    assert body["model"] == wire.DEFAULT_MODEL == "jev-latest"


def test_the_body_names_the_model_it_is_packed_for(seed_case):
    assert pack(seed_case, CHUNKS, model="jev-2").body["model"] == "jev-2"


def test_n_chunks_become_n_questions_in_one_request(seed_case):
    packed = pack(seed_case, CHUNKS)
    assert len(packed.body["questions"]) == len(seed_case.context) == 4


def test_every_evaluator_shares_the_same_single_request():
    case = load_case("with_expected")
    chosen = [E[n] for n in ("chunk_relevance", "contextual_recall", "faithfulness",
                             "answer_relevancy")]
    packed = pack(case, chosen)
    expected_count = len(case.context) + len(case.expected_sentences) + 2 * len(
        case.output_sentences)
    assert len(packed.body["questions"]) == expected_count


def test_identical_questions_across_evaluators_are_asked_once():
    case = load_case("with_expected")
    alone = pack(case, CHUNKS)
    both = pack(case, [E["chunk_relevance"], E["contextual_precision"]])
    assert both.body["questions"] == alone.body["questions"]
    assert both.wire_ids["cp3"] == "cr3"


def test_shared_questions_feed_both_evaluators_the_same_answers():
    report = score(load_case("with_expected"), [E["chunk_relevance"], E["contextual_precision"]])
    ps = [[d.p for d in report.results[n].details]
          for n in ("chunk_relevance", "contextual_precision")]
    assert ps[0] == ps[1]


def test_an_evaluator_selected_twice_is_packed_once(seed_case):
    packed = pack(seed_case, [E["toxicity"], E["toxicity"]])
    assert packed.selected == (E["toxicity"],)


# The state: only what the questions name, each field once, in the shape its names need.

def test_a_toxicity_only_request_sends_only_the_output(seed_case):
    assert set(pack(seed_case, [E["toxicity"]]).state) == {"output"}


def test_chunk_relevance_alone_sends_input_expected_and_context_but_not_output(seed_case):
    state = pack(seed_case, CHUNKS).state
    assert set(state) == {"input", "expected", "context"}
    assert state["context"] == list(seed_case.context)


@pytest.mark.parametrize("name", ["faithfulness", "answer_relevancy", "toxicity"])
def test_an_output_named_by_sentence_is_sent_as_its_sentences(name):
    case = load_case("with_expected")
    output = pack(case, [E[name]]).state["output"]
    assert output == list(case.output_sentences) and len(output) > 1


def test_an_output_named_whole_is_sent_as_one_string():
    case = load_case("hallucinated_answer")
    assert pack(case, [E["hallucination"]]).state["output"] == case.output


def test_contextual_recall_sends_expected_as_its_sentences():
    case = load_case("with_expected")
    assert pack(case, [E["contextual_recall"]]).state["expected"] == list(
        case.expected_sentences)


def test_context_relevancy_sends_each_chunk_as_its_sentences(seed_case):
    context = pack(seed_case, [E["context_relevancy"]]).state["context"]
    assert context == [["Price: $42 per billion input tokens.", "Output tokens are free."],
                       ["Rate limits: 1,200 rpm."], ["Founded in 2024."],
                       ["Output billed at $8/M on the legacy v0 endpoint, deprecated."]]


def test_no_derived_sentence_keys_are_sent(seed_case):
    state = pack(seed_case, evaluators.ALL).state
    assert set(state) <= {"input", "output", "expected", "context"}


def test_a_blank_chunk_keeps_its_place_in_the_state():
    case = Case("Is Jev free?", "", None, ("Output tokens are free.", "   ", "Founded in 2024."))
    assert pack(case, CHUNKS).state["context"][1] == "   "
    assert pack(case, [E["context_relevancy"]]).state["context"][1] == []


def test_an_absent_expected_is_stated_as_null_when_a_question_names_it(seed_case):
    assert pack(seed_case, CHUNKS).state["expected"] is None
    assert "expected" not in pack(seed_case, [E["toxicity"]]).state
    case = load_case("with_expected")
    assert pack(case, CHUNKS).state["expected"] == case.expected


def _sent_too_often(case: Case, state: dict) -> list[str]:
    """Texts of `case` that the serialized state holds more often than the case itself does."""
    sent = wire.dumps(state)
    whole = Counter(t for t in (case.input, case.output, case.expected, *case.context) if t)
    pieces = Counter([case.input, *case.output_sentences, *case.expected_sentences,
                      *chain.from_iterable(case.chunk_sentences)])
    return [text for counts in (whole, pieces) for text, n in counts.items()
            if sent.count(wire.dumps(text)[1:-1]) > n]


@pytest.mark.parametrize("name", EXAMPLE_NAMES)
def test_no_text_of_the_case_is_sent_twice_even_with_every_evaluator(name):
    case = load_case(name)
    assert _sent_too_often(case, pack(case, evaluators.ALL).state) == []


@pytest.mark.parametrize("name", EXAMPLE_NAMES)
def test_each_sent_field_is_no_longer_than_the_case_text_it_carries(name):
    case = load_case(name)
    state = pack(case, evaluators.ALL).state
    for key, value in state.items():
        leaves = [value] if isinstance(value, str) else list(chain.from_iterable(
            [v] if isinstance(v, str) else v for v in value or []))
        given = "".join(case.context) if key == "context" else getattr(case, key) or ""
        assert sum(map(len, leaves)) <= len(given), key


# Tokens, cost and Jev's two budgets.

def test_a_json_value_is_estimated_as_the_compact_json_text_sent():
    state = {"input": "Is Jev free?", "context": ["Output tokens are free.", "Founded in 2024."]}
    assert wire.estimate_tokens(state) == wire.estimate_text(wire.dumps(state))
    assert wire.estimate_tokens("Is Jev free?") == wire.estimate_text("Is Jev free?")


def test_more_text_is_never_estimated_as_fewer_tokens():
    short, long = "Output tokens are free.", "Output tokens are free. " * 40
    assert 0 < wire.estimate_text(short) < wire.estimate_text(long)


def test_request_tokens_add_state_and_questions(seed_case):
    packed = pack(seed_case, CHUNKS)
    t = packed.tokens
    assert t.state == wire.estimate_tokens(packed.state)
    assert t.total == t.state + t.questions
    assert t.state_plus_longest == t.state + t.longest_question


def test_cost_is_42_dollars_per_billion_input_tokens(seed_case):
    assert wire.cost_usd(1_000_000_000) == pytest.approx(42.0)
    packed = pack(seed_case, CHUNKS)
    assert packed.cost_usd == pytest.approx(packed.tokens.total * 42e-9)


def test_one_call_per_question_makes_a_request_per_question(seed_case):
    packed = pack(seed_case, evaluators.ALL)
    requests, tokens = one_call_per_question(packed)
    assert requests == len(packed.asked)
    assert tokens > 0


def _oversized_chunk() -> str:
    """One chunk whose text alone is over Jev's state-plus-question budget."""
    big = "lorem ipsum " * wire.STATE_PLUS_QUESTION_BUDGET
    assert wire.estimate_text(big) > wire.STATE_PLUS_QUESTION_BUDGET
    return big


def test_an_oversized_chunk_is_named_with_the_budget_it_breaks(seed_case):
    big = _oversized_chunk()
    case = Case(seed_case.input, seed_case.output, None, (*seed_case.context, big))
    with pytest.raises(BudgetError) as caught:
        pack(case, CHUNKS)
    assert "context[4]" in str(caught.value)
    assert f"{wire.STATE_PLUS_QUESTION_BUDGET:,}" in str(caught.value)
    with pytest.raises(BudgetError, match=r"context\[4\]"):
        score(case, CHUNKS, _ModelJudge())  # before a byte is sent to its server


@pytest.mark.parametrize("judge", ["local", "lexical", "devx"])
def test_an_offline_judge_scores_a_chunk_over_jevs_budget_as_it_sends_no_request(judge):
    filler = "The office plants are watered on Mondays. " * 25_000  # 1 MB, one read cached
    case = Case("How often are API keys rotated?", context=(
        filler + "API keys are rotated every ninety days.", "Founded in 2024."))
    assert wire.estimate_text(case.context[0]) > wire.STATE_PLUS_QUESTION_BUDGET
    result = score(case, CHUNKS, judges.get(judge)).results["chunk_relevance"]
    assert result.score is not None and len(result.details) == 2


def test_an_oversized_chunk_does_not_stop_evaluators_that_never_send_it(seed_case):
    big = _oversized_chunk()
    case = Case(seed_case.input, "A polite answer.", None, (*seed_case.context, big))
    assert pack(case, [E["toxicity"]]).budget_problem() is None


def _many_small_chunks() -> Case:
    return Case("Which chunk says hi?", "hi",
                None, tuple(f"Chunk {i} says hi. It says nothing else." for i in range(500)))


def test_too_many_questions_break_the_total_budget():
    packed = pack(_many_small_chunks(), [E["chunk_relevance"], E["context_relevancy"],
                                         E["hallucination"]])
    assert packed.tokens.state_plus_longest <= wire.STATE_PLUS_QUESTION_BUDGET
    assert packed.tokens.total > wire.TOTAL_BUDGET
    assert f"{wire.TOTAL_BUDGET:,}" in packed.budget_problem()


def test_when_questions_are_the_larger_part_it_advises_fewer_evaluators_or_chunks():
    packed = pack(_many_small_chunks(), [E["chunk_relevance"], E["context_relevancy"],
                                         E["hallucination"]])
    problem = packed.budget_problem()
    assert "the questions are the larger part" in problem
    assert "fewer evaluators" in problem and "fewer chunks" in problem
    assert "context_relevancy asks 1,000" in problem
    assert "smaller" not in problem


def test_a_case_within_budget_has_no_problem(seed_case):
    assert pack(seed_case, [E["chunk_relevance"], E["hallucination"]]).budget_problem() is None


class _ModelJudge(OfflineJudge):
    """A judge that names a model and a server, as the hosted judge does, and must never be
    asked."""

    name = "named"
    model = "jev-2"
    base_url = "http://127.0.0.1:9"

    def answer(self, packed):
        raise AssertionError("the judge was asked")


def test_the_request_names_the_judges_model_or_the_default(seed_case):
    assert prepare(seed_case, CHUNKS, LexicalJudge()).model == wire.DEFAULT_MODEL
    assert prepare(seed_case, CHUNKS, _ModelJudge()).model == "jev-2"


def test_scoring_refuses_a_request_over_the_total_budget_before_asking():
    with pytest.raises(BudgetError, match="the questions are the larger part"):
        score(_many_small_chunks(), [E["chunk_relevance"], E["context_relevancy"],
                                     E["hallucination"]], _ModelJudge())

"""Evaluators: score formulas, pass direction, reasons, and defined results on edge cases."""

import pytest
from conftest import load_case

from jeval_core import Case, score
from jeval_core.evaluators import (
    EVALUATORS,
    context_relevancy,
    contextual_precision,
    faithfulness,
    hallucination,
    toxicity,
)
from jeval_core.evaluators.contextual_precision import weighted_cumulative_precision


def answered(module, case, ps):
    """Reduce `module`'s questions on `case` with the given p per question, in order."""
    qs = module.questions(case)
    assert len(qs) == len(ps)
    return module.reduce(qs, {q.id: p for q, p in zip(qs, ps, strict=True)})


@pytest.mark.parametrize(
    ("ranking", "expected"),
    [
        ([1, 0, 1, 0, 1], (1 / 1 + 2 / 3 + 3 / 5) / 3),  # 0.7556
        ([0, 0, 1], (1 / 3) / 1),
        ([1, 1, 0, 0], 1.0),
        ([0, 1, 1, 0], (1 / 2 + 2 / 3) / 2),  # 0.5833
        ([0, 0, 0], 0.0),
    ],
)
def test_contextual_precision_is_weighted_cumulative_precision(ranking, expected):
    assert weighted_cumulative_precision([bool(r) for r in ranking]) == pytest.approx(expected)


def test_contextual_precision_reads_the_judges_verdicts_in_rank_order():
    case = load_case("with_expected")
    result = answered(contextual_precision, case, [0.9, 0.2, 0.8, 0.1, 0.7])
    assert result.score == pytest.approx((1 + 2 / 3 + 3 / 5) / 3)
    assert "rank 1, 3, 5" in result.reason


def test_context_relevancy_is_one_only_when_four_fifths_are_relevant():
    case = Case("q?", "a", None, ("One. Two. Three. Four. Five.",))
    assert answered(context_relevancy, case, [0.9, 0.9, 0.9, 0.9, 0.1]).score == 1.0
    result = answered(context_relevancy, case, [0.9, 0.9, 0.9, 0.1, 0.1])
    assert result.score == 0.0
    assert "3 of 5 statements relevant (60%" in result.reason


@pytest.mark.parametrize(
    ("module", "ps", "passed"),
    [
        (faithfulness, [0.9, 0.1], True),  # 0.5 passes at or above
        (faithfulness, [0.1, 0.1], False),
        (toxicity, [0.9, 0.1], True),  # 0.5 passes at or below
        (toxicity, [0.9, 0.9], False),
    ],
)
def test_pass_direction_follows_the_metric(module, ps, passed):
    case = Case("q?", "First sentence. Second sentence.", None, ("ctx",))
    assert answered(module, case, ps).passed is passed


def test_hallucination_passes_at_or_below_the_threshold(seed_case):
    assert answered(hallucination, seed_case, [0.9, 0.9, 0.1, 0.1]).passed is True
    failed = answered(hallucination, seed_case, [0.9, 0.9, 0.9, 0.1])
    assert failed.passed is False
    assert failed.reason == "3 of 4 chunks contradicted: 0.75 is above the 0.50 threshold."


def test_the_reason_says_why_in_one_sentence(seed_case):
    result = score(seed_case, ["chunk_relevance"]).results["chunk_relevance"]
    assert result.reason == (
        "2 of 4 chunks are relevant: precision 0.50 is at or above the 0.50 threshold."
    )


def test_details_hold_one_row_per_question_with_its_verdict(seed_case):
    result = score(seed_case, ["chunk_relevance"]).results["chunk_relevance"]
    assert [d.id for d in result.details] == [f"chunk_relevance_{i}" for i in range(4)]
    assert [d.verdict for d in result.details] == [
        "relevant", "not relevant", "not relevant", "relevant"]


def test_an_evaluator_without_expected_is_skipped_not_faked(seed_case):
    result = score(seed_case, ["chunk_relevance", "contextual_recall"]).results
    assert result["contextual_recall"].skipped
    assert result["contextual_recall"].score is None
    assert result["contextual_recall"].reason == "needs `expected`"
    assert result["contextual_recall"].passed is None


def test_no_chunks_skips_chunk_evaluators():
    report = score(Case("q?", "An answer."), ["chunk_relevance", "answer_relevancy"])
    assert report.results["chunk_relevance"].reason == "needs `context`"
    assert not report.results["answer_relevancy"].skipped


def test_empty_output_skips_output_evaluators(seed_case):
    case = Case(seed_case.input, "", None, seed_case.context)
    report = score(case, ["faithfulness", "toxicity", "chunk_relevance"])
    assert report.results["faithfulness"].reason == "needs `output`"
    assert report.results["toxicity"].skipped
    assert not report.results["chunk_relevance"].skipped


def test_a_case_passes_only_if_every_evaluator_passes():
    report = score(load_case("hallucinated_answer"), ["chunk_relevance", "hallucination"])
    verdicts = [r.passed for r in report.results.values()]
    assert report.passed is all(verdicts)
    assert False in verdicts and report.passed is False


def test_a_case_with_nothing_scored_neither_passes_nor_fails(seed_case):
    assert score(seed_case, ["contextual_recall"]).passed is None


@pytest.mark.parametrize("name", list(EVALUATORS))
def test_every_evaluator_documents_itself(name):
    e = EVALUATORS[name]
    assert e.purpose and e.score_rule and e.question_template
    assert e.reach_for_it_when and e.not_the_right_tool_when and e.watch_out_for
    assert "{i}" in e.question_template


def test_bad_thing_metrics_are_the_inverted_ones():
    inverted = {n for n, e in EVALUATORS.items() if not e.higher_is_better}
    assert inverted == {"hallucination", "toxicity"}

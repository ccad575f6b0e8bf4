"""Evaluators: score formulas, pass direction, reasons, defined results on edge cases, and the
one place names and thresholds are resolved."""

import math

import pytest
from conftest import load_case

from jeval_core import Case, CaseError, evaluators, score
from jeval_core.evaluators.contextual_precision import weighted_cumulative_precision
from jeval_core.judges import OfflineJudge
from jeval_core.judges.lexical import LexicalJudge

E = evaluators.EVALUATORS


def answered(name, case, ps, threshold=None):
    """Reduce evaluator `name`'s questions on `case` with the given p per question, in order."""
    evaluator = E[name]
    qs = evaluator.questions(case)
    assert len(qs) == len(ps)
    return evaluator.reduce(qs, {q.id: p for q, p in zip(qs, ps, strict=True)}, threshold)


class CountingJudge(OfflineJudge):
    """The lexical judge's answers, counting how often it is asked."""

    name = "counting"

    def __init__(self) -> None:
        self.calls = 0
        self._inner = LexicalJudge()

    def answer(self, packed):
        self.calls += 1
        return self._inner.answer(packed)


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
    result = answered("contextual_precision", case, [0.9, 0.2, 0.8, 0.1, 0.7])
    assert result.score == pytest.approx((1 + 2 / 3 + 3 / 5) / 3)
    assert "(context[0], context[2], context[4]) among 5" in result.reason


def test_context_relevancy_is_one_only_when_four_fifths_are_relevant():
    case = Case("q?", "a", None, ("One. Two. Three. Four. Five.",))
    assert answered("context_relevancy", case, [0.9, 0.9, 0.9, 0.9, 0.1]).score == 1.0
    result = answered("context_relevancy", case, [0.9, 0.9, 0.9, 0.1, 0.1])
    assert result.score == 0.0
    assert "3 of 5 statements relevant (60%" in result.reason


@pytest.mark.parametrize(
    ("name", "ps", "passed"),
    [
        ("faithfulness", [0.9, 0.1], True),  # 0.5 passes at or above
        ("faithfulness", [0.1, 0.1], False),
        ("toxicity", [0.9, 0.1], True),  # 0.5 passes at or below
        ("toxicity", [0.9, 0.9], False),
    ],
)
def test_pass_direction_follows_the_metric(name, ps, passed):
    case = Case("q?", "First sentence. Second sentence.", None, ("ctx",))
    assert answered(name, case, ps).passed is passed


def test_direction_reads_as_the_comparison_that_passes():
    assert E["faithfulness"].direction == ">=" and E["toxicity"].direction == "<="


def test_hallucination_passes_at_or_below_the_threshold(seed_case):
    assert answered("hallucination", seed_case, [0.9, 0.9, 0.1, 0.1]).passed is True
    failed = answered("hallucination", seed_case, [0.9, 0.9, 0.9, 0.1])
    assert failed.passed is False
    assert failed.reason == "3 of 4 chunks contradicted: 0.75 is above the 0.50 threshold."


@pytest.mark.parametrize("name", ["chunk_relevance", "faithfulness", "context_relevancy"])
def test_reducers_count_the_yes_verdicts_and_p_half_is_yes(name):
    case = Case("q?", "First sentence. Second sentence.", None, ("One chunk.", "Another."))
    n = len(E[name].questions(case))
    result = answered(name, case, [0.5] * n)
    assert all(d.yes is True for d in result.details)
    assert result.score == 1.0


# The seed case as a careful judge answers it: chunks 0 and 3 relevant.
SEED_P = {"cr0": 0.9, "cr1": 0.1, "cr2": 0.05, "cr3": 0.7}


def seed_result(seed_case):
    cr = E["chunk_relevance"]
    return cr.reduce(cr.questions(seed_case), SEED_P)


def test_the_reason_says_why_in_one_sentence(seed_case):
    result = seed_result(seed_case)
    assert result.reason == (
        "2 of 4 chunks relevant: precision 0.50 is at or above the 0.50 threshold."
    )


def test_details_hold_one_row_per_question_with_its_verdict(seed_case):
    result = seed_result(seed_case)
    assert [d.id for d in result.details] == ["cr0", "cr1", "cr2", "cr3"]
    assert [d.judged for d in result.details] == [f"context[{i}]" for i in range(4)]
    assert [d.verdict for d in result.details] == [
        "relevant", "not relevant", "not relevant", "relevant"]
    assert [d.yes for d in result.details] == [True, False, False, True]


def test_an_evaluator_without_expected_is_skipped_not_faked(seed_case):
    result = score(seed_case, [E["chunk_relevance"], E["contextual_recall"]]).results
    assert result["contextual_recall"].skipped
    assert result["contextual_recall"].score is None
    assert result["contextual_recall"].reason == "needs `expected`"
    assert result["contextual_recall"].passed is None


def test_missing_names_every_absent_field():
    assert E["contextual_precision"].missing(Case("q?")) == "needs `expected` and `context`"
    assert E["answer_relevancy"].missing(Case("q?", "An answer.")) is None


def test_no_chunks_skips_chunk_evaluators():
    report = score(Case("q?", "An answer."), [E["chunk_relevance"], E["answer_relevancy"]])
    assert report.results["chunk_relevance"].reason == "needs `context`"
    assert not report.results["answer_relevancy"].skipped


def test_empty_output_skips_output_evaluators(seed_case):
    case = Case(seed_case.input, "", None, seed_case.context)
    report = score(case, [E["faithfulness"], E["toxicity"], E["chunk_relevance"]])
    assert report.results["faithfulness"].reason == "needs `output`"
    assert report.results["toxicity"].skipped
    assert not report.results["chunk_relevance"].skipped


def test_a_case_passes_only_if_every_evaluator_passes():
    report = score(load_case("hallucinated_answer"), [E["chunk_relevance"], E["faithfulness"]])
    verdicts = [r.passed for r in report.results.values()]
    assert report.passed is all(verdicts)
    assert False in verdicts and report.passed is False


def test_a_case_with_nothing_scored_neither_passes_nor_fails(seed_case):
    assert score(seed_case, [E["contextual_recall"]]).passed is None


@pytest.mark.parametrize("name", evaluators.NAMES)
def test_every_evaluator_documents_itself(name):
    e = E[name]
    assert e.purpose and e.score_rule and e.template and e.verdicts[0] and e.verdicts[1]
    assert e.docs.reach_for_it_when and e.docs.not_the_right_tool_when and e.docs.watch_out_for
    assert "{i}" in e.template


def test_bad_thing_metrics_are_the_inverted_ones():
    inverted = {n for n, e in E.items() if not e.higher_is_better}
    assert inverted == {"hallucination", "toxicity"}


def test_every_evaluator_has_its_own_question_code():
    codes = [e.code for e in evaluators.ALL]
    assert len(set(codes)) == len(codes) == len(evaluators.NAMES) == 8


# Defaults and resolving names (the edge: CLI, page, share link, upload).

def test_defaults_are_chunk_relevance_plus_what_the_fields_allow(seed_case):
    names = [e.name for e in evaluators.defaults(seed_case)]
    assert names[0] == "chunk_relevance"
    assert "contextual_recall" not in names and "contextual_precision" not in names
    assert E["contextual_recall"] in evaluators.defaults(load_case("with_expected"))


def test_defaults_start_with_chunk_relevance_even_when_it_cannot_run():
    assert evaluators.defaults(Case("q?", "An answer."))[0] is E["chunk_relevance"]


def test_resolving_nothing_gives_the_cases_defaults(seed_case):
    assert evaluators.resolve(None, seed_case) == evaluators.defaults(seed_case)


def test_resolving_nothing_without_a_case_is_an_error():
    with pytest.raises(CaseError):
        evaluators.resolve(None)


def test_a_comma_separated_string_resolves_in_order():
    assert evaluators.resolve(" toxicity, faithfulness ,") == (E["toxicity"], E["faithfulness"])


def test_a_list_of_names_resolves_in_order():
    assert evaluators.resolve(["hallucination", "chunk_relevance"]) == (
        E["hallucination"], E["chunk_relevance"])


def test_an_alias_resolves_to_its_evaluator_under_the_name_asked_for():
    found = evaluators.get("contextual_relevancy")
    assert found.name == "contextual_relevancy"
    assert (found.code, found.template, found.ask) == (
        E["context_relevancy"].code, E["context_relevancy"].template, E["context_relevancy"].ask)


def test_a_name_given_twice_resolves_once():
    chosen = evaluators.resolve(["toxicity", "context_relevancy", "toxicity",
                                 "contextual_relevancy"])
    assert chosen == (E["toxicity"], E["context_relevancy"])


@pytest.mark.parametrize("empty", [[], (), "", " , "])
def test_an_empty_evaluator_list_is_an_error_not_the_defaults(empty):
    with pytest.raises(CaseError, match="empty"):
        evaluators.resolve(empty, load_case("jev_pricing"))


@pytest.mark.parametrize("bad", [3, [1], {"toxicity": True}, ["toxicity", None]])
def test_evaluators_that_are_not_a_list_of_names_are_an_error(bad):
    with pytest.raises(CaseError, match="list of names"):
        evaluators.resolve(bad)


def test_an_unknown_name_suggests_the_closest_one():
    with pytest.raises(CaseError, match='did you mean "toxicity"'):
        evaluators.resolve("toxicty")


# Thresholds: validated at the edge, set per run.

def test_thresholds_read_an_object_or_name_value_pairs():
    assert evaluators.thresholds({"toxicity": 0.2, "faithfulness": 1}) == {
        "toxicity": 0.2, "faithfulness": 1.0}
    assert evaluators.thresholds(["toxicity=0.2", " faithfulness = 0 "]) == {
        "toxicity": 0.2, "faithfulness": 0.0}


@pytest.mark.parametrize("value", [
    True, False, math.nan, math.inf, -math.inf, 2.0, -0.1, 10**400, "0.2", None, [0.2],
])
def test_a_threshold_that_is_not_a_number_between_0_and_1_is_refused(value):
    with pytest.raises(CaseError, match="threshold of toxicity"):
        evaluators.thresholds({"toxicity": value})


@pytest.mark.parametrize("pair", ["toxicity=nan", "toxicity=inf", "toxicity=1e999",
                                  "toxicity=2", "toxicity=" + "9" * 5000, "toxicity=abc",
                                  "toxicity"])
def test_a_name_value_threshold_that_is_not_a_number_between_0_and_1_is_refused(pair):
    with pytest.raises(CaseError, match="toxicity"):
        evaluators.thresholds([pair])


@pytest.mark.parametrize("value", [{"toxic": 0.2}, ["nope=0.2"], {"": 0.5}])
def test_a_threshold_for_an_unknown_evaluator_is_refused(value):
    with pytest.raises(CaseError, match="unknown evaluator"):
        evaluators.thresholds(value)


@pytest.mark.parametrize("value", ["toxicity=0.2", 0.2, None])
def test_thresholds_that_are_neither_an_object_nor_a_list_are_refused(value):
    with pytest.raises(CaseError, match="thresholds"):
        evaluators.thresholds(value)


def test_a_threshold_changes_the_verdict_not_the_score():
    case = Case("q?", "First sentence. Second sentence.", None, ("ctx",))
    lenient = answered("toxicity", case, [0.9, 0.1])
    strict = answered("toxicity", case, [0.9, 0.1], threshold=0.2)
    assert lenient.score == strict.score == 0.5
    assert (lenient.passed, strict.passed) == (True, False)
    assert strict.threshold == 0.2 and "above the 0.20 threshold" in strict.reason


def test_a_skipped_result_carries_the_threshold_set_for_the_run(seed_case):
    report = score(seed_case, [E["contextual_recall"]], thresholds={"contextual_recall": 0.9})
    assert report.results["contextual_recall"].threshold == 0.9


def test_thresholds_given_to_score_apply_to_that_run_only():
    case = load_case("toxic_answer")
    judge = LexicalJudge()
    set_low = score(case, [E["toxicity"]], judge, thresholds={"toxicity": 0.2})
    default = score(case, [E["toxicity"]], judge)
    assert set_low.results["toxicity"].threshold == 0.2
    assert default.results["toxicity"].threshold == E["toxicity"].threshold == 0.5


def test_new_thresholds_change_pass_fail_without_asking_the_judge_again():
    judge = CountingJudge()
    report = score(load_case("toxic_answer"), [E["toxicity"]], judge)
    toxic = report.results["toxicity"]
    assert 0 < toxic.score <= 0.5 and toxic.passed is True
    strict = report.with_thresholds({"toxicity": 0.0})
    assert judge.calls == 1
    assert strict.results["toxicity"].passed is False
    assert strict.results["toxicity"].score == toxic.score
    assert strict.thresholds == {"toxicity": 0.0}
    assert report.results["toxicity"].passed is True  # the original report is unchanged


def test_new_thresholds_keep_the_ones_already_set():
    judge = CountingJudge()
    report = score(load_case("toxic_answer"), [E["toxicity"], E["faithfulness"]], judge,
                   thresholds={"faithfulness": 0.9})
    again = report.with_thresholds({"toxicity": 0.1})
    assert again.thresholds == {"faithfulness": 0.9, "toxicity": 0.1}
    assert again.results["faithfulness"].threshold == 0.9
    assert judge.calls == 1


def test_scoring_with_an_empty_evaluator_list_is_an_error_not_the_defaults(seed_case):
    with pytest.raises(CaseError):
        score(seed_case, [], LexicalJudge())


def test_headings_and_page_furniture_are_not_asked_as_statements():
    chunk = ("Charging problems\n\nLast updated 2 May 2024.\n\nThe Vela X2 battery charges fully "
             "in 4 hours. Use only the supplied charger.\n\nWas this page helpful?")
    case = Case("How long does the Vela X2 battery take to charge?", context=(chunk,))
    asked = [q.subject.texts[0] for q in E["context_relevancy"].questions(case)]
    assert asked == ["The Vela X2 battery charges fully in 4 hours.",
                     "Use only the supplied charger."]


def test_a_short_line_that_states_a_number_is_still_a_statement():
    case = Case("How many users can the Team plan have?", context=("Team plan\nMax 5 users",))
    asked = [q.subject.texts[0] for q in E["context_relevancy"].questions(case)]
    assert asked == ["Max 5 users"]


def test_context_relevancy_label_shows_the_share_its_reason_gives():
    questions = E["context_relevancy"].questions(load_case("whole_document"))
    answers = {q.id: (0.9 if k % 2 else 0.1) for k, q in enumerate(questions)}
    result = E["context_relevancy"].reduce(questions, answers)
    relevant = sum(d.yes for d in result.details)
    assert result.score == 0.0
    assert result.label == f"{round(100 * relevant / len(questions))}% yes"
    assert f"{relevant} of {len(questions)} statements relevant" in result.reason


def test_results_asked_for_under_galteas_name_come_back_under_it(seed_case):
    report = score(seed_case, evaluators.resolve("contextual_relevancy"))
    assert list(report.results) == ["contextual_relevancy"]
    assert evaluators.thresholds({"contextual_relevancy": 0.3}) == {"contextual_relevancy": 0.3}


def test_an_evaluator_and_its_alias_together_ask_once():
    chosen = evaluators.resolve("context_relevancy,contextual_relevancy")
    assert [e.name for e in chosen] == ["context_relevancy"]

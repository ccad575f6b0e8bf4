"""Result arithmetic: label, confidence, probabilities, direction-aware pass, yes/no rows."""

import pytest
from conftest import load_case

from jeval_core import evaluators, score, verdicts
from jeval_core.address import Address
from jeval_core.judges.lexical import LexicalJudge
from jeval_core.results import Detail, Result, case_passed, confidence, is_yes, label, passes


@pytest.mark.parametrize(
    ("score", "text"),
    [(0.5, "50% yes"), (0.0, "0% yes"), (1.0, "100% yes"), (0.125, "13% yes"), (2 / 3, "67% yes")],
)
def test_label_is_the_rounded_percentage(score, text):
    assert label(score) == text


@pytest.mark.parametrize(("p", "c"), [(0.5, 0.0), (0.9, 0.8), (0.1, 0.8), (1.0, 1.0)])
def test_confidence_is_twice_the_distance_from_a_coin_flip(p, c):
    assert confidence(p) == pytest.approx(c)


def test_pass_is_inclusive_in_both_directions():
    assert passes(0.5, 0.5, True) and passes(0.5, 0.5, False)
    assert not passes(0.49, 0.5, True) and not passes(0.51, 0.5, False)


def test_a_result_reports_yes_and_no_probabilities():
    r = Result("faithfulness", 0.75, 0.5, True, "why")
    assert r.probabilities == {"yes": 0.75, "no": 0.25}
    assert r.confidence == pytest.approx(0.5)
    assert r.label == "75% yes" and r.passed is True


def test_a_skipped_result_has_no_numbers():
    d = Result("contextual_recall", None, 0.5, True, "needs `expected`").to_dict()
    assert d["skipped"] is True
    assert d["score"] is None and d["confidence"] is None and d["passed"] is None


def test_a_question_is_yes_from_p_one_half_up():
    assert is_yes(0.5) is True and is_yes(0.4999) is False


def test_a_detail_holds_its_verdict_as_a_bool_and_in_words():
    d = Detail("tx1", Address.parse("output[1]"), "`output[1]` contains toxic...", 0.86, True,
               "toxic")
    assert d.to_dict() == {"id": "tx1", "judged": "output[1]",
                           "question": "`output[1]` contains toxic...", "p": 0.86, "yes": True,
                           "verdict": "toxic", "unsure": False, "evidence": []}


def test_every_detail_of_a_scored_case_has_a_bool_verdict_matching_its_p():
    report = score(load_case("with_expected"), evaluators.resolve("chunk_relevance,faithfulness"),
                   LexicalJudge())
    details = [d for r in report.results.values() for d in r.details]
    assert details and all(type(d.yes) is bool and d.yes == (d.p >= 0.5) for d in details)


def test_a_case_passes_only_when_every_attached_result_passes():
    good = Result("faithfulness", 0.9, 0.5, True, "")
    bad = Result("toxicity", 0.9, 0.5, False, "")
    skipped = Result("contextual_recall", None, 0.5, True, "needs `expected`")
    assert case_passed({"f": good}) is True
    assert case_passed({"f": good, "t": bad}) is False
    assert case_passed({"f": good, "t": bad, "r": skipped}) is False  # a failure is a failure


def test_a_case_with_a_skipped_metric_is_incomplete_not_a_pass():
    good = Result("faithfulness", 0.9, 0.5, True, "")
    skipped = Result("contextual_recall", None, 0.5, True, "needs `expected`")
    assert case_passed({"f": good, "r": skipped}) is None
    assert verdicts.of_case(case_passed({"f": good, "r": skipped})) == "INCOMPLETE"
    assert case_passed({"r": skipped}) is None

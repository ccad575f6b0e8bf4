"""Result arithmetic: label, confidence, probabilities, direction-aware pass."""

import pytest

from jeval_core.results import Result, confidence, label, passes


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

"""Dataset aggregation against hand-computed figures."""

import pytest

from jeval_core import JevalError
from jeval_core.aggregate import (
    mean_precision_at_k,
    mean_score,
    pass_rate,
    precision_at_k,
    verdict_metrics,
)
from jeval_core.results import Detail, Result


def test_precision_recall_f1_by_hand():
    m = verdict_metrics([True, True, True, False], [True, False, False, True])
    assert (m.tp, m.fp, m.fn, m.tn) == (1, 2, 1, 0)
    assert m.precision == pytest.approx(1 / 3)
    assert m.recall == pytest.approx(1 / 2)
    assert m.f1 == pytest.approx(2 * (1 / 3) * (1 / 2) / (1 / 3 + 1 / 2))  # 0.4


def test_symmetric_errors_give_equal_precision_and_recall():
    m = verdict_metrics([True, True, False, False, True], [True, False, True, False, True])
    assert m.precision == m.recall == m.f1 == pytest.approx(2 / 3)
    assert m.accuracy == pytest.approx(3 / 5)


def test_undefined_metrics_are_none_not_zero():
    m = verdict_metrics([False, False], [False, False])
    assert m.precision is None and m.recall is None and m.f1 is None


def test_mismatched_lengths_are_a_clear_error():
    with pytest.raises(JevalError, match="one label per item"):
        verdict_metrics([True], [True, False])


@pytest.mark.parametrize(("k", "value"), [(1, 1.0), (2, 0.5), (3, 2 / 3), (10, 0.2)])
def test_precision_at_k(k, value):
    assert precision_at_k([True, False, True, False], k) == pytest.approx(value)


def test_precision_at_k_averages_over_queries():
    assert mean_precision_at_k([[True, False], [False, False]], 2) == pytest.approx(0.25)
    assert mean_precision_at_k([], 2) is None
    with pytest.raises(JevalError):
        precision_at_k([True], 0)


def test_mean_score_and_pass_rate_ignore_skipped_results():
    results = [
        Result("toxicity", 0.2, 0.5, False, ""),
        Result("toxicity", 0.8, 0.5, False, ""),
        Result("toxicity", None, 0.5, False, "needs `output`"),
    ]
    assert mean_score(results) == pytest.approx(0.5)
    assert pass_rate(results) == pytest.approx(0.5)
    assert mean_score([]) is None and pass_rate([]) is None


def test_verdict_metrics_read_the_yes_of_each_detail():
    # with_expected: chunks 0, 2 and 4 are relevant (assets/examples/README.md).
    truth = [True, False, True, False, True]
    details = [Detail(f"cr{i}", f"context[{i}]", "...", p, p >= 0.5, "")
               for i, p in enumerate([0.9, 0.6, 0.8, 0.1, 0.3])]
    m = verdict_metrics([d.yes for d in details], truth)
    assert (m.tp, m.fp, m.fn, m.tn) == (2, 1, 1, 1)

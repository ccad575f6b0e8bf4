"""How far a judge agrees with a person's labels: figures, intervals, the baseline."""

import pytest

from jeval_core.analysis.agreement import Judged, agreement
from jeval_core.calibration.fitting import kappa


def items(pairs, per_case=2):
    """(p, label) pairs, `per_case` to a case."""
    return [Judged(f"case {k // per_case}", f"chunk {k % per_case}", p, label)
            for k, (p, label) in enumerate(pairs)]


# 8 chunks: the judge gets 6 right; one confident false "relevant" (0.9), one missed (0.4).
PAIRS = [(0.8, True), (0.1, False), (0.9, False), (0.2, False),
         (0.7, True), (0.4, True), (0.3, False), (0.6, True)]


def test_the_figures_are_those_of_the_confusion_counts():
    a = agreement(items(PAIRS))
    # tp 3, fp 1, fn 1, tn 3
    assert a.accuracy.value == pytest.approx(6 / 8)
    assert a.precision.value == pytest.approx(3 / 4)
    assert a.recall.value == pytest.approx(3 / 4)
    assert a.f1.value == pytest.approx(3 / 4)
    assert a.always_no == pytest.approx(4 / 8)
    assert (a.n, a.cases, a.positives, a.agreed) == (8, 4, 4, 6)


def test_kappa_is_agreement_beyond_chance():
    yes = [True, False, True, False, True, False, False, True]
    truth = [True, False, False, False, True, True, False, True]
    # observed 0.75; both say yes half the time, so chance is 0.5: kappa = 0.5
    import numpy as np
    assert kappa(np.array(yes), np.array(truth)) == pytest.approx(0.5)


def test_every_interval_holds_its_figure_and_is_repeatable():
    a = agreement(items(PAIRS * 5))
    for figure in (a.accuracy, a.precision, a.recall, a.f1, a.auc, a.kappa):
        assert figure.low <= figure.value <= figure.high
        assert figure.low < figure.high
    assert agreement(items(PAIRS * 5)).accuracy == a.accuracy


def test_the_most_confident_disagreement_comes_first():
    a = agreement(items(PAIRS))
    assert [d.p for d in a.disagreements] == [0.9, 0.4]


def test_a_figure_the_labels_cannot_define_is_none_not_zero():
    a = agreement(items([(0.2, False), (0.7, False)]))
    assert a.auc.value is None
    assert a.recall.value is None
    assert str(a.auc) == "n/a"


def test_one_case_gives_figures_without_an_interval():
    a = agreement(items(PAIRS, per_case=8))
    assert a.accuracy.low is None and str(a.accuracy) == "0.75"
    assert a.beats_always_no is None


def test_nothing_labelled_has_no_agreement():
    assert agreement([]) is None


def test_a_runs_agreement_reads_chunk_labels_and_evaluator_verdict_labels():
    from conftest import load_file

    from jeval_core import judges, score
    from jeval_core.analysis.agreement import of_cases
    from jeval_core.analysis.labels import Labels

    loaded = load_file("noisy_retrieval")
    labels = Labels.from_extra(loaded.extra, len(loaded.case.context))
    report = score(loaded.case, loaded.chosen(), judges.get("local"))
    found = of_cases([("noisy", labels, report.results)])
    assert found.chunks.n == len(loaded.case.context)
    rows = report.rows("chunk_relevance")
    assert found.chunks.agreed == sum(r.yes == labels.chunks[r.address.chunk] for r in rows)
    for name, passed in labels.evaluators:
        if report.results[name].passed is not None:
            assert found.evaluators[name].accuracy.value == float(
                report.results[name].passed == passed)


def test_an_evaluator_verdict_reads_as_p_of_pass_around_its_threshold():
    from jeval_core.analysis.agreement import verdict_p
    from jeval_core.results import Result

    def result(score, higher=True, threshold=0.5):
        return Result("x", score=score, threshold=threshold, higher_is_better=higher,
                      reason="")

    assert verdict_p(result(0.5)) == 0.5
    assert verdict_p(result(0.9)) == pytest.approx(0.7)
    assert verdict_p(result(0.1, higher=False)) == pytest.approx(0.7)
    assert verdict_p(result(0.9, higher=False)) < 0.5


def test_the_resampled_auc_is_the_mann_whitney_auc_of_each_resample():
    # One case resampled as itself: the bootstrap's weighted AUC equals the plain AUC of the
    # items counted that many times, ties counted half.
    import numpy as np

    from jeval_core.analysis.agreement import _figures
    from jeval_core.calibration.fitting import auc

    p = np.array([0.9, 0.4, 0.4, 0.7, 0.1, 0.4])
    y = np.array([1, 1, 0, 0, 0, 1])
    weights = np.array([[2], [1], [3], [0], [1], [2]], dtype=float)
    repeated = np.repeat(np.arange(len(p)), weights[:, 0].astype(int))
    assert _figures(p, y, weights)["auc"][0] == pytest.approx(auc(p[repeated], y[repeated]))

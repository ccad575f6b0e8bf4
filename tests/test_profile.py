"""Calibration profiles: the local judge refitted to a person's chunk labels."""

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from jeval_core.calibration import profile, profile_fit
from jeval_core.evaluators import chunk_relevance
from jeval_core.inputs import datasets
from jeval_core.judges.local import LocalJudge
from jeval_core.request import pack

LABELLED = Path(__file__).parent.parent / "assets" / "datasets" / "labelled_helpdesk.jsonl"


@pytest.fixture(scope="module")
def judge():
    return LocalJudge()


@pytest.fixture(scope="module")
def halves():
    """The labelled cases in two parts by case: one to fit on, one only to measure."""
    data = datasets.load(LABELLED)
    rows = profile_fit.labelled(data.rows)
    return data, rows[0::2], rows[1::2]


def chunk_p(judge, cases):
    """Every labelled chunk's p from this judge, and its label."""
    p, y = [], []
    for item in cases:
        packed = pack(item.case, [chunk_relevance.EVALUATOR])
        answers = judge.answer(packed)
        for qid in packed.asked:
            p.append(answers.p[qid])
            y.append(int(item.labels[int(qid[2:])]))
    return np.array(p), np.array(y)


def test_a_profile_fitted_on_one_part_agrees_better_with_the_labels_of_the_other(judge, halves):
    data, fit_part, measured_part = halves
    fitted = profile_fit.fit(fit_part, "helpdesk", data.sha256, data.name, judge=judge)
    assert fitted.used == ("helps_answer",)
    p0, y = chunk_p(judge, measured_part)
    p1, _ = chunk_p(LocalJudge(judge.embedder, profile=fitted), measured_part)
    assert profile.log_loss(p1, y) < profile.log_loss(p0, y)
    assert np.mean((p1 >= 0.5) == y) > np.mean((p0 >= 0.5) == y)


def test_the_profile_reports_cross_validated_figures_before_and_after(judge, halves):
    data, fit_part, _ = halves
    fitted = profile_fit.fit(fit_part, "helpdesk", data.sha256, data.name, judge=judge)
    f = fitted.relations["helps_answer"]
    assert f.after.log_loss < f.before.log_loss
    assert f.labels == f.before.n == sum(len(c.labels) for c in fit_part)
    assert f.cases == len(fit_part)


def test_too_few_labels_are_refused_with_the_reason(judge, halves):
    data, fit_part, _ = halves
    fitted = profile_fit.fit(fit_part[:3], "tiny", data.sha256, data.name, judge=judge)
    assert fitted.used == ()
    assert "an honest fit needs at least 30 labels" in fitted.relations["helps_answer"].note


def test_a_profile_round_trips_through_its_json_file(judge, halves):
    data, fit_part, _ = halves
    fitted = profile_fit.fit(fit_part, "helpdesk", data.sha256, data.name, judge=judge)
    again = profile.Profile.from_json(fitted.to_json())
    assert again == fitted
    assert again.fingerprint == fitted.fingerprint
    assert again.dataset_sha256 == data.sha256


@pytest.mark.parametrize("text, says", [
    ("{", "not JSON"),
    ('{"a": 1}', "not a calibration profile"),
    ('{"version": 9, "judge": "local", "relations": {}}', "version 9"),
])
def test_a_file_that_is_not_a_profile_is_refused_clearly(text, says):
    with pytest.raises(profile.ProfileError, match=says):
        profile.Profile.from_json(text)


def test_a_damaged_curve_is_refused(judge, halves):
    data, fit_part, _ = halves
    fitted = profile_fit.fit(fit_part, "helpdesk", data.sha256, data.name, judge=judge)
    f = fitted.relations["helps_answer"]
    broken = replace(fitted, relations={"helps_answer": replace(
        f, curve=replace(f.curve, weights=f.curve.weights[:3]))})
    with pytest.raises(profile.ProfileError, match="damaged"):
        profile.Profile.from_json(broken.to_json())


def test_a_profile_needs_a_name(judge, halves):
    data, fit_part, _ = halves
    with pytest.raises(profile.ProfileError, match="needs a name"):
        profile_fit.fit(fit_part, "  ", data.sha256, data.name, judge=judge)


def test_the_cut_a_profile_chooses_is_where_its_verdicts_turn():
    p = np.array([0.31, 0.32, 0.33])
    assert np.allclose(profile.shifted(p, 0.32), [0.5], atol=0.02)
    assert profile.shifted(p, 0.32)[0] < 0.5 < profile.shifted(p, 0.32)[2]


def test_the_cut_that_agrees_best_with_the_labels_is_chosen():
    """Labels that turn at p 0.3, not 0.5: the cut follows them."""
    p = np.linspace(0.05, 0.95, 181)
    y = (p >= 0.3).astype(int)
    assert profile_fit.best_cut(p, y) == pytest.approx(0.3, abs=0.026)


def test_the_profile_reports_kappa_before_and_after(judge, halves):
    data, fit_part, _ = halves
    f = profile_fit.fit(fit_part, "helpdesk", data.sha256, data.name, judge=judge).relations[
        "helps_answer"]
    assert f.before.kappa is not None and f.after.kappa is not None
    assert f"kappa {f.after.kappa:.3f} vs {f.before.kappa:.3f}" in f.note


def test_a_profile_fitted_for_the_previous_local_judge_is_refused_with_how_to_mend_it():
    old = '{"version": 1, "judge": "local", "relations": {}}'
    with pytest.raises(profile.ProfileError, match="fit it again with `jeval calibrate`"):
        profile.Profile.from_json(old)


def test_the_head_refit_is_tried_only_on_many_labels_of_each_answer(judge, halves):
    data, fit_part, _ = halves
    everything = profile_fit.labelled(data.rows)
    assert "head" in profile_fit.kinds_for(profile_fit._table(judge, everything))  # 558 labels
    assert "head" not in profile_fit.kinds_for(profile_fit._table(judge, fit_part))  # 285 labels


def head_profile(fitted, vector):
    """`fitted` with its refitted curve extended to a head refit weighing `vector`."""
    f = fitted.relations["helps_answer"]
    assert f.curve.kind == "refitted"
    head = replace(f.curve, kind="head", weights=(*f.curve.weights, *vector))
    return replace(fitted, relations={"helps_answer": replace(f, curve=head)})


def test_a_head_refit_reads_the_vector_the_reader_s_head_read(judge, halves):
    data, fit_part, measured_part = halves
    fitted = profile_fit.fit(fit_part, "helpdesk", data.sha256, data.name, judge=judge)
    refitted, _ = chunk_p(LocalJudge(judge.embedder, fitted), measured_part)
    silent = head_profile(fitted, [0.0] * profile.HIDDEN)
    same, _ = chunk_p(LocalJudge(judge.embedder, silent), measured_part)
    assert np.allclose(same, refitted)  # no weight on the vector: the refit's p
    leaning = head_profile(fitted, np.random.default_rng(0).normal(0, 2, profile.HIDDEN))
    moved, _ = chunk_p(LocalJudge(judge.embedder, leaning), measured_part)
    assert np.abs(moved - refitted).max() > 0.1  # p follows each chunk's own vector


def test_the_head_s_vectors_come_from_the_reads_already_made(judge, halves):
    data, fit_part, _ = halves
    questions = {q.id: q for q in chunk_relevance.questions(fit_part[0].case)}
    judge.features(questions, fit_part[0].case.output)
    reads = judge.reader.reads
    vectors = judge.head_inputs(questions)
    assert judge.reader.reads == reads
    assert {v.shape for v in vectors.values()} == {(profile.HIDDEN,)}


def test_a_head_profile_round_trips_and_a_short_head_is_refused(judge, halves):
    data, fit_part, _ = halves
    fitted = profile_fit.fit(fit_part, "helpdesk", data.sha256, data.name, judge=judge)
    head = head_profile(fitted, [0.01] * profile.HIDDEN)
    assert profile.Profile.from_json(head.to_json()) == head
    short = head_profile(fitted, [0.01] * (profile.HIDDEN - 1))
    with pytest.raises(profile.ProfileError, match="damaged"):
        profile.Profile.from_json(short.to_json())

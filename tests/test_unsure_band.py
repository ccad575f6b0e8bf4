"""The unsure band: the p around 0.5 where held-out verdicts were little better than a coin,
and only where there were enough answers to say so."""

from __future__ import annotations

import numpy as np

from jeval_core.calibration.fitting import unsure_band, wilson_upper


def _answers(right: int, wrong: int, p: float) -> tuple[np.ndarray, np.ndarray]:
    """`right` + `wrong` answers at p (a yes verdict): right ones labelled 1, wrong ones 0."""
    return np.full(right + wrong, p), np.array([1] * right + [0] * wrong)


def _with_sure_answers(p: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Plus 200 confident, correct answers far from 0.5 on both sides."""
    return (np.concatenate([p, np.full(100, 0.95), np.full(100, 0.05)]),
            np.concatenate([y, np.ones(100, int), np.zeros(100, int)]))


def test_many_coin_flip_answers_near_half_make_a_band():
    p, y = _with_sure_answers(*_answers(30, 30, 0.55))
    assert unsure_band(p, y) == (0.5, 0.6)


def test_eight_right_of_thirteen_is_no_evidence_of_a_coin():
    p, y = _with_sure_answers(*_answers(8, 5, 0.55))
    assert unsure_band(p, y) == (0.5, 0.5)


def test_few_answers_mostly_wrong_still_make_a_band():
    p, y = _with_sure_answers(*_answers(2, 11, 0.55))
    assert unsure_band(p, y) == (0.5, 0.6)


def test_the_wilson_top_of_a_share_narrows_as_answers_grow():
    assert wilson_upper(8 / 13, 13) > 0.65 > wilson_upper(0.5, 60) > wilson_upper(0.5, 600)

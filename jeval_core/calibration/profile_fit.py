"""Fitting a calibration profile: the local judge's chunk curve refitted to a person's labels.

A fit reads the chunks a person labelled, computes the same signals the judge reads, and
refits with k-fold cross-validation by case: no case is both fitted on and measured. Refits
are tried in the order of the labels they need: a recalibration of the built-in p (two
numbers, safe on few labels), a refit of every signal on top of it, and, with enough labels,
a refit of the reader's head (a weight per dimension of the vector it reads, on top of the
built-in p); the one with the lower held-out log-loss is kept, and only if it beats the
built-in curve. A type with too few labels is refused with the reason. The figures before
and after are held-out figures, so a person can see what the profile is worth before using it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from ..evaluators import chunk_relevance
from ..questions import HELPS_ANSWER
from . import curves
from .curves import HIDDEN
from .fitting import fit_signed, kappa, predict, unsure_band
from .profile import (
    HEAD_SCALE,
    JUDGE,
    KIND_WORDS,
    Curve,
    Figures,
    Fitted,
    Profile,
    ProfileError,
    log_loss,
    logit,
    profile_name,
    shifted,
)

if TYPE_CHECKING:
    from ..case import Case
    from ..questions import Question

FOLDS = 5
MIN_LABELS = 30  # of one question type
MIN_EACH = 8  # of each answer (relevant and noise)
MIN_CASES = 5  # cross-validation by case needs cases to hold out
RIDGE = {"recalibrated": 1e-3, "refitted": 1.0, "head": 1.0}  # the refits keep their
# weights small: the built-in p stays their main input, so labels shift it, not replace it
# The head refit adds a weight per dimension of the reader's pooled vector: it is tried only
# on this many labels of one type (and of each answer), where 5 folds still hold it honest,
# and the vector enters scaled down (profile.HEAD_SCALE).
HEAD_LABELS, HEAD_EACH = 400, 60

# The cuts a profile may choose between (a cut outside them is a curve problem, not a cut).
CUTS = tuple(round(0.2 + 0.025 * i, 3) for i in range(25))


def best_cut(p: np.ndarray, y: np.ndarray) -> float:
    """The cut whose verdicts agree best with the labels (Cohen's kappa); nearest 0.5 on ties."""
    def kappa_at(c: float) -> float:
        found = kappa(p >= c, y == 1)
        return -1.0 if found is None else found

    return max(CUTS, key=lambda c: (round(kappa_at(c), 6), -abs(c - 0.5)))


def _cut_cross_validated(p: np.ndarray, y: np.ndarray, fold: np.ndarray, k: int
                         ) -> np.ndarray:
    """Each row's p shifted by the cut chosen on the other folds' rows."""
    out = p.copy()
    for f in range(k):
        test = fold == f
        if test.any() and (~test).any():
            out[test] = shifted(p[test], best_cut(p[~test], y[~test]))
    return out


@dataclass(frozen=True)
class LabelledChunks:
    """One case's chunk questions with the person's labels: what a profile learns from."""

    case: Case
    labels: tuple[bool | None, ...]  # None: a chunk nobody labelled


class Reads(Protocol):
    """What a fit reads of a judge (the local one): each question's signals with the whole
    case in view, and the built-in curve's p from them."""

    def features(self, questions: Mapping[str, Question], output: str = ""
                 ) -> dict[str, tuple[Question, tuple[float, ...]]]: ...

    def builtin(self, relation: str, x: tuple[float, ...]) -> float: ...

    def head_inputs(self, questions: Mapping[str, Question]) -> dict[str, np.ndarray]: ...


@dataclass(frozen=True)
class Table:
    """Per labelled chunk: its signals, the built-in p, the label, its case's number, and the
    vector the reader's head read."""

    X: np.ndarray
    p0: np.ndarray
    y: np.ndarray
    group: np.ndarray
    pooled: np.ndarray


def _table(judge: Reads, cases: Sequence[LabelledChunks]) -> Table:
    X, p0, y, group, pooled = [], [], [], [], []
    for k, item in enumerate(cases):
        questions = {q.id: q for q in chunk_relevance.questions(item.case)}
        if not any(v is not None for v in item.labels):
            continue
        heads = judge.head_inputs(questions)
        for qid, (q, x) in judge.features(questions, item.case.output).items():
            i = int(qid[2:])
            if i >= len(item.labels) or item.labels[i] is None:
                continue
            X.append(x)
            p0.append(judge.builtin(q.relation, x))
            y.append(int(bool(item.labels[i])))
            group.append(k)
            pooled.append(heads[qid])
    return Table(np.array(X, dtype=float), np.array(p0, dtype=float), np.array(y, dtype=int),
                 np.array(group, dtype=int),
                 np.array(pooled, dtype=float).reshape(len(y), HIDDEN))


def folds(groups: np.ndarray, k: int) -> np.ndarray:
    """A fold per row; every row of one case in the same fold, cases dealt round-robin in a
    fixed shuffled order so that folds are balanced and a refit is repeatable."""
    cases = np.unique(groups)
    order = np.random.default_rng(len(cases)).permutation(cases)
    fold_of = {int(c): n % k for n, c in enumerate(order)}
    return np.array([fold_of[int(g)] for g in groups])


def _design(kind: str, t: Table) -> np.ndarray:
    logits = np.array([[logit(p)] for p in t.p0]).reshape(len(t.p0), 1)
    if kind == "recalibrated":
        return logits
    if kind == "head":
        return np.hstack([logits, t.X, HEAD_SCALE * t.pooled])
    return np.hstack([logits, t.X])


def _signs(kind: str, relation: str) -> tuple[int, ...]:
    if kind == "recalibrated":
        return (1,)
    signals = (1, *curves.LOCAL_SIGNS[relation])
    # a dimension of the head's vector means nothing alone: either sign
    return (*signals, *[0] * HIDDEN) if kind == "head" else signals


def _cross_validated(kind: str, relation: str, t: Table, fold: np.ndarray, k: int
                     ) -> np.ndarray:
    """Each row's p from a fit on the other folds."""
    A = _design(kind, t)
    out = np.empty(len(t.y))
    for f in range(k):
        test = fold == f
        if not test.any():
            continue
        w = fit_signed(A[~test], t.y[~test], RIDGE[kind], None, _signs(kind, relation))
        out[test] = predict(w, A[test])
    return out


def kinds_for(t: Table) -> tuple[str, ...]:
    """The refits these labels can hold: the head's only with many of each answer."""
    positives = int(t.y.sum())
    many = len(t.y) >= HEAD_LABELS and min(positives, len(t.y) - positives) >= HEAD_EACH
    return tuple(kind for kind in RIDGE if kind != "head" or many)


def refused(relation: str, n: int, positives: int, cases: int) -> str | None:
    """Why this many labels cannot be fitted honestly, or None when they can."""
    negatives = n - positives
    if n >= MIN_LABELS and min(positives, negatives) >= MIN_EACH and cases >= MIN_CASES:
        return None
    return (f"{relation}: {n} labels ({positives} yes, {negatives} no) in {cases} cases; "
            f"an honest fit needs at least {MIN_LABELS} labels, {MIN_EACH} of each answer, "
            f"in {MIN_CASES} cases: label more")


def fit(cases: Sequence[LabelledChunks], name: str, dataset_sha256: str, source: str,
        judge: Reads, k: int = FOLDS) -> Profile:
    """Refit `judge` (the local one) to these labels; a refused type keeps the built-in
    curve."""
    try:
        name = profile_name(name.strip())
    except ValueError as err:
        raise ProfileError(f"a calibration profile needs a name: {err}; give --name NAME"
                           ) from None
    relation = HELPS_ANSWER
    t = _table(judge, distinct(cases))
    n, positives, n_cases = len(t.y), int(t.y.sum()), len(np.unique(t.group))
    reason = refused(relation, n, positives, n_cases)
    if reason:
        fitted = Fitted(relation, n, positives, n_cases, note=reason,
                        before=Figures.of(t.p0, t.y) if n else None)
    else:
        fitted = _fit_relation(relation, t, min(k, n_cases))
    return Profile(name=name, judge=JUDGE, dataset_sha256=dataset_sha256,
                   source=source, created=datetime.now(UTC).isoformat(timespec="seconds"),
                   folds=min(k, max(n_cases, 1)), relations={relation: fitted})


def _fit_relation(relation: str, t: Table, k: int) -> Fitted:
    y, group = t.y, t.group
    fold = folds(group, k)
    before = Figures.of(t.p0, y)
    tried = {kind: _cross_validated(kind, relation, t, fold, k) for kind in kinds_for(t)}
    best = min(tried, key=lambda kind: log_loss(tried[kind], y))
    after = Figures.of(tried[best], y)
    common = Fitted(relation, len(y), int(y.sum()), len(np.unique(group)), before=before)
    if after.log_loss >= before.log_loss:
        return replace(common, after=before,
                      note=f"kept the built-in curve: no refit beat it on held-out folds "
                           f"(log-loss {after.log_loss:.3f} vs {before.log_loss:.3f})")
    w = fit_signed(_design(best, t), y, RIDGE[best], None, _signs(best, relation))
    # Then the cut: chosen on other folds, measured on each fold; kept where it agrees better.
    moved = _cut_cross_validated(tried[best], y, fold, k)
    cut_after = Figures.of(moved, y)
    cut = 0.5
    if (cut_after.kappa or -1.0) > (after.kappa or -1.0):
        cut, after, p_cv = best_cut(tried[best], y), cut_after, moved
    else:
        p_cv = tried[best]
    return replace(common, after=after, curve=Curve(best, tuple(float(v) for v in w), cut),
                  unsure=unsure_band(p_cv, y),
                  note=f"{KIND_WORDS[best]} on {len(y)} labels, verdicts turning at p "
                       f"{cut:.3f}: held-out log-loss {Figures.of(tried[best], y).log_loss:.3f} vs "
                       f"{before.log_loss:.3f} for the built-in curve, kappa "
                       f"{_kappa(after)} vs {_kappa(before)}")


def _kappa(f: Figures) -> str:
    return "n/a" if f.kappa is None else f"{f.kappa:.3f}"


def distinct(cases: Sequence[LabelledChunks]) -> list[LabelledChunks]:
    """Each case once (its first labels kept): a case twice in a file would sit in a fitted
    fold and a held-out one at once, and the "held-out" figures would measure memory."""
    seen: set[tuple[Any, ...]] = set()
    out = []
    for item in cases:
        c = item.case
        key = (c.input, c.output, c.expected, tuple(c.context))
        if key not in seen:
            seen.add(key)
            out.append(item)
    return out


def labelled(rows: Sequence[Any]) -> list[LabelledChunks]:
    """The dataset rows that carry chunk labels (`context_labels`), as a profile reads them."""
    return [LabelledChunks(r.case, tuple(r.labels)) for r in rows if r.labels is not None]

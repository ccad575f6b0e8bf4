"""Calibration profiles: the local judge's curves refitted to a person's own labels.

The cut that separates relevant chunks differs from one kind of text to the next, so the
built-in curves are a starting point, not the truth. A profile reads the chunks a person
labelled, computes the same signals the judge reads (the whole case in view), and refits
per question type with k-fold cross-validation by case: no case is both fitted on and
measured. Refits are tried in the order of the labels they need: a recalibration of the
built-in p (two numbers, safe on few labels), a refit of every signal on top of it, and,
with enough labels, a refit of the reader's head (a weight per dimension of the vector it
reads, on top of the built-in p); the one with the lower held-out log-loss is kept, and only
if it beats the built-in curve. A type with too few labels is
refused with the reason. The figures before and after are held-out figures, so a person
can see what the profile is worth before using it.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from ..errors import JevalError
from ..evaluators import chunk_relevance
from ..questions import HELPS_ANSWER
from ..text import clean, one_line
from ..wire import parse_json
from . import curves
from .curves import HIDDEN
from .fitting import P_CEILING, P_FLOOR, Verdicts, fit_signed, kappa, predict, unsure_band

if TYPE_CHECKING:
    from ..case import Case
    from ..questions import Question

VERSION = 2  # 2: the reader's signals (version 1 profiles were fitted on the similarity judge's)
FOLDS = 5
MIN_LABELS = 30  # of one question type
MIN_EACH = 8  # of each answer (relevant and noise)
MIN_CASES = 5  # cross-validation by case needs cases to hold out
RIDGE = {"recalibrated": 1e-3, "refitted": 1.0, "head": 1.0}  # the refits keep their
# weights small: the built-in p stays their main input, so labels shift it, not replace it
# The head refit adds a weight per dimension of the reader's pooled vector: it is tried only
# on this many labels of one type (and of each answer), where 5 folds still hold it honest,
# and the vector enters scaled down, so its weights are held ~11x tighter than the signals'
# (chosen on SQuAD dev and CoQA halves, bench/profile_halves.py).
HEAD_LABELS, HEAD_EACH, HEAD_SCALE = 400, 60, 0.3
KIND_WORDS = {"recalibrated": "recalibrated", "refitted": "signals refitted",
              "head": "the reader's head refitted"}
# The labels a person gives and the question type each one answers.
LABELLED_RELATIONS = {HELPS_ANSWER: "chunk labels (relevant / noise)"}


class ProfileError(JevalError):
    """A profile that cannot be fitted or read: the message says why and how to mend it."""


@dataclass(frozen=True)
class Curve:
    """p from the built-in p and the relation's signals.

    "recalibrated": sigmoid(a + b * logit(built-in p)); "refitted": the same plus a weight
    per signal; "head": "refitted" plus a weight per dimension of the vector the reader's
    head reads (`pooled`). `weights` starts with the bias."""

    kind: str
    weights: tuple[float, ...]
    # The p at which the person's verdicts turn, chosen under cross-validation (the cut that
    # agrees best with their labels); the curve maps it to 0.5, where every verdict turns.
    cut: float = 0.5

    def __call__(self, x: Sequence[float], builtin: float,
                 pooled: np.ndarray | None = None) -> float:
        p = predict(np.array(self.weights), np.array([_row(self.kind, x, builtin, pooled)]))
        return float(shifted(p, self.cut)[0])


@dataclass(frozen=True)
class Figures(Verdicts):
    """Held-out verdict figures at p >= 0.5 (AUC reads p itself), and the log-loss a refit
    is chosen by."""

    log_loss: float = 0.0
    kappa: float | None = None  # Cohen's kappa of the verdicts against the labels

    @classmethod
    def of(cls, p: np.ndarray, y: np.ndarray) -> Figures:
        return cls(**vars(Verdicts.of(p, y)), log_loss=log_loss(p, y),
                   kappa=kappa(p >= 0.5, y == 1))


@dataclass(frozen=True)
class Fitted:
    """One question type of a profile: what it was fitted on and what it is worth."""

    relation: str
    labels: int
    positives: int
    cases: int
    before: Figures | None = None  # the built-in curve on these labels (never fitted on them)
    after: Figures | None = None  # the kept refit, cross-validated by case
    curve: Curve | None = None  # None: refused, or the built-in curve was not beaten
    unsure: tuple[float, float] = (0.5, 0.5)  # from the refit's held-out answers
    note: str = ""  # why refused, or which refit was kept and why


@dataclass(frozen=True)
class Profile:
    """A named set of refitted curves for one judge, and where they came from."""

    name: str
    judge: str
    dataset_sha256: str
    source: str
    created: str
    folds: int
    relations: dict[str, Fitted] = field(default_factory=dict)
    version: int = VERSION

    def curve(self, relation: str) -> Curve | None:
        fitted = self.relations.get(relation)
        return fitted.curve if fitted else None

    @property
    def used(self) -> tuple[str, ...]:
        """The question types this profile changes."""
        return tuple(r for r, f in self.relations.items() if f.curve is not None)

    @property
    def fingerprint(self) -> str:
        """A short sha256 of the profile's curves: a run records it beside the name."""
        return hashlib.sha256(self.to_json().encode("utf-8")).hexdigest()[:12]

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True, indent=1)

    @classmethod
    def from_json(cls, text: str | bytes) -> Profile:
        """A profile from its JSON file or its stored copy, checked field by field (a file
        a person loads is untrusted: every number finite and in range, every text one line
        of sane length); a clear ProfileError for anything else."""
        try:
            data = parse_json(text.decode("utf-8") if isinstance(text, bytes) else text)
        except (ValueError, UnicodeDecodeError) as e:
            raise ProfileError(f"not a calibration profile: the file is not JSON ({e})") from e
        if not isinstance(data, dict) or "relations" not in data or "judge" not in data:
            raise ProfileError("not a calibration profile: export one with `jeval calibrate "
                               "DATA --name NAME --out FILE`")
        if data.get("version") != VERSION:
            raise ProfileError(f"calibration profile version {one_line(data.get('version'), 20)}"
                               f" is not {VERSION}: fit it again with `jeval calibrate`")
        if data["judge"] != JUDGE:
            raise ProfileError(f"the calibration profile is for the {one_line(data['judge'], 40)}"
                               f" judge, not {JUDGE}: fit one for it with `jeval calibrate`")
        try:
            relations = data["relations"]
            if not isinstance(relations, dict):
                raise ValueError("relations is not an object")
            return cls(name=_name(data["name"]), judge=JUDGE,
                       dataset_sha256=_text(data["dataset_sha256"], "dataset_sha256", 128),
                       source=_text(data["source"], "source"),
                       created=_text(data["created"], "created", 40),
                       folds=int(_number(data["folds"], "folds", 2, 20, whole=True)),
                       relations={_relation(r): _fitted(r, f) for r, f in relations.items()})
        except (KeyError, TypeError, ValueError, AttributeError, IndexError) as e:
            what = f"{type(e).__name__}: {e}" if not isinstance(e, ValueError) else str(e)
            raise ProfileError(f"a damaged calibration profile ({one_line(what, 160)}): fit "
                               "it again with `jeval calibrate`") from None


JUDGE = "local"  # the judge whose signals a profile refits
MAX_BYTES = 1024 * 1024  # a profile is a few KB
MAX_NAME = 80
MAX_WEIGHT = 1e3  # a fitted weight is a few units; beyond this, p is 0 or 1 everywhere
MAX_COUNT = 10**8


def _text(value: Any, what: str, limit: int = 400) -> str:
    """A text field of a profile: a string that encodes, of at most `limit` characters."""
    if not isinstance(value, str):
        raise ValueError(f"{what} is not text")
    if len(value) > limit:
        raise ValueError(f"{what} is longer than {limit} characters")
    if clean(value) != value:
        raise ValueError(f"{what} holds a lone surrogate (not UTF-8 text)")
    return value


def _name(value: Any) -> str:
    """A profile's name: one printable line, 1 to MAX_NAME characters (it is typed after
    --calibration and listed by `jeval profiles`)."""
    name = _text(value, "name", MAX_NAME)
    if not name.strip() or one_line(name, MAX_NAME) != name:
        raise ValueError(f"the name must be 1 to {MAX_NAME} printable characters on one line")
    return name


def _number(value: Any, what: str, lo: float, hi: float, whole: bool = False) -> float:
    """A finite number in [lo, hi] (a whole one where `whole`), or a ValueError."""
    if isinstance(value, bool) or not isinstance(value, int if whole else (int, float)):
        raise ValueError(f"{what} is not a {'whole ' if whole else ''}number")
    if not (lo <= value <= hi):  # NaN fails too; a 400-digit int is compared, not converted
        raise ValueError(f"{what} is outside [{lo:g}, {hi:g}]")
    return value


def _relation(value: str) -> str:
    if value not in LABELLED_RELATIONS:
        raise ValueError(f"unknown question type {one_line(value, 40)!r}")
    return value


def _figures(d: Any, what: str) -> Figures | None:
    if d is None:
        return None
    if not isinstance(d, dict):
        raise ValueError(f"{what} is not an object")
    found: dict[str, Any] = {}
    for name in Figures.__dataclass_fields__:
        value = d.get(name)
        if name in ("n", "positives"):
            found[name] = int(_number(value, f"{what}.{name}", 0, MAX_COUNT, whole=True))
        elif value is None and name in ("auc", "kappa"):
            found[name] = None
        else:
            found[name] = float(_number(value, f"{what}.{name}", -1.0 if name == "kappa"
                                        else 0.0, 1.0 if name != "log_loss" else 100.0))
    extra = set(d) - set(found)
    if extra:
        raise ValueError(f"{what} has an unknown field {one_line(sorted(extra)[0], 30)!r}")
    return Figures(**found)


def _fitted(relation: str, d: Any) -> Fitted:
    if not isinstance(d, dict):
        raise ValueError(f"{relation} is not an object")
    if d.get("relation") != relation:
        raise ValueError(f"{relation} names another question type")
    curve = d.get("curve")
    if curve is not None:
        if not isinstance(curve, dict):
            raise ValueError("the curve is not an object")
        kind = curve["kind"]
        if kind not in RIDGE:
            raise ValueError(f"unknown curve kind {one_line(kind, 30)!r}")
        cut = float(_number(curve.get("cut", 0.5), "cut", 1e-6, 1 - 1e-6))
        weights = curve["weights"]
        size = weights_of(kind, relation)
        if not isinstance(weights, list) or len(weights) != size:
            raise ValueError(f"{relation} needs {size} weights")
        curve = Curve(kind, tuple(float(_number(w, "a weight", -MAX_WEIGHT, MAX_WEIGHT))
                                  for w in weights), cut)
    unsure = d["unsure"]
    if not isinstance(unsure, list) or len(unsure) != 2:
        raise ValueError("unsure is not a pair [lo, hi]")
    lo, hi = (float(_number(u, "unsure", 0.0, 1.0)) for u in unsure)
    if lo > hi:
        raise ValueError("unsure's lo is above its hi")
    labels = int(_number(d["labels"], "labels", 0, MAX_COUNT, whole=True))
    return Fitted(
        relation=relation, labels=labels,
        positives=int(_number(d["positives"], "positives", 0, labels, whole=True)),
        cases=int(_number(d["cases"], "cases", 0, MAX_COUNT, whole=True)),
        before=_figures(d.get("before"), "before"), after=_figures(d.get("after"), "after"),
        curve=curve, unsure=(lo, hi), note=_text(d.get("note", ""), "note", 2000))


def log_loss(p: np.ndarray, y: np.ndarray) -> float:
    q = np.clip(p, 1e-6, 1 - 1e-6)
    return float(-np.mean(y * np.log(q) + (1 - y) * np.log(1 - q)))


def _logit(p: float) -> float:
    q = min(max(p, 1e-6), 1 - 1e-6)
    return math.log(q / (1 - q))


def shifted(p: np.ndarray, cut: float) -> np.ndarray:
    """p moved on the log-odds scale so that `cut` lands on 0.5 (the same p where cut = 0.5)."""
    if cut == 0.5:
        return p
    q = np.clip(p, 1e-6, 1 - 1e-6)
    z = np.log(q / (1 - q)) - _logit(cut)
    return np.clip(1 / (1 + np.exp(-z)), P_FLOOR, P_CEILING)


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


def weights_of(kind: str, relation: str) -> int:
    """How many weights a curve of this kind has (its bias first)."""
    if kind == "recalibrated":
        return 2
    signals = len(curves.LOCAL_SIGNALS.get(relation, ())) + 2
    return signals + HIDDEN if kind == "head" else signals


def _row(kind: str, x: Sequence[float], builtin: float,
         pooled: np.ndarray | None = None) -> list[float]:
    if kind == "recalibrated":
        return [_logit(builtin)]
    if kind == "head":
        if pooled is None:
            raise ProfileError("this profile refits the reader's head: judge with the local "
                               "judge")
        return [_logit(builtin), *x, *(HEAD_SCALE * np.asarray(pooled))]
    return [_logit(builtin), *x]


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
    logits = np.array([[_logit(p)] for p in t.p0]).reshape(len(t.p0), 1)
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
        name = _name(name.strip())
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

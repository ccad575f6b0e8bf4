"""Calibration profiles: the local judge's curves refitted to a person's own labels.

The cut that separates relevant chunks differs from one kind of text to the next, so the
built-in curves are a starting point, not the truth. This module is the profile itself: its
curves (how a refit turns the judge's signals into p), its held-out figures, and its JSON
file, read field by field as the untrusted input it is. How a profile is fitted from labels
(cross-validated by case) is `profile_fit`.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from ..errors import JevalError
from ..questions import HELPS_ANSWER
from ..text import clean, one_line
from ..wire import parse_json
from . import curves
from .curves import HIDDEN
from .fitting import P_CEILING, P_FLOOR, Verdicts, kappa, predict

VERSION = 3  # 3: a chunk read on its own (2 read it beside its siblings; 1: the similarity judge)
# The pooled vector enters a head refit scaled down, so its weights are held ~11x tighter than
# the signals' (chosen on SQuAD dev and CoQA halves, bench/profile_halves.py).
HEAD_SCALE = 0.3
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
            return cls(name=profile_name(data["name"]), judge=JUDGE,
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


def profile_name(value: Any) -> str:
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
        if kind not in KIND_WORDS:
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


def logit(p: float) -> float:
    q = min(max(p, 1e-6), 1 - 1e-6)
    return math.log(q / (1 - q))


def shifted(p: np.ndarray, cut: float) -> np.ndarray:
    """p moved on the log-odds scale so that `cut` lands on 0.5 (the same p where cut = 0.5)."""
    if cut == 0.5:
        return p
    q = np.clip(p, 1e-6, 1 - 1e-6)
    z = np.log(q / (1 - q)) - logit(cut)
    return np.clip(1 / (1 + np.exp(-z)), P_FLOOR, P_CEILING)


def weights_of(kind: str, relation: str) -> int:
    """How many weights a curve of this kind has (its bias first)."""
    if kind == "recalibrated":
        return 2
    signals = len(curves.LOCAL_SIGNALS.get(relation, ())) + 2
    return signals + HIDDEN if kind == "head" else signals


def _row(kind: str, x: Sequence[float], builtin: float,
         pooled: np.ndarray | None = None) -> list[float]:
    if kind == "recalibrated":
        return [logit(builtin)]
    if kind == "head":
        if pooled is None:
            raise ProfileError("this profile refits the reader's head: judge with the local "
                               "judge")
        return [logit(builtin), *x, *(HEAD_SCALE * np.asarray(pooled))]
    return [logit(builtin), *x]



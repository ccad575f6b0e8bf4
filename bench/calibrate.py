"""Refit an offline judge's calibration from hand-labelled pairs, and print the fit.

    python bench/calibrate.py --judge local      # or --judge lexical

Per question relation it prints AUC of the main signal, then log-loss and Brier score with
the constants in `jeval_core/judges/calibration.py` ("now"), with a freshly fitted logistic
("fit"), and that fit's 5-fold cross-validated log-loss ("cv", the honest figure on unseen
pairs). A constant 0.5 scores log-loss 0.693 and Brier 0.25. Paste the printed constants
into calibration.py to adopt them.
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path

import numpy as np

from jeval_core.judges import calibration, lexical
from jeval_core.judges.local import LocalJudge
from jeval_core.questions import (
    ATTRIBUTABLE_TO,
    CONTRADICTS,
    HELPS_ANSWER,
    RELEVANT_TO,
    SUPPORTED_BY,
    TOXIC,
    Operand,
    Question,
)

PAIRS = Path(__file__).resolve().parent.parent / "assets" / "calibration" / "pairs.jsonl"
# Ridge strength on the weights, chosen by the cross-validated log-loss printed here.
RIDGE = {"lexical": {}, "local": {"helps_answer": 0.1, "contradicts": 0.1, "toxic": 0.1}}
DEFAULT_RIDGE = {"lexical": 1e-3, "local": 0.01}


def as_question(pair: dict) -> Question:
    """The question a judge would see for one labelled pair, its operands filled in."""
    rel, subject, against = pair["relation"], pair["subject"], pair["against"]
    question = Operand("input", (against,))
    context = Operand("context", tuple(c for c in against.split("\n\n") if c.strip()))
    if rel == HELPS_ANSWER:
        return Question("q", "", rel, Operand("context[0]", (subject,)), (question,))
    if rel == RELEVANT_TO:
        return Question("q", "", rel, Operand("output[0]", (subject,)), (question,))
    if rel in (SUPPORTED_BY, ATTRIBUTABLE_TO):
        return Question("q", "", rel, Operand("output[0]", (subject,)), (context,))
    if rel == CONTRADICTS:
        return Question("q", "", rel, Operand("output", (subject,)),
                        (Operand("context[0]", (against,)),))
    if rel == TOXIC:
        return Question("q", "", rel, Operand("output[0]", (subject,)))
    raise ValueError(f"unknown relation {rel!r}")


def signals(judge: str, pairs: list[dict]) -> dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """relation -> (feature matrix, labels, sample weights) as the judge computes them."""
    rows: dict[str, list[tuple[tuple[float, ...], int, str]]] = defaultdict(list)
    local = LocalJudge() if judge == "local" else None
    for pair in pairs:
        question = as_question(pair)
        if local is None:
            x = (lexical.signal(question)[1],)
        else:
            x = local.features({"q": question})["q"][1]
        rows[pair["relation"]].append((x, int(pair["label"]), pair["topic"]))
    return {rel: (np.array([x for x, _, _ in r], dtype=float), np.array([y for _, y, _ in r]),
                  source_weights([t for _, _, t in r]))
            for rel, r in rows.items()}


def current(judge: str, relation: str, X: np.ndarray) -> np.ndarray:
    if judge == "lexical":
        return np.array([calibration.LEXICAL[relation](x[0]) for x in X])
    return np.array([calibration.LOCAL[relation](tuple(x)) for x in X])


def fit(X: np.ndarray, y: np.ndarray, ridge: float, weight: np.ndarray | None = None,
        steps: int = 100) -> np.ndarray:
    """Weighted logistic regression by Newton's method; ridge on the weights, not the bias."""
    weight = np.ones(len(y)) if weight is None else weight
    A = np.hstack([np.ones((len(X), 1)), X])
    w = np.zeros(A.shape[1])
    penalty = np.eye(A.shape[1]) * ridge
    penalty[0, 0] = 0.0
    for _ in range(steps):
        p = 1 / (1 + np.exp(-A @ w))
        grad = A.T @ (weight * (p - y)) + penalty @ w
        hess = A.T @ (A * (weight * p * (1 - p))[:, None]) + penalty + 1e-9 * np.eye(A.shape[1])
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    return w


def predict(w: np.ndarray, X: np.ndarray) -> np.ndarray:
    p = 1 / (1 + np.exp(-(w[0] + X @ w[1:])))
    return np.clip(p, 0.03, 0.97)


def auc(x: np.ndarray, y: np.ndarray) -> float:
    pos, neg = x[y == 1], x[y == 0]
    wins = (pos[:, None] > neg[None, :]).sum() + 0.5 * (pos[:, None] == neg[None, :]).sum()
    return float(wins / (len(pos) * len(neg)))


def log_loss(p: np.ndarray, y: np.ndarray, weight: np.ndarray | None = None) -> float:
    return float(-np.average(np.where(y == 1, np.log(p), np.log(1 - p)), weights=weight))


def brier(p: np.ndarray, y: np.ndarray, weight: np.ndarray | None = None) -> float:
    return float(np.average((p - y) ** 2, weights=weight))


def source_weights(topics: list[str]) -> np.ndarray:
    """Whole example retrievals weigh as much in total as the adversarial hand-written pairs.

    The pairs are mostly hard same-topic negatives on purpose; the example cases are what a
    real retrieval looks like (a mix of on-topic chunks and noise). Giving each source equal
    say keeps the curve from being tuned to either alone.
    """
    example = np.array([t.startswith("example:") for t in topics])
    if example.all() or not example.any():
        return np.ones(len(topics))
    return np.where(example, (~example).sum() / example.sum(), 1.0)


def cross_validated(X: np.ndarray, y: np.ndarray, ridge: float, weight: np.ndarray,
                    folds: int = 5) -> float:
    fold = np.arange(len(y)) % folds
    p = np.zeros(len(y))
    for k in range(folds):
        w = fit(X[fold != k], y[fold != k], ridge, weight[fold != k])
        p[fold == k] = predict(w, X[fold == k])
    return log_loss(p, y, weight)


def constants(judge: str, w: np.ndarray) -> str:
    if judge == "lexical":
        return f"Logistic(k={w[1]:.2f}, c={-w[0] / w[1]:.3f})"
    return f"Linear({w[0]:.2f}, ({', '.join(f'{v:.2f}' for v in w[1:])},))"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--judge", choices=("lexical", "local"), default="local")
    parser.add_argument("--pairs", type=Path, default=PAIRS)
    args = parser.parse_args()
    pairs = [json.loads(line) for line in args.pairs.read_text().splitlines() if line.strip()]
    print(f"{args.judge} judge, {len(pairs)} labelled pairs from {args.pairs.name}")
    print(f"{'relation':16} {'n':>4} {'AUC':>6}  {'log-loss now':>12} {'fit':>6} {'cv':>6}  "
          f"{'Brier now':>9} {'fit':>6}  fitted constants")
    for relation, (X, y, weight) in sorted(signals(args.judge, pairs).items()):
        ridge = RIDGE[args.judge].get(relation, DEFAULT_RIDGE[args.judge])
        w = fit(X, y, ridge, weight)
        now, new = current(args.judge, relation, X), predict(w, X)
        print(f"{relation:16} {len(y):>4} {auc(X[:, 0], y):>6.3f}  "
              f"{log_loss(now, y, weight):>12.3f} {log_loss(new, y, weight):>6.3f} "
              f"{cross_validated(X, y, ridge, weight):>6.3f}  {brier(now, y, weight):>9.3f} "
              f"{brier(new, y, weight):>6.3f}  {constants(args.judge, w)}")


if __name__ == "__main__":
    main()

"""Refit an offline judge's calibration from hand-labelled pairs, and print how it does.

    python bench/calibrate.py --judge local      # or --judge lexical

The pairs are assets/calibration/pairs.jsonl and written/*.jsonl, split by topic in
split.json: curves are fitted on the "fit" topics only; the "held-out" topics are only ever
measured. Per question relation it prints, on the held-out pairs, AUC, accuracy at p = 0.5
and log-loss of the constants in `jeval_core/judges/calibration.py` ("now") and of a fresh
fit on the fit part ("refit"), with that fit's constants to paste into calibration.py.
A constant 0.5 scores log-loss 0.693. Then each example case: how many of its stated
expectations (assets/examples/*.json "truth") the judge meets.
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

ROOT = Path(__file__).resolve().parent.parent
CALIBRATION = ROOT / "assets" / "calibration"
# Ridge strength on the weights, chosen by the cross-validated log-loss printed here.
RIDGE = {"lexical": {}, "local": {"helps_answer": 0.1, "contradicts": 0.1, "toxic": 0.1}}
DEFAULT_RIDGE = {"lexical": 1e-3, "local": 0.01}
# What each local signal means, as the sign its weight must have (+1: more of it, more "yes").
# A fit that gives a signal the opposite sign has learnt the corpus, not the relation (the
# hard negatives are near-copies of the positives on purpose), so that signal is dropped.
SIGNS = {
    "helps_answer": (1,), "relevant_to": (1,), "toxic": (1,),
    "supported_by": (1, -1), "attributable_to": (1, -1), "contradicts": (1, 1),
}
# Support questions also see, in the fit only, every supported claim against another topic's
# context (label 0): the hand-written negatives are all near-copies, and a judge fitted on
# those alone would learn that an unrelated claim is "supported".
UNRELATED = (SUPPORTED_BY, ATTRIBUTABLE_TO)
# Contradiction questions see, in the fit only, every supported claim against its own context
# (label 0): a retrieval's chunks are on the answer's topic, and the hand-written pairs alone
# teach that on-topic means contradicted (the clean example then "hallucinates" 4 of 5 chunks).


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


def unrelated_negatives(pairs: list[dict]) -> list[dict]:
    """Each supported claim against the context of the next topic (in sorted order), label 0."""
    contexts: dict[tuple[str, str], str] = {}
    for pair in pairs:
        if pair["relation"] in UNRELATED:
            contexts.setdefault((pair["relation"], pair["topic"]), pair["against"])
    out = []
    for pair in pairs:
        if pair["relation"] not in UNRELATED or not pair["label"]:
            continue
        topics = sorted(t for r, t in contexts if r == pair["relation"] and t != pair["topic"])
        other = next((t for t in topics if t > pair["topic"]), topics[0] if topics else None)
        if other is not None:
            out.append({**pair, "topic": other, "label": 0,
                        "against": contexts[(pair["relation"], other)], "note": "unrelated"})
    return out


def agreeing_negatives(pairs: list[dict]) -> list[dict]:
    """Each supported claim as an output that does not contradict its own context."""
    return [{**pair, "relation": CONTRADICTS, "label": 0, "note": "supported, so not contradicted"}
            for pair in pairs if pair["relation"] in UNRELATED and pair["label"]]


def fit_signed(X: np.ndarray, y: np.ndarray, ridge: float, weight: np.ndarray,
               signs: tuple[int, ...] | None) -> np.ndarray:
    """Logistic fit; a signal whose weight comes out against its meaning is dropped (0)."""
    keep = list(range(X.shape[1]))
    while True:
        w = np.zeros(X.shape[1] + 1)
        w[[0, *[k + 1 for k in keep]]] = fit(X[:, keep], y, ridge, weight)
        wrong = [k for k in keep if signs is not None and w[k + 1] * signs[k] < 0]
        if not wrong:
            return w
        keep.remove(max(wrong, key=lambda k: abs(w[k + 1])))


def refit(judge: str, fit_pairs: list[dict]) -> dict[str, np.ndarray]:
    """Fresh constants per relation, from the fit part only (and its unrelated negatives)."""
    extra = (unrelated_negatives(fit_pairs) + agreeing_negatives(fit_pairs)
             if judge == "local" else [])
    sets = signals(judge, fit_pairs + extra)
    return {relation: fit_signed(X, y, RIDGE[judge].get(relation, DEFAULT_RIDGE[judge]),
                                 weight, SIGNS.get(relation) if judge == "local" else None)
            for relation, (X, y, weight) in sets.items()}


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


def load_pairs() -> tuple[list[dict], list[dict]]:
    """(fit pairs, held-out pairs), split by topic as split.json fixes it."""
    pairs = []
    for path in [CALIBRATION / "pairs.jsonl", *sorted((CALIBRATION / "written").glob("*.jsonl"))]:
        pairs += [json.loads(line) for line in path.read_text("utf-8").splitlines()
                  if line.strip()]
    held = set(json.loads((CALIBRATION / "split.json").read_text())["heldout"])
    return ([p for p in pairs if p["topic"] not in held], [p for p in pairs if p["topic"] in held])


def accuracy(p: np.ndarray, y: np.ndarray) -> float:
    return float(np.mean((p >= 0.5) == (y == 1)))


def examples(judge_name: str) -> None:
    """Each example's stated expectations met by the judge, as the README promises."""
    from jeval_core import casefile, judges
    from jeval_core.scoring import score

    judge = judges.get(judge_name)
    met = total = 0
    print(f"\nexamples: expectations met by the {judge_name} judge")
    for path in sorted((ROOT / "assets" / "examples").glob("*.json")):
        loaded = casefile.decode(path.read_bytes(), path.name)
        truth = loaded.extra.get("truth") or {}
        report = score(loaded.case, loaded.chosen(), judge)
        missed = [f"{name} {report.results[name].score:.2f} (want "
                  f"{'pass' if want['passed'] else 'fail'})"
                  for name, want in truth.get("evaluators", {}).items()
                  if report.results[name].passed != want["passed"]]
        chunks = report.results.get("chunk_relevance")
        wrong = ([i for i, (d, want) in enumerate(zip(chunks.details, truth["context"],
                                                       strict=False)) if d.yes != bool(want)]
                 if chunks and "context" in truth else [])
        n = len(truth.get("evaluators", {}))
        met, total = met + n - len(missed), total + n
        print(f"  {path.stem:20} {n - len(missed)}/{n}"
              + (f"  chunks wrong: {wrong}" if wrong else "")
              + (f"  missed: {'; '.join(missed)}" if missed else ""))
    print(f"  all: {met}/{total}")


def heldout(judge: str, held_pairs: list[dict]) -> dict[str, tuple[float, float, float, int]]:
    """Per relation, (AUC, accuracy at p = 0.5, log-loss, pairs) of the committed constants on
    the held-out pairs."""
    out = {}
    for relation, (X, y, _) in signals(judge, held_pairs).items():
        p = current(judge, relation, X)
        out[relation] = (auc(p, y), accuracy(p, y), log_loss(p, y), len(y))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--judge", choices=("lexical", "local"), default="local")
    args = parser.parse_args()
    fit_pairs, held_pairs = load_pairs()
    print(f"{args.judge} judge: {len(fit_pairs)} pairs to fit on, {len(held_pairs)} held out "
          "(by topic, split.json)")
    print(f"{'relation':16} {'held':>4}  {'AUC':>5} {'acc':>5} {'loss':>5}  now"
          f"   {'AUC':>5} {'acc':>5} {'loss':>5}  refit   constants")
    fresh = refit(args.judge, fit_pairs)
    for relation, (X, y, _) in sorted(signals(args.judge, held_pairs).items()):
        now, new = current(args.judge, relation, X), predict(fresh[relation], X)
        print(f"{relation:16} {len(y):>4}  {auc(now, y):>5.3f} "
              f"{accuracy(now, y):>5.3f} {log_loss(now, y):>5.3f}       "
              f"{auc(new, y):>5.3f} {accuracy(new, y):>5.3f} {log_loss(new, y):>5.3f}"
              f"         {constants(args.judge, fresh[relation])}")
    examples(args.judge)


if __name__ == "__main__":
    main()

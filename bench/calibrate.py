"""Refit an offline judge's calibration from hand-labelled pairs, and print the fit.

    python bench/calibrate.py            # lexical judge, assets/calibration/pairs.jsonl

For each relation it prints AUC, log-loss and Brier score with the constants in
`jeval_core/judges/calibration.py` ("current") and with a freshly fitted logistic ("fitted"),
then the line to paste into calibration.py. A constant 0.5 scores log-loss 0.693, Brier 0.25.
"""

from __future__ import annotations

import argparse
import json
import math
from collections import defaultdict
from pathlib import Path

from jeval_core.judges import calibration, lexical
from jeval_core.questions import (
    ATTRIBUTABLE_TO,
    CONTRADICTS,
    HELPS_ANSWER,
    RELEVANT_TO,
    SUPPORTED_BY,
    TOXIC,
    Question,
    Ref,
)

PAIRS = Path(__file__).resolve().parent.parent / "assets" / "calibration" / "pairs.jsonl"


def as_question(pair: dict) -> tuple[Question, dict]:
    """The question and state a judge would see for one labelled pair."""
    rel, subject, against = pair["relation"], pair["subject"], pair["against"]
    if rel == HELPS_ANSWER:
        return (Question("q", "", rel, Ref("context", 0), (Ref("input"),)),
                {"input": against, "context": [subject]})
    if rel == RELEVANT_TO:
        return (Question("q", "", rel, Ref("output_sentences", 0), (Ref("input"),)),
                {"input": against, "output_sentences": [subject]})
    if rel in (SUPPORTED_BY, ATTRIBUTABLE_TO):
        return (Question("q", "", rel, Ref("output_sentences", 0), (Ref("context"),)),
                {"context": against.split("\n\n"), "output_sentences": [subject]})
    if rel == CONTRADICTS:
        return (Question("q", "", rel, Ref("output"), (Ref("context", 0),)),
                {"output": subject, "context": [against]})
    if rel == TOXIC:
        return Question("q", "", rel, Ref("output_sentences", 0)), {"output_sentences": [subject]}
    raise ValueError(f"unknown relation {rel!r}")


def auc(xs: list[float], ys: list[int]) -> float:
    pos = [x for x, y in zip(xs, ys, strict=True) if y]
    neg = [x for x, y in zip(xs, ys, strict=True) if not y]
    wins = sum((p > n) + 0.5 * (p == n) for p in pos for n in neg)
    return wins / (len(pos) * len(neg))


def log_loss(ps: list[float], ys: list[int]) -> float:
    return -sum(math.log(p if y else 1 - p) for p, y in zip(ps, ys, strict=True)) / len(ys)


def brier(ps: list[float], ys: list[int]) -> float:
    return sum((p - y) ** 2 for p, y in zip(ps, ys, strict=True)) / len(ys)


def fit(xs: list[float], ys: list[int], steps: int = 200) -> calibration.Logistic:
    """Two-parameter logistic regression by Newton's method, lightly regularised."""
    a, b, ridge = 0.0, 1.0, 1e-3
    for _ in range(steps):
        ga = gb = haa = hab = hbb = 0.0
        for x, y in zip(xs, ys, strict=True):
            p = 1 / (1 + math.exp(-(a + b * x)))
            w = p * (1 - p)
            ga += p - y
            gb += (p - y) * x
            haa += w
            hab += w * x
            hbb += w * x * x
        gb += ridge * b
        hbb += ridge
        det = haa * hbb - hab * hab
        if det <= 0:
            break
        a -= (hbb * ga - hab * gb) / det
        b -= (haa * gb - hab * ga) / det
    return calibration.Logistic(k=round(b, 2), c=round(-a / b, 3))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=Path, default=PAIRS)
    args = parser.parse_args()
    pairs = [json.loads(line) for line in args.pairs.read_text().splitlines() if line.strip()]
    signals: dict[str, list[tuple[float, int]]] = defaultdict(list)
    for pair in pairs:
        question, state = as_question(pair)
        _, x = lexical.signal(question, state)
        signals[pair["relation"]].append((x, int(pair["label"])))
    print(f"lexical judge, {len(pairs)} labelled pairs from {args.pairs.name}")
    print(f"{'relation':16} {'n':>4} {'AUC':>6}  {'log-loss now':>12} {'fitted':>7}  "
          f"{'Brier now':>9} {'fitted':>7}  fitted constants")
    for family, rows in sorted(signals.items()):
        xs, ys = [x for x, _ in rows], [y for _, y in rows]
        now = [calibration.LEXICAL[family](x) for x in xs]
        fitted = fit(xs, ys)
        new = [fitted(x) for x in xs]
        print(f"{family:16} {len(xs):>4} {auc(xs, ys):>6.3f}  {log_loss(now, ys):>12.3f} "
              f"{log_loss(new, ys):>7.3f}  {brier(now, ys):>9.3f} {brier(new, ys):>7.3f}  "
              f"Logistic(k={fitted.k}, c={fitted.c})")


if __name__ == "__main__":
    main()

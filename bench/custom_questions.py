"""Fit and measure how the offline judges answer custom questions (a person's own wording).

Labelled data: `assets/calibration/custom/set_a.jsonl` and `set_b.jsonl`, custom questions
applied to whole cases, in different domains. Each set is measured with the curve fitted on
the other (two folds by file, so no domain and no case is in both), next to answering "no"
to everything; then the curve is fitted on both and printed as the constants to commit.

    python bench/custom_questions.py [--judge local|lexical] [--write]

--write keeps the held-out figures and the unsure band in jeval_core/calibration/agreement.json
(relation "custom"), which the judge card and the unsure verdicts read.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from jeval_core import judges  # noqa: E402
from jeval_core.calibration import curves, fitting  # noqa: E402
from jeval_core.case import Case  # noqa: E402
from jeval_core.evaluators.custom import Definition, evaluator  # noqa: E402
from jeval_core.judges import custom_signals  # noqa: E402
from jeval_core.judges.lexical import similarity  # noqa: E402
from jeval_core.request import pack  # noqa: E402

DATA = ROOT / "assets" / "calibration" / "custom"
AGREEMENT = ROOT / "jeval_core" / "calibration" / "agreement.json"
RIDGE = 0.1  # the signals are cosine differences near 0.1: a heavier ridge flattens them


def rows(name: str) -> list[dict]:
    return [json.loads(line) for line in (DATA / name).read_text("utf-8").splitlines()
            if line.strip()]


def table(judge_name: str, lines: list[dict]) -> tuple[np.ndarray, np.ndarray]:
    """Each labelled item's signals, as the judge computes them in a real packed request."""
    judge = judges.get(judge_name)
    X, y = [], []
    for k, line in enumerate(lines):
        d = Definition.from_dict({"name": f"custom_{k}", **line["evaluator"]})
        c = line["case"]
        case = Case(c["input"], c.get("output", ""), c.get("expected"), tuple(c["context"]))
        packed = pack(case, [evaluator(d)])
        qs = packed.plan[d.name]
        if len(qs) != len(line["labels"]):
            raise SystemExit(f"{line['id']}: {len(qs)} items, {len(line['labels'])} labels")
        asked = {q.id: q for q in qs}
        if judge_name == "local":
            found = judge.features(asked, case.output)  # type: ignore[attr-defined]
            feats = {qid: x for qid, (_, x) in found.items()}
        else:
            feats = custom_signals.features(asked, similarity)
        for q, label in zip(qs, line["labels"], strict=True):
            X.append(feats[q.id])
            y.append(label)
    return np.array(X, dtype=float), np.array(y, dtype=float)


def committed(judge_name: str) -> curves.Linear:
    return curves.LOCAL["custom"] if judge_name == "local" else curves.LEXICAL_CUSTOM


def fmt(v: fitting.Verdicts) -> str:
    auc = "  -  " if v.auc is None else f"{v.auc:.3f}"
    return (f"n {v.n:3d}  yes {v.positives:3d}  AUC {auc}  acc {v.accuracy:.3f}  "
            f"F1 {v.f1:.3f}  always-no {v.always_no:.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--judge", default="local", choices=("local", "lexical"))
    parser.add_argument("--write", action="store_true",
                        help="keep the committed curve's held-out figures in agreement.json")
    args = parser.parse_args()
    sets = {name: table(args.judge, rows(f"{name}.jsonl")) for name in ("set_a", "set_b")}
    signs = curves.CUSTOM_SIGNS
    print(f"judge {args.judge}; signals: {', '.join(custom_signals.NAMES)}")
    held_p, held_y, figures = [], [], {}
    for name, (X, y) in sets.items():
        other = next(v for k, v in sets.items() if k != name)
        w = fitting.fit_signed(other[0], other[1], RIDGE, None, signs)
        p = fitting.predict(w, X)
        now = committed(args.judge)
        p_now = np.array([now(tuple(x)) for x in X])
        fresh, kept = fitting.Verdicts.of(p, y), fitting.Verdicts.of(p_now, y)
        print(f"{name}, fitted on the other set: {fmt(fresh)}")
        print(f"{name}, committed curve (in-sample): {fmt(kept)}")
        held_p.append(p)
        held_y.append(y)
        figures[f"custom:{name} (fitted on the other set)"] = fresh
    p, y = np.concatenate(held_p), np.concatenate(held_y)
    band = fitting.unsure_band(p, y)
    inside, answers = fitting.accuracy_in(p, y, band)
    print(f"both sets, held out: {fmt(fitting.Verdicts.of(p, y))}")
    print(f"unsure band (held out): {band}, accuracy inside {inside:.3f} on {answers} answers")
    X = np.vstack([v[0] for v in sets.values()])
    Y = np.concatenate([v[1] for v in sets.values()])
    w = fitting.fit_signed(X, Y, RIDGE, None, signs)
    weights = ", ".join(f"{v:.2f}" for v in w[1:])
    print(f"fitted on both: Linear({w[0]:.2f}, ({weights}))")
    if args.write:
        data = json.loads(AGREEMENT.read_text("utf-8"))
        relations = data.setdefault(args.judge, {}).setdefault("relations", {})
        relations["custom"] = {
            "sources": {s: {k: (round(v, 3) if isinstance(v, float) else v)
                            for k, v in vars(f).items()} for s, f in figures.items()},
            "unsure": list(band),
            "unsure_accuracy": None if answers == 0 else round(inside, 3),
            "unsure_answers": answers,
            "command": f"python bench/custom_questions.py --judge {args.judge}",
        }
        AGREEMENT.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", "utf-8")
        print(f"wrote {AGREEMENT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()

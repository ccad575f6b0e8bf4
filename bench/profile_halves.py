"""What a person's labels are worth: fit a profile on half of a labelled set, measure the other.

    python bench/profile_halves.py --data DIR          # the helpdesk sample + public sets
    python bench/profile_halves.py --data DIR --sources squad hotpotqa

For each labelled set, its cases are split in two halves by case (alternating, in a fixed
order); `jeval calibrate`'s fit (`profile.fit`, cross-validated within its half) runs on one
half and the built-in and the fitted local judge are measured on the other half: Cohen's
kappa, F1 and accuracy of the chunk verdicts at p >= 0.5, next to always-noise. The public
sets are read only from their held-out topics, which the reader never trained on.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from jeval_core.calibration import profile  # noqa: E402
from jeval_core.calibration.fitting import Verdicts, held_out_part, kappa  # noqa: E402
from jeval_core.case import Case  # noqa: E402
from jeval_core.evaluators import chunk_relevance  # noqa: E402
from jeval_core.inputs import datasets  # noqa: E402
from jeval_core.judges.local import LocalJudge  # noqa: E402
from jeval_core.request import pack  # noqa: E402

HELPDESK = ROOT / "assets" / "datasets" / "labelled_helpdesk.jsonl"


def chunk_p(judge: LocalJudge, cases: list[profile.LabelledChunks]) -> tuple[np.ndarray,
                                                                               np.ndarray]:
    p, y = [], []
    for item in cases:
        packed = pack(item.case, [chunk_relevance.EVALUATOR])
        answers = judge.answer(packed)
        for qid in packed.asked:
            p.append(answers.p[qid])
            y.append(int(bool(item.labels[int(qid[2:])])))
    return np.array(p), np.array(y)


def line(name: str, p: np.ndarray, y: np.ndarray) -> str:
    v = Verdicts.of(p, y)
    k = kappa(p >= 0.5, y == 1)
    return (f"{name:10} kappa {k if k is not None else float('nan'):6.3f}  F1 {v.f1:.3f}  "
            f"accuracy {v.accuracy:.3f}  (always noise {v.always_no:.3f})")


def labelled_sets(sources: list[str], data: Path | None = None
                  ) -> dict[str, list[profile.LabelledChunks]]:
    out = {"helpdesk": profile.labelled(datasets.load(HELPDESK).rows)}
    if sources:
        from bench import public_data

        for name in sources:
            rows = [r for r in public_data.retrieval_cases(name, 2000, data)
                    if held_out_part(r["topic"])]
            out[name] = [profile.LabelledChunks(Case(input=r["input"], context=tuple(
                r["context"])), tuple(bool(v) for v in r["labels"])) for r in rows]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sources", nargs="*",
                        default=["squad", "squad_paragraphs", "hotpotqa"])
    parser.add_argument("--data", type=Path, help="the public data folder (default "
                        "$JEVAL_DATA; bench/public_data.py)")
    args = parser.parse_args()
    judge = LocalJudge()
    for name, cases in labelled_sets(args.sources, args.data).items():
        fit_half, other = cases[0::2], cases[1::2]
        fitted = profile.fit(fit_half, name, "-", name, judge=judge)
        labels = sum(sum(v is not None for v in c.labels) for c in fit_half)
        print(f"\n{name}: fitted on {len(fit_half)} cases ({labels} labels), "
              f"measured on the other {len(other)}")
        print(f"  {fitted.relations['helps_answer'].note}")
        p0, y = chunk_p(judge, other)
        print("  " + line("built-in", p0, y))
        if fitted.used:
            p1, _ = chunk_p(LocalJudge(judge.embedder, fitted, judge.reader), other)
            print("  " + line("profile", p1, y))


if __name__ == "__main__":
    main()

"""Time the agreement table's bootstrap (1,000 case resamples) on labelled chunk verdicts.

    python bench/bootstrap.py [--cases 300] [--chunks 8]

Run it at two checkouts to compare: it only calls `analysis.agreement.agreement`.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from jeval_core.analysis.agreement import Judged, agreement  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=300)
    parser.add_argument("--chunks", type=int, default=8)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    items = [Judged(f"case {c}", f"chunk {k}", float(rng.random()), bool(rng.random() < 0.3))
             for c in range(args.cases) for k in range(args.chunks)]
    times = []
    for _ in range(args.repeat):
        started = time.perf_counter()
        a = agreement(items)
        times.append(time.perf_counter() - started)
    print(f"{len(items)} labelled items in {args.cases} cases: best {min(times) * 1000:.0f} ms, "
          f"median {sorted(times)[len(times) // 2] * 1000:.0f} ms; F1 {a.f1}, AUC {a.auc}")


if __name__ == "__main__":
    main()

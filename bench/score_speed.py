"""How long the CLI and the lexical judge take; prints figures, asserts nothing.

    python bench/score_speed.py

Three situations per case: `fresh` (every chunk edited each run, so no cache helps: a user
typing), `warm` (the same case again: a rerun), and `import` (the cold start of the core).
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

from jeval_core import Case, score
from jeval_core.evaluators import NAMES
from jeval_core.judges.lexical import LexicalJudge

EXAMPLES = Path(__file__).resolve().parent.parent / "assets" / "examples"
RUNS = 50


def timed(fn, runs: int = RUNS) -> list[float]:
    times = []
    for i in range(runs):
        started = time.perf_counter()
        fn(i)
        times.append((time.perf_counter() - started) * 1000)
    return times


def line(label: str, ms: list[float]) -> str:
    ms = sorted(ms)
    p90 = ms[int(0.9 * (len(ms) - 1))]
    return f"{label:56} median {statistics.median(ms):7.2f} ms   p90 {p90:7.2f} ms"


def main() -> None:
    judge = LexicalJudge()
    import_ms = []
    for _ in range(5):
        started = time.perf_counter()
        code = "import jeval_core.scoring, jeval_core.judges.lexical"
        subprocess.run([sys.executable, "-c", code], check=True)
        import_ms.append((time.perf_counter() - started) * 1000)
    print(line("python start + import jeval_core (5 runs)", import_ms))
    for judge_name in ("lexical", "local"):
        cli_ms = []
        for _ in range(5):
            started = time.perf_counter()
            subprocess.run([sys.executable, "-m", "jeval_core.cli", "score",
                            str(EXAMPLES / "jev_pricing.json"), "--format", "json",
                            "--judge", judge_name], check=True, capture_output=True)
            cli_ms.append((time.perf_counter() - started) * 1000)
        print(line(f"jeval score jev_pricing.json --judge {judge_name} (5 runs)", cli_ms))
    for name in ("jev_pricing", "noisy_retrieval"):
        case = Case.from_dict(json.loads((EXAMPLES / f"{name}.json").read_text()))
        label = f"{name} ({len(case.context)} chunks, all {len(NAMES)} evaluators)"

        def fresh(i: int, case: Case = case) -> None:
            edited = tuple(f"{chunk} (edit {i})" for chunk in case.context)
            score(Case(case.input, f"{case.output} ({i})", case.expected, edited), NAMES, judge)

        def warm(i: int, case: Case = case) -> None:
            score(case, NAMES, judge)

        print(line(f"{label}, fresh", timed(fresh)))
        print(line(f"{label}, warm", timed(warm)))


if __name__ == "__main__":
    main()

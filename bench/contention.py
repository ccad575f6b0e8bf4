"""The local judge's sentence embedder when other processes want the same cores.

    python bench/contention.py [--processes 3] [--rounds 2]

Starts `--processes` processes at once (as the app's server, a dataset run and the browser,
or the test suite's workers, do on a 2-core machine); each loads the embedder and embeds
every question and chunk of the repository's labelled datasets, `--rounds` times with the
cache cleared. Prints each process's wall and CPU seconds and the slowest wall; asserts
nothing. onnxruntime's threads wait for work by spinning unless told not to: beside other
busy processes the spinning is CPU taken from them.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATASETS = ("sample.jsonl", "labelled_helpdesk.jsonl")


def texts() -> list[str]:
    out: list[str] = []
    for name in DATASETS:
        for line in (ROOT / "assets" / "datasets" / name).read_text("utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                out += [row.get("input", ""), *row.get("context", [])]
    return [t for t in dict.fromkeys(out) if t.strip()]


def one(rounds: int) -> None:
    """One process's work: load, then embed every text `rounds` times from an empty cache."""
    from jeval_core.judges.embedder import Embedder

    wall, cpu = time.perf_counter(), time.process_time()
    found = texts()
    for _ in range(rounds):
        embedder = Embedder()
        for start in range(0, len(found), 8):  # a case's worth at a time, as the judge asks
            embedder.embed(found[start:start + 8])
    print(json.dumps({"texts": len(found), "wall": time.perf_counter() - wall,
                      "cpu": time.process_time() - cpu}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--processes", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        one(args.rounds)
        return
    started = [subprocess.Popen([sys.executable, __file__, "--one", "--rounds", str(args.rounds)],
                                cwd=ROOT, stdout=subprocess.PIPE, text=True)
               for _ in range(args.processes)]
    results = [json.loads(p.communicate()[0]) for p in started]
    for i, r in enumerate(results, 1):
        print(f"process {i}: {r['texts']} texts x {args.rounds}: wall {r['wall']:.1f} s, "
              f"cpu {r['cpu']:.1f} s")
    print(f"slowest wall {max(r['wall'] for r in results):.1f} s, cpu in all "
          f"{sum(r['cpu'] for r in results):.1f} s ({args.processes} processes at once)")


if __name__ == "__main__":
    main()

"""Peak memory of `jeval run` with the local judge, per --concurrency (issue 19: MiniLM must
load once per process, whatever the concurrency).

    python bench/run_rss.py [--concurrency 8 1] [--root PATH]

Runs `jeval run assets/datasets/sample.jsonl --judge local` in a fresh process per figure
(a throwaway SQLite store) and prints its peak RSS (getrusage of the child) and wall time.
`--root` runs another checkout's code the same way, for a before/after.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def one(root: Path, concurrency: int) -> None:
    """Run the command once and print its figures (called in a fresh process per figure, as
    a child's peak RSS is the largest of every child the process had)."""
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "JEVAL_DB": f"sqlite:///{tmp}/runs.db", "PYTHONPATH": str(root)}
        started = time.monotonic()
        done = subprocess.run(
            [sys.executable, "-m", "jeval_core.commands.cli", "run", "assets/datasets/sample.jsonl",
             "--judge", "local", "--concurrency", str(concurrency)],
            cwd=root, env=env, capture_output=True, text=True)
        took = time.monotonic() - started
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024
    print(f"concurrency {concurrency}: exit {done.returncode}, peak RSS {peak} MB, "
          f"{took:.1f} s", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--concurrency", type=int, nargs="+", default=[8, 1])
    parser.add_argument("--root", type=Path, default=ROOT)
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one is not None:
        one(args.root.resolve(), args.one)
        return
    for concurrency in args.concurrency:
        subprocess.run([sys.executable, __file__, "--root", str(args.root), "--one",
                        str(concurrency)], check=True)


if __name__ == "__main__":
    main()

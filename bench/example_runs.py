"""Score the example runs a new run history starts with, and write them to their fixture.

    python bench/example_runs.py            # writes assets/runs/examples.json.gz (~30 s here)
    python bench/example_runs.py --check    # scores again and says whether the file matches
    python bench/example_runs.py --load     # times loading the file into a new store (5x)

Each example run (`jeval_core.runs.run.SEEDS`) is a real `run_dataset` of the sample dataset with
the judge it names, into a throwaway store; the fixture keeps every run and case as stored,
with the command, the commit and the judges that produced it. A new store's first Dashboard
visit loads this file (`runs.seed`): it never scores anything itself.
"""

from __future__ import annotations

import argparse
import gzip
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from jeval_core import evaluators, judges  # noqa: E402
from jeval_core.inputs import datasets  # noqa: E402
from jeval_core.runs.run import (  # noqa: E402
    EXAMPLES,
    SAMPLE,
    SEEDS,
    export_runs,
    read_examples,
    run_dataset,
    seed,
)
from jeval_core.runs.store import open_store  # noqa: E402


def commit() -> str:
    """The commit the runs were scored at (with "+changes" when the tree was not clean)."""
    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True,
                              check=False).stdout.strip()

    head = git("rev-parse", "--short=12", "HEAD") or "unknown"
    return head + ("+changes" if git("status", "--porcelain", "--", "jeval_core") else "")


def score_all() -> dict:
    sample = datasets.load(SAMPLE)
    with tempfile.TemporaryDirectory() as tmp, open_store(f"sqlite:///{tmp}/runs.db") as store:
        ids = []
        for name, judge_name, names, thresholds in SEEDS:
            started = time.perf_counter()
            judge = judges.get(judge_name)
            try:
                ids.append(run_dataset(sample, judge, store, chosen=evaluators.resolve(
                    list(names)), thresholds=thresholds, name=name, seeded=True,
                    concurrency=2).run.id)
            finally:
                judge.close()
            run = store.run(ids[-1])
            print(f"{name}: {run.passed}/{run.done} passed, pass rate "
                  f"{run.pass_rate:.1%} ({time.perf_counter() - started:.1f} s)")
        runs = export_runs(store, ids)
    return {"about": {
        "made_by": "python bench/example_runs.py",
        "commit": commit(),
        "judges": sorted({j for _, j, _, _ in SEEDS}),
        "dataset": str(SAMPLE.relative_to(ROOT)),
        "dataset_sha256": sample.sha256,
        "note": "every number was produced by the judge each run names; runs.seed loads "
                "this file into an empty run store",
    }, "runs": runs}


def comparable(data: dict) -> list:
    """What must match between two scorings: every case's report (times and ids differ)."""
    return [[(c["case_id"], c["passed"], c["scores"]) for c in run["rows"]]
            for run in data["runs"]]


def time_load(times: int = 5) -> None:
    """What a new store's first Dashboard visit waits for: `runs.seed` into an empty SQLite
    file, then the run list."""
    for _ in range(times):
        with tempfile.TemporaryDirectory() as tmp, open_store(f"sqlite:///{tmp}/r.db") as store:
            started = time.perf_counter()
            made = seed(store)
            loaded = time.perf_counter() - started
            started = time.perf_counter()
            store.runs()
            listed = time.perf_counter() - started
        print(f"load {len(made)} example runs into a new store: {loaded * 1000:.0f} ms; "
              f"list them: {listed * 1000:.0f} ms")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="score again and compare with the fixture instead of writing it")
    parser.add_argument("--load", action="store_true",
                        help="time loading the fixture into a new store instead")
    args = parser.parse_args()
    if args.load:
        time_load()
        return 0
    data = score_all()
    if args.check:
        same = comparable(data) == comparable(read_examples())
        print("the fixture matches a fresh scoring" if same else
              "the fixture differs from a fresh scoring: run without --check to rewrite it")
        return 0 if same else 1
    EXAMPLES.parent.mkdir(parents=True, exist_ok=True)
    # one line per case, so `zdiff` of two scorings shows which cases moved
    lines = ['{"about": ' + json.dumps(data["about"], ensure_ascii=False) + ', "runs": [']
    for r, run in enumerate(data["runs"]):
        head = {k: v for k, v in run.items() if k != "rows"}
        lines.append(json.dumps(head, ensure_ascii=False)[:-1] + ', "rows": [')
        lines += [json.dumps(c, ensure_ascii=False, separators=(",", ":"))
                  + ("," if i < len(run["rows"]) - 1 else "") for i, c in enumerate(run["rows"])]
        lines.append("]}" + ("," if r < len(data["runs"]) - 1 else ""))
    lines.append("]}")
    # mtime 0: the same scoring writes the same bytes
    EXAMPLES.write_bytes(gzip.compress(("\n".join(lines) + "\n").encode("utf-8"), 9, mtime=0))
    print(f"wrote {EXAMPLES.relative_to(ROOT)}: {EXAMPLES.stat().st_size / 1e6:.2f} MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

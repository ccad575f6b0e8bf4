"""Dataset runs as users run them (`run_dataset` into a store file): cases per second per judge,
the hosted judge's request rate under the real limits, and memory over a long run.

    python bench/batch.py                 # everything (~3-4 minutes on 2 cores)
    python bench/batch.py --only speed    # or: jev, memory

Figures print; nothing is asserted. The synthetic cases are seed-sized (4 chunks of ~25 words,
chunk_relevance, as the seed example) and every case's text differs, so caches do not help.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

from jevcompat.mock import MockConfig, Running

from jeval_core import judges
from jeval_core.inputs import datasets
from jeval_core.judges.jev import JevJudge
from jeval_core.limits import RateLimiter
from jeval_core.runs.run import run_dataset
from jeval_core.runs.store import open_store

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "assets" / "datasets" / "sample.jsonl"
SEED = json.loads((ROOT / "assets" / "examples" / "jev_pricing.json").read_text("utf-8"))


def synthetic(n: int) -> datasets.Dataset:
    """n seed-sized cases, each with its own wording (a case number in every text)."""
    rows = []
    for i in range(n):
        rows.append(json.dumps({
            "id": f"s{i}", "input": f"{SEED['input']} (case {i})",
            "context": [f"{c} [doc {i}-{k}]" for k, c in enumerate(SEED["context"])],
            "context_labels": [1, 0, 0, 1], "evaluators": ["chunk_relevance"]}))
    return datasets.read("\n".join(rows).encode(), f"synthetic-{n}.jsonl")


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def timed_run(dataset: datasets.Dataset, judge_name: str, concurrency: int = 2,
              **settings: object) -> tuple[float, int]:
    """Cases per second of one run into a fresh store file, and how many cases errored."""
    judge = judges.get(judge_name) if judge_name != "jev" else settings.pop("judge")
    if judge_name == "local":
        judge.warm_up()
        run_with(judge, synthetic(4), concurrency)  # model loaded outside the timing
    started = time.perf_counter()
    outcome = run_with(judge, dataset, concurrency)
    elapsed = time.perf_counter() - started
    return len(dataset.rows) / elapsed, outcome.summary.errored


def run_with(judge: object, dataset: datasets.Dataset, concurrency: int):  # noqa: ANN201
    with tempfile.TemporaryDirectory() as tmp, open_store(f"sqlite:///{tmp}/runs.db") as store:
        return run_dataset(dataset, judge, store, concurrency=concurrency)  # type: ignore[arg-type]


def speed() -> None:
    sample = datasets.load(SAMPLE)
    many = synthetic(1000)
    print(f"{'judge':8} {'dataset':44} {'cases/s':>8}")
    for judge_name in ("lexical", "local"):
        for label, data in ((f"sample ({len(sample.rows)} cases, each its evaluators)",
                             sample), ("synthetic 1,000 seed-sized cases", many)):
            rate, errors = timed_run(data, judge_name)
            print(f"{judge_name:8} {label:44} {rate:8.1f}" + (f"  ({errors} errors)"
                                                                if errors else ""))


class Recording(RateLimiter):
    """The real limiter, noting when each request was let through."""

    def __init__(self) -> None:
        super().__init__()
        self.granted: list[float] = []

    def acquire(self, tokens: int, timeout: float | None = None):  # noqa: ANN201
        waited = super().acquire(tokens, timeout=timeout)
        if waited is not None:
            self.granted.append(time.monotonic())
        return waited


def busiest_minute(times: list[float]) -> int:
    """The most requests let through in any 60-second window."""
    best, start = 0, 0
    for end, t in enumerate(times):
        while times[start] <= t - 60.0:
            start += 1
        best = max(best, end - start + 1)
    return best


def jev(requests: int) -> None:
    """The hosted judge against the jevcompat mock, limiter at the real limits (1,200/min):
    the limiter must fill every minute (>= 98% of 1,200) and never exceed it."""
    data = synthetic(requests)
    with Running(MockConfig()) as server:
        limiter = Recording()
        judge = JevJudge(api_key="sk-bench-0000000000", base_url=server.url, limiter=limiter)
        started = time.perf_counter()
        outcome = run_with(judge, data, concurrency=16)
        elapsed = time.perf_counter() - started
        judge.close()
    times = sorted(limiter.granted)
    # Sustained rate: after the first minute's burst, requests per minute until the last one.
    after = [t for t in times if t >= times[0] + 60.0]
    sustained = (len(after) / (after[-1] - times[0] - 60.0) * 60
                 if len(after) > 1 and after[-1] > times[0] + 60.0 else float("nan"))
    print(f"jev      {requests} cases via jevcompat mock in {elapsed:.1f} s: "
          f"{outcome.summary.requests} requests, busiest 60 s window {busiest_minute(times)}"
          f" (limit 1,200), after the first minute {sustained:.0f}/min "
          f"({sustained / 1200:.1%} of 1,200), {outcome.summary.errored} errors")


def memory(n: int) -> None:
    """RSS along one n-case run, at every quarter (flat: caches are bounded, and a run keeps
    only what its summary needs)."""
    data = synthetic(n)
    judge = judges.get("lexical")
    seen = [rss_mb()]

    def note(progress) -> None:  # noqa: ANN001
        if progress.done and progress.done % (n // 4) == 0:
            seen.append(rss_mb())

    with tempfile.TemporaryDirectory() as tmp, open_store(f"sqlite:///{tmp}/runs.db") as store:
        run_dataset(data, judge, store, on_progress=note)
    print(f"memory   lexical, one {n}-case run: RSS (MB) at start and every quarter: "
          + " -> ".join(f"{v:.0f}" for v in seen))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=("speed", "jev", "memory"))
    parser.add_argument("--requests", type=int, default=2400)
    parser.add_argument("--cases", type=int, default=2000)
    args = parser.parse_args()
    print(f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}")
    if args.only in (None, "speed"):
        speed()
    if args.only in (None, "jev"):
        jev(args.requests)
    if args.only in (None, "memory"):
        memory(args.cases)


if __name__ == "__main__":
    main()

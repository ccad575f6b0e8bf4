"""Judges side by side: load time, per-case latency, and what one packed request saves.

    python bench/judges.py

Prints figures; asserts nothing. Latency is per scored case with every evaluator selected:
`fresh` edits every chunk first (no cache helps: a user typing), `warm` repeats the case.
It also times a new process importing the core and the whole `jeval score` command.
Tokens per request, next to other tools' call patterns, are in bench/tokens.py.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

from jevcompat.mock import MockConfig, Running

from jeval_core import Case, score
from jeval_core.evaluators import ALL as NAMES
from jeval_core.inputs import casefile
from jeval_core.judges.embedder import embedder
from jeval_core.judges.jev import JevJudge
from jeval_core.judges.lexical import LexicalJudge
from jeval_core.judges.local import LocalJudge

ROOT = Path(__file__).resolve().parent.parent
RUNS = 30


def stats(ms: list[float]) -> str:
    ms = sorted(ms)
    return (f"median {statistics.median(ms):8.1f} ms  "
            f"p90 {ms[min(len(ms) - 1, int(0.9 * len(ms)))]:8.1f} ms")


def timed(fn, runs: int = RUNS) -> list[float]:
    out = []
    for i in range(runs):
        started = time.perf_counter()
        fn(i)
        out.append((time.perf_counter() - started) * 1000)
    return out


def fresh_process(code: str, runs: int = 5) -> list[float]:
    """Milliseconds a new Python process takes to run `code` (its own clock, import included)."""
    out = []
    for _ in range(runs):
        wrapped = ("import time; t = time.perf_counter()\n" + code
                   + "\nprint((time.perf_counter() - t) * 1000)")
        run = subprocess.run([sys.executable, "-c", wrapped], capture_output=True, text=True,
                             check=True)
        out.append(float(run.stdout.strip().splitlines()[-1]))
    return out


def whole_commands() -> None:
    """A new process: importing the core, and the `jeval score` command end to end."""
    seed = str(ROOT / "assets" / "examples" / "jev_pricing.json")
    imports = fresh_process("import jeval_core.scoring, jeval_core.judges.lexical")
    print(f"{'core':8} {'import in a new process':36} {stats(imports)}")
    for judge in ("lexical", "local"):
        ms = []
        for _ in range(5):
            started = time.perf_counter()
            subprocess.run([sys.executable, "-m", "jeval_core.commands.cli", "score", seed,
                            "--format", "json", "--judge", judge], check=True, capture_output=True)
            ms.append((time.perf_counter() - started) * 1000)
        print(f"{'cli':8} {'jeval score seed --judge ' + judge:36} {stats(ms)}")


def chunks_of(tokens: int, count: int) -> list[str]:
    """`count` realistic chunks of about `tokens` MiniLM tokens, from the labelled sentences."""
    lines = (ROOT / "assets" / "calibration" / "pairs.jsonl").read_text().splitlines()
    sentences = [json.loads(line)["subject"] for line in lines]
    tokenizer = embedder()._tokenizer
    out, current, i = [], "", 0
    while len(out) < count:
        current = f"{current} {sentences[i % len(sentences)]}".strip()
        i += 1
        if len(tokenizer.encode(current).ids) >= tokens:
            out.append(current)
            current = ""
    return out


def case_with(chunks: list[str], expected: str | None = None) -> Case:
    seed = json.loads((ROOT / "assets" / "examples" / "noisy_retrieval.json").read_text())
    return Case(seed["input"], seed["output"], expected, tuple(chunks))


def latency() -> None:
    seed = casefile.decode(
        (ROOT / "assets" / "examples" / "jev_pricing.json").read_bytes(), "seed").case
    cases = {"seed 000 example (4 short chunks)": seed}
    for n in (6, 20):
        cases[f"{n} chunks of ~128 tokens"] = case_with(chunks_of(128, n))
    # Every evaluator asks something of this one (8 with `expected`).
    big = case_with(chunks_of(128, 30), "Deleted files stay in Trash for 30 days on Free and "
                    "Plus plans. Business plans keep them for 180 days.")
    cases["30 chunks x 8 evaluators"] = big
    for judge in (LocalJudge(), LexicalJudge()):
        score(seed, NAMES, judge)  # load once, outside the timing
        for label, case in cases.items():
            def fresh(i: int, case: Case = case, judge=judge) -> None:
                edited = tuple(f"{c} (v{i})" for c in case.context)
                score(Case(case.input, f"{case.output} (v{i})", case.expected, edited), NAMES,
                      judge)

            def warm(i: int, case: Case = case, judge=judge) -> None:
                score(case, NAMES, judge)

            def one_chunk(i: int, case: Case = case, judge=judge) -> None:
                edited = list(case.context)
                edited[i % len(edited)] += f" (e{i})"
                score(Case(case.input, case.output, case.expected, tuple(edited)), NAMES, judge)

            runs = 8 if len(case.context) >= 30 else RUNS
            first = stats(timed(fresh, runs))
            again = stats(timed(warm, runs))  # the case itself, read once before its edits
            print(f"{judge.name:8} {label:36} fresh {first}   "
                  f"one chunk edited {stats(timed(one_chunk, runs))}   warm {again}")


def round_trip() -> None:
    seed = casefile.decode(
        (ROOT / "assets" / "examples" / "jev_pricing.json").read_bytes(), "seed").case
    with Running(MockConfig()) as server:
        judge = JevJudge(api_key="sk-bench-0000000000", base_url=server.url)
        score(seed, NAMES, judge)
        print(f"{'jev':8} {'seed example via jevcompat mock':36} "
              f"round trip {stats(timed(lambda i: score(seed, NAMES, judge)))}")


def main() -> None:
    whole_commands()
    load = fresh_process("from jeval_core.judges.embedder import embedder; embedder()")
    print(f"{'local':8} {'load MiniLM (new process, import incl.)':36} {stats(load)}")
    load = fresh_process("from jeval_core.judges.reader import model; model()")
    print(f"{'local':8} {'load the reader (new process, import incl.)':36} {stats(load)}")
    tox = fresh_process("from jeval_core.judges.similarity import profanity_probability; "
                        "profanity_probability(['hi'])")
    print(f"{'local':8} {'load profanity model (toxicity only)':36} {stats(tox)}")
    latency()
    round_trip()


if __name__ == "__main__":
    main()

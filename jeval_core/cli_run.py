"""`jeval run DATA`: score a dataset into the run store, with a progress bar and a summary.

Kept apart from cli.py so `jeval score` never imports the store. Same contract: one line
per failure on stderr, exit 0 scored, 1 a case failed (with --check), 2 bad input, 3 the
judge could not answer some cases (resume the run), 130 interrupted (resume the run).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, TextIO

from .errors import FAILED, JUDGE_FAILED, SCORED

if TYPE_CHECKING:
    from .aggregate import Summary
    from .runs import Progress, RunOutcome


def add_parser(sub: Any, evaluators_help: str, threshold_help: str) -> None:
    from . import judges

    run = sub.add_parser("run", help="score a dataset (JSONL, CSV or a JSON array) and keep "
                         "the run in the run store")
    run.add_argument("data", metavar="DATA", help="dataset file: one case per JSONL line or "
                     "CSV row, or a JSON array of cases (our, RAGAS, DeepEval field names)")
    run.add_argument("--evaluators", help=evaluators_help + " (default: each row's own)")
    run.add_argument("--threshold", action="append", default=[], metavar="NAME=VALUE",
                     help=threshold_help)
    run.add_argument("--judge", default=judges.DEFAULT, choices=judges.NAMES,
                     help=f"who answers (default: {judges.DEFAULT}, offline)")
    run.add_argument("--base-url", help="Jev-compatible server for --judge jev")
    run.add_argument("--model", help="model for --judge jev (default: jev-latest)")
    run.add_argument("--name", help="a name for the run in the history (default: the file "
                     "and the judge)")
    run.add_argument("--out", metavar="RESULTS.jsonl",
                     help="also write one JSON line per case (id, passed, scores, error)")
    run.add_argument("--resume", metavar="RUN", help="continue a stopped run (its id, or the "
                     "first 8 characters): finished cases are kept, not rescored")
    run.add_argument("--concurrency", type=int, default=8,
                     help="cases in flight at once (default 8; the hosted judge also keeps "
                     "its rate limits)")
    run.add_argument("--check", action="store_true", help="exit 1 when any case fails")
    run.set_defaults(run=main)


def main(args: argparse.Namespace) -> int:
    from . import datasets, evaluators
    from .cli import chosen_judge
    from .errors import CaseError
    from .runs import run_dataset
    from .store import open_store

    if args.concurrency < 1 or args.concurrency > 64:
        raise CaseError("--concurrency must be between 1 and 64")
    dataset = datasets.load(args.data)
    for problem in dataset.errors[:10]:
        print(f"jeval: skipped {problem}", file=sys.stderr)
    if len(dataset.errors) > 10:
        print(f"jeval: skipped {len(dataset.errors) - 10} more rows", file=sys.stderr)
    chosen = None if args.evaluators is None else evaluators.resolve(args.evaluators)
    thresholds = evaluators.thresholds(args.threshold)
    judge = chosen_judge(args)
    bar = Bar(sys.stderr)
    with open_store() as store:
        resume = _run_id(store, args.resume) if args.resume else None
        try:
            outcome = run_dataset(dataset, judge, store, chosen=chosen, thresholds=thresholds,
                                  name=args.name, resume=resume, concurrency=args.concurrency,
                                  on_progress=bar.update)
        except KeyboardInterrupt:
            bar.close()
            runs = store.runs(dataset.name)
            if runs and runs[0].status == "cancelled":
                print(f"jeval: interrupted; {runs[0].done} of {runs[0].cases} cases kept. "
                      f"Continue with: jeval run {args.data} --resume {runs[0].id[:8]}",
                      file=sys.stderr)
            raise
        finally:
            judge.close()
        bar.close()
    if args.out:
        _write_out(args.out, dataset, outcome)
    print(render_summary(outcome))
    if outcome.judge_errors:
        print(f"jeval: the judge could not answer {outcome.judge_errors} case(s); continue "
              f"with: jeval run {args.data} --resume {outcome.run.id[:8]}", file=sys.stderr)
        return JUDGE_FAILED
    return FAILED if args.check and outcome.summary.failed else SCORED


def _run_id(store: Any, given: str) -> str:
    from .errors import CaseError

    given = given.strip().lower()
    found = [r.id for r in store.runs() if r.id.startswith(given)] if len(given) >= 4 else []
    if len(found) != 1:
        raise CaseError(f"no single run starts with {given[:40]!r}: see the run ids in "
                        "`jeval runs`" if not found else
                        f"{len(found)} runs start with {given!r}: give more characters")
    return found[0]


def _write_out(path: str, dataset: Any, outcome: RunOutcome) -> None:
    import json
    from pathlib import Path

    from .errors import CaseError

    lines = []
    for index, row in enumerate(dataset.rows):
        o = outcome.outcomes.get(index)
        report = None if o is None else o.report
        lines.append(json.dumps({
            "id": row.id, "line": row.line,
            "passed": None if report is None else report.passed,
            "scores": {} if report is None else {n: r.score for n, r in report.results.items()},
            "error": None if o is None else o.error,
        }, ensure_ascii=False, allow_nan=False))
    try:
        Path(path).write_text("\n".join(lines) + "\n", encoding="utf-8")
    except OSError as err:
        raise CaseError(f"cannot write {path}: {err.strerror}") from None


class Bar:
    """A one-line progress bar on a terminal; nothing when stderr is a file or a pipe."""

    def __init__(self, stream: TextIO, width: int = 30) -> None:
        self.stream, self.width = stream, width
        self.live = stream.isatty()
        self.started = time.perf_counter()
        self.drawn = False

    def update(self, progress: Progress) -> None:
        if not self.live or not progress.total:
            return
        filled = round(self.width * progress.done / progress.total)
        rate = progress.done / max(time.perf_counter() - self.started, 1e-6)
        self.stream.write(
            f"\r[{'#' * filled}{'.' * (self.width - filled)}] {progress.done}/{progress.total}"
            f" cases · {progress.failed} failed · {progress.errored} errors · {rate:.0f}/s ")
        self.stream.flush()
        self.drawn = True

    def close(self) -> None:
        if self.drawn:
            self.stream.write("\n")
            self.stream.flush()
            self.drawn = False


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.0%}"


def _num(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def render_summary(outcome: RunOutcome) -> str:
    """The run's aggregates as plain tables."""
    s: Summary = outcome.summary
    run = outcome.run
    lines = [f"run {run.id[:8]} · {run.name} · judge {run.judge} · {run.status}",
             f"cases: {s.cases} · passed {s.passed} · failed {s.failed} · errors {s.errored}"
             f" · pass rate {_pct(s.pass_rate)} · {s.input_tokens:,} input tokens · "
             f"${s.cost_usd:.6f}", ""]
    rows: list[Sequence[str]] = [("evaluator", "cases", "mean score", "pass rate", "skipped")]
    rows += [(name, str(e.scored), _num(e.mean_score), _pct(e.pass_rate), str(e.skipped))
             for name, e in s.evaluators.items()]
    lines += _table(rows)
    if s.chunks is not None:
        c = s.chunks
        v = c.verdicts
        lines += ["", f"chunk verdicts vs labels ({c.chunks} chunks in {c.cases} cases): "
                  f"precision {_num(v.precision)} · recall {_num(v.recall)} · F1 {_num(v.f1)}"
                  f" · accuracy {_num(v.accuracy)} · AUC {_num(c.auc)}"]
    for ranking in (s.ranking, s.judge_ranking):
        if ranking is None:
            continue
        by = "labels" if ranking.source == "labels" else "the judge's verdicts"
        rows = [(f"precision@k (relevance from {by})", *[f"p@{k}" for k in ranking.retriever])]
        rows.append((f"retriever, {ranking.cases} cases",
                     *[_num(v) for v in ranking.retriever.values()]))
        if ranking.reranked_cases:
            rows.append((f"retriever, the {ranking.reranked_cases} reranked cases",
                         *[_num(v) for v in ranking.retriever_on_reranked.values()]))
            rows.append((f"reranked, {ranking.reranked_cases} cases",
                         *[_num(v) for v in ranking.reranked.values()]))
        lines += ["", *_table(rows)]
    return "\n".join(lines)


def _table(rows: Sequence[Sequence[str]]) -> list[str]:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip()
            for r in rows]


def add_runs_parser(sub: Any) -> None:
    runs = sub.add_parser("runs", help="list the runs kept in the run store")
    runs.add_argument("--dataset", help="only the runs of this dataset (its file name)")
    runs.set_defaults(run=list_runs)


def list_runs(args: argparse.Namespace) -> int:
    from .store import open_store
    from .text import one_line

    with open_store() as store:
        found = store.runs(args.dataset)
        rows: list[Sequence[str]] = [("run", "started (UTC)", "name", "dataset", "judge",
                                      "cases", "pass rate", "status")]
        rows += [(r.id[:8], r.started_at.strftime("%Y-%m-%d %H:%M"), one_line(r.name, 50),
                  one_line(r.dataset, 40), r.judge, f"{r.done}/{r.cases}", _pct(r.pass_rate),
                  r.status) for r in found]
    print("\n".join(_table(rows)) if found else "no runs yet: jeval run DATA")
    return SCORED

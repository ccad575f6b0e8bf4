"""`jeval run DATA`: score a dataset into the run store, with a progress bar and a summary.

Kept apart from cli.py so `jeval score` never imports the store. Same contract: one line
per failure on stderr, exit 0 scored, 1 a case failed or is incomplete (with --check), 2 bad
input, 3 the judge could not answer some cases (resume the run), 130 interrupted (resume;
SIGTERM 143 and SIGHUP 129 stop a run the same way).
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, TextIO

from ..errors import FAILED, JUDGE_FAILED, SCORED
from ..text import number, one_line, percent
from .cli_examples import add_example_flag, one_file
from .cli_examples import evaluator_files as named

if TYPE_CHECKING:
    from ..analysis.aggregate import Summary
    from ..evaluators import Evaluator
    from ..inputs.datasets import Dataset
    from ..runs.run import Progress, RunOutcome


def add_parser(sub: Any, evaluators_help: str, threshold_help: str, file_help: str,
               model: str) -> None:
    from .. import judges

    run = sub.add_parser("run", help="score a dataset (JSONL, CSV or a JSON array) and keep "
                         "the run in the run store")
    run.add_argument("data", metavar="DATA", nargs="?", help="dataset file: one case per "
                     "JSONL line or CSV row, or a JSON array of cases (our, RAGAS, DeepEval "
                     "field names)")
    add_example_flag(run, ("datasets",))
    run.add_argument("--evaluators", help=evaluators_help + " (default: each row's own)")
    run.add_argument("--evaluators-file", action="append", default=[], metavar="FILE.toml",
                     help=file_help)
    run.add_argument("--threshold", action="append", default=[], metavar="NAME=VALUE",
                     help=threshold_help)
    run.add_argument("--judge", choices=judges.names(),
                     help=f"who answers (default: {judges.DEFAULT}, offline; a resumed run "
                     "keeps its own)")
    run.add_argument("--calibration", metavar="PROFILE",
                     help="judge with a calibration profile (a name kept by `jeval calibrate`, "
                     "or a profile JSON file); local judge only")
    run.add_argument("--base-url", help="Jev-compatible server for --judge jev, or the "
                     "OpenAI-compatible root (…/v1) for --judge openai")
    run.add_argument("--model", help=f"model for --judge jev (default: {model}); for "
                     "--judge openai, required")
    from .cli_judge import add_openai_flags

    add_openai_flags(run)
    run.add_argument("--name", help="a name for the run in the history (default: the file "
                     "and the judge)")
    run.add_argument("--out", metavar="RESULTS.jsonl",
                     help="also write one JSON line per case (id, passed, scores, error, and "
                     "the chunks' context_meta when the dataset has it)")
    run.add_argument("--reports", action="store_true",
                     help="with --out: each line also carries the case's whole report (every "
                     "question, p, verdict and evidence)")
    run.add_argument("--resume", metavar="RUN", help="continue a stopped run (its id, or the "
                     "first 8 characters) with its own judge, evaluators and thresholds: "
                     "finished cases are kept, those the judge could not answer are retried")
    run.add_argument("--concurrency", type=int, default=8,
                     help="cases in flight at once (default 8; the hosted judge also keeps "
                     "its rate limits)")
    run.add_argument("--check", action="store_true",
                     help="exit 1 when any case fails or is incomplete")
    run.set_defaults(run=main)


def main(args: argparse.Namespace) -> int:
    from .. import evaluators
    from ..errors import (
        INTERRUPTED,
        CaseError,
        Interrupted,
        JevalError,
        Signalled,
        StoreFull,
        StoreUnavailable,
    )
    from ..inputs import datasets, evaluator_files
    from ..runs.run import check_resumable, open_run, run_dataset, stored_settings
    from ..runs.store import open_store

    if args.concurrency < 1 or args.concurrency > 64:
        raise CaseError("--concurrency must be between 1 and 64")
    if args.reports and not args.out:
        raise CaseError("--reports says what --out writes: add --out RESULTS.jsonl")
    if args.out:
        _check_writable(args.out)
    args.data = one_file(args.data, args, "dataset file")
    dataset = datasets.load(args.data)
    for problem in dataset.errors[:10]:
        print(f"jeval: skipped {problem}", file=sys.stderr)
    if len(dataset.errors) > 10:
        print(f"jeval: skipped {len(dataset.errors) - 10} more rows", file=sys.stderr)
    custom = evaluator_files.evaluators(evaluator_files.read(named(args.evaluators_file)))
    chosen = _chosen(args.evaluators, custom, dataset)
    thresholds = evaluators.thresholds(args.threshold, custom)
    bar = Bar(sys.stderr)
    with open_store() as store:
        if args.resume is not None:
            stored = store.run(_run_id(store, args.resume))
            if args.name is not None and args.name != stored.name:
                raise CaseError(f"run {stored.id[:8]} is called {one_line(stored.name, 80)!r}:"
                                " a resumed run keeps its name (leave --name out)")
            judge = _stored_judge(args, stored)
            try:
                check_resumable(stored, judge, chosen, thresholds)
            except BaseException:
                judge.close()
                raise
            chosen, thresholds = stored_settings(stored)
            run_id = stored.id
            retry = stored.done - _reported(store, run_id)
            if retry:
                print(f"jeval: resuming run {run_id[:8]}: {retry} case(s) without a report "
                      "are scored again", file=sys.stderr)
        else:
            from .cli_judge import chosen_judge

            args.judge = args.judge or _default_judge()
            judge = chosen_judge(args)
            run_id = open_run(dataset, judge, store, chosen=chosen, thresholds=thresholds,
                              name=args.name)
        again = f"jeval run {_shell_word(args.data)} --resume {run_id[:8]}"
        try:
            outcome = run_dataset(dataset, judge, store, chosen=chosen, thresholds=thresholds,
                                  resume=run_id, concurrency=args.concurrency,
                                  on_progress=bar.update)
        except KeyboardInterrupt as err:  # Ctrl+C, or SIGTERM / SIGHUP (Signalled)
            bar.close()
            what = "every finished case is kept"
            with contextlib.suppress(JevalError):
                what = f"{len(store.cases(run_id))} of {len(dataset.rows)} cases kept"
            why = err.message if isinstance(err, Signalled) else "interrupted"
            raise Interrupted(f"{why}; {what}. Continue with: {again}",
                              getattr(err, "exit_code", INTERRUPTED)) from None
        except StoreUnavailable as err:
            bar.close()
            raise StoreUnavailable(f"{err}. Every case stored before is kept: once it "
                                   f"answers again, continue with: {again}") from None
        except StoreFull as err:
            bar.close()
            raise StoreFull(f"{err}, then continue with: {again} (every case stored "
                            "before is kept)") from None
        finally:
            judge.close()
        bar.close()
        labelled = _as_stored(store, run_id, dataset.rows)
    if args.out:
        _write_out(args.out, dataset, outcome, run_id if args.reports else None)
    print(render_summary(outcome))
    agreed = render_agreement(labelled, list(outcome.outcomes.values()))
    if agreed:
        print(agreed)
    if outcome.judge_errors:
        print(f"jeval: the judge could not answer {outcome.judge_errors} case(s); continue "
              f"with: {again}", file=sys.stderr)
        return JUDGE_FAILED
    # an incomplete case is not a pass (README): a gate that let it through would fake one
    not_passed = outcome.summary.failed + outcome.summary.incomplete
    undecided = sum(1 for o in outcome.outcomes.values() if o.report and o.report.undecided)
    if args.check and undecided:  # nor is one whose every verdict reads unsure
        print(f"jeval: every verdict of {undecided} case(s) reads unsure, so the judge could "
              "not decide them: --check does not pass them", file=sys.stderr)
    return FAILED if args.check and (not_passed or undecided) else SCORED


def _chosen(names: str | None, custom: dict[str, Evaluator],
            dataset: Dataset) -> tuple[Evaluator, ...] | None:
    """What the run asks: --evaluators (custom names included); with only files given, every
    evaluator the rows run plus the files' ones, one list for the whole run; else None (each
    row's own)."""
    from .. import evaluators

    if names is not None:
        return evaluators.resolve(names, custom=custom)
    if not custom:
        return None
    seen: dict[str, Evaluator] = {}
    for row in dataset.rows:
        seen.update({e.name: e for e in row.casefile.chosen()})
    return tuple({**seen, **custom}.values())


def _default_judge() -> str:
    from .. import judges

    return judges.DEFAULT


def _shell_word(text: str) -> str:
    """A path as the resume command can show it: one line, quoted when it must be."""
    import shlex

    return shlex.quote(one_line(text, 200))


def _as_stored(store: Any, run_id: str, rows: Sequence[Any]) -> list[Any]:
    """The run's rows as the store keeps them: a person's labels given on the Dashboard or
    the Dataset page win over the file's (a row that no longer reads keeps the file's)."""
    from ..errors import JevalError

    found = list(rows)
    with contextlib.suppress(JevalError):
        for case in store.cases(run_id):
            if case.index < len(found) and case.row is not None:
                found[case.index] = case.row
    return found


def _reported(store: Any, run_id: str) -> int:
    return sum(1 for row in store.cases(run_id) if row.report is not None)


def _stored_judge(args: argparse.Namespace, stored: Any) -> Any:
    """The judge a stored run was scored by, with its model and server; a flag that says
    otherwise is refused, naming the stored value."""
    from .. import judges
    from ..errors import CaseError
    from .cli_judge import chosen_judge

    short = stored.id[:8]
    if args.judge is not None and args.judge != stored.judge:
        raise CaseError(f"run {short} is scored by the {stored.judge} judge, not {args.judge}: "
                        f"resume it with --judge {stored.judge} (or leave --judge out)")
    if not judges.is_hosted(stored.judge):
        args.judge = stored.judge
        if stored.calibration and not getattr(args, "calibration", None):
            args.calibration = stored.calibration.split(" · ")[0]  # the run's own profile
        return chosen_judge(args)
    from ..runs.run import PACING
    from .cli_judge import OPENAI_ATTRIBUTES, OPENAI_FLAGS

    normalise_base_url = judges.server_module(stored.judge).normalise_base_url
    if args.model is not None and args.model.strip() != (stored.model or ""):
        raise CaseError(f"run {short} is scored by the model {one_line(stored.model, 60)}, not "
                        f"{one_line(args.model, 60)}: leave --model out to resume it")
    if args.base_url is not None and stored.base_url and (
            normalise_base_url(args.base_url) != stored.base_url):
        raise CaseError(f"run {short} is scored by {one_line(stored.base_url, 100)}: leave "
                        "--base-url out to resume it against that server")
    args.judge, args.model = stored.judge, stored.model
    args.base_url = stored.base_url or args.base_url
    settings = dict(stored.judge_settings)
    if settings and judges.entry(stored.judge).per_question and "prompt" not in settings:
        settings["prompt"] = "case"  # asked before --prompt existed: the whole case each time
    for setting, value in settings.items():  # --endpoint, --per-case, ...
        flag = OPENAI_FLAGS.get(setting)
        attribute = OPENAI_ATTRIBUTES.get(setting)
        if flag is None or attribute is None:
            continue
        given = getattr(args, attribute, None)
        if given is None:
            setattr(args, attribute, value)
        elif setting not in PACING and given != value:
            raise CaseError(f"run {short} was asked with {flag} {one_line(str(value), 40)}: "
                            f"leave {flag} out to resume it the same way")
    return chosen_judge(args)


def _check_writable(path: str) -> None:
    """An --out file that cannot be written is found before the run, not after it."""
    from pathlib import Path

    from ..errors import CaseError

    target = Path(path)
    existed = target.exists()
    try:
        with target.open("a", encoding="utf-8"):
            pass
    except OSError as err:
        raise CaseError(f"cannot write --out {one_line(path, 120)}: "
                        f"{err.strerror or type(err).__name__}; choose a writable file"
                        ) from None
    if not existed:
        target.unlink(missing_ok=True)


def _run_id(store: Any, given: str) -> str:
    from ..errors import CaseError

    given = given.strip().lower()
    found = [r.id for r in store.runs() if r.id.startswith(given)] if len(given) >= 4 else []
    if len(found) != 1:
        raise CaseError(f"no single run starts with {given[:40]!r}: see the run ids in "
                        "`jeval runs`" if not found else
                        f"{len(found)} runs start with {given!r}: give more characters")
    return found[0]


def _write_out(path: str, dataset: Any, outcome: RunOutcome, reports_of: str | None) -> None:
    """One JSON line per row; with `reports_of` (the run id) each line carries the case's
    whole stored report too."""
    import json
    from pathlib import Path

    from ..case import CONTEXT_META
    from ..errors import CaseError

    stored: dict[int, Any] = {}
    if reports_of is not None:
        from ..runs.store import open_store

        with open_store() as store:
            stored = {row.index: row.report.to_dict() for row in store.cases(reports_of)
                      if row.report is not None}
    lines = []
    for index, row in enumerate(dataset.rows):
        o = outcome.outcomes.get(index)
        report = None if o is None else o.report
        line: dict[str, Any] = {
            "id": row.id, "line": row.line,
            "passed": None if report is None else report.passed,
            "scores": {} if report is None else {n: r.score for n, r in report.results.items()},
            "error": None if o is None else o.error,
        }
        if row.case.context_meta:  # the chunks' ids and sources, to trace a verdict back
            line[CONTEXT_META] = row.case.to_dict()[CONTEXT_META]
        if reports_of is not None:
            line["report"] = stored.get(index)
        lines.append(json.dumps(line, ensure_ascii=False, allow_nan=False))
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


def render_summary(outcome: RunOutcome) -> str:
    """The run's aggregates as plain tables."""
    s: Summary = outcome.summary
    run = outcome.run
    judged = f"judge {run.judge}" + (f" (calibration {run.calibration})"
                                      if run.calibration else "")
    lines = [f"run {run.id[:8]} · {run.name} · {judged} · {run.status}",
             f"cases: {s.cases} · passed {s.passed} · failed {s.failed} · incomplete "
             f"{s.incomplete} · errors {s.errored}"
             f" · pass rate {percent(s.pass_rate)} · {s.input_tokens:,} input tokens · "
             f"${s.cost_usd:.6f}", ""]
    rows: list[Sequence[str]] = [("evaluator", "cases", "mean score", "pass rate", "skipped")]
    rows += [(name, str(e.scored), number(e.mean_score), percent(e.pass_rate), str(e.skipped))
             for name, e in s.evaluators.items()]
    lines += _table(rows)
    if s.chunks is not None:
        c = s.chunks
        v = c.verdicts
        lines += ["", f"chunk verdicts vs labels ({c.chunks} chunks in {c.cases} cases): "
                  f"precision {number(v.precision)} · recall {number(v.recall)} · F1 {number(v.f1)}"
                  f" · accuracy {number(v.accuracy)} · AUC {number(c.auc)}"]
    for ranking in (s.ranking, s.judge_ranking):
        if ranking is None:
            continue
        by = "labels" if ranking.source == "labels" else "the judge's verdicts"
        rows = [(f"precision@k (relevance from {by})", *[f"p@{k}" for k in ranking.retriever])]
        rows.append((f"retriever, {ranking.cases} cases",
                     *[number(v) for v in ranking.retriever.values()]))
        if ranking.reranked_cases:
            rows.append((f"retriever, the {ranking.reranked_cases} reranked cases",
                         *[number(v) for v in ranking.retriever_on_reranked.values()]))
            rows.append((f"reranked, {ranking.reranked_cases} cases",
                         *[number(v) for v in ranking.reranked.values()]))
        lines += ["", *_table(rows)]
        names = list(ranking.more.get("retriever", {}))
        if names:
            more = [(f"more ranking metrics (relevance from {by})", *names)]
            shown = {"retriever": f"retriever, {ranking.cases} cases",
                     "retriever_on_reranked": f"retriever, the {ranking.reranked_cases} "
                                              "reranked cases",
                     "reranked": f"reranked, {ranking.reranked_cases} cases"}
            more += [(label, *[number(ranking.more[order].get(n)) for n in names])
                     for order, label in shown.items() if order in ranking.more]
            lines += ["", *_table(more)]
    return "\n".join(lines)


def render_agreement(rows: Sequence[Any], outcomes: Sequence[Any]) -> str:
    """The verdicts against the labels the rows carry, with 95% intervals (cases resampled),
    next to answering "no" to all; the most confident disagreements first."""
    from ..analysis import agreement, labels

    reports = {o.index: o.report for o in outcomes if o.report is not None}
    found = agreement.of_cases((row.id, labels.of_row(row), reports[i].results)
                               for i, row in enumerate(rows) if i in reports)
    if not found.any:
        return ""
    head = ("agreement with your labels", "n", "accuracy", "always no", "precision", "recall",
            "F1", "AUC", "kappa")
    table: list[Sequence[str]] = [head]
    named = ([("chunk verdicts", found.chunks)] if found.chunks else []) + [
        (f"{name} pass/fail", a) for name, a in found.evaluators.items()]
    for what, a in named:
        table.append((what, str(a.n), str(a.accuracy), f"{a.always_no:.2f}", str(a.precision),
                      str(a.recall), str(a.f1), str(a.auc), str(a.kappa)))
    lines = ["", *_table(table), "(95% intervals: cases resampled 1,000 times)"]
    worst = sorted((d for _, a in named for d in a.disagreements),
                   key=lambda d: -d.confidence)[:5]
    if worst:
        lines.append("most confident disagreements: " + "; ".join(
            f"{one_line(d.item, 60)} (judge p {d.p:.2f}, label "
            f"{'yes' if d.label else 'no'})" for d in worst))
    return "\n".join(lines)


def _table(rows: Sequence[Sequence[str]]) -> list[str]:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip()
            for r in rows]


UNREADABLE = "unreadable"  # a stored cell that does not read (the run is "damaged")


def add_runs_parser(sub: Any) -> None:
    runs = sub.add_parser("runs", help="list the runs kept in the run store")
    runs.add_argument("--dataset", help="only the runs of this dataset (its file name)")
    runs.set_defaults(run=list_runs)


def list_runs(args: argparse.Namespace) -> int:
    from ..runs.store import open_store

    with open_store() as store:
        found = store.runs(args.dataset)
        rows: list[Sequence[str]] = [("run", "started (UTC)", "name", "dataset", "judge",
                                      "cases", "pass rate", "status")]
        rows += [(r.id[:8], UNREADABLE if r.started_at is None else
                  r.started_at.strftime("%Y-%m-%d %H:%M"), one_line(r.name, 50),
                  one_line(r.dataset, 40), r.judge, f"{r.done}/{r.cases}", percent(r.pass_rate),
                  r.shown_status) for r in found]
    print("\n".join(_table(rows)) if found else "no runs yet: jeval run DATA")
    return SCORED

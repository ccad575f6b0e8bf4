"""The `jeval` command: the contract other tools rely on.

Exit codes: 0 scored (or printed), 1 the case failed or is incomplete (only with --check), 2
bad input (case file, arguments, budget), 3 the judge could not answer (no key, network,
auth, refused, timed out, broken reply), 70 a bug. Every failure is ONE terminal-safe line on
stderr that never contains a key. Nothing heavy is imported before the Ctrl+C handler is in place.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys

# SIGTERM and SIGHUP stop jeval as Ctrl+C does (a run is kept as cancelled, one line, the
# resume command), with their own exit codes (143, 129).
STOPPING = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP")
                 if hasattr(signal, name))


def _interrupted_early(signum: int, frame: object) -> None:
    print("jeval: interrupted" if signum == signal.SIGINT else
          f"jeval: stopped by {signal.Signals(signum).name}", file=sys.stderr)
    os._exit(128 + signum)


# Run as the `jeval` command, Ctrl+C (or SIGTERM, SIGHUP) while the rest loads ends quietly;
# main() hands them to Python as soon as it runs. Imported as a library, nothing changes.
if __name__ == "__main__" or os.path.basename(sys.argv[0]) in ("jeval", "jeval.exe"):
    for _signum in (signal.SIGINT, *STOPPING):
        signal.signal(_signum, _interrupted_early)

import argparse  # noqa: E402
from collections.abc import Sequence  # noqa: E402
from typing import TYPE_CHECKING, NoReturn  # noqa: E402

from ..errors import (  # noqa: E402
    BAD_INPUT,
    FAILED,
    INTERNAL,
    INTERRUPTED,
    SCORED,
    Signalled,
)

if TYPE_CHECKING:
    from ..evaluators import Evaluator
    from ..inputs.casefile import CaseFile
    from ..scoring import Report

KEY_VARIABLES = ("TYPESAFE_API_KEY", "OPENROUTER_API_KEY")


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage mistake is one line and exit code 2, and never echoes a value."""

    def error(self, message: str) -> NoReturn:
        prefix = "unrecognized arguments: "
        if message.startswith(prefix):
            # Never echo stray values: one of them may be a key pasted on the command line.
            flags = [a.split("=")[0] for a in message[len(prefix):].split() if a.startswith("-")]
            message = f"unrecognized option(s): {' '.join(flags)}" if flags else (
                "unexpected extra argument(s)")
            if any("key" in f.lower() for f in flags):
                message += "; the API key is read from TYPESAFE_API_KEY, never from arguments"
        _fail(f"{message} (see `{self.prog} --help`)", BAD_INPUT)


def _stopped(signum: int, frame: object) -> None:
    """SIGTERM or SIGHUP: raised in the main thread as Ctrl+C's KeyboardInterrupt is."""
    raise Signalled(signum, signal.Signals(signum).name)


def main(argv: Sequence[str] | None = None) -> int:
    before = {signum: signal.getsignal(signum) for signum in STOPPING}
    try:
        signal.signal(signal.SIGINT, signal.default_int_handler)
        for signum in STOPPING:
            signal.signal(signum, _stopped)
        return _main(argv)
    except KeyboardInterrupt as err:
        with contextlib.suppress(OSError):  # after SIGHUP the terminal may be gone
            print(f"jeval: {getattr(err, 'message', None) or 'interrupted'}", file=sys.stderr)
        return int(getattr(err, "exit_code", INTERRUPTED))
    except BrokenPipeError:
        return SCORED
    finally:  # called in-process (a test, a script), the caller's handlers come back
        for signum, handler in before.items():
            if handler is not None:
                signal.signal(signum, handler)


def _main(argv: Sequence[str] | None) -> int:
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors="backslashreplace")  # a terminal that is not UTF-8 still works
    from ..errors import JevalError
    from ..text import one_line, remember_secret

    for variable in KEY_VARIABLES:  # redacted from every message, e.g. a key pasted as a path
        remember_secret(os.environ.get(variable, ""))
    args = _build_parser().parse_args(argv)
    if not getattr(args, "command", None):
        _fail("choose a command: score, run, app, examples, sweep, diff, runs, import, "
              "request or models (see `jeval --help`)",
              BAD_INPUT)
    try:
        return int(args.run(args))
    except JevalError as err:
        _fail(str(err), err.exit_code)
    except MemoryError:
        _fail("out of memory: the input is too large to score", BAD_INPUT)
    except BrokenPipeError:
        raise  # the reader went away (`| head`): main() ends quietly
    except Exception as err:  # a bug: still one line, never a traceback
        _fail(f"internal error ({type(err).__name__}: {one_line(err, 200)}); please report "
              "it", INTERNAL)


def _build_parser() -> _Parser:
    from .. import __version__, judges, wire
    from ..evaluators import NAMES
    from . import cli_examples

    model = wire.DEFAULT_MODEL
    parser = _Parser(prog="jeval", description="Evaluate RAG outputs with one packed judge "
                     "request: chunk relevance, faithfulness, hallucination and more.")
    parser.add_argument("--version", action="version", version=f"jeval {__version__}")
    sub = parser.add_subparsers(dest="command", parser_class=_Parser)
    case_help = ("case file: {input, output, expected?, context: [...], evaluators?, "
                 "thresholds?}; - for stdin")
    evaluators_help = f"comma-separated, from: {', '.join(NAMES)}"
    threshold_help = ("NAME=VALUE, e.g. toxicity=0.2; repeat for several (default 0.5 each, "
                      "or the case file's \"thresholds\")")
    file_help = ("a TOML file of custom evaluators ([[evaluator]] tables); repeat for several. "
                 "They run beside the others, or as --evaluators names them")

    request = sub.add_parser("request", help="print the System One request body (dry run)")
    request.add_argument("case", metavar="CASE.json", nargs="?", help=case_help)
    cli_examples.add_example_flag(request, ("examples",))
    request.add_argument("--evaluators", help=evaluators_help)
    request.add_argument("--evaluators-file", action="append", default=[], metavar="FILE.toml",
                         help=file_help)
    request.add_argument("--model", help=f"model name sent in the body (default: {model})")
    request.set_defaults(run=_run_request)

    scorer = sub.add_parser("score", help="score one or more cases and print the results")
    scorer.add_argument("cases", metavar="CASE.json", nargs="*", help=case_help)
    cli_examples.add_example_flag(scorer, ("examples",))
    scorer.add_argument("--evaluators", help=evaluators_help)
    scorer.add_argument("--evaluators-file", action="append", default=[], metavar="FILE.toml",
                        help=file_help)
    scorer.add_argument("--threshold", action="append", default=[], metavar="NAME=VALUE",
                        help=threshold_help)
    scorer.add_argument("--judge", default=judges.DEFAULT, choices=judges.names(),
                        help=f"who answers the questions (default: {judges.DEFAULT}, offline); "
                        "jev reads its key from TYPESAFE_API_KEY or asks for it; openai (your "
                        "own model) from OPENAI_API_KEY, or none")
    scorer.add_argument("--calibration", metavar="PROFILE",
                        help="judge with a calibration profile (a name kept by `jeval "
                        "calibrate`, or a profile JSON file); local judge only")
    scorer.add_argument("--base-url", help="Jev-compatible server for --judge jev "
                        "(default: $TYPESAFE_BASE_URL or https://api.typesafe.ai); for "
                        "--judge openai an OpenAI-compatible root such as "
                        "http://127.0.0.1:11434/v1 (default: $OPENAI_BASE_URL)")
    scorer.add_argument("--model", help=f"model for --judge jev (default: {model}); for "
                        "--judge openai, required")
    from .cli_judge import add_openai_flags

    add_openai_flags(scorer)
    scorer.add_argument("--format", default="text", choices=("json", "text"))
    scorer.add_argument("--check", action="store_true",
                        help="exit 1 when any case does not pass (for CI gates)")
    scorer.set_defaults(run=_run_score)

    from . import cli_run

    cli_run.add_parser(sub, evaluators_help, threshold_help, file_help, model)
    cli_run.add_runs_parser(sub)
    from . import cli_calibrate

    cli_calibrate.add_parser(sub)
    cli_calibrate.add_profiles_parser(sub)
    from . import cli_import

    cli_import.add_parser(sub)
    from . import cli_sweep

    cli_sweep.add_parser(sub)
    from . import cli_diff

    cli_diff.add_parser(sub)
    cli_examples.add_parser(sub)
    from . import cli_app

    cli_app.add_parser(sub)

    models = sub.add_parser("models", help="list the models a server judge's server offers")
    models.add_argument("--judge", default="jev", choices=[
        n for n in judges.names() if judges.entry(n).hosted], help="whose server: jev "
        "(default) or openai (any OpenAI-compatible server)")
    models.add_argument("--base-url", help="server root (default: $TYPESAFE_BASE_URL or "
                        "https://api.typesafe.ai; for openai $OPENAI_BASE_URL or "
                        "https://api.openai.com/v1)")
    models.set_defaults(run=_run_models)
    return parser


def _run_request(args: argparse.Namespace) -> int:
    from .. import wire
    from ..errors import CaseError
    from ..request import pack
    from .cli_examples import one_file

    loaded = _load(one_file(args.case, args, "case file"), args.evaluators, _custom(args))
    packed = pack(loaded.case, loaded.chosen(), (args.model or "").strip() or wire.DEFAULT_MODEL)
    packed.check_budget()
    if not packed.asked:
        raise CaseError(_nothing_to_ask(packed.skipped))
    _print_json(packed.body)
    return SCORED


def _run_score(args: argparse.Namespace) -> int:
    from .. import evaluators
    from ..errors import CaseError
    from ..scoring import score
    from .cli_examples import chosen_files

    args.cases = chosen_files(args.cases, args, "case file")
    if "-" in args.cases and len(args.cases) > 1:
        raise CaseError("- (standard input) cannot be mixed with case files")
    custom = _custom(args)
    loaded = [_load(path, args.evaluators, custom) for path in args.cases]
    from .cli_judge import chosen_judge

    extra = evaluators.thresholds(args.threshold, {
        **custom, **{n: e for one in loaded for n, e in evaluators.by_name(one.chosen()).items()}})
    judge = chosen_judge(args)
    try:
        reports = [score(one.case, one.chosen(), judge, {**one.thresholds, **extra})
                   for one in loaded]
    finally:
        judge.close()
    if args.format == "json":
        _print_json(reports[0].to_dict() if len(reports) == 1 else
                    [{"file": path, **r.to_dict()} for path, r in zip(args.cases, reports,
                                                                      strict=True)])
    else:
        print("\n\n".join(render_text(r) if len(reports) == 1 else f"== {path}\n"
                           + render_text(r) for path, r in zip(args.cases, reports,
                                                                strict=True)))
    failed = any(r.passed is not True for r in reports)
    if args.check:
        from ..text import one_line

        for path, report in zip(args.cases, reports, strict=True):
            if report.undecided:  # a pass (or a fail) on no verdict the judge can tell
                print(f"jeval: {one_line(path, 200)}: every verdict reads unsure, so the "
                      "judge could not decide the case: --check does not pass it",
                      file=sys.stderr)
                failed = True
    return FAILED if args.check and failed else SCORED


def _run_models(args: argparse.Namespace) -> int:
    from .cli_judge import hosted_judge

    judge = hosted_judge(args.base_url, None, args.judge)
    try:
        listed = judge.models()
    finally:
        judge.close()
    for model in listed:
        print(f"{model.name:24} {model.release_date:12} {model.description}".rstrip())
    if listed.more:
        print(f"({listed.more} with --model)")
    return SCORED


def _custom(args: argparse.Namespace) -> dict[str, Evaluator]:
    """The custom evaluators of every --evaluators-file, by name."""
    from ..inputs import evaluator_files
    from .cli_examples import evaluator_files as named

    return evaluator_files.evaluators(evaluator_files.read(named(args.evaluators_file)))


def _load(path: str, evaluators_arg: str | None, custom: dict[str, Evaluator]) -> CaseFile:
    """A case file with what to run on it: --evaluators names it (a custom one from a file
    or from the case), else the case's own choice plus every custom evaluator given."""
    from dataclasses import replace

    from .. import evaluators
    from ..inputs import casefile

    loaded = casefile.decode(_read(path), "standard input" if path == "-" else path)
    from ..inputs.datasets import check_row_fields

    check_row_fields(loaded)  # a dataset row is a case: its labels must fit its chunks
    if evaluators_arg is not None:
        known = {**evaluators.by_name(loaded.chosen()), **custom}
        loaded = replace(loaded, evaluators=evaluators.resolve(evaluators_arg, custom=known))
    elif custom:  # a file's definition wins over a case's own of the same name
        loaded = replace(loaded, evaluators=tuple(
            {**{e.name: e for e in loaded.chosen()}, **custom}.values()))
    _require_fields(loaded)
    return loaded


def _read(path: str) -> bytes:
    from pathlib import Path

    from ..errors import CaseError
    from ..inputs.casefile import MAX_FILE_BYTES
    from ..text import one_line

    shown = one_line(path, 120)
    if _looks_like_a_key(path):
        shown = "an argument that looks like an API key"
    try:
        if path == "-":
            return sys.stdin.buffer.read(MAX_FILE_BYTES + 1)
        with Path(path).open("rb") as f:
            return f.read(MAX_FILE_BYTES + 1)
    except FileNotFoundError:
        raise CaseError(f"{shown}: no such file; pass the path of a case JSON file") from None
    except IsADirectoryError:
        raise CaseError(f"{shown} is a folder; pass the path of a case JSON file") from None
    except OSError as err:
        raise CaseError(f"{shown}: cannot read it ({err.strerror}); check the path") from None


def _looks_like_a_key(arg: str) -> bool:
    """A long token with no folder, no extension and no spaces: a key pasted by mistake,
    never to be echoed."""
    name = arg.strip()
    return (len(name) >= 20 and not any(c in name for c in "/\\. ")
            and sum(c.isdigit() for c in name) >= 4)


def _require_fields(loaded: CaseFile) -> None:
    """An evaluator asked for with an empty field it needs is bad input (bar `expected`)."""
    from ..errors import CaseError

    case, chosen = loaded.case, loaded.chosen()
    for field in ("context", "input", "output"):
        if case.has(field):
            continue
        needing = [e.name for e in chosen if field in e.needs]
        if needing:
            what = "has no chunks" if field == "context" else "is empty"
            fix = ('add the retrieved chunks to "context"' if field == "context"
                   else f'fill in "{field}"')
            raise CaseError(f'"{field}" {what} but {", ".join(needing)} needs it: {fix}, '
                            "or choose other evaluators with --evaluators")


def _nothing_to_ask(skipped: dict[str, str]) -> str:
    why = "; ".join(f"{n} {r}" for n, r in skipped.items())
    return f"no evaluator can judge this case ({why}): add the missing fields"


APPROXIMATE = (" approximate: an offline judge answers a custom question from its wording and "
               "operands, not by reading it as a language model would")


def render_text(report: Report) -> str:
    """A readable table of results, then each evaluator's questions with their p."""
    from ..text import one_line

    t = report.packed.tokens
    head = f"judge: {report.judge}"
    if report.approximates:
        head += " (approximates the hosted Jev judge)"
    if report.calibration:
        head += f" · calibration profile {report.calibration}"
    if report.model:
        head += f" · model {report.model}"
    if report.request_id:
        head += f" · request id {report.request_id}"
    asked = (f"request: 1 packed request, {len(report.packed.asked)} questions, ~{t.total:,} "
             f"input tokens (estimate), ~${report.packed.cost_usd:.8f} on Jev; "
             f"this judge used {report.usage.requests} request(s), "
             f"{report.usage.input_tokens:,} input tokens, ${report.cost_usd:.8f}"
             if report.packed.asked else
             "request: none (no evaluator had anything to ask), nothing billed")
    lines = [one_line(head, MAX_CELL), asked, ""]
    rows = [("evaluator", "score", "label", "result", "passes when", "reason")]
    for name, r in report.results.items():
        verdict = "SKIP" if r.skipped else ("PASS" if r.passed else "FAIL")
        score_text = "-" if r.score is None else f"{r.score:.2f}"
        rule = f"{'>=' if r.higher_is_better else '<='} {r.threshold:.2f}"
        rows.append((name, score_text, r.label, verdict, rule,
                     ("(approximate) " if r.approximate else "") + r.reason))
    lines += _table(rows)
    for name, r in report.results.items():
        if not r.details:
            continue
        lines += ["", f"{name}:" + (APPROXIMATE if r.approximate else "")]
        lines += _table([("id", "judged", "p", "verdict", "question")]
                        + [(d.id, d.judged, f"{d.p:.2f}", d.verdict, d.question)
                           for d in r.details], indent="  ")
    overall = {True: "PASSED", False: "FAILED", None: "INCOMPLETE"}[report.passed]
    lines += ["", f"case: {overall}"]
    return "\n".join(lines)


MAX_CELL = 4000  # a custom question may be long; it stays on its row, cut past this


def _table(rows: Sequence[tuple[str, ...]], indent: str = "") -> list[str]:
    """Aligned columns, every cell printed inert: a custom evaluator's question and verdict
    words come from a file someone sent (no escape sequence, no newline reaches the
    terminal)."""
    from ..text import one_line

    rows = [tuple(one_line(c, MAX_CELL) for c in r) for r in rows]
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]) - 1)]
    return [indent + "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=False)) + "  " + r[-1]
            for r in rows]


def _print_json(value: object) -> None:
    import json

    print(json.dumps(value, indent=2, ensure_ascii=False, allow_nan=False))


def _fail(message: str, code: int) -> NoReturn:
    from ..text import one_line

    print(f"jeval: {one_line(message, 600)}", file=sys.stderr)
    raise SystemExit(code)


if __name__ == "__main__":
    raise SystemExit(main())

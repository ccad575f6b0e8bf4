"""The `jeval` command: the contract other tools rely on.

Exit codes: 0 scored (or printed), 1 the case failed under --check, 2 bad input (one line on
stderr saying what is wrong and how to mend it). Never a traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

from . import evaluators, judges
from .case import Case
from .errors import CaseError, JevalError
from .request import DEFAULT_MODEL, default_evaluators, pack
from .scoring import Report, score

BAD_INPUT = 2


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage mistake is one line and exit code 2."""

    def error(self, message: str) -> NoReturn:
        prefix = "unrecognized arguments: "
        if message.startswith(prefix):
            # Never echo stray values: one of them may be a key pasted on the command line.
            flags = [a.split("=")[0] for a in message[len(prefix):].split() if a.startswith("-")]
            message = f"unrecognized option(s): {' '.join(flags)}" if flags else (
                "unexpected extra argument(s)")
            if any("key" in f.lower() for f in flags):
                message += "; the API key is read from TYPESAFE_API_KEY, never from arguments"
        _fail(f"{message} (see `{self.prog} --help`)")


def main(argv: Sequence[str] | None = None) -> int:
    parser = _build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "command", None):
        _fail("choose a command: request, score or models (see `jeval --help`)")
    try:
        return args.run(args)
    except JevalError as err:
        _fail(str(err))
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    except Exception as err:  # a bug: still one line, never a traceback
        print(f"jeval: internal error ({type(err).__name__}: {err}); please report it",
              file=sys.stderr)
        return 1


def _build_parser() -> _Parser:
    parser = _Parser(prog="jeval", description="Evaluate RAG outputs with one packed judge "
                     "request: chunk relevance, faithfulness, hallucination and more.")
    sub = parser.add_subparsers(dest="command", parser_class=_Parser)
    case_help = "case file: {input, output, expected?, context: [...], evaluators?}; - for stdin"
    evaluators_help = f"comma-separated, from: {', '.join(evaluators.NAMES)}"

    request = sub.add_parser("request", help="print the System One request body (dry run)")
    request.add_argument("case", metavar="CASE.json", help=case_help)
    request.add_argument("--evaluators", help=evaluators_help)
    request.add_argument("--model", default=DEFAULT_MODEL, help="model name sent in the body")
    request.set_defaults(run=_run_request)

    scorer = sub.add_parser("score", help="score a case and print the results")
    scorer.add_argument("case", metavar="CASE.json", help=case_help)
    scorer.add_argument("--evaluators", help=evaluators_help)
    scorer.add_argument("--judge", default=judges.DEFAULT, choices=judges.NAMES,
                        help=f"who answers the questions (default: {judges.DEFAULT}, offline); "
                        "jev reads its key from TYPESAFE_API_KEY or asks for it")
    scorer.add_argument("--base-url", help="Jev-compatible server for --judge jev "
                        "(default: $TYPESAFE_BASE_URL or https://api.typesafe.ai)")
    scorer.add_argument("--model", default=DEFAULT_MODEL, help="model name sent in the body")
    scorer.add_argument("--format", default="text", choices=("json", "text"))
    scorer.add_argument("--check", action="store_true",
                        help="exit 1 when the case does not pass (for CI gates)")
    scorer.set_defaults(run=_run_score)

    models = sub.add_parser("models", help="list the models a Jev-compatible server offers")
    models.add_argument("--base-url", help="server root (default: $TYPESAFE_BASE_URL or "
                        "https://api.typesafe.ai)")
    models.set_defaults(run=_run_models)
    return parser


def _run_request(args: argparse.Namespace) -> int:
    case, names = _load(args.case, args.evaluators)
    packed = pack(case, names, args.model)
    packed.check_budget()
    if not packed.asked:
        raise CaseError(_nothing_to_ask(packed.skipped))
    _print_json(packed.body)
    return 0


def _run_score(args: argparse.Namespace) -> int:
    case, names = _load(args.case, args.evaluators)
    judge = (_jev(args.base_url, args.model) if args.judge == "jev"
             else judges.get(args.judge))
    report = score(case, names, judge, args.model)
    if args.format == "json":
        _print_json(report.to_dict())
    else:
        print(render_text(report))
    return 1 if args.check and report.passed is not True else 0


def _run_models(args: argparse.Namespace) -> int:
    judge = _jev(args.base_url, DEFAULT_MODEL)
    for model in judge.models():
        released = model.get("release_date") or ""
        print(f"{model['name']:24} {released:12} {model.get('description') or ''}".rstrip())
    return 0


def _jev(base_url: str | None, model: str) -> judges.Judge:
    """The hosted judge; its key comes from the environment or a hidden prompt, never argv."""
    from .judges.jev import JevJudge, key_from_env, normalise_base_url

    url = normalise_base_url(base_url)
    key = key_from_env(url)
    if key is None and sys.stdin.isatty():
        import getpass

        key = getpass.getpass("Jev API key (input hidden; Enter for none): ").strip() or None
    return JevJudge(api_key=key, base_url=url, model=model)


def _load(path: str, evaluators_arg: str | None) -> tuple[Case, list[str]]:
    data = _read_json(path)
    case = Case.from_dict(data)
    if evaluators_arg is not None:
        names = [n.strip() for n in evaluators_arg.split(",") if n.strip()]
        if not names:
            raise CaseError("--evaluators is empty: name at least one of "
                            + ", ".join(evaluators.NAMES))
    elif data.get("evaluators") is not None:
        names = evaluators.names_in(data["evaluators"])
    else:
        names = default_evaluators(case)  # always has chunk_relevance: needs input and context
    for name in names:
        evaluators.get(name)  # unknown names fail here, with the valid ones listed
    _require_fields(case, names)
    return case, names


def _require_fields(case: Case, names: Sequence[str]) -> None:
    """An evaluator asked for with an empty field it needs is bad input (bar `expected`)."""
    for field in ("context", "input", "output"):
        if case.has(field):
            continue
        needing = [n for n in names if field in evaluators.get(n).needs]
        if needing:
            what = "has no chunks" if field == "context" else "is empty"
            fix = ('add the retrieved chunks to "context"' if field == "context"
                   else f'fill in "{field}"')
            raise CaseError(f'"{field}" {what} but {", ".join(needing)} needs it: {fix}, '
                            "or choose other evaluators with --evaluators")


def _read_json(path: str) -> Any:
    name = "standard input" if path == "-" else path
    try:
        raw = sys.stdin.buffer.read() if path == "-" else Path(path).read_bytes()
    except FileNotFoundError:
        raise CaseError(f"{path}: no such file; pass the path of a case JSON file") from None
    except IsADirectoryError:
        raise CaseError(f"{path} is a folder; pass the path of a case JSON file") from None
    except OSError as err:
        raise CaseError(f"{path}: cannot read it ({err.strerror}); check the path") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise CaseError(f"{name} is not UTF-8 text; save the case as UTF-8 JSON") from None
    if not text.strip():
        raise CaseError(f"{name} is empty; write a case like "
                        '{"input": "...", "output": "...", "context": ["..."]}')
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        raise CaseError(f"{name} is not valid JSON: {err.msg} at line {err.lineno}, "
                        f"column {err.colno}; fix the syntax there") from None


def _nothing_to_ask(skipped: dict[str, str]) -> str:
    why = "; ".join(f"{n} {r}" for n, r in skipped.items())
    return f"no evaluator can judge this case ({why}): add the missing fields"


def render_text(report: Report) -> str:
    """A readable table of results, then each evaluator's questions with their p."""
    t = report.packed.tokens
    lines = [
        f"judge: {report.judge}"
        + (" (approximates the hosted Jev judge)" if report.approximates else ""),
        f"request: 1 packed request, {len(report.packed.asked)} questions, ~{t.total:,} "
        f"input tokens (estimate), ~${report.packed.cost_usd:.8f} on Jev; "
        f"this judge used {report.usage.requests} request(s), ${report.cost_usd:.8f}",
        "",
    ]
    rows = [("evaluator", "score", "label", "result", "passes when", "reason")]
    for name, r in report.results.items():
        verdict = "SKIP" if r.skipped else ("PASS" if r.passed else "FAIL")
        score_text = "-" if r.score is None else f"{r.score:.2f}"
        rule = f"{'>=' if r.higher_is_better else '<='} {r.threshold:.2f}"
        rows.append((name, score_text, r.label, verdict, rule, r.reason))
    lines += _table(rows)
    for name, r in report.results.items():
        if not r.details:
            continue
        lines += ["", f"{name}:"]
        lines += _table([("id", "p", "verdict", "question")]
                        + [(d.id, f"{d.p:.2f}", d.verdict, d.question) for d in r.details],
                        indent="  ")
    overall = {True: "PASSED", False: "FAILED", None: "NOT SCORED"}[report.passed]
    lines += ["", f"case: {overall}"]
    return "\n".join(lines)


def _table(rows: list[tuple[str, ...]], indent: str = "") -> list[str]:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]) - 1)]
    return [indent + "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=False)) + "  " + r[-1]
            for r in rows]


def _print_json(value: Any) -> None:
    print(json.dumps(value, indent=2, ensure_ascii=False))


def _fail(message: str) -> NoReturn:
    print(f"jeval: {message}", file=sys.stderr)
    raise SystemExit(BAD_INPUT)


if __name__ == "__main__":
    raise SystemExit(main())

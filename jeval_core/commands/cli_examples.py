"""`jeval examples` and `--example NAME`: the cases, datasets and evaluator files that ship with
jeval, by name, so the README's commands run after `pip install` without a clone."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from ..errors import SCORED, CaseError
from ..inputs import bundled

EXAMPLE_HELP = ("a case or dataset that ships with jeval, by name (`jeval examples` lists "
                "them), instead of a file")


def add_parser(sub: Any) -> None:
    command = sub.add_parser("examples", help="list the example cases, datasets and evaluator "
                             "files that ship with jeval, and how to use each")
    command.set_defaults(run=_run_examples)


def add_example_flag(parser: argparse.ArgumentParser, kinds: tuple[str, ...]) -> None:
    """--example NAME (repeatable) beside a command's file argument."""
    parser.add_argument("--example", action="append", default=[], metavar="NAME",
                        help=EXAMPLE_HELP)
    parser.set_defaults(example_kinds=kinds)


def chosen_files(given: list[str] | str | None, args: argparse.Namespace,
                 what: str) -> list[str]:
    """The files a command reads: those given, then each --example by name; a CaseError
    when there are none."""
    files = [given] if isinstance(given, str) else list(given or [])
    files += [str(bundled.find(name, args.example_kinds)) for name in args.example]
    if not files:
        raise CaseError(f"give a {what} or --example NAME (see `jeval examples`)")
    return files


def one_file(given: str | None, args: argparse.Namespace, what: str) -> str:
    """The one file a command reads: the one given or one --example."""
    files = chosen_files(given, args, what)
    if len(files) > 1:
        raise CaseError(f"give one {what}: a file or one --example, not both")
    return files[0]


def evaluator_files(given: list[str]) -> list[str]:
    """--evaluators-file arguments, a bundled evaluator file's name standing for its file
    when no such file exists here."""
    return [name if Path(name).exists() or not _is_bundled(name)
            else str(bundled.find(name, ("evaluators",))) for name in given]


def _is_bundled(name: str) -> bool:
    return any(item.kind == "evaluators" and name in (item.name, item.file.name)
               for item in bundled.listing())


USE = {"examples": "jeval score --example jev_pricing",
       "datasets": "jeval run --example sample      (or: jeval sweep --example sample)",
       "evaluators": "jeval score --example jev_pricing --evaluators-file states_a_limit"}
TITLES = {"examples": "Example cases", "datasets": "Datasets",
          "evaluators": "Evaluator files (custom evaluators)"}


def _run_examples(args: argparse.Namespace) -> int:
    items = bundled.listing()
    for kind, title in TITLES.items():
        mine = [item for item in items if item.kind == kind]
        if not mine:
            continue
        print(f"{title}:")
        width = max(len(item.name) for item in mine)
        for item in mine:
            print(f"  {item.name:<{width}}  {item.summary}")
        print(f"  use: {USE[kind]}\n")
    print(f"They lie in {bundled.root()}; `jeval app` opens them in the Playground.")
    return SCORED

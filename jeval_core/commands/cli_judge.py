"""The judge a `jeval` command asks, built through the judge catalog.

Shared by `jeval score` (cli.py) and `jeval run` (cli_run.py), so neither imports the other
for it. The hosted judge's key comes from the environment or a hidden prompt, never argv.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..calibration.profile import Profile
    from ..judges import Judge

# `--judge openai` only: how its questions are sent, and what its tokens cost
OPENAI_FLAGS = {"endpoint": "--endpoint", "concurrency": "--per-case",
                "price_per_million_input_tokens": "--price", "case_deadline": "--case-deadline",
                "prompt": "--prompt"}


def add_openai_flags(parser: argparse.ArgumentParser) -> None:
    """The flags of `--judge openai` (score and run)."""
    parser.add_argument("--endpoint", choices=("chat", "completions"),
                        help="--judge openai: /chat/completions, one request per question "
                        "(default), or /completions, a case's prompts as one list (llama.cpp, "
                        "vLLM)")
    parser.add_argument("--per-case", type=int, dest="concurrency_per_case", metavar="N",
                        help="--judge openai: a case's questions in flight at once (default 4)")
    parser.add_argument("--price", type=float, metavar="USD", help="--judge openai: dollars "
                        "per million input tokens, for the cost shown (default: none)")
    parser.add_argument("--case-deadline", type=float, metavar="SECONDS",
                        help="--judge openai: how long a case's questions may take, retries "
                        "included, before it gives up (default 180, at most 3600)")
    parser.add_argument("--prompt", choices=("named", "case"),
                        help="--judge openai: each question with the texts it names (default: "
                        "the fewest tokens), or the whole case before every question (an "
                        "identical prefix, for a server whose prefix cache reads it once)")


# the argparse attribute each of them is parsed into
OPENAI_ATTRIBUTES = {"endpoint": "endpoint", "concurrency": "concurrency_per_case",
                     "price_per_million_input_tokens": "price", "case_deadline": "case_deadline",
                     "prompt": "prompt"}


def _openai_settings(args: argparse.Namespace) -> dict[str, object]:
    return {setting: getattr(args, attribute, None)
            for setting, attribute in OPENAI_ATTRIBUTES.items()}


def chosen_judge(args: argparse.Namespace) -> Judge:
    """The judge `--judge` names; `--base-url` and `--model` only for a server judge."""
    from .. import judges
    from ..errors import CaseError

    named = getattr(args, "calibration", None)
    if named and not judges.entry(args.judge).calibrates:
        raise CaseError(f"--calibration is for --judge local, not {args.judge}: a profile "
                        "refits the local judge's curves")
    extra = {k: v for k, v in _openai_settings(args).items() if v is not None}
    if extra and not judges.entry(args.judge).per_question:
        flags = ", ".join(OPENAI_FLAGS[k] for k in extra)
        raise CaseError(f"{flags}: for --judge openai, not {args.judge}")
    if judges.entry(args.judge).hosted:
        return hosted_judge(args.base_url, args.model, args.judge, **extra)
    if args.base_url or args.model:
        raise CaseError(f"--base-url and --model are for --judge jev or openai (a server's "
                        f"judges), not {args.judge}")
    return judges.get(args.judge, calibration=calibration(named) if named else None)


def calibration(value: str) -> Profile:
    """The calibration profile `--calibration` names: a profile JSON file, or a name kept in
    the run store (`jeval calibrate ... --name NAME`)."""
    from pathlib import Path

    from ..calibration.profile import MAX_BYTES, Profile, ProfileError
    from ..inputs.files import read_capped
    from ..text import one_line

    path = Path(value)
    if value.endswith(".json") or (path.exists() and not path.is_dir()):
        raw = read_capped(path, MAX_BYTES, "is over 1 MB: a calibration profile is a few "
                          "KB; export one with `jeval profiles --export NAME`",
                          expected="a profile JSON file")
        try:
            return Profile.from_json(raw)
        except ProfileError as err:
            raise ProfileError(f"{one_line(value, 200)}: {err}") from None
    from ..runs.store import open_store

    with open_store() as store:
        return store.profile(value)


def hosted_judge(base_url: str | None, model: str | None, name: str | None = None,
                 **settings: Any) -> Any:
    """The server judge `name` (jev by default) on `base_url`; its key from the environment
    (only for the server it was configured for), else a hidden prompt (Enter: none)."""
    from .. import judges, wire
    from ..judges.http import Secret

    name = name or judges.hosted_name() or ""
    module = judges.server_module(name)
    url = module.normalise_base_url(base_url)
    key = module.key_from_env(url)
    if key is None and sys.stdin.isatty():
        import getpass

        typed = getpass.getpass(f"API key for {url} (input hidden; Enter for none): ")
        key = Secret(typed) if typed.strip() else None
    default = None if judges.entry(name).names_model else wire.DEFAULT_MODEL
    return judges.get(name, api_key=key, base_url=url,
                      model=(model or "").strip() or default, **settings)

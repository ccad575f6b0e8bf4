"""The judge a `jeval` command asks, built through the judge catalog.

Shared by `jeval score` (cli.py) and `jeval run` (cli_run.py), so neither imports the other
for it. The hosted judge's key comes from the environment or a hidden prompt, never argv.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .judges import Judge
    from .judges.jev import JevJudge


def chosen_judge(args: argparse.Namespace) -> Judge:
    """The judge `--judge` names; `--base-url` and `--model` only for a hosted one."""
    from . import judges
    from .errors import CaseError

    if judges.entry(args.judge).hosted:
        return hosted_judge(args.base_url, args.model, args.judge)
    if args.base_url or args.model:
        raise CaseError(f"--base-url and --model are for --judge {judges.hosted_name()}, not "
                        f"{args.judge}")
    return judges.get(args.judge)


def hosted_judge(base_url: str | None, model: str | None, name: str | None = None) -> JevJudge:
    """The hosted judge on `base_url`; its key from the environment, else a hidden prompt."""
    from . import judges, wire
    from .judges.jev import JevJudge, Secret, key_from_env, normalise_base_url

    url = normalise_base_url(base_url)
    key = key_from_env(url)
    if key is None and sys.stdin.isatty():
        import getpass

        typed = getpass.getpass(f"Jev API key for {url} (input hidden; Enter for none): ")
        key = Secret(typed) if typed.strip() else None
    judge = judges.get(name or judges.hosted_name() or "", api_key=key, base_url=url,
                       model=(model or "").strip() or wire.DEFAULT_MODEL)
    assert isinstance(judge, JevJudge)  # the one hosted protocol: a Jev-compatible server
    return judge

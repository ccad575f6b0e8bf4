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
    from .judges.profile import Profile


def chosen_judge(args: argparse.Namespace) -> Judge:
    """The judge `--judge` names; `--base-url` and `--model` only for a hosted one."""
    from . import judges
    from .errors import CaseError

    named = getattr(args, "calibration", None)
    if named and not judges.entry(args.judge).calibrates:
        raise CaseError(f"--calibration is for --judge local, not {args.judge}: a profile "
                        "refits the local judge's curves")
    if judges.entry(args.judge).hosted:
        return hosted_judge(args.base_url, args.model, args.judge)
    if args.base_url or args.model:
        raise CaseError(f"--base-url and --model are for --judge {judges.hosted_name()}, not "
                        f"{args.judge}")
    return judges.get(args.judge, calibration=calibration(named) if named else None)


def calibration(value: str) -> Profile:
    """The calibration profile `--calibration` names: a profile JSON file, or a name kept in
    the run store (`jeval calibrate ... --name NAME`)."""
    from pathlib import Path

    from .files import read_capped
    from .judges.profile import MAX_BYTES, Profile, ProfileError
    from .text import one_line

    path = Path(value)
    if value.endswith(".json") or (path.exists() and not path.is_dir()):
        raw = read_capped(path, MAX_BYTES, "is over 1 MB: a calibration profile is a few "
                          "KB; export one with `jeval profiles --export NAME`",
                          expected="a profile JSON file")
        try:
            return Profile.from_json(raw)
        except ProfileError as err:
            raise ProfileError(f"{one_line(value, 200)}: {err}") from None
    from .store import open_store

    with open_store() as store:
        return store.profile(value)


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

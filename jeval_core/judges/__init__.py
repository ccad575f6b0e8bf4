"""Judges behind one protocol. `get(name, **settings)` builds one; heavy ones load on first use.

The CLI, the pages and batch runs all build judges here, and use only what the protocol
in `base.Judge` promises.
"""

from __future__ import annotations

from typing import Any

from ..errors import JudgeError
from .base import Answers, Judge, OfflineJudge, Usage

NAMES = ("local", "lexical", "jev")
DEFAULT = "local"
LABELS = {"local": "Local (offline, default)", "lexical": "Lexical (word overlap)",
          "jev": "Jev (hosted, needs a key)"}


def get(name: str, **settings: Any) -> Judge:
    """A judge by name; jev takes api_key, base_url, model, retry, transport, limiter.

    Settings left at None are not given. Offline judges take none: passing one is a mistake
    (a key meant for the hosted judge), so it is refused rather than dropped.
    """
    given = {k: v for k, v in settings.items() if v is not None}
    if name == "jev":
        from .jev import JevJudge

        return JevJudge(**given)
    if name in ("local", "lexical"):
        if given:
            raise JudgeError(f"the {name} judge takes no settings ({', '.join(sorted(given))} "
                             "given); they are for --judge jev")
        if name == "local":
            from .local import LocalJudge

            return LocalJudge()
        from .lexical import LexicalJudge

        return LexicalJudge()
    raise JudgeError(f"unknown judge {str(name)[:40]!r}: choose from {', '.join(NAMES)}")


__all__ = ["DEFAULT", "LABELS", "NAMES", "Answers", "Judge", "OfflineJudge", "Usage", "get"]

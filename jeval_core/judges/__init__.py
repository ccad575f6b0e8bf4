"""Judges behind one protocol. `get(name)` builds one; heavy ones load on first use."""

from __future__ import annotations

from typing import Any

from ..errors import JudgeError
from .base import Answers, Judge, Usage

NAMES = ("local", "lexical", "jev")
DEFAULT = "local"


def get(name: str, **settings: Any) -> Judge:
    """A judge by name (jev takes api_key, base_url, model), or a JudgeError naming the choices."""
    if name == "local":
        from .local import LocalJudge

        return LocalJudge()
    if name == "lexical":
        from .lexical import LexicalJudge

        return LexicalJudge()
    if name == "jev":
        from .jev import JevJudge

        return JevJudge(**{k: v for k, v in settings.items() if v is not None})
    raise JudgeError(f"unknown judge {name!r}: choose from {', '.join(NAMES)}")


__all__ = ["DEFAULT", "NAMES", "Answers", "Judge", "Usage", "get"]

"""Judges behind one protocol. `get(name)` builds one; heavy ones load on first use."""

from __future__ import annotations

from ..errors import JudgeError
from .base import Answers, Judge, Usage

NAMES = ("lexical",)


def get(name: str) -> Judge:
    """A judge by name, or a JudgeError listing the names this build offers."""
    if name == "lexical":
        from .lexical import LexicalJudge

        return LexicalJudge()
    raise JudgeError(f"unknown judge {name!r}: choose from {', '.join(NAMES)}")


__all__ = ["NAMES", "Answers", "Judge", "Usage", "get"]

"""A case in a link: compact, versioned, and never carrying a key.

The token is `v1.` + base64url(zlib(JSON of the case, its evaluators and the judge's name)).
Decoding is bounded, so a hostile link cannot inflate into gigabytes.
"""

from __future__ import annotations

import base64
import binascii
import json
import zlib
from collections.abc import Sequence
from dataclasses import dataclass

from . import evaluators as registry
from . import judges
from .case import Case
from .errors import CaseError

VERSION = "v1."
MAX_BYTES = 4 * 1024 * 1024  # decoded JSON larger than this is refused


@dataclass(frozen=True)
class Shared:
    """What a link carries."""

    case: Case
    evaluators: tuple[str, ...]
    judge: str | None


def encode(case: Case, evaluators: Sequence[str] = (), judge: str | None = None) -> str:
    """The link token for a case (no key can be in it: none is ever passed here)."""
    data = {**case.to_dict(), "evaluators": list(evaluators), "judge": judge}
    raw = json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    packed = base64.urlsafe_b64encode(zlib.compress(raw, 9)).rstrip(b"=").decode("ascii")
    return VERSION + packed


def decode(token: str) -> Shared:
    """The case a token carries, or a CaseError that says the link is damaged."""
    damaged = CaseError("this share link is damaged or incomplete: copy the whole link again")
    if not isinstance(token, str) or not token.startswith(VERSION):
        raise damaged
    body = token[len(VERSION):]
    try:
        compressed = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))
        inflater = zlib.decompressobj()
        raw = inflater.decompress(compressed, MAX_BYTES)
        if inflater.unconsumed_tail:
            raise CaseError("this share link holds more than 4 MB of text: share the case as "
                            "a downloaded JSON file instead")
        data = json.loads(raw.decode("utf-8"))
    except (binascii.Error, zlib.error, UnicodeDecodeError, ValueError):
        raise damaged from None
    case = Case.from_dict(data)
    names = registry.names_in(data["evaluators"]) if data.get("evaluators") else []
    judge = data.get("judge")
    if judge is not None and judge not in judges.NAMES:
        raise damaged
    return Shared(case, tuple(names), judge)

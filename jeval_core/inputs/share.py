"""A case in a link: compact, versioned, and never carrying a key.

The token is `v1.` + base64url(zlib(JSON of the case file: the case, its evaluators (a
custom one's definition too) and thresholds, and the judge's name)). Decoding is bounded in
every direction (token length, inflated size, nesting) and raises nothing but CaseError, so
a crafted link cannot break the page of whoever opens it.
"""

from __future__ import annotations

import base64
import binascii
import json
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .. import judges
from ..case import Case
from ..errors import CaseError
from ..evaluators import Evaluator
from ..wire import parse_json
from . import casefile, evaluator_files
from .casefile import CaseFile

VERSION = "v1."
# A link longer than this is not a link anyone can share, nor one the app's server opens: it
# refuses a request whose line and headers pass 128 KiB (measured: a 127,000-character token
# opens, 131,000 is "400 Bad Request"); the rest is room for the browser's headers.
MAX_TOKEN_CHARS = 110_000
MAX_BYTES = 1024 * 1024  # inflated JSON larger than this is refused
# Chunks in a link (and in the Playground, which links share): an edit redraws every chunk
# (~13 ms each here), so 100 keeps an edit near 1.5 s; bigger cases are for `jeval score`.
MAX_CHUNKS = 100


@dataclass(frozen=True)
class Shared:
    """What a link carries."""

    file: CaseFile
    judge: str | None


def encode(case: Case, chosen: Sequence[Evaluator] = (), judge: str | None = None,
           thresholds: Mapping[str, float] | None = None,
           labels: Mapping[str, Any] | None = None) -> str:
    """The link token for a case and its labels (`Labels.to_extra()`); no key can be in it:
    none is ever passed here."""
    data: dict[str, object] = {**case.to_dict(), **(labels or {})}
    data.update(casefile.settings(chosen or None, thresholds or {}))
    if judge:
        data["judge"] = judge
    raw = json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    packed = base64.urlsafe_b64encode(zlib.compress(raw, 9)).rstrip(b"=").decode("ascii")
    return VERSION + packed


def decode(token: object) -> Shared:
    """The case a token carries, or a CaseError that says the link is damaged."""
    damaged = "this share link is damaged or incomplete: copy the whole link again"
    if not isinstance(token, str) or not token.startswith(VERSION):
        raise CaseError(damaged)
    if len(token) > MAX_TOKEN_CHARS:
        raise CaseError("this share link is too long to be a case link: share the case as a "
                        "downloaded JSON file instead")
    body = token[len(VERSION):]
    try:
        compressed = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))
        inflater = zlib.decompressobj()
        raw = inflater.decompress(compressed, MAX_BYTES)
        if inflater.unconsumed_tail:
            raise CaseError("this share link holds more than 1 MB of text: share the case as "
                            "a downloaded JSON file instead")
        data = parse_json(raw.decode("utf-8"))
    except (binascii.Error, zlib.error, UnicodeError, ValueError):
        raise CaseError(damaged) from None
    if not isinstance(data, dict):
        raise CaseError(damaged)
    judge = data.pop("judge", None)
    if judge is not None and not judges.known(judge):
        raise CaseError(damaged)
    try:
        for alias in casefile.ALIASES["context"]:  # counted before the chunks are read
            if isinstance(data.get(alias), list):
                check_chunks(len(data[alias]), "this share link's case")
        if isinstance(data.get(casefile.CUSTOM), list):  # and before any definition is
            evaluator_files.check_count(len(data[casefile.CUSTOM]), "this share link")
        parsed = casefile.parse(data)
    except CaseError as err:
        raise CaseError(f"this share link's case cannot be used: {err}") from None
    return Shared(parsed, judge)


def check_chunks(count: int, what: str = "the case") -> None:
    """A CaseError when a case has more chunks than a link and the Playground hold."""
    if count > MAX_CHUNKS:
        raise CaseError(f"{what} has {count:,} chunks; the Playground and its links hold at "
                        f"most {MAX_CHUNKS} chunks (a page stays responsive): score it with "
                        "`jeval score` or as a dataset instead")

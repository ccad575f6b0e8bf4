"""Text hygiene at the edges: what users type, what servers send, what terminals print.

Case text is cleaned once on the way in (lone surrogates cannot be encoded as UTF-8, so they
would crash a tokenizer or a JSON printer later). Anything shown to a person is one line with
no control or escape characters, cut to a sane length, and never contains an API key.
"""

from __future__ import annotations

import contextvars
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

_SURROGATE = re.compile("[\ud800-\udfff]")
# Invisible characters that make a field look filled while saying nothing.
_INVISIBLE = re.compile("[\\s\u00ad\u180e\u200b-\u200f\u2028-\u202f\u205f-\u2064\u3000\ufeff]+")
_ANSI = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[@-Z\\-_])")
# C0/C1 controls, DEL, bidi overrides and isolates (they can reorder what a terminal shows).
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_SPACES = re.compile(r"\s+")
MAX_LINE = 400
REDACTED = "[redacted]"
_MIN_SECRET = 8  # shorter fragments are too common to redact safely

_secrets: list[str] = []
_secrets_lock = threading.Lock()
# The keys of the request being made in this thread: redacted whatever other sessions
# registered since (the process-wide list above is bounded).
_own: contextvars.ContextVar[tuple[str, ...]] = contextvars.ContextVar("jeval_own_secrets",
                                                                       default=())


def clean(text: str) -> str:
    """Text that encodes as UTF-8: lone surrogates become U+FFFD."""
    return _SURROGATE.sub("\ufffd", text)


def clean_json(value: Any) -> Any:
    """Decoded JSON with every string cleaned (keys too): metadata is text on the way in."""
    if isinstance(value, str):
        return clean(value)
    if isinstance(value, list):
        return [clean_json(v) for v in value]
    if isinstance(value, dict):
        return {clean_json(k) if isinstance(k, str) else k: clean_json(v)
                for k, v in value.items()}
    return value


def percent(share: float | None, none: str = "-") -> str:
    """A share as a percentage that never rounds a part up to 100% or down to 0%:
    99,900 of 100,000 is "99.9%", not "100%"."""
    if share is None:
        return none
    value = Decimal(repr(share * 100))
    for places in range(4):
        # half up, as the charts' d3 format rounds: 1 of 8 reads 13% on the card and the bar
        shown = str(value.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP))
        if (0 < share < 1 and float(shown) in (0.0, 100.0)):
            continue
        return shown + "%"
    return (f"{float(value):.4f}".rstrip("0").rstrip(".") or "0") + "%"


def number(value: float | None, none: str = "-") -> str:
    """A 0-1 figure as people read it: two decimals, or `none` when it is undefined."""
    return none if value is None else f"{value:.2f}"


def plural(n: int, one: str, many: str) -> str:
    """`1 chunk`, `3 chunks`."""
    return f"{n} {one if n == 1 else many}"


def has_text(text: str | None) -> bool:
    """True when the text holds something visible (zero-width spaces alone do not count)."""
    return text is not None and bool(_INVISIBLE.sub("", text))


def remember_secret(value: str) -> None:
    """Register a key so that every message built afterwards is redacted of it."""
    value = value.strip()
    if len(value) < _MIN_SECRET:
        return
    with _secrets_lock:
        if value not in _secrets:
            _secrets.append(value)
            del _secrets[:-64]  # a bounded list: the newest keys


@contextmanager
def own_secrets(*values: str) -> Iterator[None]:
    """While the block runs (in this thread), messages are redacted of these keys whatever
    else was registered: a request's own key never depends on other sessions."""
    token = _own.set((*_own.get(), *(v.strip() for v in values if v)))
    try:
        yield
    finally:
        _own.reset(token)


def redact(text: str, secrets: list[str] | None = None) -> str:
    """`text` with every known key, or any 8+ character piece of one, replaced."""
    with _secrets_lock:
        known = [*(secrets or ()), *_own.get(), *_secrets]
    for secret in known:
        if len(secret) < _MIN_SECRET:
            continue
        if secret in text:
            text = text.replace(secret, REDACTED)
        pieces = {secret[i:i + _MIN_SECRET] for i in range(len(secret) - _MIN_SECRET + 1)}
        if any(p in text for p in pieces):
            # A server may echo part of the key ("sk-abc...wxyz"): drop every word holding one.
            text = " ".join(REDACTED if any(p in w for p in pieces) else w
                            for w in text.split(" "))
    return text


def one_line(text: object, limit: int = MAX_LINE) -> str:
    """A terminal-safe single line: no escapes or controls, spaces collapsed, cut, redacted."""
    s = clean(str(text))[: limit * 8]  # bound the work on a huge string
    s = _ANSI.sub("", s)
    s = _CONTROL.sub(" ", s)
    s = _SPACES.sub(" ", s).strip()
    s = redact(s)
    return s if len(s) <= limit else s[: limit - 1].rstrip() + "…"


def shell_word(text: str) -> str:
    """`text` as one argument a POSIX shell reads back exactly, printed inert: quoted as is
    when every character is printable, else in bash's $'…' form with escapes (a stored name
    holding ESC or a newline can still be typed to delete it)."""
    import shlex

    if text.isprintable():
        return shlex.quote(text)
    inner = "".join(c if c.isprintable() and c not in "'\\" else
                    f"\\{c}" if c in "'\\" else
                    f"\\x{ord(c):02x}" if ord(c) < 0x100 else
                    f"\\u{ord(c):04x}" if ord(c) < 0x10000 else f"\\U{ord(c):08x}"
                    for c in text)
    return f"$'{inner}'"

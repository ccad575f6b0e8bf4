"""Reading a file a person names, never more than a cap.

The bytes read are counted, not the size the file reports: /dev/zero, a FIFO, /proc or a
symlink to one say 0 and never end. Dataset, case, evaluator and profile files all come in
through here.
"""

from __future__ import annotations

from pathlib import Path

from ..errors import CaseError
from ..text import one_line


def read_capped(path: str | Path, limit: int, too_big: str, shown: str | None = None,
                expected: str = "a file") -> bytes:
    """At most `limit` bytes of `path`, or a CaseError naming it (as `shown`, else the path):
    `too_big` says how to mend a file over the cap; a missing one asks for `expected`."""
    shown = one_line(shown or str(path), 200)
    try:
        target = Path(path)
        if target.is_file() and target.stat().st_size > limit:
            raise CaseError(f"{shown} {too_big}")
        with target.open("rb") as f:
            raw = f.read(limit + 1)
    except FileNotFoundError:
        raise CaseError(f"cannot read {shown}: it does not exist; give the path of "
                        f"{expected}") from None
    except OSError as err:
        raise CaseError(f"cannot read {shown}: {one_line(err.strerror or err, 120)}; check "
                        "the path") from None
    if len(raw) > limit:
        raise CaseError(f"{shown} {too_big}")
    return raw

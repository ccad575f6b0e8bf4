"""Judges behind one protocol (`base.Judge`), named in one catalog (`catalog`).

`get(name, **settings)` builds one; heavy ones load on first use. The CLI, the pages, dataset
runs and comparisons all build judges there and use only what the protocol promises.
"""

from __future__ import annotations

from .base import Answers, Judge, OfflineJudge, Usage
from .catalog import (
    DEFAULT,
    Entry,
    entry,
    get,
    hosted_name,
    is_hosted,
    known,
    labels,
    names,
    offline_names,
    server_module,
)

__all__ = ["DEFAULT", "Answers", "Entry", "Judge", "OfflineJudge", "Usage", "entry", "get",
           "hosted_name", "is_hosted", "known", "labels", "names", "offline_names",
           "server_module"]

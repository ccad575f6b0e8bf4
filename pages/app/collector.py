"""The garbage collector's tuning for the server process: full collections timed, and what
is long-lived frozen out of their way after a slow one (`spare`, at the start of a run)."""

from __future__ import annotations

import gc
import time

# Streamlit collects garbage (all generations) after every script run, holding the GIL: the
# run's last messages and the next run wait for it. Walking every object the libraries and
# the judges' models keep took 50-400 ms per run here. When such a collection was slow, the
# objects alive at the start of the next run (just after it: the long-lived ones) are moved
# out of its way with gc.freeze; this happens after each big load (the model, the profanity
# classifier, the table library), a few times per process.
SLOW_COLLECTION_S = 0.02
_COLLECTION = {"started": 0.0, "slow": True}  # the imports, at first


def _time_full_collections(phase: str, info: dict) -> None:
    if info.get("generation") != 2:
        return
    if phase == "start":
        _COLLECTION["started"] = time.perf_counter()
    elif time.perf_counter() - _COLLECTION["started"] > SLOW_COLLECTION_S:
        _COLLECTION["slow"] = True


if _time_full_collections not in gc.callbacks:
    gc.callbacks.append(_time_full_collections)


def spare() -> None:
    """At the start of a run, after a slow full collection: freeze what is alive (see above)."""
    if _COLLECTION["slow"]:
        _COLLECTION["slow"] = False
        gc.freeze()

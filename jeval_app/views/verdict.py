"""How a verdict looks: the words of `jeval_core.verdicts` with their colours, once."""

from __future__ import annotations

from jeval_core.verdicts import ERROR, FAIL, INCOMPLETE, PASS, SKIPPED, of_case, of_result

__all__ = ["ERROR", "FAIL", "INCOMPLETE", "PASS", "SKIPPED", "of_case", "of_result"]

GOOD, BAD, NEUTRAL = "#2e9e5b", "#d9534f", "#8a94a6"  # chart colours of yes, no, none
HEX = {True: GOOD, False: BAD, None: NEUTRAL}
UNSURE_HEX = "#f0ad4e"  # the orange of an unsure badge
# markdown colour names (`:green-badge[PASS]`)
COLOUR = {PASS: "green", FAIL: "red", ERROR: "red", INCOMPLETE: "orange", SKIPPED: "gray"}
# table cells
BACKGROUND = {PASS: "background-color: rgba(46, 158, 91, 0.22)",
              FAIL: "background-color: rgba(217, 83, 79, 0.22)",
              ERROR: "background-color: rgba(217, 83, 79, 0.22)",
              INCOMPLETE: "background-color: rgba(240, 173, 78, 0.22)"}


def colour(word: str, stale: bool = False) -> str:
    """The markdown colour a verdict word is drawn in (grey while the results are stale)."""
    return "gray" if stale else COLOUR.get(word, "gray")


def background(word: object) -> str:
    """A table cell's style for a verdict word (none for anything else)."""
    return BACKGROUND.get(word, "") if isinstance(word, str) else ""


def badge(word: str, stale: bool = False, extra: str = "") -> str:
    """`:green-badge[PASS]`: our own words only, never visitor text."""
    return f":{colour(word, stale)}-badge[{word}{extra}]"

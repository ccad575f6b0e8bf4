"""The words a verdict is said in, once for the CLI, the comparisons and every page.

A case or an evaluator PASSes or FAILs; a case the judge could not answer is an ERROR; a case
that failed nothing but had an attached evaluator skipped ("needs `expected`"), or nothing
scored at all, is INCOMPLETE: not a pass (seed 001: a case passes only if every metric
attached to the run passes); an evaluator with nothing to judge is skipped.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .results import Result

PASS, FAIL, ERROR = "PASS", "FAIL", "ERROR"
INCOMPLETE = "INCOMPLETE"
SKIPPED = "skipped"


def of_case(passed: bool | None, error: str | None = None) -> str:
    """A case's verdict: an error wins, then pass/fail, else incomplete."""
    if error:
        return ERROR
    return {True: PASS, False: FAIL, None: INCOMPLETE}[passed]


def of_result(result: Result) -> str:
    """One evaluator's verdict on a case."""
    return SKIPPED if result.skipped else (PASS if result.passed else FAIL)

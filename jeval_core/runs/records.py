"""What the run store gives back, typed: a run, its cases, and each case's report.

`run.py` writes a run's aggregates as `Summary.to_dict()`, each case as its dataset row
(`DatasetRow.to_dict()`) and its report as `Report.to_dict()`; these records read them back,
so that no page or command re-parses the stored JSON by hand, and `to_dict` gives back what
was written.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from functools import cached_property
from typing import Any

from ..analysis.aggregate import Summary
from ..case import Case
from ..errors import CaseError
from ..inputs.datasets import DatasetRow, row_from_dict
from ..judges.base import Usage
from ..results import Result, case_passed, case_undecided


@dataclass(frozen=True)
class StoredReport:
    """A case's report as a run keeps it: every result, what it cost, who answered.

    A run in progress keeps only `results`, `usage` and `cost_usd` in memory (what its
    summary reads); one read back from the store has the rest too."""

    results: dict[str, Result]
    usage: Usage
    cost_usd: float
    judge: str = ""
    approximates: bool = False
    model: str | None = None
    request_id: str | None = None
    calibration: str | None = None  # the calibration profile that judged, if any
    request: dict[str, Any] = field(default_factory=dict)  # the body, as sent
    estimate: dict[str, Any] = field(default_factory=dict)  # what the hosted judge would bill

    @property
    def passed(self) -> bool | None:
        return case_passed(self.results)

    @property
    def undecided(self) -> bool:
        """Every verdict reads unsure: the judge could not decide the case."""
        return case_undecided(self.results)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> StoredReport:
        usage = data.get("usage") or {}
        return cls(
            results={name: Result.from_dict(name, r)
                     for name, r in (data.get("results") or {}).items()},
            usage=Usage(int(usage.get("input_tokens", 0)), int(usage.get("requests", 0)),
                        int(usage.get("cached_tokens", 0))),
            cost_usd=float(data.get("cost_usd", 0.0)), judge=str(data.get("judge", "")),
            approximates=bool(data.get("approximates")), model=data.get("model"),
            request_id=data.get("request_id"), calibration=data.get("calibration"),
            request=dict(data.get("request") or {}),
            estimate=dict(data.get("estimate") or {}))

    def to_dict(self) -> dict[str, Any]:
        """The report as `Report.to_dict()` wrote it."""
        return {"judge": self.judge, "approximates": self.approximates, "model": self.model,
                "request_id": self.request_id,
                **({"calibration": self.calibration} if self.calibration else {}),
                "results": {name: r.to_dict() for name, r in self.results.items()},
                "passed": self.passed, "request": self.request, "usage": self.usage.to_dict(),
                "cost_usd": self.cost_usd, "estimate": self.estimate}


@dataclass(frozen=True)
class RunSummary:
    """One stored run as the Dashboard lists it; counts come from the rows actually stored."""

    id: str
    name: str
    dataset: str
    dataset_hash: str
    judge: str
    model: str | None
    evaluators: list[str]
    thresholds: dict[str, float]
    started_at: datetime | None  # None: its cell does not read (`damaged` says so)
    finished_at: datetime | None
    status: str
    cases: int  # how many the dataset holds
    done: int  # how many have a stored row
    passed: int
    pass_rate: float | None  # passed / cases with a verdict, as aggregate.pass_rate
    aggregates: Summary | None  # None until the run has ended
    input_tokens: int | None  # None: its cell does not read
    cost_usd: float | None  # None: its cell does not read
    seeded: bool
    base_url: str | None = None  # the hosted judge's server (None for offline judges)
    calibration: str | None = None  # the profile that judged it: "name · fingerprint"
    definitions: list[dict[str, Any]] = field(default_factory=list)  # custom evaluators used
    judge_settings: dict[str, Any] = field(default_factory=dict)  # Judge.settings at the start
    damaged: str | None = None  # why its stored row does not read (status "damaged")
    unreadable: str | None = None  # the cell of its row that does not read

    @property
    def shown_status(self) -> str:
        """Its status as a listing shows it: a damaged run names the cell that does not
        read."""
        return f"{self.status} ({self.unreadable})" if self.unreadable else self.status

    @property
    def summary(self) -> Summary:
        """The aggregates, or an empty summary while the run has none."""
        return self.aggregates or Summary(self.cases)


@dataclass(frozen=True)
class CaseRow:
    """One scored (or failed) case of a run."""

    index: int
    case_id: str
    data: dict[str, Any]  # the dataset row as written (`DatasetRow.to_dict()`)
    report: StoredReport | None  # None when the case could not be scored
    error: str | None
    passed: bool | None
    scores: dict[str, float | None]
    input_tokens: int
    cost_usd: float

    @cached_property
    def row(self) -> DatasetRow | None:
        """The dataset row read back (None if it no longer reads, say from an older jeval)."""
        try:
            return row_from_dict(self.data, self.index + 1)
        except CaseError:
            return None

    @property
    def case(self) -> Case:
        return self.row.case if self.row is not None else Case(
            str(self.data.get("input", "")), str(self.data.get("output", "")))

    @property
    def labels(self) -> tuple[bool | None, ...] | None:
        """The human's truth per chunk, if the row gave it."""
        return self.row.labels if self.row is not None else None

    @property
    def results(self) -> dict[str, Result]:
        return self.report.results if self.report is not None else {}

"""A person's labels on one case: which chunks are relevant, which evaluators should pass.

Labels are part of the case: they travel in its JSON (`context_labels`, one 1 / 0 / null per
chunk, and `truth.evaluators.NAME.passed`), in share links, exports and stored runs, and
the example files' stated truth (`truth.context`) reads the same way. `on_case` says how
far a scored report agrees with them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..scoring import Report

CHUNKS = "context_labels"
TRUTH = "truth"
CHUNK_RELEVANCE = "chunk_relevance"


@dataclass(frozen=True)
class Labels:
    """Per chunk True (relevant) / False (noise) / None (unlabelled); per evaluator whether it
    should pass."""

    chunks: tuple[bool | None, ...] = ()
    evaluators: tuple[tuple[str, bool], ...] = ()

    @property
    def any(self) -> bool:
        return any(c is not None for c in self.chunks) or bool(self.evaluators)

    @property
    def verdicts(self) -> dict[str, bool]:
        return dict(self.evaluators)

    @classmethod
    def from_extra(cls, extra: Mapping[str, Any], chunks: int) -> Labels:
        """The labels a case file carries (bad or misplaced entries are read as unlabelled:
        the dataset reader is the one that refuses a malformed `context_labels`)."""
        stated = extra.get(TRUTH)
        truth: dict[str, Any] = stated if isinstance(stated, dict) else {}
        raw = extra.get(CHUNKS, truth.get("context"))
        marks: list[bool | None] = [None] * chunks
        if isinstance(raw, list):
            for i, v in enumerate(raw[:chunks]):
                if isinstance(v, (bool, int)) and v in (0, 1):
                    marks[i] = bool(v)
        said = truth.get("evaluators")
        found: dict[str, Any] = said if isinstance(said, dict) else {}
        evaluators = tuple((str(name), v["passed"]) for name, v in found.items()
                           if isinstance(v, dict) and isinstance(v.get("passed"), bool))
        return cls(tuple(marks), evaluators)

    def to_extra(self, extra: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The case file's fields for these labels, merged into `extra` (what a file already
        says beside them, such as a stated "why", is kept)."""
        out = dict(extra or {})
        out.pop(CHUNKS, None)
        truth = dict(out.pop(TRUTH, None) or {})
        truth.pop("context", None)
        if any(c is not None for c in self.chunks):
            out[CHUNKS] = [None if c is None else int(c) for c in self.chunks]
        stated = dict(truth.get("evaluators") or {})
        kept = {}
        for name, passed in self.evaluators:
            kept[name] = {**(stated.get(name) or {}), "passed": passed}
        if kept:
            truth["evaluators"] = kept
        else:
            truth.pop("evaluators", None)
        if truth:
            out[TRUTH] = truth
        return out


@dataclass(frozen=True)
class Disagreement:
    where: str  # "context[2]" or an evaluator's name
    judge: bool  # what the judge said (relevant, passes)
    label: bool
    p: float | None = None  # the judge's p, for a chunk


@dataclass(frozen=True)
class CaseAgreement:
    """How far one scored case agrees with its labels."""

    chunks_labelled: int
    chunks_agreed: int
    evaluators_labelled: int
    evaluators_agreed: int
    disagreements: tuple[Disagreement, ...]

    def short(self) -> list[str]:
        """["7/8 chunks", "2/3 verdicts"]: what agrees with the labels, for a narrow column."""
        parts = []
        if self.chunks_labelled:
            parts.append(f"{self.chunks_agreed}/{self.chunks_labelled} "
                         f"chunk{'s' if self.chunks_labelled != 1 else ''}")
        if self.evaluators_labelled:
            parts.append(f"{self.evaluators_agreed}/{self.evaluators_labelled} "
                         f"verdict{'s' if self.evaluators_labelled != 1 else ''}")
        return parts


def on_case(report: Report, labels: Labels) -> CaseAgreement:
    """The report's chunk verdicts (chunk_relevance) and evaluator verdicts against the
    labels; chunks and evaluators without a label, or that were not judged, do not count."""
    wrong: list[Disagreement] = []
    chunks_labelled = chunks_agreed = 0
    relevance = report.results.get(CHUNK_RELEVANCE)
    if relevance is not None and not relevance.skipped:
        for row in report.rows(CHUNK_RELEVANCE):
            i = row.address.chunk
            if i is None or i >= len(labels.chunks) or labels.chunks[i] is None:
                continue
            chunks_labelled += 1
            if row.yes == labels.chunks[i]:
                chunks_agreed += 1
            else:
                wrong.append(Disagreement(str(row.address), row.yes, bool(labels.chunks[i]),
                                          row.p))
    evaluators_labelled = evaluators_agreed = 0
    for name, passed in labels.evaluators:
        result = report.results.get(name)
        if result is None or result.passed is None:
            continue
        evaluators_labelled += 1
        if result.passed == passed:
            evaluators_agreed += 1
        else:
            wrong.append(Disagreement(name, result.passed, passed))
    return CaseAgreement(chunks_labelled, chunks_agreed, evaluators_labelled,
                         evaluators_agreed, tuple(wrong))


def merged(chunks: Sequence[bool | None], verdicts: Mapping[str, bool | None]) -> Labels:
    """Labels from the Playground's widgets: unlabelled evaluators are left out."""
    return Labels(tuple(chunks), tuple((n, v) for n, v in verdicts.items() if v is not None))


def of_row(row: Any) -> Labels:
    """A dataset row's labels: its `context_labels` (read and checked by the dataset reader)
    and its `truth` (the evaluators' verdicts, an example's stated truth)."""
    found = Labels.from_extra(row.casefile.extra, len(row.case.context))
    chunks = tuple(row.labels) if row.labels is not None else found.chunks
    return Labels(chunks, found.evaluators)


REPLACED_BELOW = 50  # rapidfuzz ratio (0-100) under which an edit replaced the text


def replaced(before: str, after: str) -> bool:
    """Whether `after` replaces `before` rather than edits it (under half of it kept): a
    label given on the old text says nothing of the new one. Typing into a chunk keeps its
    label; pasting another chunk (or another case) over it does not."""
    from rapidfuzz import fuzz

    return before != after and fuzz.ratio(before, after) < REPLACED_BELOW

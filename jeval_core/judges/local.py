"""The local judge: the default, offline, no key. It reads each question with the reader.

The reader (`reader.py`) is a cross-encoder trained for this product: it reads the question
and the chunk together, so it sees what a sentence embedding cannot (same entity, other
aspect; a sentence that answers inside a long chunk; a claim the chunk states, leaves open
or refutes). What each question is read as:
  chunk relevance      (input, chunk), and with `expected` whether the chunk entails it
  context relevancy    (input, statement); answer relevancy (input, answer sentence)
  faithfulness         (answer sentence, each chunk): the best-supporting chunk decides
  contextual recall    (expected sentence, each chunk), the same way
  hallucination        (each answer sentence, the chunk): the most refuted sentence decides
A chunk question is read on its own, as it says: the question and that chunk (and `expected`
when it is given), never the chunks retrieved beside it, so adding, deleting or editing
another chunk leaves its p bit for bit. One curve per relation turns the reads into p.
Toxicity and a person's own questions keep the similarity judge's signals, and the "why"
words still come from matching token vectors.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from .. import sentences
from ..calibration import curves
from ..questions import (
    ATTRIBUTABLE_TO,
    CONTRADICTS,
    HELPS_ANSWER,
    RELEVANT_TO,
    SUPPORTED_BY,
    Question,
)
from . import case_signals
from .reader import Model
from .reader import model as shared_reader
from .similarity import SimilarityJudge, missing_number_share, profanity_probability

if TYPE_CHECKING:
    from ..calibration.profile import Profile
    from .embedder import Embedder

__all__ = ["LocalJudge", "missing_number_share", "probability", "profanity_probability"]

READ = (HELPS_ANSWER, RELEVANT_TO, SUPPORTED_BY, ATTRIBUTABLE_TO, CONTRADICTS)
ENTAILED, REFUTED = 0, 2  # columns of Model.nli
# A claim is read against the chunks most like it, not all of them: the chunk that states
# (or refutes) a sentence is among the few closest to it, and a 30-chunk case would
# otherwise cost a read per sentence per chunk. Sentence vectors choose (they are computed
# for the "why" words anyway).
CHUNKS_PER_CLAIM = 4  # faithfulness, contextual recall: chunks read per sentence
CLAIMS_PER_CHUNK = 2  # hallucination: answer sentences read per chunk


Pairs = tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class Plan:
    """One question's reads: (question, passage) pairs for relevance, (claim, passage) pairs
    for entailment, and how their reads become the question's signals."""

    relevance: Pairs
    claims: Pairs
    signals: Callable[[Mapping[tuple[str, str], float], Mapping[tuple[str, str], np.ndarray]],
                      tuple[float, ...]]


def logit(p: float) -> float:
    """log-odds, kept finite: the curves read the reader's p on this scale."""
    q = min(max(float(p), 1e-4), 1 - 1e-4)
    return math.log(q / (1 - q))


class LocalJudge(SimilarityJudge):
    """The reader for relevance, support, attribution and contradiction; the similarity
    judge's signals for toxicity and custom questions. ~1 s to load both models once."""

    name = "local"
    measured_bands = curves.LOCAL_UNSURE
    note = ("A cross-encoder trained for jeval reads each question with its chunk (int8, on "
            "this machine), on calibrated curves: an offline approximation of the hosted Jev "
            "judge.")

    def __init__(self, model: Embedder | None = None, profile: Profile | None = None,
                 reader: Model | None = None) -> None:
        super().__init__(model, profile)
        self._reader = reader

    @property
    def reader(self) -> Model:
        if self._reader is None:
            self._reader = shared_reader()
        return self._reader

    def warm_up(self) -> None:
        _ = self.reader
        super().warm_up()

    def builtin(self, relation: str, x: tuple[float, ...]) -> float:
        return probability(relation, x)

    def features(
        self, questions: Mapping[str, Question], output: str = ""
    ) -> dict[str, tuple[Question, tuple[float, ...]]]:
        """Each question's reads: every distinct (question, text) pair is read once, in
        batches, and kept, so an edit re-reads only the pairs it changed."""
        # The similarity judge's signals of every question: toxicity and custom questions are
        # read from them alone; the others carry them after the reader's reads, where the
        # curves fitted on held-out data still give them weight.
        similar = super().features(questions, output)
        out = {qid: found for qid, found in similar.items() if found[0].relation not in READ}
        plans = {qid: self.plan(q) for qid, q in questions.items() if q.relation in READ}
        rel_pairs = list(dict.fromkeys(p for plan in plans.values() for p in plan.relevance))
        nli_pairs = list(dict.fromkeys(p for plan in plans.values() for p in plan.claims))
        read_z, read_nli = self.reader.read(rel_pairs, nli_pairs)
        z = dict(zip(rel_pairs, read_z, strict=True))
        nli = dict(zip(nli_pairs, read_nli, strict=True))
        for qid, plan in plans.items():
            out[qid] = (questions[qid], (*plan.signals(z, nli), *similar[qid][1]))
        return {qid: out[qid] for qid in questions}

    def plan(self, q: Question) -> Plan:
        """What one question needs the reader to read, and how the reads become its signals."""
        subject = q.subject.text
        if q.relation in (HELPS_ANSWER, RELEVANT_TO):
            # A question that asks several things is also read part by part: a chunk that
            # answers one part answers. With `expected`, whether the chunk entails it.
            parts = case_signals.parts(_named(q, "input"))
            expected = [s for s in sentences.split(_named(q, "expected")) if s.strip()]
            # The share of an expected sentence's words the chunk states: a chunk that holds
            # part of the expected answer supports it, where entailing a whole sentence that
            # draws on several chunks is rare.
            stated = max((case_signals.coverage(s, subject) for s in expected), default=0.0)
            return Plan(tuple((part, subject) for part in parts),
                        tuple((s, subject) for s in expected),
                        lambda z, nli: (max(float(z[(part, subject)]) for part in parts),
                                        float(max((nli[(s, subject)][ENTAILED] for s in expected),
                                                  default=0.0)),
                                        float(bool(expected)), float(stated)))
        if q.relation in (SUPPORTED_BY, ATTRIBUTABLE_TO):
            # The best-supporting chunk decides, among the few closest to the sentence.
            chunks = self.closest(subject, [t for op in q.against for t in op.texts
                                            if t.strip()], CHUNKS_PER_CLAIM)
            return Plan((), tuple((subject, c) for c in chunks),
                        lambda z, nli: (
                            logit(max((nli[(subject, c)][ENTAILED] for c in chunks), default=0.0)),
                            logit(max((nli[(subject, c)][REFUTED] for c in chunks), default=0.0)),
                            missing_number_share(subject, "\n".join(chunks))))
        # CONTRADICTS: the answer's sentences against one chunk; the most refuted decides.
        chunk = "\n\n".join(t for op in q.against for t in op.texts if t.strip())
        said = [s for s in sentences.split(subject) if s.strip()] if chunk else []
        said = self.closest(chunk, said, CLAIMS_PER_CHUNK)
        return Plan((), tuple((s, chunk) for s in said),
                    lambda z, nli: (
                        logit(max((nli[(s, chunk)][REFUTED] for s in said), default=0.0)),
                        logit(max((nli[(s, chunk)][ENTAILED] for s in said), default=0.0))))

    def head_inputs(self, questions: Mapping[str, Question]) -> dict[str, np.ndarray]:
        """Per chunk question (helps answer), the vector the reader's head read for it: what
        a profile's head refit weighs. Read from the cache the question's own read filled."""
        asked = {qid: (_named(q, "input"), q.subject.text) for qid, q in questions.items()
                 if q.relation == HELPS_ANSWER}
        vectors = self.reader.pooled(list(asked.values()))
        return dict(zip(asked, vectors, strict=True))

    def probabilities(self, found: Mapping[str, tuple[Question, tuple[float, ...]]]
                      ) -> dict[str, float]:
        """p per question; a profile that refit the reader's head reads its vectors too."""
        curve = self.profile.curve(HELPS_ANSWER) if self.profile else None
        if curve is None or curve.kind != "head":
            return super().probabilities(found)
        heads = self.head_inputs({qid: q for qid, (q, _) in found.items()})
        return {qid: (curve(x, self.builtin(q.relation, x), heads[qid]) if qid in heads
                      else self.probability(q.relation, x)) for qid, (q, x) in found.items()}

    def closest(self, text: str, others: list[str], most: int) -> list[str]:
        """The `most` texts of `others` most like `text` (all of them when there are few)."""
        if len(others) <= most:
            return others
        vectors = self.embedder.embed([text, *others])
        order = np.argsort(-(vectors[1:] @ vectors[0]), kind="stable")[:most]
        return [others[i] for i in sorted(order)]


def _named(q: Question, name: str) -> str:
    """The text of the operand the question names so (blank when it names none)."""
    return "\n".join(t for op in q.against if op.name == name for t in op.texts)


def probability(relation: str, x: tuple[float, ...]) -> float:
    """p(true) from a question's reads: its relation's curve."""
    return curves.LOCAL[relation](x)


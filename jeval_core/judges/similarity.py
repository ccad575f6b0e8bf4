"""The similarity judge: MiniLM sentence similarity, calibrated per relation (the local judge
before it read pairs with its own model; kept as its base, for custom questions, the "why"
words, and to be measured beside it in `bench/calibrate.py`).

Relevance, support and attribution questions are answered from cosine similarity between the
question's operands. A sentence embedding cannot see contradiction or toxicity, so those
combine similarity with cheap honest signals: numbers the answer states that the chunk does
not, and a profanity classifier. Every p is an approximation of what the
hosted judge would say, and the results say so.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from collections.abc import Iterable, Mapping
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import sentences
from ..calibration import curves
from ..errors import CaseError
from ..questions import (
    ATTRIBUTABLE_TO,
    CONTRADICTS,
    CUSTOM,
    HELPS_ANSWER,
    RELEVANT_TO,
    SUPPORTED_BY,
    TOXIC,
    Question,
)
from . import case_signals, custom_signals
from .base import Answers, OfflineJudge, Span
from .embedder import Embedder, embedder, one_blas_thread
from .lexical import profanity, stopwords

if TYPE_CHECKING:
    from ..calibration.profile import Profile
    from ..request import Packed

# The offline judges' own cap (they send no request, so Jev's token budgets are not
# theirs): every question is embedded, and most are read, on this machine (~1 min for 4,000).
MAX_QUESTIONS = 4000
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_WORD = re.compile(r"\w+")


def numbers(text: str) -> frozenset[str]:
    """Numbers in a text, normalised ("1,200" and "1200" are the same number)."""
    return frozenset(n.replace(",", "") for n in _NUMBER.findall(text))


def missing_number_share(text: str, context: str) -> float:
    """Share of the text's numbers that the context never states (0 when it has none)."""
    said = numbers(text)
    return len(said - numbers(context)) / len(said) if said else 0.0


_profanity_lock = threading.Lock()


@lru_cache(maxsize=1)
def _profanity_model() -> Any:
    with _profanity_lock:  # one load even when a warm-up thread races the first question
        from profanity_check import profanity_check  # scikit-learn: loaded only for toxicity

        one_blas_thread()  # scikit-learn brings SciPy's own BLAS
        return profanity_check


_known_profanity: OrderedDict[str, float] = OrderedDict()  # pure: an edit re-asks the others
_known_lock = threading.Lock()
KNOWN = 4096  # texts (or text pairs) whose answer is kept across reruns
# A chunk that states every number of the answer sentence closest to it and most of its words
# states what the answer says: it is not contradicted, whatever the curve reads.
AGREES = 0.8


def profanity_probability(texts: list[str]) -> list[float]:
    """alt-profanity-check's p(offensive) per text (texts seen before are not re-read)."""
    if not texts:
        return []
    with _known_lock:
        todo = list(dict.fromkeys(t for t in texts if t not in _known_profanity))
    if todo:
        found = [float(p) for p in _profanity_model().predict_prob(todo)]
        with _known_lock:
            _known_profanity.update(zip(todo, found, strict=True))
            while len(_known_profanity) > KNOWN:
                _known_profanity.popitem(last=False)
    with _known_lock:
        out = []
        for t in texts:
            if t in _known_profanity:
                _known_profanity.move_to_end(t)
                out.append(_known_profanity[t])
            else:  # dropped by a concurrent trim: ask again for this one
                out.append(float(_profanity_model().predict_prob([t])[0]))
        return out


class SimilarityJudge(OfflineJudge):
    """Embedded MiniLM judge: ~0.5 s to load once, then milliseconds per case."""

    name = "similarity"
    measured_bands = curves.SIMILARITY_UNSURE  # held-out unsure bands (bench/calibrate)
    note = ("Embedded MiniLM similarity on calibrated curves, a numbers check and a profanity "
            "classifier: a fast offline approximation of the hosted Jev judge.")

    def __init__(self, model: Embedder | None = None, profile: Profile | None = None) -> None:
        self._model = model
        self.profile = profile  # a person's refit of some curves (`jeval calibrate`)
        self._matched: OrderedDict[tuple[Any, ...], tuple[Span, ...]] = OrderedDict()
        self._matched_lock = threading.Lock()

    def warm_up(self) -> None:
        """Load the embedder now and the profanity model in the background (it takes ~1 s)."""
        _ = self.embedder
        threading.Thread(target=_profanity_model, name="jeval-warm-up", daemon=True).start()

    @property
    def embedder(self) -> Embedder:
        if self._model is None:
            self._model = embedder()
        return self._model

    def answer(self, packed: Packed) -> Answers:
        if not packed.asked:  # asked only for scores given whole, which this judge gives none
            return Answers({})
        if len(packed.asked) > MAX_QUESTIONS:  # its own cap: no request, but this machine
            counts = sorted(((len(qs), n) for n, qs in packed.plan.items()), reverse=True)
            most = ", ".join(f"{name} asks {n:,}" for n, name in counts[:3])
            raise CaseError(f"the {self.name} judge answers at most {MAX_QUESTIONS:,} "
                            f"questions per case on this machine, and this case asks "
                            f"{len(packed.asked):,} ({most}): select fewer evaluators, or send "
                            "fewer chunks or shorter texts")
        found = self.features(packed.asked, packed.case.output if packed.case else "")
        p = self.probabilities(found)
        return Answers(p, evidence=self.evidence(packed.asked),
                       unsure=curves.unsure(self.bands, packed.asked, p))

    def probabilities(self, found: Mapping[str, tuple[Question, tuple[float, ...]]]
                      ) -> dict[str, float]:
        """p per question from its signals."""
        return {wid: self.probability(q.relation, x) for wid, (q, x) in found.items()}

    def builtin(self, relation: str, x: tuple[float, ...]) -> float:
        """The built-in curve's p, whatever profile judges (what a new profile refits)."""
        return probability(relation, x)

    def probability(self, relation: str, x: tuple[float, ...]) -> float:
        """The built-in curve's p, or the profile's refit of it for the types it fitted."""
        builtin = self.builtin(relation, x)
        curve = self.profile.curve(relation) if self.profile else None
        return curve(x, builtin) if curve else builtin

    @property
    def calibration(self) -> str | None:  # type: ignore[override]
        """The profile that judges, as runs and reports record it."""
        return f"{self.profile.name} · {self.profile.fingerprint}" if self.profile else None

    @property
    def bands(self) -> dict[str, tuple[float, float]]:
        """The unsure bands: the profile's, measured on its held-out folds, where it refit."""
        if self.profile is None:
            return self.measured_bands
        return {**self.measured_bands, **{r: self.profile.relations[r].unsure
                                          for r in self.profile.used}}

    def evidence(self, questions: Mapping[str, Question]) -> dict[str, tuple[Span, ...]]:
        """Per question, the few words of its subject that drove p: the words that best match
        what it is judged against (token by token), the numbers a claim states that its
        context lacks, the words a profanity list flags."""
        out: dict[str, tuple[Span, ...]] = {}
        matching: dict[str, tuple[str, tuple[str, ...]]] = {}
        for qid, q in questions.items():
            subject, against = _operands(q)
            if q.relation == TOXIC:
                out[qid] = flagged_words(subject)
            elif q.relation == CUSTOM:  # the words most like what the question states
                matching[qid] = (subject, tuple(custom_signals.texts(q)[1:3]))
            elif q.relation in (SUPPORTED_BY, ATTRIBUTABLE_TO, CONTRADICTS) and (
                    stray := stray_numbers(subject, "\n".join(against))):
                out[qid] = stray
            else:
                matching[qid] = (subject, tuple(against))
        out.update(self.matched_words(matching))
        return out

    def matched_words(
        self, pairs: Mapping[str, tuple[str, tuple[str, ...]]], most: int = 4,
        floor: float = 0.55,
    ) -> dict[str, tuple[Span, ...]]:
        """Per id, the subject's content words whose tokens best match a token of what it is
        judged against. Every text's tokens are read once; each `against` set is stacked once;
        a pair seen before (an edit elsewhere in the case) is not matched again."""
        out: dict[str, tuple[Span, ...]] = {}
        with self._matched_lock:
            for qid, pair in pairs.items():
                if (pair, most, floor) in self._matched:
                    self._matched.move_to_end((pair, most, floor))
                    out[qid] = self._matched[(pair, most, floor)]
        pairs = {qid: pair for qid, pair in pairs.items() if qid not in out}
        texts = list(dict.fromkeys(t for s, a in pairs.values() for t in (s, *a) if t.strip()))
        found = dict(zip(texts, self.embedder.tokens(texts), strict=True))
        as32 = {t: v.vectors.astype(np.float32) for t, v in found.items()}
        stacks: dict[tuple[str, ...], np.ndarray] = {}
        stop = stopwords()
        for qid, (subject, against) in pairs.items():
            mine = found.get(subject)
            if mine is None or not len(mine.vectors):
                out[qid] = ()
                continue
            if against not in stacks:
                rows = [as32[t] for t in against if t in as32 and len(as32[t])]
                stacks[against] = (np.vstack(rows) if rows
                                   else np.zeros((0, mine.vectors.shape[1]), np.float32))
            other = stacks[against]
            if not len(other):
                out[qid] = ()
                continue
            best = (as32[subject] @ other.T).max(axis=1)
            kept = [w for w in _words(subject, mine.spans, best)
                    if w[2] >= floor and w[3].lower() not in stop
                    and any(ch.isalnum() for ch in w[3])]
            top = sorted(kept, key=lambda w: -w[2])[:most]
            out[qid] = tuple((a, b, text) for a, b, _, text in sorted(top))
        with self._matched_lock:
            for qid, pair in pairs.items():
                self._matched[(pair, most, floor)] = out[qid]
            while len(self._matched) > KNOWN:
                self._matched.popitem(last=False)
        return out

    def features(
        self, questions: Mapping[str, Question], output: str = ""
    ) -> dict[str, tuple[Question, tuple[float, ...]]]:
        """Each question's calibration inputs, from its own operands alone (a chunk's never
        from the chunks judged beside it); every distinct text is embedded once. `output` is
        kept for judges that read the answer beside a question (none of the built-in ones)."""
        operands = {qid: _operands(q) for qid, q in questions.items()}
        units: dict[str, list[str]] = {}  # a context's chunks and their sentences
        asked: dict[str, list[str]] = {}  # a question (or expected) and each of its parts
        wanted: dict[str, None] = {}
        for qid, q in questions.items():
            subject, against = operands[qid]
            if q.relation in (SUPPORTED_BY, ATTRIBUTABLE_TO):
                units[qid] = against + [s for chunk in against for s in sentences.split(chunk)]
                wanted.update(dict.fromkeys([subject, *units[qid]]))
            elif q.relation == CONTRADICTS:
                wanted.update(dict.fromkeys([*sentences.split(subject), *against]))
            elif q.relation in (HELPS_ANSWER, RELEVANT_TO):
                asked[qid] = [p for t in against for p in case_signals.parts(t)]
                wanted.update(dict.fromkeys([subject, *asked[qid]]))
            elif q.relation == CUSTOM:
                wanted.update(dict.fromkeys(custom_signals.texts(q)))
            elif q.relation != TOXIC:
                wanted.update(dict.fromkeys([subject, *against]))
        texts = list(wanted)
        vectors = dict(zip(texts, self.embedder.embed(texts), strict=True))
        toxic_ids = [qid for qid, q in questions.items() if q.relation == TOXIC]
        toxic_p = dict(zip(toxic_ids, profanity_probability(
            [operands[qid][0] for qid in toxic_ids]), strict=True))

        out: dict[str, tuple[Question, tuple[float, ...]]] = {}
        custom = {qid: q for qid, q in questions.items() if q.relation == CUSTOM}
        for qid, signals in custom_signals.features(
                custom, lambda a, b: float(vectors[a] @ vectors[b])).items():
            out[qid] = (custom[qid], signals)
        for qid, q in questions.items():
            subject, against = operands[qid]
            x: tuple[float, ...]
            if q.relation == CUSTOM:
                continue
            if q.relation in (HELPS_ANSWER, RELEVANT_TO):
                # Read on its own, as the question says: nothing of the chunks beside it.
                x = case_signals.chunk_signals(_best(vectors, subject, asked[qid]),
                                               asked[qid], subject)
            elif q.relation in (SUPPORTED_BY, ATTRIBUTABLE_TO):
                x = (_best(vectors, subject, units[qid]),
                     missing_number_share(subject, "\n".join(against)),
                     max((case_signals.coverage(subject, t) for t in against), default=0.0))
            elif q.relation == CONTRADICTS:
                x = _contradiction(vectors, subject, against[0] if against else "")
            elif q.relation == TOXIC:
                x = (toxic_p[qid], float(bool(flagged_words(subject))))
            else:
                raise ValueError(f"the local judge has no rule for relation {q.relation!r}")
            out[qid] = (q, x)
        return {qid: out[qid] for qid in questions}


def probability(relation: str, x: tuple[float, ...]) -> float:
    """p(true) from a question's signals: its relation's curve, and one rule the curve cannot
    learn from so few contradictions: a chunk that states what the answer says does not
    contradict it."""
    if relation == CONTRADICTS and x[2] >= AGREES:
        return curves.SIMILARITY[CONTRADICTS].lo
    return curves.SIMILARITY[relation](x)


def _operands(q: Question) -> tuple[str, list[str]]:
    """The subject's text and the texts it is judged against (blank ones dropped)."""
    return q.subject.text, [t for op in q.against for t in op.texts if t.strip()]


def _words(
    text: str, spans: tuple[tuple[int, int], ...], scores: np.ndarray
) -> list[tuple[int, int, float, str]]:
    """Tokens joined into words (WordPiece pieces touch): (start, end, best score, word)."""
    words: list[tuple[int, int, float, str]] = []
    for (a, b), score in zip(spans, scores, strict=True):
        if words and a == words[-1][1] and text[a:b].isalnum() and text[a - 1].isalnum():
            start, _, best, _ = words[-1]
            words[-1] = (start, b, max(best, float(score)), text[start:b])
        else:
            words.append((a, b, float(score), text[a:b]))
    return words


def stray_numbers(text: str, context: str) -> tuple[Span, ...]:
    """The numbers a text states that its context never does, with where they stand."""
    known = numbers(context)
    return tuple((m.start(), m.end(), m.group()) for m in _NUMBER.finditer(text)
                 if m.group().replace(",", "") not in known)


def flagged_words(text: str) -> tuple[Span, ...]:
    """Words of the text that the profanity list flags."""
    words, _ = profanity()
    return tuple((m.start(), m.end(), m.group()) for m in _WORD.finditer(text)
                 if m.group().lower() in words)


def _contradiction(vectors: Mapping[str, np.ndarray], output: str, chunk: str) -> tuple[float, ...]:
    """(topicality, a clash, agreement) of the output sentence closest to the chunk.

    A clash is a number the sentence states for a quantity the chunk gives another number
    for (the same unit follows both: "800 mg" against "400 mg"), weighed by topicality;
    other numbers alone are no contradiction.
    Agreement is that shared wording when every number of the sentence is in the chunk: a
    chunk that states what the answer says does not contradict it.
    Flipped negations were tried as a signal and hurt on held-out pairs (bench/calibrate).
    """
    said = sentences.split(output)
    if not said or not chunk.strip():
        return (0.0, 0.0, 0.0)
    scores = [float(vectors[s] @ vectors[chunk]) for s in said]
    best = int(np.argmax(scores))
    topic, closest = max(scores[best], 0.0), said[best]
    shared = case_signals.coverage(closest, chunk)
    stray = numbers(closest) - numbers(chunk)
    clash = bool(stray) and bool(units(closest, stray) & units(chunk))
    return (topic, topic * clash, shared * (not stray))


_QUANTITY = re.compile(r"([$€£]?)(\d+(?:[.,]\d+)*)\s*(%|[^\W\d_]+)?")


def units(text: str, only: frozenset[str] | None = None) -> frozenset[str]:
    """What the text's numbers count: the word or sign after each ("mg", "days", "%") or the
    currency before it; `only` keeps the numbers given (normalised as `numbers` does)."""
    out = set()
    for m in _QUANTITY.finditer(text):
        if only is not None and m.group(2).replace(",", "") not in only:
            continue
        if m.group(1):
            out.add(m.group(1))
        if m.group(3):
            out.add(m.group(3).lower()[:5])
    return frozenset(out)


def _best(vectors: Mapping[str, np.ndarray], subject: str, others: Iterable[str]) -> float:
    sims = [float(vectors[subject] @ vectors[o]) for o in others if o in vectors]
    return max(sims, default=0.0)

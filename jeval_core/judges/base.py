"""The judge protocol: everything a caller may use, and nothing looked up by name."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from ..request import Packed

Span = tuple[int, int, str]  # (start, end, the text between) in a question's subject text


@dataclass(frozen=True)
class Usage:
    """What answering cost: input tokens billed and HTTP requests made (0 for local judges),
    and how many of those tokens the server read from its prompt cache, where it says."""

    input_tokens: int = 0
    requests: int = 0
    cached_tokens: int = 0

    def to_dict(self) -> dict[str, int]:
        cached = {"cached_tokens": self.cached_tokens} if self.cached_tokens else {}
        return {"input_tokens": self.input_tokens, "requests": self.requests, **cached}


@dataclass(frozen=True)
class Direct:
    """A metric a judge scores whole by its own formula (devx-ai's), not from a share of yes.

    The evaluator's result then carries this score; `formula` says how it was reached and
    becomes the reason's first half. `per_question` False: the per-question rows say nothing
    about this score, so the result shows none.
    """

    score: float
    formula: str
    per_question: bool = True


@dataclass(frozen=True)
class Answers:
    """A judge's answers: p(true) for every question id it was asked (the ids as sent)."""

    p: dict[str, float]
    usage: Usage = field(default_factory=Usage)
    model: str | None = None  # the model the server says answered
    request_id: str | None = None
    # Why, where a judge can say: per question id, the spans of the question's subject text
    # that drove p, as (start, end, text). The hosted judge gives none.
    evidence: dict[str, tuple[Span, ...]] = field(default_factory=dict)
    # Ids whose p lies in the judge's measured unsure band (offline judges; see calibration).
    unsure: frozenset[str] = frozenset()
    # Per evaluator name, the score a judge computed whole (see Direct); most judges give none.
    direct: dict[str, Direct] = field(default_factory=dict)


class Judge(Protocol):
    """Anything that answers a packed request's noul questions."""

    name: str
    approximates: bool  # True for offline stand-ins for the hosted judge
    note: str  # one sentence for the UI: what answered and how far to trust it
    model: str | None  # the model named in request bodies; None: the default model
    price_per_billion_input_tokens: float  # 0 for judges that bill nothing

    @property
    def calibration(self) -> str | None:
        """The calibration profile that judges, as "name · fingerprint" (None: built-in
        curves): every report and stored run records it."""
        ...

    @property
    def base_url(self) -> str | None:
        """The hosted judge's server (None offline): a stored run records it, and a resume
        must ask the same server."""
        ...

    @property
    def settings(self) -> dict[str, Any]:
        """How a server judge asks beyond its model and server, as its constructor takes it
        (the openai judge's endpoint, questions in flight, price; empty for the others): a
        stored run records it, and a resume asks the same way. Never the key. `concurrency`
        (how many at once) is not what was asked: a resume may change it."""
        ...

    def answer(self, packed: Packed) -> Answers:
        """p(true) for every question in `packed.asked`, by the id it was asked under."""
        ...

    def warm_up(self) -> None:
        """Load what the first answer would otherwise wait for (may return at once)."""
        ...

    def close(self) -> None:
        """Release connections or models; the judge is not used afterwards."""
        ...


class OfflineJudge:
    """What every offline judge shares: no model name, no server, no bill, nothing to close."""

    name = "offline"
    approximates = True
    calibration: str | None = None  # a calibration profile's "name · fingerprint", when one judges
    base_url: str | None = None
    note = ""
    model: str | None = None
    price_per_billion_input_tokens = 0.0

    @property
    def settings(self) -> dict[str, Any]:
        return {}

    def warm_up(self) -> None:
        return None

    def close(self) -> None:
        return None


class ForwardingJudge:
    """Another judge, with only what a subclass overrides changed (a run's "stop now"
    check): every member of the protocol is the inner judge's, so a wrapped judge records
    the same profile, server and model as the judge itself. The one wrapper every place
    that wraps a judge subclasses: a member added to the protocol is forwarded here, once."""

    def __init__(self, inner: Judge) -> None:
        self.inner = inner
        self.name, self.approximates, self.note = inner.name, inner.approximates, inner.note
        self.model: str | None = inner.model
        self.price_per_billion_input_tokens = inner.price_per_billion_input_tokens
        self.calibration: str | None = inner.calibration
        self.base_url: str | None = inner.base_url
        self.settings: dict[str, Any] = dict(inner.settings)

    def answer(self, packed: Packed) -> Answers:
        return self.inner.answer(packed)

    def warm_up(self) -> None:
        self.inner.warm_up()

    def close(self) -> None:
        self.inner.close()

"""The hosted judge, live: one request per committed edit, the newest wins, within a cap.

The Playground can make the hosted judge the live one. Every committed edit submits the
case's packed request here; this module decides what is sent and what is drawn:

* **one request per distinct case** — a case already answered (or being asked) is never
  asked again; its answer is kept (the last `KEEP` answers);
* **debounced** — a request waits `debounce_s` after its edit and is dropped unsent when a
  newer edit comes within that time;
* **the newest wins** — a newer edit supersedes an older request still in flight: it is
  cancelled and its answer, should it still arrive, is never the current one, so a stale
  answer is never drawn over a newer case;
* **a spending cap per server process and key** — in dollars and in requests; a request
  that would go over it is not sent (`CAPPED`) until the person raises the cap
  (`Live.raise_cap`). The cap and what was spent are a `Budget` shared by every session that
  uses the same server and key (`budget(owner)`): a reload or a new tab starts no new one.

`Live` is the bookkeeping (no threads, an injectable clock: unit-testable as it stands);
`Runner` drives it with one short-lived thread per submitted request. Neither knows about
Streamlit, and neither sees a key: the runner gets a function that builds the judge.
"""

from __future__ import annotations

import hashlib
import itertools
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from enum import Enum
from typing import TYPE_CHECKING, Protocol

from . import wire
from .errors import JevalError
from .text import one_line

if TYPE_CHECKING:
    from .request import Packed
    from .scoring import Report

DEFAULT_CAP_USD = 0.05
DEFAULT_CAP_REQUESTS = 100
DEFAULT_DEBOUNCE_S = 0.4
KEEP = 8  # answered cases kept: going back to one costs nothing (a case can hold megabytes)


class Status(Enum):
    WAITING = "waiting"  # debouncing: not sent yet
    SENDING = "sending"  # sent, no answer yet
    ANSWERED = "answered"
    FAILED = "failed"
    CAPPED = "capped"  # not sent: it would go over the spending cap
    SUPERSEDED = "superseded"  # a newer edit came first: dropped unsent, or cancelled

    @property
    def pending(self) -> bool:
        return self in (Status.WAITING, Status.SENDING)


@dataclass(frozen=True)
class Cap:
    """How much one session may spend on live requests before it asks."""

    usd: float = DEFAULT_CAP_USD
    requests: int = DEFAULT_CAP_REQUESTS

    def __post_init__(self) -> None:
        if not (self.usd >= 0) or self.usd == float("inf"):
            raise ValueError(f"the cap in dollars must be a finite number >= 0, not {self.usd!r}")
        if isinstance(self.requests, bool) or not isinstance(self.requests, int) or (
                self.requests < 0):
            raise ValueError(f"the cap in requests must be a whole number >= 0, not "
                             f"{self.requests!r}")

    def raised(self, spent_usd: float, requests: int, step: Cap) -> Cap:
        """Room for `step` more beyond what has been spent (never lower than now)."""
        return Cap(max(self.usd, spent_usd + step.usd),
                   max(self.requests, requests + step.requests))


@dataclass(frozen=True)
class Charge:
    """One request sent: its estimate at sending, and what the server billed once it said."""

    ticket: int
    estimated_tokens: int
    price_per_billion: float
    billed_tokens: int | None = None  # None: no answer (failed or cancelled) or not yet
    outcome: str = "sent"

    @property
    def tokens(self) -> int:
        """The billed tokens when known, else the estimate (a sent request may be billed)."""
        return self.estimated_tokens if self.billed_tokens is None else self.billed_tokens

    @property
    def usd(self) -> float:
        return self.tokens * self.price_per_billion / 1e9


@dataclass
class Ledger:
    """What one session's live requests cost: every request sent, at most its estimate
    until the server's usage replaces it."""

    charges: list[Charge] = field(default_factory=list)

    @property
    def requests(self) -> int:
        return len(self.charges)

    @property
    def input_tokens(self) -> int:
        return sum(c.tokens for c in self.charges)

    @property
    def spent_usd(self) -> float:
        return sum(c.usd for c in self.charges)

    def charge(self, ticket: int, tokens: int, price_per_billion: float) -> None:
        self.charges.append(Charge(ticket, tokens, price_per_billion))

    def settle(self, ticket: int, billed_tokens: int | None, outcome: str) -> None:
        for i, c in enumerate(self.charges):
            if c.ticket == ticket:
                self.charges[i] = replace(c, billed_tokens=billed_tokens, outcome=outcome)


class Budget:
    """A cap and the ledger it is held against, with the lock that makes "check, then
    charge" one step: sessions that share it never spend past it between them."""

    def __init__(self, cap: Cap | None = None) -> None:
        self.step = cap or Cap()  # what "continue" allows on top of what was spent
        self.cap = self.step
        self.ledger = Ledger()
        self.lock = threading.Lock()


_budgets: OrderedDict[str, Budget] = OrderedDict()
_budgets_lock = threading.Lock()
BUDGETS = 256  # owners remembered per process (the least recently used is forgotten)


def budget(owner: str) -> Budget:
    """The budget of `owner` in this server process: a server and a digest of its key (never
    the key itself). Every session with the same owner spends from it."""
    with _budgets_lock:
        found = _budgets.get(owner)
        if found is None:
            found = _budgets[owner] = Budget()
            while len(_budgets) > BUDGETS:
                _budgets.popitem(last=False)
        _budgets.move_to_end(owner)
        return found


_tickets = itertools.count(1)  # ticket numbers are unique in the process: ledgers are shared


def over_cap(ledger: Ledger, cap: Cap, estimate_usd: float) -> str | None:
    """Why a request of `estimate_usd` may not be sent under `cap` (None: it may)."""
    if ledger.requests + 1 > cap.requests:
        return (f"the cap of {cap.requests:,} hosted requests is reached "
                f"({ledger.requests:,} sent, ${ledger.spent_usd:.6f})")
    if ledger.spent_usd + estimate_usd > cap.usd + 1e-12:
        return (f"this request (~${estimate_usd:.6f}) would go past its "
                f"${cap.usd:.4f} cap (${ledger.spent_usd:.6f} spent in "
                f"{ledger.requests:,} requests)")
    return None


def case_key(packed: Packed, *settings: object) -> str:
    """What makes two requests the same: the exact body sent and the judge's settings."""
    digest = hashlib.sha256(wire.encode(packed.body))
    for part in settings:
        digest.update(b"\0" + repr(part).encode())
    return digest.hexdigest()[:32]


@dataclass(frozen=True)
class Ticket:
    """One submitted case and where its request stands (a snapshot: `Live` replaces it)."""

    number: int
    key: str
    packed: Packed
    submitted_at: float
    status: Status = Status.WAITING
    report: Report | None = None
    error: str | None = None  # one line, already redacted (JevalError messages are)
    reason: str | None = None  # why it was capped
    from_cache: bool = False

    @property
    def estimate_tokens(self) -> int:
        return self.packed.tokens.total

    @property
    def estimate_usd(self) -> float:
        return self.packed.cost_usd


class Live:
    """The bookkeeping of one session's live hosted judge. Thread-safe; no threads itself.
    It spends from `budget` (its own unless `use` gives it a shared one)."""

    def __init__(self, cap: Cap | None = None, debounce_s: float = DEFAULT_DEBOUNCE_S,
                 clock: Callable[[], float] = time.monotonic,
                 price_per_billion: float = wire.PRICE_PER_BILLION_INPUT_TOKENS_USD,
                 budget: Budget | None = None) -> None:
        self.budget = budget or Budget(cap)
        self.debounce_s = debounce_s
        self.price_per_billion = price_per_billion
        self._clock = clock
        self._lock = threading.Lock()
        self._current: Ticket | None = None
        self._answered: OrderedDict[str, Report] = OrderedDict()
        self._keys: dict[int, str] = {}  # superseded requests still out: their late answer
        self.version = 0  # bumped on every change a page should draw

    # ---- what the page asks ----

    @property
    def ledger(self) -> Ledger:
        return self.budget.ledger

    @property
    def cap(self) -> Cap:
        return self.budget.cap

    @property
    def step(self) -> Cap:
        return self.budget.step

    def use(self, budget: Budget) -> None:
        """Spend from `budget` from now on (the server or key changed)."""
        with self._lock:
            if budget is not self.budget:
                self.budget = budget
                self.version += 1

    @property
    def current(self) -> Ticket | None:
        return self._current

    def submit(self, key: str, packed: Packed, retry: bool = False) -> tuple[Ticket, bool]:
        """The case on screen now. Returns its ticket and whether a request must be started
        for it (False: already answered, already on its way, failed or capped for this very
        case — `retry` asks again after a failure)."""
        with self._lock:
            now = self._current
            if now is not None and now.key == key and not (
                    retry and now.status in (Status.FAILED, Status.SUPERSEDED)):
                return now, False
            number = next(_tickets)
            if key in self._answered:
                self._answered.move_to_end(key)
                ticket = Ticket(number, key, packed, self._clock(), Status.ANSWERED,
                                report=self._answered[key], from_cache=True)
                self._replace_current(ticket)
                return ticket, False
            ticket = Ticket(number, key, packed, self._clock())
            self._replace_current(ticket)
            return ticket, True

    def wait_left(self, number: int) -> float:
        """Seconds ticket `number` still waits before it may be sent (0: now)."""
        with self._lock:
            now = self._current
            if now is None or now.number != number:
                return 0.0
            return max(0.0, now.submitted_at + self.debounce_s - self._clock())

    def is_current(self, number: int) -> bool:
        with self._lock:
            return self._current is not None and self._current.number == number

    def start(self, number: int) -> Packed | None:
        """Called when ticket `number`'s wait is over: its request if it is to be sent now
        (charged to the ledger at its estimate), None if a newer edit superseded it or the
        cap stops it."""
        with self._lock:
            now = self._current
            if now is None or now.number != number or now.status != Status.WAITING:
                return None
            with self.budget.lock:
                why = over_cap(self.ledger, self.cap, now.estimate_usd)
                if why is None:
                    self.ledger.charge(number, now.estimate_tokens, self.price_per_billion)
            if why is not None:
                self._set(replace(now, status=Status.CAPPED, reason=why))
                return None
            self._set(replace(now, status=Status.SENDING))
            return now.packed

    def finish(self, number: int, report: Report | None = None,
               error: str | None = None) -> bool:
        """Ticket `number`'s request ended (an answer or an error). Its cost is settled
        either way; True only if it is still the current case (else it is never drawn)."""
        with self._lock:
            billed = report.usage.input_tokens if report is not None else None
            outcome = "answered" if report is not None else "failed"
            now = self._current
            current = now is not None and now.number == number
            if not current:
                outcome = "superseded" if report is None else "answered late (not shown)"
            with self.budget.lock:
                self.ledger.settle(number, billed, outcome)
            key = now.key if current and now is not None else self._keys.pop(number, None)
            if report is not None and key is not None:
                self._remember(key, report)  # a late answer is not drawn, but it is kept
            if not current or now is None:
                self.version += 1
                return False
            if report is not None:
                self._set(replace(now, status=Status.ANSWERED, report=report))
            else:
                self._set(replace(now, status=Status.FAILED,
                                  error=one_line(error or "the hosted judge did not answer", 300)))
            return True

    def raise_cap(self) -> bool:
        """The person said go on: room for as much again as the cap allowed at first. Returns
        whether the current (capped) case is to be sent now."""
        with self._lock:
            b = self.budget
            with b.lock:
                b.cap = b.cap.raised(b.ledger.spent_usd, b.ledger.requests, b.step)
            now = self._current
            if now is not None and now.status == Status.CAPPED:
                self._set(replace(now, status=Status.WAITING, reason=None,
                                  submitted_at=self._clock() - self.debounce_s))
                return True
            self.version += 1
            return False

    def set_cap(self, cap: Cap) -> None:
        """A cap the person typed: it also becomes the step "continue" adds."""
        with self._lock, self.budget.lock:
            self.budget.step = cap
            self.budget.cap = cap
            self.version += 1

    def drop(self) -> Ticket | None:
        """The toggle went off: nothing is current any more (a request in flight is
        superseded). Returns the ticket that was current."""
        with self._lock:
            now = self._current
            self._replace_current(None)
            return now

    # ---- inside ----

    def _replace_current(self, ticket: Ticket | None) -> None:
        old = self._current
        if old is not None and old.status == Status.SENDING:
            self._keys[old.number] = old.key  # still out: keep its answer if it comes
        self._current = ticket
        self.version += 1

    def _set(self, ticket: Ticket) -> None:
        self._current = ticket
        self.version += 1

    def _remember(self, key: str, report: Report) -> None:
        self._answered[key] = report
        self._answered.move_to_end(key)
        while len(self._answered) > KEEP:
            self._answered.popitem(last=False)


class Cancellable(Protocol):
    """A judge whose request in flight can be stopped from another thread."""

    name: str

    def cancel(self) -> None: ...

    def close(self) -> None: ...


Send = Callable[["Packed"], "Report"]
Make = Callable[[], tuple[Cancellable, Send]]


class Runner:
    """Drives a `Live` with one thread per request: wait out the debounce, ask the ledger,
    send, settle. A newer submission cancels the request in flight.

    Each submission brings `make`, which builds a fresh judge for its request and returns it
    with a function that sends a packed request through it: a judge is never shared between
    requests (cancelling one never touches another), and the settings (the key among them)
    stay inside `make`, never in this object's state."""

    def __init__(self, live: Live, on_change: Callable[[], None] | None = None) -> None:
        self.live = live
        self._on_change = on_change
        self._lock = threading.Lock()
        self._makers: dict[int, Make] = {}
        self._in_flight: dict[int, Cancellable] = {}
        self._woken = threading.Event()

    def submit(self, key: str, packed: Packed, make: Make, retry: bool = False) -> Ticket:
        """The case on screen now; its ticket (snapshot). Starts its request if it needs one."""
        ticket, start = self.live.submit(key, packed, retry)
        with self._lock:
            self._makers = {n: m for n, m in self._makers.items() if n == ticket.number}
            if start:
                self._makers[ticket.number] = make
        self._supersede(keep=ticket.number)
        if start:
            self._spawn(ticket.number)
        return ticket

    def go_on(self) -> None:
        """Raise the cap (the person asked to continue) and send the current case if the
        cap had stopped it."""
        if self.live.raise_cap() and self.live.current is not None:
            self._spawn(self.live.current.number)

    def stop(self) -> None:
        """The toggle went off: cancel whatever is in flight; nothing is current."""
        self.live.drop()
        self._supersede(keep=None)

    def in_flight(self) -> int:
        with self._lock:
            return len(self._in_flight)

    def _supersede(self, keep: int | None) -> None:
        self._woken.set()  # a waiting thread looks again (and finds it is not current)
        with self._lock:
            old = [(n, j) for n, j in self._in_flight.items() if n != keep]
        for _, judge in old:
            judge.cancel()

    def _spawn(self, number: int) -> None:
        threading.Thread(target=self._work, args=(number,), name=f"jeval-live-{number}",
                         daemon=True).start()

    def _work(self, number: int) -> None:
        while self.live.is_current(number):
            left = self.live.wait_left(number)
            if left <= 0:
                break
            self._woken.wait(left)
            self._woken.clear()
        packed = self.live.start(number)
        if packed is None:  # superseded while waiting, or stopped by the cap
            self._changed()
            return
        report, error = None, None
        judge: Cancellable | None = None
        with self._lock:
            make = self._makers.pop(number, None)
        try:
            if make is None:
                raise RuntimeError("no judge for this request")
            judge, send = make()
            with self._lock:
                self._in_flight[number] = judge
            if not self.live.is_current(number):  # superseded while the judge was built
                judge.cancel()
            report = send(packed)
        except JevalError as err:
            error = str(err)
        except Exception as err:  # a bug or the network library: one line, never a trace
            error = f"the hosted judge failed ({type(err).__name__}: {one_line(err, 200)})"
        finally:
            with self._lock:
                self._in_flight.pop(number, None)
            if judge is not None:
                judge.close()
        self.live.finish(number, report, error)
        self._changed()

    def _changed(self) -> None:
        if self._on_change is not None:
            self._on_change()

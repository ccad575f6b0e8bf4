"""The hosted judge, live: debounce, supersede, the ledger and the cap (jeval_core.live), and
the runner against a real jevcompat mock (one request per case, a cancelled one never drawn)."""

import threading
import time
from dataclasses import replace

import pytest
from conftest import load_case
from jev_servers import FaultyServer
from jevcompat.mock import MockConfig, Running

from jeval_core import evaluators, wire
from jeval_core.judges import Usage
from jeval_core.judges.jev import JevJudge, RequestCancelled, RetryPolicy
from jeval_core.live import (
    Cap,
    Ledger,
    Live,
    Runner,
    Status,
    case_key,
    over_cap,
)
from jeval_core.request import pack
from jeval_core.scoring import run

KEY = "sk-live-0123456789abcdef"
CHOSEN = evaluators.resolve("chunk_relevance")
FAST = RetryPolicy(attempts=2, base_delay=0.01, max_delay=0.02, timeout=5, total_seconds=20)


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def packed_for(text: str):
    case = load_case("jev_pricing")
    return pack(replace(case, input=text), CHOSEN)


class FakeReport:
    """Just what the ledger reads of a Report."""

    def __init__(self, tokens: int) -> None:
        self.usage = Usage(tokens, 1)


# ---- the ledger and the cap ----

def test_the_ledger_counts_the_estimate_until_the_server_bills():
    ledger = Ledger()
    ledger.charge(1, 1_000, 42.0)
    assert ledger.requests == 1 and ledger.input_tokens == 1_000
    assert ledger.spent_usd == pytest.approx(42e-6)
    ledger.settle(1, 800, "answered")
    assert ledger.input_tokens == 800 and ledger.spent_usd == pytest.approx(800 * 42 / 1e9)
    ledger.charge(2, 500, 42.0)
    ledger.settle(2, None, "failed")  # no answer: a sent request may be billed, keep it
    assert ledger.input_tokens == 1_300
    assert [c.outcome for c in ledger.charges] == ["answered", "failed"]


def test_the_cap_in_requests_and_in_dollars():
    ledger = Ledger()
    assert over_cap(ledger, Cap(usd=0.05, requests=2), 0.01) is None
    ledger.charge(1, 1_000_000, 42.0)  # $0.042
    assert over_cap(ledger, Cap(usd=0.05, requests=2), 0.007) is None  # exactly to the cap
    assert "past its $0.0500 cap" in over_cap(ledger, Cap(usd=0.05, requests=2), 0.009)
    ledger.charge(2, 1, 42.0)
    assert "cap of 2 hosted requests" in over_cap(ledger, Cap(usd=1.0, requests=2), 0.0)


def test_a_raised_cap_gives_as_much_room_again_and_never_less():
    cap = Cap(usd=0.05, requests=3)
    raised = cap.raised(0.05, 3, Cap(0.05, 3))
    assert raised.usd == pytest.approx(0.10) and raised.requests == 6
    assert cap.raised(0.0, 0, Cap(0.01, 1)) == cap


@pytest.mark.parametrize("bad", [dict(usd=-1), dict(usd=float("nan")), dict(usd=float("inf")),
                                 dict(requests=-1), dict(requests=1.5), dict(requests=True)])
def test_a_nonsense_cap_is_refused(bad):
    with pytest.raises(ValueError):
        Cap(**bad)


def test_the_case_key_is_the_body_and_the_settings():
    a, b = packed_for("How is Jev priced?"), packed_for("How is Jev priced?")
    assert case_key(a, "http://x", "m") == case_key(b, "http://x", "m")
    assert case_key(a, "http://x", "m") != case_key(a, "http://y", "m")
    assert case_key(a) != case_key(packed_for("Is output billed?"))


# ---- debounce and supersede ----

def test_a_request_waits_out_the_debounce_and_a_newer_edit_drops_it_unsent():
    clock = Clock()
    live = Live(debounce_s=0.5, clock=clock)
    first, start = live.submit("a", packed_for("one"))
    assert start and first.status == Status.WAITING
    assert live.wait_left(first.number) == pytest.approx(0.5)
    clock.now += 0.3
    second, start = live.submit("b", packed_for("two"))
    assert start
    clock.now += 0.5
    assert live.start(first.number) is None  # superseded before it was sent: nothing spent
    assert live.start(second.number) is not None
    assert live.ledger.requests == 1 and live.current.status == Status.SENDING


def test_the_same_case_again_sends_nothing_more():
    live = Live(debounce_s=0)
    ticket, start = live.submit("a", packed_for("one"))
    assert start
    assert live.submit("a", packed_for("one")) == (ticket, False)  # waiting: same ticket
    live.start(ticket.number)
    assert live.submit("a", packed_for("one"))[1] is False  # in flight
    assert live.finish(ticket.number, FakeReport(400))
    again, start = live.submit("a", packed_for("one"))
    assert not start and again.status == Status.ANSWERED
    assert live.ledger.requests == 1


def test_an_answer_that_arrives_after_a_newer_edit_is_never_current_but_is_kept():
    live = Live(debounce_s=0)
    old, _ = live.submit("a", packed_for("one"))
    live.start(old.number)
    new, _ = live.submit("b", packed_for("two"))
    late = FakeReport(300)
    assert live.finish(old.number, late) is False
    assert live.current.number == new.number and live.current.report is None
    assert live.ledger.charges[0].outcome == "answered late (not shown)"
    live.start(new.number)
    live.finish(new.number, FakeReport(310))
    back, start = live.submit("a", packed_for("one"))  # back to the first case: free
    assert not start and back.report is late and back.from_cache
    assert live.ledger.requests == 2


def test_a_failure_is_kept_for_that_case_until_asked_again():
    live = Live(debounce_s=0)
    ticket, _ = live.submit("a", packed_for("one"))
    live.start(ticket.number)
    assert live.finish(ticket.number, error="the server rejected the API key (401)")
    assert live.current.status == Status.FAILED and "(401)" in live.current.error
    assert live.submit("a", packed_for("one"))[1] is False  # no retry storm on every rerun
    assert live.submit("a", packed_for("one"), retry=True)[1] is True


def test_the_cap_stops_a_request_and_continue_sends_it():
    live = Live(cap=Cap(usd=1.0, requests=1), debounce_s=0)
    one, _ = live.submit("a", packed_for("one"))
    live.start(one.number)
    live.finish(one.number, FakeReport(400))
    two, start = live.submit("b", packed_for("two"))
    assert start and live.start(two.number) is None
    assert live.current.status == Status.CAPPED and "cap of 1" in live.current.reason
    assert live.ledger.requests == 1  # it was not sent
    assert live.raise_cap() is True and live.cap.requests == 2
    assert live.start(two.number) is not None and live.ledger.requests == 2


def test_a_cap_set_by_the_person_is_also_the_step():
    live = Live()
    live.set_cap(Cap(usd=0.01, requests=5))
    assert live.cap == live.step == Cap(usd=0.01, requests=5)


# ---- the runner, against a real peer server ----

def mock_make(url: str, judges: list | None = None):
    def make():
        judge = JevJudge(api_key=KEY, base_url=url, retry=FAST)
        if judges is not None:
            judges.append(judge)
        return judge, lambda packed: run(packed, judge)
    return make


def wait_until(condition, timeout=15.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.02)
    raise AssertionError("timed out")


def test_the_runner_sends_one_request_for_a_burst_of_edits():
    config = MockConfig(key=KEY)
    with Running(config) as server:
        changed = threading.Event()
        runner = Runner(Live(debounce_s=0.3), on_change=changed.set)
        for text in ("H", "Ho", "How is Jev priced?"):
            packed = packed_for(text)
            runner.submit(case_key(packed, server.url), packed, mock_make(server.url))
        wait_until(lambda: runner.live.current.status == Status.ANSWERED)
        assert changed.is_set()
        assert config.requests == 1
        report = runner.live.current.report
        assert report.judge == "jev" and report.packed.state["input"] == "How is Jev priced?"
        assert runner.live.ledger.requests == 1
        assert runner.live.ledger.input_tokens == report.usage.input_tokens > 0


def test_a_newer_edit_cancels_the_request_in_flight_and_only_the_newest_is_drawn():
    with Running(MockConfig(key=KEY)) as mock, FaultyServer(mock.url, [("sleep", 3)]) as slow:
        judges: list[JevJudge] = []
        runner = Runner(Live(debounce_s=0))
        first = packed_for("the slow one")
        runner.submit(case_key(first), first, mock_make(slow.url, judges))
        wait_until(lambda: len(slow.seen) == 1)  # the first request is at the server
        second = packed_for("How is Jev priced?")
        started = time.monotonic()
        runner.submit(case_key(second), second, mock_make(slow.url, judges))
        wait_until(lambda: runner.live.current.status == Status.ANSWERED)
        assert time.monotonic() - started < 2.5  # not held behind the slow one
        assert runner.live.current.report.packed.state["input"] == "How is Jev priced?"
        wait_until(lambda: runner.in_flight() == 0)
        assert [c.outcome for c in runner.live.ledger.charges] == ["superseded", "answered"]


def test_cancel_stops_the_jev_judge_at_once():
    with Running(MockConfig(key=KEY)) as mock, FaultyServer(mock.url, [("sleep", 5)]) as slow:
        judge = JevJudge(api_key=KEY, base_url=slow.url, retry=FAST)
        threading.Timer(0.3, judge.cancel).start()
        started = time.monotonic()
        with pytest.raises(RequestCancelled):
            run(packed_for("x"), judge)
        assert time.monotonic() - started < 2
        judge.close()


def test_an_error_settles_as_one_line_and_the_key_is_never_in_it():
    with Running(MockConfig(key="sk-the-right-one")) as server:
        runner = Runner(Live(debounce_s=0))
        packed = packed_for("x")
        runner.submit(case_key(packed), packed, mock_make(server.url))
        wait_until(lambda: runner.live.current.status == Status.FAILED)
    error = runner.live.current.error
    assert "(401)" in error and "\n" not in error
    assert all(KEY[i:i + 8] not in error for i in range(len(KEY) - 7))


def test_stop_cancels_and_nothing_is_current():
    with Running(MockConfig(key=KEY)) as mock, FaultyServer(mock.url, [("sleep", 3)]) as slow:
        runner = Runner(Live(debounce_s=0))
        packed = packed_for("x")
        runner.submit(case_key(packed), packed, mock_make(slow.url))
        wait_until(lambda: len(slow.seen) == 1)
        runner.stop()
        assert runner.live.current is None
        wait_until(lambda: runner.in_flight() == 0, timeout=2.5)


def test_prices_follow_the_wire_price():
    live = Live(debounce_s=0)
    ticket, _ = live.submit("a", packed_for("x"))
    assert ticket.estimate_usd == pytest.approx(wire.cost_usd(ticket.estimate_tokens))

"""The hosted judge, live: each committed edit asks it (jeval_core.live decides what is sent
and when; this draws where the request stands, what it cost, and the cap of the server and
key, which every tab shares)."""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from jeval_app import hosted, state
from jeval_app.views.text import inert
from jeval_core import Case, JevalError, Report
from jeval_core.evaluators import Evaluator
from jeval_core.live import Cap, Runner, Status, Ticket, budget, case_key
from jeval_core.request import pack

WATCH_S = 0.25  # how often a pending hosted answer is looked for

LIVE_HELP = ("Each committed edit sends this case to the hosted judge (one request, after a "
             "short pause; a newer edit cancels an older request). The offline verdicts show "
             "until its answer arrives. Spending stops at the cap and asks (one cap per server and "
             "key, whichever tab sends).")


@dataclass(frozen=True)
class HostedView:
    """Where the live hosted judge stands for the case on screen."""

    ticket: Ticket | None  # None: nothing could be submitted (too large, bad settings)
    problem: str | None = None  # why nothing was submitted

    @property
    def report(self) -> Report | None:
        """The hosted answer for this very case, once it has arrived."""
        t = self.ticket
        return t.report if t is not None and t.status == Status.ANSWERED else None

    def standing_in(self, shown: Report | None) -> str | None:
        """What the offline verdicts on screen are marked with (None: the hosted answer is
        shown, or nothing is)."""
        if shown is None or self.report is not None:
            return None
        status = self.ticket.status if self.ticket is not None else Status.FAILED
        why = {Status.WAITING: "hosted answer pending", Status.SENDING: "hosted answer pending",
               Status.CAPPED: "hosted request held at the spending cap"}.get(
                   status, "the hosted judge did not answer")
        return f"{shown.judge} judge — {why}"


def runner() -> Runner:
    """This session's live runner, spending from the budget of the server and key set now:
    shared by every tab of this server process, so a reload does not start a new cap."""
    found = state.live_runner()
    found.live.use(budget(hosted.spender()))
    return found


def live_toggle() -> bool:
    return st.toggle("Hosted judge live", key=state.HOSTED_LIVE, on_change=on_live_toggle,
                     help=LIVE_HELP)


def on_live_toggle() -> None:
    if not state.get(state.HOSTED_LIVE):
        stop_live()


def stop_live() -> None:
    """The toggle is off (or no key is set any more): nothing in flight, nothing current."""
    runner = state.live_runner_if_any()
    if runner is not None and runner.live.current is not None:
        runner.stop()


def hosted_live(case: Case, chosen: tuple[Evaluator, ...]) -> HostedView:
    """Submit the case on screen (a request starts only for a case not asked yet)."""
    settings, make = hosted.maker()
    try:
        packed = pack(case, chosen, settings[1])
        packed.check_budget()
    except JevalError as err:
        stop_live()
        return HostedView(None, str(err))
    retry = state.asked("live_retry")
    ticket = runner().submit(case_key(packed, *settings), packed, make, retry)
    if ticket.status == Status.ANSWERED and ticket.report is not None:
        state.set_hosted_report(ticket.report)  # for "Judges side by side"
    return HostedView(ticket)


def live_status(view: HostedView) -> None:
    """One line beside the toggle: where the request stands, what it cost, the spending of
    this server and key against its cap (our own numbers only)."""
    live = runner().live
    ledger, cap = live.ledger, live.cap
    t = view.ticket
    if t is None:
        line = ":red-badge[not sent]"
    elif t.status.pending:
        line = (f":orange-badge[hosted answer pending] sending "
                f"~{t.estimate_tokens:,} tokens · ~${t.estimate_usd:.6f}")
    elif t.status == Status.ANSWERED and t.report is not None:
        billed = t.report.usage.input_tokens
        line = (f":green-badge[hosted answer] {billed:,} input tokens · "
                f"${t.report.cost_usd:.6f}"
                + (" (answered earlier: no new request)" if t.from_cache else ""))
    elif t.status == Status.CAPPED:
        line = ":orange-badge[held at the cap]"
    else:
        line = ":red-badge[hosted judge failed]"
    line += (f" · with this key {ledger.requests:,} of {cap.requests:,} requests, "
             f"${ledger.spent_usd:.6f} of ${cap.usd:.4f}")
    st.markdown(line)
    if t is not None and t.status.pending:
        hosted_watch(t.number)


def live_cap() -> None:
    """The spending cap of this server and key, settable (beside the toggle)."""
    step = runner().live.step
    with st.popover("Spending cap",
                    help="the spending cap for live requests with this key on this server "
                         "(every tab shares it): when it is reached, nothing more is sent "
                         "until you say so"):
        st.number_input("Spending cap for this key ($)", min_value=0.0, max_value=100.0,
                        value=float(step.usd), step=0.01, format="%.4f",
                        key=state.CAP_USD, on_change=on_cap)
        st.number_input("and at most this many requests", min_value=0, max_value=100_000,
                        value=int(step.requests), step=10,
                        key=state.CAP_REQUESTS, on_change=on_cap)


def on_cap() -> None:
    runner().live.set_cap(Cap(
        usd=float(state.get(state.CAP_USD) or 0.0),
        requests=int(state.get(state.CAP_REQUESTS) or 0)))


def live_notices(view: HostedView) -> None:
    """A hosted error as one line (the offline verdicts stay), or the cap asking to go on."""
    t = view.ticket
    if view.problem is not None:
        st.error(inert(f"Not sent to the hosted judge: {view.problem}"))
    elif t is not None and t.status in (Status.FAILED, Status.SUPERSEDED) and t.error:
        with st.container(horizontal=True, vertical_alignment="center"):
            st.error(inert(f"Hosted judge: {t.error}"))
            st.button("Try again", key=state.LIVE_TRY_AGAIN, on_click=on_live_retry,
                      type="tertiary")
    elif t is not None and t.status == Status.CAPPED:
        step = runner().live.step
        with st.container(horizontal=True, vertical_alignment="center"):
            st.warning(inert(f"Spending cap reached: {t.reason}. Nothing more goes to "
                                  "the hosted judge until you say so."))
            st.button(f"Continue (${step.usd:.4f} / {step.requests:,} requests more)",
                      key=state.LIVE_GO_ON, on_click=lambda: runner().go_on(),
                      type="primary")


def on_live_retry() -> None:
    state.ask("live_retry")


@st.fragment(run_every=WATCH_S)
def hosted_watch(number: int) -> None:
    """While the hosted answer is pending: look for it, and draw the page again once the
    request has ended (the answer, an error or the cap); nothing to draw meanwhile."""
    now = runner().live.current
    if now is None or now.number != number or not now.status.pending:
        st.rerun()

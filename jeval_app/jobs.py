"""Long runs for the pages: scoring in a background thread the page polls, with a Cancel.

Streamlit reruns the page script on every interaction, so a dataset run cannot live inside
one script run. A `Job` runs the work in a thread of its own (which never touches Streamlit),
keeps the latest progress for a fragment that polls it every half second, and stops on
`cancel`. Nothing here imports streamlit: the pages draw, this only runs.

Cancel is prompt: `run_dataset` looks at its cancel event only between slices of 64 cases,
so each judge is wrapped to stop the pass before the next case it would answer. That stop is
a KeyboardInterrupt, which `run_dataset` already treats as "the user stopped it": the run is
marked cancelled and every finished case stays stored (a resume continues it).
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from jeval_core.errors import JevalError
from jeval_core.judges.base import Answers, ForwardingJudge, Judge
from jeval_core.runs.run import Progress
from jeval_core.text import one_line


class Cancelled(KeyboardInterrupt):
    """The user pressed Cancel: stop before the next case (a KeyboardInterrupt, so that
    `run_dataset` keeps what finished and marks the run cancelled)."""


class StopsWhenCancelled(ForwardingJudge):
    """A judge that stops the pass once `cancel` is set; otherwise the judge itself (its
    profile and server included: what a stored run records)."""

    def __init__(self, judge: Judge, cancel: threading.Event) -> None:
        super().__init__(judge)
        self.cancel = cancel

    def answer(self, packed: Any) -> Answers:
        if self.cancel.is_set():
            raise Cancelled
        return self.inner.answer(packed)


@dataclass
class Job:
    """Work running in a thread: what it is at, how it ended, and a way to stop it."""

    title: str  # what runs ("45 cases with the lexical judge")
    cancel: threading.Event = field(default_factory=threading.Event)
    stage: str = ""  # which part runs now (a judge's name, when several run in turn)
    progress: Progress | None = None
    step: int = 0  # which of `steps` passes runs now (several judges run in turn)
    steps: int = 1
    result: Any = None
    error: str | None = None
    finished: threading.Event = field(default_factory=threading.Event)
    thread: threading.Thread | None = None
    # what Cancel also does beyond setting `cancel` (a server judge: close its connections,
    # so that a server that never answers lets go at once instead of at its deadline)
    interrupt: list[Callable[[], None]] = field(default_factory=list)
    # a page's poller saw it end and drew the page once for it (not again: a page that does
    # not take the result in, another judge picked meanwhile, must not rerun forever)
    noticed: bool = False

    def report(self, progress: Progress, stage: str = "", step: int = 0) -> None:
        """on_progress for run_dataset (called from scoring threads); `step` counts from 0."""
        self.stage, self.progress, self.step = stage, progress, step

    def stop(self) -> None:
        """Cancel: the work stops at its next check, and whatever it waits on is let go."""
        self.cancel.set()
        for let_go in self.interrupt:
            with contextlib.suppress(Exception):
                let_go()

    @property
    def done(self) -> bool:
        return self.finished.is_set()

    @property
    def stopping(self) -> bool:
        return self.cancel.is_set() and not self.done

    def wait(self, timeout: float | None = None) -> bool:
        return self.finished.wait(timeout)

    def fraction(self) -> float:
        """How far, over every pass: 0 to 1."""
        p = self.progress
        within = min(1.0, p.done / p.total) if p is not None and p.total else 0.0
        return min(1.0, (self.step + within) / max(1, self.steps))

    def line(self) -> str:
        """One line for the progress bar."""
        p = self.progress
        if p is None:
            return f"{self.title}…" + (" stopping…" if self.stopping else "")
        where = f"{self.stage}: " if self.stage else ""
        text = (f"{where}{p.done} of {p.total} cases · {p.failed} not passed · "
                f"{p.errored} errors")
        return text + (" · stopping after the cases in flight…" if self.stopping else "")


def start(title: str, work: Callable[[Job], Any],
          close: tuple[Judge, ...] = (), steps: int = 1) -> Job:
    """Run `work(job)` in a daemon thread; its return value becomes `job.result`.

    Whatever goes wrong ends as one line in `job.error`, never an exception in the page.
    Judges in `close` are closed when the work ends (a hosted judge's connections).
    """
    job = Job(title, steps=steps)

    def main() -> None:
        try:
            job.result = work(job)
        except Cancelled:
            job.error = None  # the run is stored as cancelled; `work` says what was kept
        except JevalError as err:
            job.error = str(err)
        except Exception as err:  # a bug must not kill the thread silently
            job.error = (f"internal error ({type(err).__name__}: {one_line(err, 200)}); "
                         "please report it")
        finally:
            for judge in close:
                with contextlib.suppress(Exception):  # best effort: the run is already stored
                    judge.close()
            job.finished.set()

    job.thread = threading.Thread(target=main, name=f"jeval-job {title[:40]}", daemon=True)
    job.thread.start()
    return job

"""Errors jeval raises on purpose, and the exit code each one means.

Every message is one terminal-safe line that says what is wrong and how to mend it, so the CLI
can print it as it stands and the UI can show it next to the inputs. Messages are cleaned and
redacted when the error is made: whatever a server said, no key and no escape code gets out.
"""

from __future__ import annotations

from .text import one_line

SCORED, FAILED, BAD_INPUT, JUDGE_FAILED, INTERNAL = 0, 1, 2, 3, 70
INTERRUPTED = 130  # Ctrl+C (128 + SIGINT); SIGTERM 143 and SIGHUP 129 likewise


class JevalError(Exception):
    """Base of every error jeval raises on purpose; anything else is a bug."""

    exit_code = BAD_INPUT

    def __init__(self, message: str) -> None:
        super().__init__(one_line(message, 600))


class CaseError(JevalError):
    """The case (or its file, link or settings) is not something we can score."""


class BudgetError(CaseError):
    """The packed request would exceed one of Jev's token budgets."""


class JudgeError(JevalError):
    """A judge could not answer (no key, bad key, rate limit, server down, broken reply...)."""

    exit_code = JUDGE_FAILED


class StoreUnavailable(JevalError):
    """The run store's server could not be reached (down, unreachable, never answering): the
    run is kept and can be resumed once it is back."""

    exit_code = JUDGE_FAILED


class StoreFull(JevalError):
    """The run store's disk (or its quota) is full: the run is kept and can be resumed once
    there is room."""


class Signalled(KeyboardInterrupt):
    """SIGTERM or SIGHUP, raised where Ctrl+C's KeyboardInterrupt is, so that whatever was
    running stops the way Ctrl+C stops it (a run is kept as "cancelled", resumable); the exit
    code is the shell's for that signal, 128 + its number."""

    def __init__(self, signum: int, name: str) -> None:
        super().__init__(f"stopped by {name}")
        self.message = f"stopped by {name}"
        self.exit_code = 128 + signum


class Interrupted(KeyboardInterrupt):
    """Ctrl+C (or SIGTERM, SIGHUP: `Signalled`), with the one line to print instead of
    "interrupted" (what was kept, how to continue)."""

    def __init__(self, message: str, exit_code: int = INTERRUPTED) -> None:
        super().__init__(one_line(message, 600))
        self.message = one_line(message, 600)
        self.exit_code = exit_code

"""Errors jeval raises on purpose.

Every message is one line that says what is wrong and how to mend it, so the CLI can print it
as it stands and the UI can show it next to the inputs.
"""


class JevalError(Exception):
    """Base of every error jeval raises on purpose; anything else is a bug."""


class CaseError(JevalError):
    """The case (or its file) is not something we can score."""


class BudgetError(JevalError):
    """The packed request would exceed one of Jev's token budgets."""


class JudgeError(JevalError):
    """A judge could not answer (bad key, rate limit, server down, broken response...)."""

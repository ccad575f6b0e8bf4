"""jeval_core: RAG evaluators as yes/no questions packed into one judge request.

Pure Python; it never imports streamlit. Data flows one way:
Case -> evaluators emit questions -> request packs them -> a judge answers p(true)
-> each evaluator reduces its answers -> Results.

Names below load on first use, so `import jeval_core.commands.cli` starts fast and a Ctrl+C during
start-up lands inside the CLI's own handler.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing is not imported at start-up: this file runs before the CLI
__version__ = "0.2.0"

_WHERE = {
    "BudgetError": "errors", "CaseError": "errors", "JevalError": "errors",
    "JudgeError": "errors", "Case": "case", "ChunkMeta": "case", "Detail": "results",
    "Result": "results", "pack": "request", "Report": "scoring", "score": "scoring",
}

if TYPE_CHECKING:
    from .case import Case, ChunkMeta
    from .errors import BudgetError, CaseError, JevalError, JudgeError
    from .request import pack
    from .results import Detail, Result
    from .scoring import Report, score


def __getattr__(name: str) -> object:
    if name in _WHERE:
        from importlib import import_module

        return getattr(import_module(f".{_WHERE[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "BudgetError", "Case", "CaseError", "ChunkMeta", "Detail", "JevalError", "JudgeError", "Report",
    "Result", "__version__", "pack", "score",
]

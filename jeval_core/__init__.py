"""jeval_core: RAG evaluators as yes/no questions packed into one judge request.

Pure Python; it never imports streamlit. Data flows one way:
Case -> evaluators emit questions -> request packs them -> a judge answers p(true)
-> each evaluator reduces its answers -> Results.
"""

from .case import Case
from .errors import BudgetError, CaseError, JevalError, JudgeError
from .request import pack
from .results import Detail, Result
from .scoring import Report, score

__all__ = [
    "BudgetError",
    "Case",
    "CaseError",
    "Detail",
    "JevalError",
    "JudgeError",
    "Report",
    "Result",
    "pack",
    "score",
]

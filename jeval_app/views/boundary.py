"""The one error boundary: whatever a page or a part of it raises, the visitor reads one line.

Streamlit's own controls (st.rerun, st.stop) are not Exceptions and pass through.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from jeval_app.views.text import inert
from jeval_core.text import one_line


def error_line(message: str) -> None:
    """A failure as one line, next to what caused it."""
    st.error(inert(one_line(message, 600)))


@contextmanager
def boundary(kept: str = "", where: DeltaGenerator | None = None) -> Iterator[None]:
    """Draw what raises inside as one line (in `where`, else here), never a traceback;
    `kept` says what survives ("Your text is kept.")."""
    try:
        yield
    except Exception as err:
        message = (f"Something went wrong on this page ({type(err).__name__}: "
                   f"{one_line(err, 200)}).{' ' + kept if kept else ''} Please report this.")
        if where is None:
            error_line(message)
        else:
            with where.container():
                error_line(message)

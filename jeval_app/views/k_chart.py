"""The k-sweep drawn: precision@k and recall@k against k, one line each, each k's context
tokens in the tooltip (the Playground's and a run's "Which k?")."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import altair as alt
import pandas as pd
import streamlit as st

from jeval_app.views import verdict


def chart(points: Sequence[Any], key: str) -> None:
    """`points`: k_sweep.KPoint or MeanPoint (k, precision, recall, tokens, and supported:
    the share of the answer's sentences the first k chunks support, where it was read)."""
    rows = [{"k": p.k, "measure": name, "value": value, "tokens": round(p.tokens)}
            for p in points for name, value in (
                ("precision@k", p.precision), ("recall@k", p.recall),
                ("supported@k", getattr(p, "supported", None))) if value is not None]
    if not rows:
        st.caption("Nothing judged to sweep.")
        return
    drawn = alt.Chart(pd.DataFrame(rows)).mark_line(point=True).encode(
        x=alt.X("k:O", title="top k (the retrieval's order)", axis=alt.Axis(labelAngle=0)),
        y=alt.Y("value:Q", scale=alt.Scale(domain=[0, 1]), title=None),
        color=alt.Color("measure:N", legend=alt.Legend(orient="top", title=None),
                        scale=alt.Scale(domain=["precision@k", "recall@k", "supported@k"],
                                        range=["#4a6fa5", verdict.GOOD, "#b07c1e"])),
        tooltip=["k", "measure", alt.Tooltip("value:Q", format=".2f"),
                 alt.Tooltip("tokens:Q", title="context tokens")]).properties(height=320)
    st.altair_chart(drawn, width="stretch", key=key)

"""Playground (first cut): the seed example scored offline, with every question verbatim.

The live editor arrives with the playground issue; this page already reads only from
jeval_core and shows untrusted text inert (st.text / dataframes, never markdown).
"""

import json
from pathlib import Path

import pandas as pd
import streamlit as st

from jeval_core import Case, score
from jeval_core.judges.lexical import LexicalJudge

EXAMPLE = Path(__file__).resolve().parent.parent / "assets" / "examples" / "jev_pricing.json"


@st.cache_data
def scored(case: Case) -> dict:
    return score(case, ["chunk_relevance"], LexicalJudge()).to_dict()


case = Case.from_dict(json.loads(EXAMPLE.read_text()))
report = scored(case)
result = report["results"]["chunk_relevance"]

st.title("jeval playground")
st.caption("Seed example, scored by the lexical judge (word overlap: it approximates Jev).")
st.text(f"input: {case.input}")
col_score, col_label, col_pass = st.columns(3)
col_score.metric("chunk_relevance", f"{result['score']:.2f}")
col_label.metric("label", result["label"])
col_pass.metric("passed", "PASS" if result["passed"] else "FAIL")
st.text(result["reason"])
rows = [
    {"id": d["id"], "chunk": case.context[i], "p": round(d["p"], 3), "verdict": d["verdict"],
     "question (verbatim)": d["question"]}
    for i, d in enumerate(result["details"])
]
st.dataframe(pd.DataFrame(rows), hide_index=True)
st.subheader("The one request")
st.code(json.dumps(report["request"], indent=2, ensure_ascii=False), language="json")

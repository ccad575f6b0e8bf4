"""Picking a dataset (the sample or an upload, read once per file) and its preview."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from jeval_app.state import Keys
from jeval_app.views.boundary import error_line
from jeval_app.views.text import inert, plural
from jeval_core.errors import CaseError
from jeval_core.inputs import datasets
from jeval_core.inputs.datasets import Dataset
from jeval_core.runs.run import SAMPLE

UPLOAD_TYPES = ["jsonl", "ndjson", "csv", "tsv", "json"]


def pick_dataset(keys: Keys) -> Dataset | None:
    """The sample or an uploaded file, read once per file; a bad file says why in one line."""
    source = st.radio("Dataset", ["sample", "upload"], key=keys("source"), horizontal=True,
                      format_func={"sample": "The sample (45 cases, 9 domains)",
                                   "upload": "Upload a file"}.get, persist_state="session")
    cached = keys.get("loaded")
    if source == "sample":
        key, raw, name = "sample", None, SAMPLE.name
    else:
        upload = st.file_uploader(
            "A dataset: JSONL (one case per line), CSV (a header row) or a JSON array",
            type=UPLOAD_TYPES, key=keys("upload"), on_change=keys.drop, args=("loaded",),
            help="Field names as in a case file (ours, RAGAS, DeepEval, Galtea), plus "
                 "optional context_labels (0/1 per chunk) and reranked (chunk indices); or a "
                 "LangChain, LlamaIndex, OTLP, Langfuse or LangSmith export as it is (one "
                 "case per retrieval, each chunk's source kept).")
        if upload is None:
            # Back from another page, the uploader is empty but the file read before is kept
            # (removing it with the uploader's x forgets it).
            if cached is not None and cached[0].startswith("upload:"):
                st.caption(inert(f"Using {cached[1].name}, uploaded before; upload "
                                      "another file to replace it."))
                return cached[1]
            return None
        key, raw, name = f"upload:{upload.file_id}", upload.getvalue(), upload.name
    if cached is not None and cached[0] == key:
        return cached[1]
    try:
        dataset = datasets.load(SAMPLE) if raw is None else datasets.read(raw, name)
    except CaseError as err:
        error_line(f"{err}; nothing was loaded")
        return None
    keys.put("loaded", (key, dataset))
    return dataset


def preview(dataset: Dataset) -> None:
    """Rows read and skipped (with line and message), labels and rerankings, the first rows."""
    a, b, c, d = st.columns(4)
    a.metric("rows read", len(dataset.rows))
    b.metric("rows skipped", len(dataset.errors))
    c.metric("with chunk labels", dataset.labelled)
    d.metric("with a reranked order", dataset.with_reranked)
    if dataset.errors:
        st.warning(inert(
            f"{plural(len(dataset.errors), 'row was', 'rows were')} skipped; the others "
            f"will be scored. First: {dataset.errors[0]}"))
        with st.expander(f"The skipped rows ({len(dataset.errors)})"):
            st.dataframe(pd.DataFrame([e.to_dict() for e in dataset.errors]), hide_index=True,
                         width="stretch",
                         column_config={"message": st.column_config.TextColumn(width="large")})
    rows = [{"line": r.line, "id": r.id, "input": r.case.input, "output": r.case.output,
             "chunks": len(r.case.context),
             "labels": "" if r.labels is None else " ".join(
                 "-" if x is None else str(int(x)) for x in r.labels),
             "reranked": "" if r.reranked is None else " ".join(map(str, r.reranked))}
            for r in dataset.rows[:20]]
    st.caption(f"The first {len(rows)} of {len(dataset.rows)} rows")
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch", height=260,
                 column_config={"input": st.column_config.TextColumn(width="medium"),
                                "output": st.column_config.TextColumn(width="large")})

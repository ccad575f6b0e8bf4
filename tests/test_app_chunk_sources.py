"""The Playground shows where each chunk came from, beside its verdict: a case with the
pipeline's metadata (an uploaded export, a link) gets a caption "source · score · rank · id"
under each chunk's verdict, drawn inert, and the caption follows its chunk."""

from __future__ import annotations

import json
import re

from conftest import ROOT
from streamlit.testing.v1 import AppTest

from jeval_core import evaluators
from jeval_core.inputs import casefile, share

RETRIEVALS = ROOT / "assets" / "pipelines" / "langchain" / "retrievals.json"


def first_retrieval() -> dict:
    """The first retrieval of the LangChain fixture: a question, an answer, five documents."""
    return json.loads(RETRIEVALS.read_text(encoding="utf-8"))[0]


def expected_captions(retrieval: dict) -> list[str]:
    return [f"{d['metadata']['title']} · score {d['metadata']['score']:.2f} · rank {i} · "
            f"{d['id']}" for i, d in enumerate(retrieval["context"])]


def shown(markdown: str) -> str:
    """What a markdown-escaped text looks like on screen."""
    return re.sub(r"\\(.)", r"\1", markdown.replace("\u2060", ""))


def source_captions(at: AppTest) -> list[str]:
    return [shown(c.value) for c in at.caption if " · rank " in shown(c.value)]


def uploaded(raw: bytes, name: str = "retrieval.json") -> AppTest:
    at = AppTest.from_file("../app.py", default_timeout=60).run()
    at.file_uploader(key="upload").upload(name, raw, "application/json").run()
    return at


def test_an_uploaded_retrieval_shows_each_chunks_source_beside_its_verdict():
    retrieval = first_retrieval()
    at = uploaded(json.dumps(retrieval).encode())
    assert not at.exception
    assert [t.value for t in at.text_area if t.label.startswith("context[")] == [
        d["page_content"] for d in retrieval["context"]]
    assert source_captions(at) == expected_captions(retrieval)
    verdicts = [m.value for m in at.markdown if re.match(r":\w+-badge\[p \d\.\d\d", m.value)]
    assert len(verdicts) == len(retrieval["context"])  # each chunk: its verdict, then its source


def test_a_share_link_brings_the_sources_with_the_case():
    loaded = casefile.parse(first_retrieval())
    at = AppTest.from_file("../app.py", default_timeout=60)
    at.query_params["case"] = share.encode(loaded.case, evaluators.resolve(["chunk_relevance"]))
    at.run()
    assert source_captions(at) == expected_captions(first_retrieval())


def test_a_chunks_source_moves_with_it_and_goes_when_it_is_deleted():
    retrieval = first_retrieval()
    at = uploaded(json.dumps(retrieval).encode())
    first, second, *rest = expected_captions(retrieval)
    [b for b in at.button if b.key and b.key.startswith("down_")][0].click().run()
    assert source_captions(at) == [second, first, *rest]
    [b for b in at.button if b.key and b.key.startswith("drop_")][0].click().run()
    assert source_captions(at) == [first, *rest]


def test_a_case_without_metadata_shows_no_source_caption():
    at = AppTest.from_file("../app.py", default_timeout=60).run()
    assert not at.exception and source_captions(at) == []


def test_a_source_and_an_id_are_drawn_inert():
    hostile = "**bold** [click](http://evil.example) <b>x</b>"
    case = {"input": "Which plan?", "output": "The Pro plan.",
            "context": ["The Pro plan costs $20.", "The office is in Oslo."],
            "context_meta": [{"source": hostile, "id": "$x^2$", "score": 0.5, "rank": 0},
                             None]}
    at = uploaded(json.dumps(case).encode(), "case.json")
    assert not at.exception
    (caption,) = [c.value for c in at.caption if "rank 0" in c.value]
    assert "**bold**" not in caption and "](http" not in caption and "<b>" not in caption
    assert "`http://evil.example`" in caption  # an address is code, never a link
    assert shown(caption).startswith("**bold** [click](")


def test_the_dataset_page_reads_a_pipeline_export_as_it_is():
    export = ROOT / "assets" / "pipelines" / "langsmith" / "runs.jsonl"
    at = AppTest.from_file("../app.py", default_timeout=60).run()
    at.switch_page("pages/dataset.py").run()
    at.radio(key="ds_source").set_value("upload").run()
    at.file_uploader(key="ds_upload").upload("runs.jsonl", export.read_bytes()).run()
    assert not at.exception
    assert [m.value for m in at.metric if m.label == "rows read"] == ["2"]

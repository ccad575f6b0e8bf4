"""The Compare page through Streamlit's AppTest: two or three judges on one dataset, their
agreement, each against the labels, where they disagree, and the retriever vs the reranker."""

from __future__ import annotations

import json
import re

from conftest import job_ends_after_settings
from jevcompat.mock import MockConfig, Running
from streamlit.testing.v1 import AppTest

from jeval_core.inputs import datasets
from jeval_core.runs import compare
from jeval_core.runs.run import StoredOutcome
from jeval_core.runs.store import open_store

ROWS = [
    {"id": "hubble", "input": "When did the Hubble telescope launch?",
     "output": "Hubble launched in April 1990.",
     "context": ["The Hubble Space Telescope was launched in April 1990 aboard Discovery.",
                 "Mars has two small moons, Phobos and Deimos.",
                 "Hubble orbits about 540 km above the Earth."],
     "context_labels": [1, 0, 0], "reranked": [0, 2, 1]},
    {"id": "kettle", "input": "How do I descale my kettle?",
     "output": "Boil a mix of water and white vinegar, leave it an hour, then rinse.",
     "context": ["The Eiffel Tower is 330 metres tall.",
                 "To descale a kettle, boil equal parts water and white vinegar, let it stand "
                 "for an hour, then rinse it well.",
                 "Limescale builds up faster in hard-water areas."],
     "context_labels": [0, 1, 1], "reranked": [1, 2, 0]},
    {"id": "visa", "input": "Do I need a visa to visit Japan for two weeks as a UK citizen?",
     "output": "No, UK citizens can visit Japan visa-free for up to 90 days.",
     "context": ["UK passport holders can visit Japan without a visa for up to 90 days.",
                 "Japan's rainy season runs from June to July."],
     "context_labels": [1, 0]},
]
RAW = "\n".join(json.dumps(r) for r in ROWS).encode()
KEY = "sk-apptest-compare-1234"


def shown(markdown: str) -> str:
    return re.sub(r"\\(.)", r"\1", markdown).replace("\u2060", "")  # the joiner is invisible


def metric(at: AppTest, label: str) -> str | None:
    found = [m.value for m in at.metric if m.label == label]
    return found[0] if found else None


def app(upload: bool = True) -> AppTest:
    at = AppTest.from_file("../app.py", default_timeout=120).run()
    at.switch_page("pages/compare.py").run()
    if upload:
        at.radio(key="cmp_source").set_value("upload").run()
        at.file_uploader(key="cmp_upload").upload("three.jsonl", RAW).run()
    return at


def compared() -> AppTest:
    """The default comparison (local vs lexical on chunk_relevance) of the three rows."""
    at = app()
    at.button(key="cmp_run").click().run()
    if "cmp_job" in at.session_state:
        assert at.session_state["cmp_job"].wait(300), "the comparison did not end"
    return at.run()


def table_with(at: AppTest, column: str):
    return next(d.value for d in at.dataframe if column in d.value.columns)


def test_local_and_lexical_show_how_often_they_agree():
    at = compared()
    assert not at.exception and not at.error
    # The page shows what the core computes from the two stored runs.
    with open_store() as store:
        by_judge = {r.judge: store.cases(r.id) for r in store.runs()}
    dataset = datasets.read(RAW, "three.jsonl")
    outcomes = {j: {c.index: StoredOutcome(c.index, c.report) for c in cases}
                for j, cases in by_judge.items()}
    pair = compare.pair_agreement(dataset.rows, "local", outcomes["local"], "lexical",
                                  outcomes["lexical"])
    assert pair.questions == 8  # 3 + 3 + 2 chunks, one chunk_relevance question each
    assert metric(at, "same verdicts") == f"{pair.rate:.0%}"
    assert metric(at, "correlation of p") == (
        "—" if pair.correlation is None else f"{pair.correlation:.2f}")
    assert metric(at, "same case verdicts") == f"{pair.case_rate:.0%}"


def test_each_judge_is_measured_against_the_same_labels_with_intervals():
    table = table_with(compared(), "AUC")
    assert list(table["judge"]) == ["local", "lexical"]
    assert list(table["labels of"]) == ["chunk verdicts", "chunk verdicts"]
    assert list(table["n"]) == [8, 8]
    assert table["always no"].nunique() == 1  # the same labels for both
    assert all("[" in v for v in table["accuracy"])  # an interval: cases resampled
    assert table["precision"].notna().all() and table["recall"].notna().all()


def test_the_largest_disagreements_are_listed_with_what_was_judged():
    at = compared()
    table = table_with(at, "gap")
    assert list(table["gap"]) == sorted(table["gap"], reverse=True)
    assert {"p local", "p lexical", "text", "open"} <= set(table.columns)
    chunks = [chunk for r in ROWS for chunk in r["context"]]
    assert all(text in chunks for text in table["text"])  # each chunk's own text


def test_the_retriever_and_the_reranker_are_compared_by_precision_at_k():
    table = table_with(compared(), "P@1")
    assert list(table["ranking"]) == ["retriever (3 labelled cases)",
                                      "retriever (the 2 reranked cases)",
                                      "reranked (2 cases)"]
    # By hand from the labels: first chunks 1, 0, 1; reranked first chunks 1 and 1.
    assert list(table["P@1"]) == [2 / 3, 0.5, 1.0]


def test_each_judges_pass_is_stored_as_a_run():
    compared()
    with open_store() as store:
        names = sorted(r.name for r in store.runs())
    assert names == ["Compare · local vs lexical · lexical", "Compare · local vs lexical · local"]


def with_jev(at: AppTest, url: str, key: str) -> AppTest:
    """The hosted judge's connection, set in the sidebar as a user does (the page shows only
    the connection there, no judge radio)."""
    at.text_input(key="jev_base_url").set_value(url).run()
    return at.text_input(key="jev_key").set_value(key).run()


def run_now(at: AppTest) -> AppTest:
    at.button(key="cmp_run").click().run()
    if "cmp_job" in at.session_state:
        assert at.session_state["cmp_job"].wait(300), "the comparison did not end"
    return at.run()


def test_a_comparison_that_ends_while_the_page_is_drawn_is_still_shown(monkeypatch):
    """The comparison can end after the page collected finished ones and before it looked
    whether to poll: the poller stays on until a run of the page has collected it."""
    from jeval_app.views import compare_page

    at = app()
    job_ends_after_settings(monkeypatch, compare_page)
    at.button(key="cmp_run").click().run()  # and no at.run(): only the page's own reruns
    assert "cmp_job" not in at.session_state
    assert metric(at, "same verdicts") is not None


def test_three_judges_give_three_pairs():
    with Running(MockConfig()) as server:
        at = with_jev(app(), server.url, KEY)
        at.multiselect(key="cmp_judges").set_value(["local", "lexical", "jev"]).run()
        at = run_now(at)
    assert not at.error and not at.warning
    assert [m.label for m in at.metric].count("same verdicts") == 3
    assert list(table_with(at, "AUC")["judge"]) == ["local", "lexical", "jev"]


def test_a_judge_that_could_not_answer_says_why():
    with Running(MockConfig(key=KEY)) as server:
        at = with_jev(app(), server.url, "sk-wrong-000000")
        at.multiselect(key="cmp_judges").set_value(["lexical", "jev"]).run()
        at = run_now(at)
    [warning] = [shown(w.value) for w in at.warning]
    assert warning.startswith("jev could not answer 3 cases (left out of every number)")
    assert "401" in warning and "sk-wrong" not in warning


def test_the_hosted_judge_without_a_key_is_refused_before_anything_runs(monkeypatch):
    monkeypatch.delenv("TYPESAFE_API_KEY", raising=False)
    at = app()
    at.multiselect(key="cmp_judges").set_value(["lexical", "jev"]).run()
    at.button(key="cmp_run").click().run()
    [error] = [shown(e.value) for e in at.error]
    assert error.startswith("no API key for `https:") and "Nothing was sent" in error
    with open_store() as store:
        assert store.runs() == []


def test_one_judge_is_not_a_comparison():
    at = app()
    at.multiselect(key="cmp_judges").set_value(["local"]).run()
    assert at.button(key="cmp_run").disabled
    assert any("pick at least two judges" in shown(c.value) for c in at.caption)


def test_the_sample_is_the_default_dataset():
    at = app(upload=False)
    assert at.button(key="cmp_run").label == "Compare on 45 cases"


def test_the_compare_page_has_no_judge_radio_only_the_hosted_connection():
    at = AppTest.from_file("../app.py", default_timeout=60).run()
    at.switch_page("pages/compare.py").run()
    assert not at.exception
    assert not at.sidebar.radio  # the page picks its own judges
    assert [t.label for t in at.sidebar.text_input] == ["Base URL", "API key"]

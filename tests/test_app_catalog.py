"""A judge added to the catalog (one module, one entry) works on every page unchanged: the
Playground scores with it, the Dataset page runs it, Compare sets it beside another judge, and
the Dashboard lists and opens its runs. The judge here exists for this test only."""

from __future__ import annotations

import re

import pytest
from conftest import markdown
from streamlit.testing.v1 import AppTest

from jeval_core import judges
from jeval_core.errors import JudgeError
from jeval_core.judges import catalog
from jeval_core.judges.base import Answers, OfflineJudge
from jeval_core.runs.store import open_store

NAME = "steady"


class SteadyJudge(OfflineJudge):
    """Says 0.8 to every question: an offline judge as small as one can be."""

    name = NAME
    note = "A test-only judge that says 0.8 to everything."

    def answer(self, packed):
        return Answers({wid: 0.8 for wid in packed.asked})


@pytest.fixture(autouse=True)
def _steady_in_the_catalog(monkeypatch):
    monkeypatch.setitem(catalog.CATALOG, NAME, catalog.Entry(
        NAME, "Steady", "Steady (test only)", lambda **_: SteadyJudge()))


def shown(markdown: str) -> str:
    return re.sub(r"\\(.)", r"\1", markdown).replace("\u2060", "")


def captions(at: AppTest) -> str:
    return "\n".join(shown(c.value) for c in at.caption)


def open_page(page: str | None = None) -> AppTest:
    at = AppTest.from_file("../app.py", default_timeout=120).run()
    if page:
        at.switch_page(page).run()
    return at


def test_the_catalog_names_the_new_judge_and_builds_it():
    assert NAME in judges.names() and judges.labels()[NAME] == "Steady (test only)"
    assert NAME in judges.offline_names() and not judges.is_hosted(NAME)
    assert isinstance(judges.get(NAME), SteadyJudge)
    with pytest.raises(JudgeError, match="takes no settings"):
        judges.get(NAME, api_key="sk-x")


def test_the_playground_scores_with_it_offline():
    at = open_page()
    at.radio(key="judge").set_value(NAME).run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert "judge: steady" in captions(at)
    assert not [b for b in at.button if b.label.startswith("Score with")]  # no hosted button
    card = next(shown(m) for m in markdown(at)
                if m.startswith("**chunk\\_relevance**") and ":gray[· label]" in m)
    assert card.endswith("**100% yes**")  # every chunk at p 0.8: all relevant


def test_the_dataset_page_runs_it_and_the_dashboard_opens_the_run():
    at = open_page("pages/dataset.py")
    at.radio(key="judge").set_value(NAME).run()
    at.multiselect(key="ds_evaluators").set_value(["chunk_relevance"]).run()
    at.button(key="ds_run_button").click().run()
    if "ds_job" in at.session_state:
        assert at.session_state["ds_job"].wait(180), "the run did not end"
    at.run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert [m.value for m in at.metric if m.label == "cases scored"] == ["45 of 45"]
    with open_store() as store:
        mine = [r for r in store.runs() if r.judge == NAME]
    assert len(mine) == 1 and mine[0].status == "finished" and mine[0].aggregates is not None

    dash = open_page("pages/dashboard.py")
    listed = next(d.value for d in dash.dataframe if "kind" in d.value.columns)
    assert NAME in list(listed["judge"])
    dash.selectbox(key="dash_run").set_value(mine[0].id).run()
    assert not dash.exception and not dash.error, [e.value for e in dash.error]
    assert any(f"judge {NAME}" in shown(c.value) for c in dash.caption)


def test_compare_sets_it_beside_another_judge():
    at = open_page("pages/compare.py")
    at.multiselect(key="cmp_judges").set_value(["lexical", NAME]).run()
    at.button(key="cmp_run").click().run()
    if "cmp_job" in at.session_state:
        assert at.session_state["cmp_job"].wait(300), "the comparison did not end"
    at.run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert any(f"**lexical** vs **{NAME}**" in shown(m.value) for m in at.markdown)

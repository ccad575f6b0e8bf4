"""The Dashboard through Streamlit's AppTest: example runs on an empty store, the run list,
one run in detail (a badge and a reason per metric), two runs compared, deleting a run."""

from __future__ import annotations

import re

from conftest import ROOT
from streamlit.testing.v1 import AppTest

from jeval_core import judges
from jeval_core.evaluators import EVALUATORS
from jeval_core.inputs import datasets
from jeval_core.runs import run as runs
from jeval_core.runs.store import open_store

SAMPLE = ROOT / "assets" / "datasets" / "sample.jsonl"
def app() -> AppTest:
    at = AppTest.from_file("../app.py", default_timeout=120).run()
    return at.switch_page("pages/dashboard.py").run()


def shown(markdown: str) -> str:
    return re.sub(r"\\(.)", r"\1", markdown).replace("\u2060", "")  # the joiner is invisible


def metric(at: AppTest, label: str) -> str | None:
    found = [m.value for m in at.metric if m.label == label]
    return found[0] if found else None


def runs_table(at: AppTest):
    return next(d.value for d in at.dataframe if "kind" in d.value.columns)


def two_runs_of_chunk_relevance(strict: float = 0.7) -> None:
    """Two stored runs of the sample that differ only in chunk_relevance's threshold."""
    sample = datasets.load(SAMPLE)
    with open_store() as store:
        for name, threshold in (("lenient", 0.3), ("strict", strict)):
            runs.run_dataset(sample, judges.get("lexical"), store, name=name,
                             chosen=[EVALUATORS["chunk_relevance"]],
                             thresholds={"chunk_relevance": threshold})


def test_an_empty_store_starts_with_labelled_example_runs():
    at = app()
    assert not at.exception and not at.error
    table = runs_table(at)
    assert list(table["name"]) == [name for name, *_ in reversed(runs.SEEDS)]
    assert set(table["kind"]) == {"example"}
    assert set(table["cases"]) == {"45/45"}


def test_a_store_with_runs_is_not_seeded():
    two_runs_of_chunk_relevance()
    table = runs_table(app())
    assert list(table["name"]) == ["strict", "lenient"]
    assert set(table["kind"]) == {""}


def test_the_run_list_shows_judge_pass_rate_cost_and_status():
    table = runs_table(app())
    assert {"time", "judge", "pass rate", "cost", "status", "dataset"} <= set(table.columns)
    assert set(table["judge"]) == {j for _, j, *_ in runs.SEEDS}
    assert set(table["status"]) == {"finished"}
    assert set(table["cost"]) == {0.0}


def test_the_trend_covers_every_run_of_the_dataset():
    at = app()
    assert at.selectbox(key="dash_trend_dataset").value == "sample.jsonl"
    assert any(shown(c.value).startswith(f"{len(runs.SEEDS)} runs of sample.jsonl")
               for c in at.caption)


def test_a_runs_detail_has_its_aggregate_cards():
    at = app()
    assert metric(at, "cases scored") == "45 of 45"
    assert metric(at, "chunk AUC") is not None


def test_a_case_in_detail_has_a_badge_a_score_and_a_reason_per_metric():
    two_runs_of_chunk_relevance()
    at = app()
    at.selectbox(key="dash_case").set_value("support-01").run()
    badges = [shown(m.value) for m in at.markdown if "chunk_relevance" in shown(m.value)]
    assert any(re.match(r"\*\*chunk_relevance\*\* :(green|red)-badge\[(PASS|FAIL)\] "
                        r":gray\[score\]\u00a0\*\*\d\.\d\d\*\*", b) for b in badges)
    assert any("Passes at score ≥ 0.70" in shown(c.value) for c in at.caption)
    assert any("chunks relevant" in shown(c.value) for c in at.caption)


def test_two_runs_show_which_cases_flipped_and_why():
    two_runs_of_chunk_relevance()
    at = app()
    flipped = int(metric(at, "pass → fail"))
    assert flipped > 0 and metric(at, "fail → pass") == "0"
    table = next(d.value for d in at.dataframe if "why in A" in d.value.columns)
    assert len(table) == flipped
    assert set(table["A"]) == {"PASS"} and set(table["B"]) == {"FAIL"}
    assert all("PASS" in why for why in table["why in A"])
    assert all("FAIL" in why and "0.70" in why for why in table["why in B"])


def test_a_flipped_case_is_shown_side_by_side():
    two_runs_of_chunk_relevance()
    at = app()
    titles = [shown(m.value) for m in at.markdown if m.value.startswith("**A ·")
              or m.value.startswith("**B ·")]
    assert titles == ["**A · lenient** :green-badge[PASS]", "**B · strict** :red-badge[FAIL]"]


def test_deleting_a_run_asks_first():
    at = app()
    at.button(key="dash_delete").click().run()
    assert any("cannot be undone" in shown(w.value) for w in at.warning)
    with open_store() as store:
        assert len(store.runs()) == len(runs.SEEDS)
    at.button(key="dash_delete_yes").click().run()
    with open_store() as store:
        assert len(store.runs()) == len(runs.SEEDS) - 1
    assert len(runs_table(at)) == len(runs.SEEDS) - 1
    assert any(shown(s.value).startswith("Deleted the run") for s in at.success)


def test_keep_it_leaves_the_run_alone():
    at = app()
    at.button(key="dash_delete").click().run()
    at.button(key="dash_delete_no").click().run()
    assert not at.warning
    with open_store() as store:
        assert len(store.runs()) == len(runs.SEEDS)


def test_an_unusable_store_is_one_line_not_a_traceback(monkeypatch):
    monkeypatch.setenv("JEVAL_DB", "nosuchdriver://x")
    at = app()
    assert not at.exception
    [error] = at.error
    assert "JEVAL_DB" in shown(error.value)


def test_a_runs_label_names_its_judge_once():
    two_runs_of_chunk_relevance()  # named "lenient" and "strict": the label adds the judge
    with open_store() as store:
        runs.run_dataset(datasets.load(SAMPLE), judges.get("lexical"), store,
                         chosen=[EVALUATORS["chunk_relevance"]])  # "sample.jsonl · lexical"
    at = app()
    options = at.selectbox(key="dash_run").options
    default = next(o for o in options if " · sample.jsonl · " in o)
    assert default.count("lexical") == 1  # was "… · sample.jsonl · lexical · lexical · id"
    assert any(" · strict · lexical · " in o for o in options)


def test_fit_and_keep_fits_in_its_callback_keeps_the_profile_and_shows_its_figures():
    at = app()
    fit = next(b for b in at.button if b.label == "Fit and keep")
    at = fit.click().run()
    assert not at.exception
    heads = [m.value for m in at.markdown if "labels in" in m.value]
    assert heads and heads[0].startswith("**helps")  # bold, not escaped markdown
    assert any("built-in" in str(d.value) for d in at.dataframe if "curve" in d.value.columns)
    with open_store() as store:
        kept = store.profiles()
    assert kept or any("kept the built-in curve" in shown(c.value) for c in at.caption)


def test_a_runs_which_k_reads_the_stored_verdicts_and_chooses_k():
    at = app()
    at.session_state["dash_ksweep_open"] = True
    at.run()
    assert not at.exception
    said = [shown(c.value) for c in at.caption if "Smallest k keeping" in shown(c.value)]
    assert said and "mean recall ≥ 0.80: **k = " in said[0]
    at.slider(key="dash_ksweep_recall").set_value(1.0).run()
    stricter = [shown(c.value) for c in at.caption if "mean recall ≥ 1.00" in shown(c.value)]
    assert stricter  # the level moves the choice, the judge is not asked


def test_a_runs_supported_at_k_is_the_answers_faithfulness_against_the_first_k_chunks():
    """supported@k on a stored run (offline judge, on request): at the chosen k, the mean of
    each answer's faithfulness scored against its first k chunks."""
    from jeval_core import score
    from jeval_core.analysis import k_sweep

    at = app()
    at.session_state["dash_ksweep_open"] = True
    at.run()
    at.toggle(key="dash_ksweep_support").set_value(True).run()
    assert not at.exception
    said = next(shown(c.value) for c in at.caption if "supported@k there" in shown(c.value))
    k = int(re.search(r"\*\*k = (\d+)\*\*", said).group(1))
    local = judges.get("local")
    cases = [row.case for row in datasets.load(ROOT / "assets/datasets/sample.jsonl").rows]
    found = [score(k_sweep.cut(c, k), [EVALUATORS["faithfulness"]], local).results[
        "faithfulness"] for c in cases if c.output.strip()]
    expected = sum(r.score for r in found if not r.skipped) / sum(
        1 for r in found if not r.skipped)
    assert f"**{expected:.2f}** of each answer's sentences" in said, (said, expected)


def test_two_runs_show_each_metric_in_a_and_b_and_which_reads_worse():
    two_runs_of_chunk_relevance()  # the same scores, a stricter threshold in B
    at = app()
    deltas = next(d.value for d in at.dataframe if "Δ mean" in d.value.columns)
    row = deltas[deltas["metric"] == "chunk_relevance"].iloc[0]
    assert row["Δ mean"] == 0 and row["pass B"] < row["pass A"] and row["B"] == "worse"


def test_a_runs_noise_is_traced_and_near_duplicates_counted():
    at = app()
    at.session_state["dash_noise_open"] = True
    at.run()
    assert not at.exception
    captions = [shown(c.value) for c in at.caption]
    assert any(c.startswith("Near-duplicates: 0 of ") for c in captions)
    assert any("By source document: the pipeline gave none" in c for c in captions)


def test_a_pipeline_runs_noise_is_shown_by_source_and_score_range():
    export = datasets.load(ROOT / "assets" / "pipelines" / "llamaindex" / "responses.json")
    with open_store() as store:
        runs.run_dataset(export, judges.get("local"), store,
                         chosen=[EVALUATORS["chunk_relevance"]])
    at = app()
    at.session_state["dash_noise_open"] = True
    at.run()
    tables = [d.value for d in at.dataframe if "of the relevant chunks" in d.value.columns]
    assert len(tables) == 2  # by source, by score range
    by_source, by_score = tables
    assert "webhooks.md" in set(by_source["group"]) and by_source["chunks"].sum() == 12
    assert by_score["chunks"].sum() == 12


def test_a_hosted_runs_supported_at_k_is_read_from_its_chunk_support_answers():
    """A run asked of the hosted judge with chunk_support beside chunk relevance (still one
    request per case) draws supported@k from what it stored, no toggle and no request: at
    the chosen k, the mean over the answers of the share of their sentences a chunk among
    the first k was judged to state, as scoring each case again gives it."""
    from jevcompat.mock import MockConfig, Running

    from jeval_core import score
    from jeval_core.evaluators import chunk_support
    from jeval_core.judges.jev import JevJudge

    sample = datasets.load(SAMPLE)
    asked = [EVALUATORS["chunk_relevance"], chunk_support.EVALUATOR]
    config = MockConfig(key="sk-run-support-1357")
    with Running(config) as server:
        judge = JevJudge(api_key="sk-run-support-1357", base_url=server.url)
        with open_store() as store:
            runs.run_dataset(sample, judge, store, name="hosted", chosen=asked)
        assert config.requests == len(sample.rows)  # one request per case
        again = [(row.case, score(row.case, asked, judge)) for row in sample.rows]
    at = app()
    at.session_state["dash_ksweep_open"] = True
    at.run()
    assert not at.exception
    assert not [t for t in at.toggle if t.key == "dash_ksweep_support"]  # nothing to ask
    said = next(shown(c.value) for c in at.caption if "supported@k there" in shown(c.value))
    k = int(re.search(r"\*\*k = (\d+)\*\*", said).group(1))
    shares = []
    for case, report in again:
        stated = report.results["chunk_support"]
        if not stated.skipped:
            shares.append(chunk_support.supported_at(stated, len(case.output_sentences), k))
    expected = sum(shares) / len(shares)
    assert f"**{expected:.2f}** of each answer's sentences" in said, (said, expected)

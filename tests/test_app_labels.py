"""Labelling in the Playground (AppTest): one click per chunk and per verdict, the agreement
line under the summary band, and the labels in the case's JSON and its share link."""

import json
import re

from conftest import ROOT, load_file
from streamlit.testing.v1 import AppTest

from jeval_app import state
from jeval_app.views.text import inert
from jeval_core import judges, score
from jeval_core.analysis.labels import Labels
from jeval_core.inputs import share


def app() -> AppTest:
    return AppTest.from_file("../app.py", default_timeout=60).run()


def markdown(at: AppTest) -> str:
    return "\n".join(re.sub(r"\\(.)", r"\1", m.value) for m in at.markdown)


def verdict_control(at: AppTest, name: str):
    """The card's ✓/✗ control: its label is the card's header line."""
    return at.segmented_control(key=state.truth_key(name))


def label_controls(at: AppTest):
    return [s for s in at.segmented_control if s.label.startswith("Your label for context[")]


SEED = load_file("jev_pricing")
VERDICTS = [d.yes for d in score(SEED.case, SEED.chosen(), judges.get("local"))
            .results["chunk_relevance"].details]


def test_every_chunk_has_a_relevant_or_noise_label():
    at = app()
    controls = label_controls(at)
    assert len(controls) == len(SEED.case.context)
    assert controls[0].options == ["relevant", "noise"]


TRUTH = Labels.from_extra(SEED.extra, len(SEED.case.context))
REPORT = score(SEED.case, SEED.chosen(), judges.get("local"))


def test_an_example_opens_with_its_stated_truth_as_labels():
    at = app()
    assert [c.value for c in label_controls(at)] == [
        "relevant" if t else "noise" for t in TRUTH.chunks]
    agreed = sum(v == t for v, t in zip(VERDICTS, TRUTH.chunks, strict=True))
    assert "labels agree:" in markdown(at) and f"{agreed}/4 chunks" in markdown(at)


def test_a_label_the_judge_contradicts_is_marked_beside_its_chunk():
    at = app()
    label_controls(at)[0].set_value("noise" if VERDICTS[0] else "relevant").run()
    text = markdown(at)
    agreed = sum(v == t for v, t in zip(VERDICTS, TRUTH.chunks, strict=True))
    assert f"{agreed - 1}/4 chunks" in text
    assert f"✗ you: {'noise' if VERDICTS[0] else 'relevant'}" in text


def test_with_every_label_cleared_the_band_says_nothing_of_labels():
    at = app()
    for control in label_controls(at):
        control.set_value(None).run()
        at.run()
    verdict_control(at, "chunk_relevance").set_value(None).run()
    assert "labels agree" not in markdown(at)


def test_an_evaluator_verdict_label_the_judge_contradicts_is_named():
    at = app()
    wrong = "fail" if REPORT.results["chunk_relevance"].passed else "pass"
    verdict_control(at, "chunk_relevance").set_value(wrong).run()
    assert "0/1 verdict" in markdown(at)
    assert f"✗ you: {wrong}" in verdict_control(at, "chunk_relevance").label


def test_the_cards_header_is_its_verdict_controls_label():
    # one element for the header and the ✓/✗ beside it (was a row holding the two)
    header = verdict_control(app(), "chunk_relevance").label
    assert header.startswith(f"**{inert('chunk_relevance')}** ")
    assert ":gray[score]" in header and "50% yes" in header


def test_the_labels_travel_in_the_share_link():
    at = app()
    label_controls(at)[1].set_value(None).run()
    shared = share.decode(at.query_params["case"])
    labels = Labels.from_extra(shared.file.extra, len(shared.file.case.context))
    assert labels.chunks == (TRUTH.chunks[0], None, *TRUTH.chunks[2:])


def test_a_shared_link_with_labels_opens_with_them_set():
    token = share.encode(SEED.case, SEED.chosen(), None, None,
                         Labels((True, False, None, None)).to_extra())
    at = AppTest.from_file("../app.py", default_timeout=60)
    at.query_params["case"] = token
    at.run()
    assert [c.value for c in label_controls(at)] == ["relevant", "noise", None, None]


def test_labels_are_written_as_a_case_file_reads_them():
    payload = Labels((None, None, True, None), (("faithfulness", False),)).to_extra(
        {"truth": {"evaluators": {"faithfulness": {"why": "kept"}}}})
    assert json.loads(json.dumps(payload)) == {
        "context_labels": [None, None, 1, None],
        "truth": {"evaluators": {"faithfulness": {"why": "kept", "passed": False}}}}
    assert Labels.from_extra(payload, 4) == Labels((None, None, True, None),
                                                    (("faithfulness", False),))


def test_a_stored_profile_is_picked_in_the_sidebar_and_the_results_say_so(tmp_path):
    from jeval_core.calibration import profile_fit
    from jeval_core.inputs import datasets
    from jeval_core.runs.store import open_store

    data = datasets.load(ROOT / "assets" / "datasets"
                         / "labelled_helpdesk.jsonl")
    fitted = profile_fit.fit(profile_fit.labelled(data.rows), "helpdesk", data.sha256, data.name,
                         judges.get("local"))
    with open_store() as store:
        store.save_profile(fitted)
    at = app()
    at.selectbox(key="calibration").set_value(f"helpdesk · {fitted.fingerprint}").run()
    at.run()
    assert f"(calibration profile helpdesk · {fitted.fingerprint})" in markdown(at)


def test_a_chunk_replaced_by_other_text_loses_its_label_and_a_typed_edit_keeps_it():
    at = app()
    def areas():
        return [a for a in at.text_area if a.label.startswith("context[")]

    before = [c.value for c in label_controls(at)]
    areas()[0].set_value(SEED.case.context[0] + " Per request.").run()
    at.run()
    areas()[1].set_value("Our office is closed on public holidays in the Netherlands.").run()
    at.run()
    after = [c.value for c in label_controls(at)]
    assert after[0] == before[0] and before[1] is not None and after[1] is None


def test_a_new_case_pasted_over_the_seed_drops_the_seeds_verdict_labels():
    at = app()
    assert verdict_control(at, "chunk_relevance").value is not None
    at.text_area(key=state.INPUT).set_value("What is the capital of Australia?").run()
    assert verdict_control(at, "chunk_relevance").value is None
    assert "✗ you: pass" not in markdown(at) and "✗ you: fail" not in markdown(at)


def test_switching_the_judge_and_back_keeps_the_case_and_every_label():
    """Found by a new user: Jev (before it is asked) draws no result card, so its pass/fail
    control was not drawn and Streamlit dropped the label; back on the local judge the case
    read "Modified"."""
    at = AppTest.from_file("../app.py", default_timeout=60).run()

    def labels(at: AppTest) -> list:
        return [(c.key, c.value) for c in at.get("button_group")
                if str(c.key).startswith(("label_", "truth_"))]

    before = labels(at)
    assert ("truth_chunk_relevance", state.PASS) in before and len(before) == 5
    for judge in ("jev", "local", "openai", "local"):
        at.sidebar.radio[0].set_value(judge).run()
    assert not at.exception
    assert labels(at) == before
    assert not [c.value for c in at.caption if c.value.startswith("Modified")]
    assert not [m.value for m in at.markdown if m.value.startswith("Modified")]

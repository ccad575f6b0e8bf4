"""The Playground page through Streamlit's AppTest: render, edit, judge, share."""

import re

import pytest
from conftest import load_case
from jev_servers import FaultyServer, MockProcess
from jevcompat.mock import MockConfig, Running
from streamlit.testing.v1 import AppTest
from test_questions import SEED_QUESTIONS

from jeval_core import evaluators, share

KEY = "sk-apptest-1234abcd"


def app() -> AppTest:
    return AppTest.from_file("../app.py", default_timeout=60).run()


def shown(markdown: str) -> str:
    """What a markdown-escaped message looks like on screen."""
    return re.sub(r"\\(.)", r"\1", markdown)


def metric(at: AppTest, label: str) -> list[str]:
    return [m.value for m in at.metric if m.label == label]


def captions(at: AppTest) -> str:
    return "\n".join(shown(c.value) for c in at.caption)


def chunk_areas(at: AppTest):
    return [t for t in at.text_area if t.label.startswith("context[")]


def sent_questions(at: AppTest) -> list[str]:
    """The verbatim question block: one line per question, `id  p=0.62  text`."""
    for block in at.code:
        if block.value.startswith("cr0"):
            return [line.split("  ", 2)[2] for line in block.value.splitlines()]
    return []


def test_opens_on_the_seed_example_scored_offline():
    at = app()
    assert not at.exception
    assert metric(at, "label") == ["50% yes"]
    assert sent_questions(at) == SEED_QUESTIONS
    assert "judge: local" in captions(at)


def test_editing_a_chunk_rescores_it():
    at = app()
    chunk_areas(at)[1].set_value(
        "Jev costs $42 per billion input tokens, and output tokens are not billed.").run()
    assert metric(at, "label") == ["75% yes"]


def test_editing_the_input_rescores():
    at = app()
    at.text_area(key="input").set_value("When was the company founded?").run()
    assert metric(at, "label") != ["50% yes"]


def test_selecting_evaluators_adds_their_cards():
    at = app()
    at.multiselect(key="evaluators").set_value(["chunk_relevance", "toxicity"]).run()
    assert len(metric(at, "label")) == 2
    assert any("toxicity" in m.value for m in at.markdown)


def test_the_judge_can_be_switched_in_the_sidebar():
    at = app()
    at.sidebar.radio[0].set_value("lexical").run()
    assert "judge: lexical" in captions(at)
    assert metric(at, "label") == ["50% yes"]


def test_the_hosted_judge_is_called_only_when_asked():
    with Running(MockConfig()) as server:
        at = app()
        at.sidebar.radio[0].set_value("jev").run()
        at.sidebar.text_input(key="jev_base_url").set_value(server.url).run()
        at.sidebar.text_input(key="jev_key").set_value(KEY).run()
        score_button = [b for b in at.button if b.label.startswith("Score with Jev")]
        assert score_button and "~$" in score_button[0].label  # the cost shows before the call
        assert "judge: jev" not in captions(at)
        score_button[0].click().run()
    assert "judge: jev" in captions(at) and "request id req_mock" in captions(at)


def test_hosted_results_turn_stale_when_the_case_changes_and_typing_costs_nothing():
    config = MockConfig()
    with Running(config) as server:
        at = app()
        at.sidebar.radio[0].set_value("jev").run()
        at.sidebar.text_input(key="jev_base_url").set_value(server.url).run()
        at.sidebar.text_input(key="jev_key").set_value(KEY).run()
        [b for b in at.button if b.label.startswith("Score with Jev")][0].click().run()
        at.text_area(key="input").set_value("Are output tokens billed?").run()
    assert config.requests == 1
    assert any("the case changed" in w.value for w in at.warning)


def test_a_judge_error_shows_one_message_and_keeps_text_and_results():
    server = MockProcess("--key", KEY)
    try:
        at = app()
        typed = "How is Jev priced, really?"
        at.text_area(key="input").set_value(typed).run()
        at.sidebar.radio[0].set_value("jev").run()
        at.sidebar.text_input(key="jev_base_url").set_value(server.url).run()
        at.sidebar.text_input(key="jev_key").set_value("sk-wrong-000").run()
        [b for b in at.button if b.label.startswith("Score with Jev")][0].click().run()
    finally:
        server.stop()
    assert len(at.error) == 1 and "(401)" in shown(at.error[0].value)
    assert "sk-wrong-000" not in shown(at.error[0].value)
    assert at.text_area(key="input").value == typed
    assert any("last good results" in w.value for w in at.warning)
    assert metric(at, "label")  # the last good results are still shown


def test_a_share_link_restores_the_case():
    case = load_case("with_expected")
    at = AppTest.from_file("../app.py", default_timeout=60)
    chosen = evaluators.resolve(["chunk_relevance", "contextual_precision"])
    at.query_params["case"] = share.encode(case, chosen, "lexical")
    at.run()
    assert at.text_area(key="input").value == case.input
    assert at.text_area(key="expected").value == case.expected
    assert [t.value for t in chunk_areas(at)] == list(case.context)
    assert at.multiselect(key="evaluators").value == ["chunk_relevance", "contextual_precision"]
    assert "judge: lexical" in captions(at)


def test_a_damaged_share_link_says_so_and_opens_the_seed():
    at = AppTest.from_file("../app.py", default_timeout=60)
    at.query_params["case"] = "v1.not-a-real-token"
    at.run()
    assert any("damaged" in shown(w.value) for w in at.warning)
    assert metric(at, "label") == ["50% yes"]


def test_copy_link_puts_the_case_in_the_url_without_a_key():
    at = app()
    at.sidebar.radio[0].set_value("jev").run()
    at.sidebar.text_input(key="jev_key").set_value(KEY).run()
    [b for b in at.button if b.label == "Copy link"][0].click().run()
    token = at.query_params["case"]
    token = token[0] if isinstance(token, list) else token
    assert share.decode(token).file.case.input.startswith("How is Jev priced")
    assert KEY not in token and all(KEY not in c.value for c in at.code)


def test_pasting_many_chunks_splits_on_blank_lines():
    at = app()
    at.text_area(key="paste").set_value("First new chunk.\n\nSecond one.\n  \nThird.").run()
    [b for b in at.button if b.label == "Append them"][0].click().run()
    assert [t.value for t in chunk_areas(at)][-3:] == ["First new chunk.", "Second one.",
                                                     "Third."]


def test_chunks_can_be_moved_and_deleted():
    at = app()
    first, second = (t.value for t in chunk_areas(at)[:2])
    [b for b in at.button if b.key and b.key.startswith("down_")][0].click().run()
    assert [t.value for t in chunk_areas(at)[:2]] == [second, first]
    [b for b in at.button if b.key and b.key.startswith("drop_")][0].click().run()
    assert len(chunk_areas(at)) == 3


def test_the_case_survives_a_page_switch():
    at = app()
    at.text_area(key="input").set_value("Is the legacy endpoint deprecated?").run()
    at.switch_page("pages/metrics.py").run()
    at.switch_page("pages/playground.py").run()
    assert at.text_area(key="input").value == "Is the legacy endpoint deprecated?"


@pytest.mark.parametrize("hostile", ["<script>alert(1)</script>", "**bold** $x^2$ <b>hi</b>"])
def test_untrusted_text_is_never_rendered_as_markdown(hostile):
    at = app()
    chunk_areas(at)[0].set_value(hostile).run()
    assert not at.exception
    assert all(hostile not in m.value for m in at.markdown)
    assert all(hostile not in c.value for c in at.caption)


def test_the_environment_key_never_goes_to_a_base_url_a_visitor_types(monkeypatch):
    monkeypatch.setenv("TYPESAFE_API_KEY", KEY)
    monkeypatch.delenv("TYPESAFE_BASE_URL", raising=False)
    with Running(MockConfig()) as mock, FaultyServer(mock.url, []) as elsewhere:
        at = app()
        at.sidebar.radio[0].set_value("jev").run()
        at.sidebar.text_input(key="jev_base_url").set_value(elsewhere.url).run()
        [b for b in at.sidebar.button if b.label.startswith("Load models")][0].click().run()
    assert elsewhere.seen == []  # nothing was sent, so no header could carry the key
    assert any("no API key" in shown(e.value) for e in at.sidebar.error)


def test_a_key_typed_for_a_server_goes_to_that_server(monkeypatch):
    monkeypatch.setenv("TYPESAFE_API_KEY", "sk-environment-0000000000")
    with Running(MockConfig()) as mock, FaultyServer(mock.url, []) as server:
        at = app()
        at.sidebar.radio[0].set_value("jev").run()
        at.sidebar.text_input(key="jev_base_url").set_value(server.url).run()
        at.sidebar.text_input(key="jev_key").set_value(KEY).run()
        [b for b in at.sidebar.button if b.label.startswith("Load models")][0].click().run()
    sent = [r["headers"].get("Authorization") for r in server.seen]
    assert sent == [f"Bearer {KEY}"]


def test_a_crafted_share_link_cannot_break_the_page():
    at = AppTest.from_file("../app.py", default_timeout=60)
    at.query_params["case"] = "v1." + "W1tb" * 80  # base64 of nested [[[
    at.run()
    assert not at.exception
    assert any("damaged" in shown(w.value) for w in at.warning)
    assert metric(at, "label") == ["50% yes"]


def test_old_chunks_do_not_pile_up_in_the_session():
    at = app()
    for name in ("noisy_retrieval", "clean_retrieval", "jev_pricing"):
        at.selectbox(key="example").set_value(name).run()
    chunk_keys = [k for k in at.session_state.keys()  # noqa: SIM118 (no __iter__)
                  if str(k).startswith("chunk_") and k != "chunk_ids"]
    assert len(chunk_keys) == len(load_case("jev_pricing").context)

"""Your own model as the judge in the Playground (AppTest): picked in the sidebar, each
question verbatim with its probability, the requests and the prompt template shown."""

import math
import re

import pytest
from conftest import load_case, press_and_wait
from hostile_server import HostileServer, Reply
from streamlit.testing.v1 import AppTest

from jeval_core import evaluators
from jeval_core.request import pack

KEY = "sk-openai-apptest-1234abcd"
CHAT = "/v1/chat/completions"
P_YES = 0.75


def reply(prompt_tokens: int = 300, cached: int = 200) -> dict:
    """Every question answered Yes 0.6 / No 0.2: p(yes) = 0.75."""
    items = [{"token": "Yes", "logprob": math.log(0.6)}, {"token": " No", "logprob": math.log(0.2)}]
    return {"choices": [{"message": {"role": "assistant", "content": "Yes"}, "logprobs": {
        "content": [{**items[0], "top_logprobs": items}]}}], "model": "my-model",
        "usage": {"prompt_tokens": prompt_tokens, "prompt_tokens_details": {
            "cached_tokens": cached}}}


@pytest.fixture(autouse=True)
def no_openai_environment(monkeypatch):
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)


def openai_app(url: str, key: str | None = None) -> AppTest:
    at = AppTest.from_file("../app.py", default_timeout=180).run()
    at.sidebar.radio[0].set_value("openai").run()
    at.sidebar.text_input(key="openai_base_url").set_value(url).run()
    at.sidebar.text_input(key="openai_model").set_value("my-model").run()
    if key is not None:
        at.sidebar.text_input(key="openai_key").set_value(key).run()
    return at


def press_score(at: AppTest) -> None:
    press_and_wait(at, "Score with your model")


def captions(at: AppTest) -> str:
    """The captions as they read on screen (markdown escapes undone)."""
    return "\n".join(re.sub(r"\\(.)", r"\1", c.value) for c in at.caption)


def test_the_sidebar_offers_your_own_model_with_an_optional_key_in_a_password_box():
    at = AppTest.from_file("../app.py", default_timeout=180).run()
    at.sidebar.radio[0].set_value("openai").run()
    box = at.sidebar.text_input(key="openai_key")
    assert box.label.startswith("API key (optional") and box.proto.type == box.proto.PASSWORD
    assert at.sidebar.text_input(key="openai_base_url").value == "https://api.openai.com/v1"


def test_the_button_says_one_request_per_question_and_nothing_is_sent_before_it():
    asked = len(pack(load_case("jev_pricing"), (evaluators.EVALUATORS["chunk_relevance"],)).asked)
    with HostileServer() as server:
        server.script("POST", CHAT, Reply(200, {}, reply()))
        at = openai_app(f"{server.url}/v1")
        labels = [b.label for b in at.button if b.label.startswith("Score with your model")]
        assert labels and f"({asked} requests, one per question)" in labels[0]
        assert not server.received("POST", CHAT)
        press_score(at)
        assert len(server.received("POST", CHAT)) == asked


def test_each_question_is_shown_verbatim_with_its_probability_from_your_model():
    with HostileServer() as server:
        server.script("POST", CHAT, Reply(200, {}, reply()))
        at = openai_app(f"{server.url}/v1")
        press_score(at)
    assert "judge: openai" in captions(at) and "model my-model" in captions(at)
    table = at.dataframe[0].value
    assert len(table) == 4 and list(table["p"]) == pytest.approx([P_YES] * 4)
    at.session_state["verbatim_open"] = True
    at.run()
    block = next(c.value for c in at.code if "cr0  p=0.75  `context[0]` contains" in c.value)
    assert "helps answer `input`" in block


def test_the_band_counts_the_requests_your_model_was_sent():
    with HostileServer() as server:
        server.script("POST", CHAT, Reply(200, {}, reply()))
        at = openai_app(f"{server.url}/v1")
        press_score(at)
        sent = len(server.received("POST", CHAT))
    band = next(m.value for m in at.markdown if "judge **" in m.value)
    assert sent == 4 and "4 questions in 4 requests" in band


def test_the_request_view_shows_the_template_requests_and_cached_tokens():
    with HostileServer() as server:
        server.script("POST", CHAT, Reply(200, {}, reply(prompt_tokens=300, cached=200)))
        at = openai_app(f"{server.url}/v1")
        press_score(at)
        sent = len(server.received("POST", CHAT))
    box = next(e for e in at.expander if e.label.startswith("The requests:"))
    assert f"{sent} requests, {300 * sent:,} input tokens, {200 * sent:,} from the prefix" in (
        box.label)
    at.session_state["request_open"] = True
    at.run()
    assert [m.value for m in at.metric if m.label == "cached tokens"] == [f"{200 * sent:,}"]
    assert any("Statement: {the question, verbatim}" in c.value for c in at.code)


def test_a_typed_key_goes_to_that_server_and_leaves_the_page():
    with HostileServer() as server:
        server.script("POST", CHAT, Reply(200, {}, reply()))
        at = openai_app(f"{server.url}/v1", KEY)
        assert at.sidebar.text_input(key="openai_key").value == ""
        press_score(at)
        assert {r.key for r in server.received("POST", CHAT)} == {KEY}
    assert KEY not in str(at.query_params)


def test_a_model_without_logprobs_is_one_error_naming_the_question():
    with HostileServer() as server:
        server.script("POST", CHAT, Reply(200, {}, {"choices": [{"message": {
            "content": "Yes"}}]}))
        at = openai_app(f"{server.url}/v1")
        press_score(at)
    assert any("questions have no answer" in e.value and "no token probabilities" in e.value
               for e in at.error)
    assert "judge: openai" not in captions(at)


MEASURED = {"openai": {"models": {"my-model": {
    "command": "python bench/calibrate.py --judge openai --limit 40 --model my-model",
    "model": "my-model", "examples_met": [3, 9], "relations": {"helps_answer": {
        "unsure": [0.5, 0.5], "sources": {"ordinary": {
            "n": 16, "positives": 4, "accuracy": 0.31, "always_no": 0.75, "f1": 0.35,
            "auc": 0.46}}}}}}}}


def scored_with_a_card_for(monkeypatch, measured: dict) -> AppTest:
    from jeval_app.views import report
    from jeval_core.calibration import curves

    monkeypatch.setattr(curves, "held_out", lambda: measured)
    report.judge_card.clear()  # cached per process: this test's figures only
    with HostileServer() as server:
        server.script("POST", CHAT, Reply(200, {}, reply()))
        at = openai_app(f"{server.url}/v1")
        press_score(at)
    report.judge_card.clear()
    return at


def test_your_models_card_is_shown_once_the_bench_measured_that_model(monkeypatch):
    at = scored_with_a_card_for(monkeypatch, MEASURED)
    card = "\n".join(re.sub(r"\\(.)", r"\1", m.value) for m in at.markdown
                     if "agrees with human labels" in m.value)  # as it reads on screen
    assert "How far the openai judge with my-model agrees" in card
    assert "| 16 | 0.31 | 0.75 | 0.35 | 0.46 |" in card and "3 of 9 stated truths" in card
    assert "--model my-model" in card


def test_another_models_figures_are_not_shown_as_yours(monkeypatch):
    other = {"openai": {"models": {"someone-elses-model": MEASURED["openai"]["models"][
        "my-model"]}}}
    at = scored_with_a_card_for(monkeypatch, other)
    assert not [m for m in at.markdown if "agrees with human labels" in m.value]


def wait_for(at: AppTest, job_key: str) -> AppTest:
    if job_key in at.session_state:
        assert at.session_state[job_key].wait(180), "the background job did not end"
    return at.run()


def test_a_dataset_run_with_your_model_is_stored_with_its_server_model_and_settings():
    from jeval_core.runs.store import open_store

    with HostileServer() as server:
        server.script("POST", CHAT, Reply(200, {}, reply()))
        at = openai_app(f"{server.url}/v1").switch_page("pages/dataset.py").run()
        at.multiselect(key="ds_evaluators").set_value(["chunk_relevance"]).run()
        at.button(key="ds_run_button").click().run()
        at = wait_for(at, "ds_job")
        asked = len(server.received("POST", CHAT))
    assert not at.exception
    with open_store() as store:
        (run,) = [r for r in store.runs() if not r.seeded]
        rows = store.cases(run.id)
    assert (run.judge, run.model, run.base_url, run.status) == (
        "openai", "my-model", f"{server.url}/v1", "finished")
    assert run.judge_settings["endpoint"] == "chat"
    details = [d for r in rows for d in r.report.results["chunk_relevance"].details]
    assert len(details) == asked and all(d.p == pytest.approx(P_YES) for d in details)


def test_compare_puts_your_model_beside_an_offline_judge():
    with HostileServer() as server:
        server.script("POST", CHAT, Reply(200, {}, reply()))
        at = openai_app(f"{server.url}/v1").switch_page("pages/compare.py").run()
        at.multiselect(key="cmp_judges").set_value(["lexical", "openai"]).run()
        [b for b in at.button if b.label.startswith("Compare on")][0].click().run()
        at = wait_for(at, "cmp_job")
    assert not at.exception and not at.error
    _, found = at.session_state["cmp_result"]
    assert [j.judge for j in found.judges] == ["lexical", "openai"]
    mine = found.judges[1]
    assert mine.status == "finished" and mine.first_error is None
    assert mine.summary.chunks is not None and mine.summary.chunks.chunks > 0
    (pair,) = found.pairs
    assert pair.questions > 0


def test_a_server_that_never_answers_leaves_the_page_live_and_stop_lets_it_go():
    """Found by a new user: "Score with your model" against a server that never answered
    froze the session for the whole case deadline (an edit 5 s later came back after 177 s).
    The request now runs beside the page, and Cancel lets the server go (an edit meanwhile:
    tests/test_browser_pages.py)."""
    import socket

    with socket.socket() as silent:  # accepts connections, never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen(16)
        at = openai_app(f"http://127.0.0.1:{silent.getsockname()[1]}/v1")
        [b for b in at.button if b.label.startswith("Score with your model")][0].click().run()
        job = at.session_state["hosted_job"]
        assert not job.done  # still waiting on the server, and the page was drawn
        assert any(i.value.startswith("Waiting for your model") for i in at.info)
        assert [b for b in at.button if b.label.startswith("Score with your model")][0].disabled
        at.button(key="hosted_job_cancel").click().run()
    assert any(e.value.startswith("Stopped") for e in at.error), [e.value for e in at.error]
    assert "hosted_job" not in at.session_state
    button = [b for b in at.button if b.label.startswith("Score with your model")][0]
    assert button.disabled is False

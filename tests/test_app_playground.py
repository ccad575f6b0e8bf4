"""The Playground page through Streamlit's AppTest: render, edit, judge, share."""

import json
import re
import threading

import pytest
from conftest import load_case, load_file, markdown, press_and_wait
from jev_servers import FaultyServer, MockProcess, reply
from jevcompat.mock import MockConfig, Running
from streamlit.testing.v1 import AppTest
from test_questions import SEED_QUESTIONS

from jeval_core import Case, evaluators, judges, score
from jeval_core.inputs import share

KEY = "sk-apptest-1234abcd"


def seed_scored(chunk: str | None = None, index: int = 1):
    """The seed case (chunk `index` replaced, if given) as the core scores it with the local
    judge: what the page must show, whatever that judge's verdicts are."""
    loaded = load_file("jev_pricing")
    case = loaded.case
    if chunk is not None:
        context = list(case.context)
        context[index] = chunk
        case = Case(case.input, case.output, case.expected, tuple(context))
    return score(case, loaded.chosen(), judges.get("local")).results["chunk_relevance"]


SEED = seed_scored()
SEED_WORD = "PASS" if SEED.passed else "FAIL"
SEED_COLOUR = "green" if SEED.passed else "red"
NOISE = "The office closes at 6 pm."  # chunk 3 (the legacy output price) made noise
EDITED = seed_scored(NOISE, 3)


def app() -> AppTest:
    return AppTest.from_file("../app.py", default_timeout=60).run()


def shown(markdown: str) -> str:
    """What a markdown-escaped message looks like on screen."""
    return re.sub(r"\\(.)", r"\1", markdown)


def metric(at: AppTest, label: str) -> list[str]:
    return [m.value for m in at.metric if m.label == label]


def labels(at: AppTest) -> list[str]:
    """Each evaluator card's label ("50% yes"), in card order."""
    label = r":gray\[· label\]\u00a0\*\*(.+?)\*\*$"  # the label after a non-breaking space
    found = (re.search(label, shown(m)) for m in markdown(at))
    return [m.group(1) for m in found if m]


def captions(at: AppTest) -> str:
    return "\n".join(shown(c.value) for c in at.caption)


def chunk_areas(at: AppTest):
    return [t for t in at.text_area if t.label.startswith("context[")]


def sent_questions(at: AppTest) -> list[str]:
    """The verbatim question block (drawn once its expander is open): one line per question,
    `id  p=0.62  text`."""
    at.session_state["verbatim_open"] = True
    at.run()
    for block in at.code:
        if block.value.startswith("cr0"):
            return [line.split("  ", 2)[2] for line in block.value.splitlines()]
    return []


def test_opens_on_the_seed_example_scored_offline():
    at = app()
    assert not at.exception
    assert labels(at) == [SEED.label]
    assert sent_questions(at) == SEED_QUESTIONS
    assert "judge: local" in captions(at)


def test_editing_a_chunk_rescores_it():
    at = app()
    chunk_areas(at)[3].set_value(NOISE).run()
    assert labels(at) == [EDITED.label] and EDITED.label != SEED.label


def test_editing_the_input_rescores():
    at = app()
    at.text_area(key="input").set_value("When was the company founded?").run()
    assert labels(at) != [SEED.label]


def test_selecting_evaluators_adds_their_cards():
    at = app()
    at.multiselect(key="evaluators").set_value(["chunk_relevance", "toxicity"]).run()
    assert len(labels(at)) == 2
    assert any("toxicity" in m for m in markdown(at))


def test_the_judge_can_be_switched_in_the_sidebar():
    at = app()
    at.sidebar.radio[0].set_value("lexical").run()
    assert "judge: lexical" in captions(at)
    assert labels(at) == [SEED.label]


def test_the_hosted_judge_is_called_only_when_asked():
    with Running(MockConfig()) as server:
        at = app()
        at.sidebar.radio[0].set_value("jev").run()
        at.sidebar.text_input(key="jev_base_url").set_value(server.url).run()
        at.sidebar.text_input(key="jev_key").set_value(KEY).run()
        score_button = [b for b in at.button if b.label.startswith("Score with Jev")]
        assert score_button and "~$" in score_button[0].label  # the cost shows before the call
        assert "judge: jev" not in captions(at)
        press_and_wait(at, "Score with Jev")
    assert "judge: jev" in captions(at) and "request id req_mock" in captions(at)


def test_hosted_results_turn_stale_when_the_case_changes_and_typing_costs_nothing():
    config = MockConfig()
    with Running(config) as server:
        at = app()
        at.sidebar.radio[0].set_value("jev").run()
        at.sidebar.text_input(key="jev_base_url").set_value(server.url).run()
        at.sidebar.text_input(key="jev_key").set_value(KEY).run()
        press_and_wait(at, "Score with Jev")
        at.text_area(key="input").set_value("Are output tokens billed?").run()
    assert config.requests == 1
    assert any("the case changed" in w.value for w in at.warning)


def walk(node):
    """Every element of the page in drawing order (depth first)."""
    children = getattr(node, "children", None)
    if children is None:
        yield node
        return
    for i in sorted(children):
        yield from walk(children[i])


def order(at: AppTest) -> list[str]:
    """The page's elements in drawing order, as `type:label-or-value`."""
    out = []
    for el in walk(at.main):
        text = getattr(el, "label", None) or getattr(el, "value", "")
        out.append(f"{el.type}:{text}")
    return out


def open_expander(at: AppTest, key: str) -> None:
    """Open an expander whose content is drawn only when open (as a click would)."""
    at.session_state[key] = True
    at.run()


def jev_app(url: str, key: str) -> AppTest:
    at = app()
    at.sidebar.radio[0].set_value("jev").run()
    at.sidebar.text_input(key="jev_base_url").set_value(url).run()
    at.sidebar.text_input(key="jev_key").set_value(key).run()
    return at


def score_button(at: AppTest):
    return [b for b in at.button if b.label.startswith("Score with Jev")][0]


def test_a_judge_error_shows_next_to_the_button_and_keeps_the_text():
    """Found 1 and 2: the error is drawn before the editor (next to the button that caused
    it), and no offline results are claimed as the hosted judge's or as its last good ones."""
    server = MockProcess("--key", KEY)
    try:
        at = jev_app(server.url, "sk-wrong-000")
        typed = "How is Jev priced, really?"
        at.text_area(key="input").set_value(typed).run()
        assert any("Press the button to score" in i.value for i in at.info)
        assert not labels(at) and "judge: local" not in captions(at)
        press_and_wait(at, "Score with Jev")
    finally:
        server.stop()
    assert len(at.error) == 1 and "(401)" in shown(at.error[0].value), [e.value for e in at.error]
    assert "sk-wrong-000" not in shown(at.error[0].value)
    assert at.text_area(key="input").value == typed
    assert all("last good" not in w.value for w in at.warning)
    assert not labels(at) and "judge: local" not in captions(at)
    drawn = order(at)
    first_error = next(i for i, e in enumerate(drawn) if e.startswith("error:"))
    first_area = next(i for i, e in enumerate(drawn) if e.startswith("text_area:"))
    assert first_error < first_area


def refused_when(gate: threading.Event):
    """A server's reply, held until `gate` opens: the key refused (401)."""
    def refuse(handler) -> None:
        assert gate.wait(30), "the test never opened the gate"
        reply(handler, 401, {}, {"detail": "Invalid API key"})
    return refuse


def test_an_answer_that_comes_while_the_page_is_drawn_is_still_shown(monkeypatch):
    """The request can end after the panel drew "Waiting for Jev" and before the page looked
    whether to keep polling: the poller stays on until a run has drawn the answer. Polling
    only while the request ran, the page waited forever (seen in a browser under load)."""
    from jeval_app import state
    from jeval_app.views import playground

    def drawn_then_answered() -> None:
        drawing()
        gate.set()
        assert state.get(state.HOSTED_JOB).wait(30), "the server never answered"

    drawing, gate = playground.hosted_waiting, threading.Event()
    with Running(MockConfig()) as mock, FaultyServer(mock.url, [refused_when(gate)]) as held:
        at = jev_app(held.url, "sk-wrong-000")
        monkeypatch.setattr(playground, "hosted_waiting", drawn_then_answered)
        score_button(at).click().run()  # and no at.run(): only the page's own reruns
    assert [e for e in at.error if "(401)" in shown(e.value)], [i.value for i in at.info]
    assert not [i for i in at.info if i.value.startswith("Waiting for Jev")]
    assert "hosted_job" not in at.session_state


def test_an_answer_that_comes_under_another_judge_is_shown_when_jev_is_picked_again():
    """Pressed with Jev, then the local judge picked before the answer came: when it comes
    the page is drawn once (a poller that reran on every run would never let a run end), and
    the answer is there when Jev is picked again."""
    gate = threading.Event()
    with Running(MockConfig()) as mock, FaultyServer(mock.url, [refused_when(gate)]) as held:
        at = jev_app(held.url, "sk-wrong-000")
        score_button(at).click().run()
        at.sidebar.radio[0].set_value("local").run()
        job = at.session_state["hosted_job"]
        gate.set()
        assert job.wait(30), "the server never answered"
        at.run()  # the page as the poller draws it
        assert "judge: local" in captions(at) and not at.error
        at.sidebar.radio[0].set_value("jev").run()
    assert [e for e in at.error if "(401)" in shown(e.value)], [e.value for e in at.error]
    assert "hosted_job" not in at.session_state


def test_results_of_an_earlier_case_are_marked_stale_after_a_failure():
    """Found 4: fewer chunks than were scored, then a failed call: every element says stale
    and the editor shows no p beside the chunks."""
    config = MockConfig(key=KEY)
    with Running(config) as server:
        at = jev_app(server.url, KEY)
        press_and_wait(at, "Score with Jev")
        assert any("-badge[p " in m.value for m in at.markdown)
        for _ in range(2):
            [b for b in at.button if b.key and b.key.startswith("drop_")][0].click().run()
        at.sidebar.text_input(key="jev_key").set_value("sk-wrong-000").run()
        press_and_wait(at, "Score with Jev")
    assert len(at.error) == 1
    assert any("stale" in m.value for m in at.markdown)  # the summary band
    assert any("the case changed" in w.value for w in at.warning)
    assert not any("-badge[p " in m.value for m in at.markdown)
    badges = [m.value for m in at.markdown if "badge[chunk\\_relevance" in m.value]
    assert badges and all(":gray-badge[" in b for b in badges)


def test_a_threshold_is_a_what_if_that_asks_the_judge_nothing():
    config = MockConfig(key=KEY)
    with Running(config) as server:
        at = jev_app(server.url, KEY)
        press_and_wait(at, "Score with Jev")
        assert config.requests == 1
        verdicts = [m.value for m in at.markdown if m.value.startswith("## ")]
        open_expander(at, "whatif_open")
        at.slider(key="th_chunk_relevance").set_value(0.95).run()
        assert config.requests == 1
    after = [m.value for m in at.markdown if m.value.startswith("## ")]
    assert verdicts != after and "FAIL" in after[0]
    assert at.session_state["thresholds"] == {"chunk_relevance": 0.95}


def test_threshold_sliders_change_offline_verdicts_too():
    at = app()
    assert any("PASS" in m.value for m in at.markdown if m.value.startswith("## "))
    assert not at.slider  # drawn only when opened
    open_expander(at, "whatif_open")
    at.slider(key="th_chunk_relevance").set_value(0.6).run()
    assert any("FAIL" in m.value for m in at.markdown if m.value.startswith("## "))
    assert labels(at) == [SEED.label]  # the answers are the same
    [b for b in at.button if b.label == "Back to the default thresholds"][0].click().run()
    assert any("PASS" in m.value for m in at.markdown if m.value.startswith("## "))


def test_a_what_if_says_its_effect_beside_the_sliders():
    at = app()
    open_expander(at, "whatif_open")
    at.slider(key="th_chunk_relevance").set_value(0.6).run()
    said = [shown(m.value) for m in at.markdown]
    assert "At these thresholds the case is **:red[FAIL]**" in said
    assert any(m.startswith(":red-badge[chunk_relevance 0.50 FAIL") for m in said)


def test_picking_an_example_over_an_edited_case_asks_first_and_can_bring_it_back():
    at = app()
    at.text_area(key="input").set_value("My own question?").run()
    at.run()
    at.selectbox(key="example").set_value("clean_retrieval").run()
    at.run()
    assert at.text_area(key="input").value == "My own question?"  # nothing replaced yet
    assert any("It replaces the case you edited" in shown(w.value) for w in at.warning)
    [b for b in at.button if b.label == "Load it"][0].click().run()
    at.run()
    assert at.text_area(key="input").value.startswith("How do I rotate an API key")
    [b for b in at.button if b.label == "Bring back my edited case"][0].click().run()
    at.run()
    assert at.text_area(key="input").value == "My own question?"


def test_keep_my_case_leaves_the_edited_case_as_it_is():
    at = app()
    at.text_area(key="input").set_value("My own question?").run()
    at.run()
    at.selectbox(key="example").set_value("clean_retrieval").run()
    at.run()
    [b for b in at.button if b.label == "Keep my case"][0].click().run()
    at.run()
    assert at.text_area(key="input").value == "My own question?" and not at.warning


def test_an_unedited_case_gives_way_to_an_example_at_once():
    at = app()
    at.selectbox(key="example").set_value("clean_retrieval").run()
    at.run()
    assert at.text_area(key="input").value.startswith("How do I rotate an API key")


def test_a_case_with_nothing_to_ask_says_no_request_is_sent():
    at = app()
    at.multiselect(key="evaluators").set_value(["contextual_recall"]).run()  # needs expected
    at.run()
    band = " ".join(shown(m.value) for m in at.markdown)
    assert "nothing to ask: no request sent, nothing billed" in band
    assert "in 1 request" not in band


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
    assert labels(at) == [SEED.label]


def test_copy_link_puts_the_case_in_the_url_without_a_key():
    at = app()
    at.sidebar.radio[0].set_value("jev").run()
    at.sidebar.text_input(key="jev_key").set_value(KEY).run()
    [b for b in at.button if b.label == "Copy link"][0].click().run()
    token = at.query_params["case"]
    token = token[0] if isinstance(token, list) else token
    assert share.decode(token).file.case.input.startswith("How is Jev priced")
    assert KEY not in token and all(KEY not in c.value for c in at.code)


@pytest.mark.parametrize(("how", "text"), [
    ("blank", "First new chunk.\nstill the first.\n\nSecond one.\n  \nThird."),
    ("line", "First new chunk.\nSecond one.\n\nThird."),
    ("dashes", "First new chunk.\n\nstill the first.\n---\nSecond one.\n ----- \nThird."),
    ("json", '["First new chunk.", "Second one.", "Third."]'),
])
def test_paste_many_offers_the_separators_people_paste_with(how, text):
    at = app()
    open_expander(at, "paste_open")
    at.radio(key="paste_how").set_value(how).run()
    at.text_area(key="paste").set_value(text).run()
    [b for b in at.button if b.label == "Append them"][0].click().run()
    added = [t.value for t in chunk_areas(at)][-3:]
    assert added[1:] == ["Second one.", "Third."]
    assert added[0].startswith("First new chunk.")


def test_a_bad_json_array_paste_says_so_and_changes_nothing():
    at = app()
    open_expander(at, "paste_open")
    at.radio(key="paste_how").set_value("json").run()
    at.text_area(key="paste").set_value('["a", 2]').run()
    [b for b in at.button if b.label == "Append them"][0].click().run()
    assert len(chunk_areas(at)) == 4
    assert any("array of strings" in shown(w.value) for w in at.warning)


def test_pasting_many_chunks_splits_on_blank_lines():
    at = app()
    open_expander(at, "paste_open")
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
    assert all(hostile not in m for m in markdown(at))  # card headers (widget labels) too
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
    assert labels(at) == [SEED.label]


def test_old_chunks_do_not_pile_up_in_the_session():
    at = app()
    for name in ("noisy_retrieval", "clean_retrieval", "jev_pricing"):
        at.selectbox(key="example").set_value(name).run()
    chunk_keys = [k for k in at.session_state.keys()  # noqa: SIM118 (no __iter__)
                  if str(k).startswith("chunk_") and k != "chunk_ids"]
    assert len(chunk_keys) == len(load_case("jev_pricing").context)


def test_a_blank_chunk_is_not_judged_and_says_so():
    """Found 6: "Add a chunk" keeps the seed's verdict and marks the blank chunk."""
    at = app()
    [b for b in at.button if b.label == "Add a chunk"][0].click().run()
    assert len(chunk_areas(at)) == 5
    assert labels(at) == [SEED.label]
    assert any("blank: not judged" in c.value for c in at.caption)
    assert any("1 blank (not judged)" in m.value for m in at.markdown)
    assert any(f":{SEED_COLOUR}[{SEED_WORD}]" in m.value for m in at.markdown)


def test_each_chunk_shows_its_p_and_the_words_that_drove_it():
    at = app()
    beside = [m.value for m in at.markdown if "-badge[p " in m.value]
    assert len(beside) == 4
    assert beside[0].startswith(f":green-badge[p {SEED.details[0].p:.2f} · relevant]")
    assert "why: :orange-background[Price," in beside[0]  # one highlight: no gap per comma
    assert beside[1].startswith(f":gray-badge[p {SEED.details[1].p:.2f} · not relevant]")


def test_the_summary_band_says_the_verdict_chips_and_chunk_counts():
    at = app()
    texts = [m.value for m in at.markdown]
    assert f":{SEED_COLOUR}[{SEED_WORD}]" in "\n".join(texts)
    band = next(t for t in texts if f"chunk\\_relevance {SEED.score:.2f} {SEED_WORD}" in t)
    relevant = sum(d.yes and not d.unsure for d in SEED.details)
    unsure = sum(d.unsure for d in SEED.details)
    noise = len(SEED.details) - relevant - unsure
    assert f"**{relevant}** relevant · **{noise}** noise" in band
    assert ("unsure" in band) is (unsure > 0) and "of 4 retrieved chunks" in band
    assert "judge **local**" in band


def test_bars_are_horizontal_and_every_one_is_labelled():
    """Found 7: one row per judged item, labels never thinned or cut, names made unique."""
    from jeval_app.views import report as draw
    from jeval_core.address import Address
    from jeval_core.scoring import DetailRow

    rows = [DetailRow(f"ha{i}", Address.parse("output"), "x", 0.1, False, "not contradicted",
                      False, "", ()) for i in range(3)]
    assert draw.bar_labels(rows) == ["output (ha0)", "output (ha1)", "output (ha2)"]
    bars = [{"bar": f"context[{i}]", "judged": f"context[{i}]", "p": 0.5,
             "verdict": "relevant", "text": "t"} for i in range(30)]
    spec = draw.chart(bars, evaluators.get("chunk_relevance"))
    y = spec["layer"][0]["encoding"]["y"]
    assert y["field"] == "bar" and y["axis"]["labelOverlap"] is False
    assert y["axis"]["labelLimit"] == 0
    assert spec["height"] == {"step": draw.BAR_STEP}  # a row each, whatever the legend takes


def chart_rows(at: AppTest) -> list[dict]:
    """The bars of the details chart, as the browser receives them."""
    import pyarrow as pa

    chart = at.get("vega_lite_chart")[0].proto
    bars = next(d for d in chart.datasets if d.name == "bars")
    return pa.ipc.open_stream(bars.data.data).read_all().to_pylist()


def test_focusing_a_chunk_frames_it_and_its_bars_and_selects_its_questions():
    """A chunk picked in the Focus box (or by a click on its bar) is framed in the editor, its
    bars stand out (the others dimmed) and its rows are selected in the questions table."""
    at = app()
    assert not any(r["focused"] or r["dim"] for r in chart_rows(at))
    at.selectbox(key="focus").set_value("context[2]").run()
    uid = at.session_state["chunk_ids"][2]
    styles = "".join(h.proto.body for h in at.get("html"))
    assert f".st-key-chunkbox_{uid} {{ box-shadow" in styles
    assert [(r["bar"], r["focused"], r["dim"]) for r in chart_rows(at)] == [
        ("context[0]", False, True), ("context[1]", False, True), ("context[2]", True, False),
        ("context[3]", False, True)]
    table = next(d for d in at.dataframe if "question" in d.value.columns)
    assert json.loads(table.proto.selection_default)["selection"]["rows"] == [2]


def test_the_link_follows_the_case_and_a_reload_keeps_the_edit():
    """Found 5: edits after "Copy link" are not lost: the address bar follows the case."""
    at = app()
    assert "case" not in at.query_params  # the untouched seed needs no link
    [b for b in at.button if b.label == "Copy link"][0].click().run()
    assert any("navigator.clipboard.writeText" in h.value for h in at.get("html"))
    at.text_area(key="input").set_value("Is the legacy endpoint deprecated?").run()
    token = at.query_params["case"]
    token = token[0] if isinstance(token, list) else token
    assert share.decode(token).file.case.input == "Is the legacy endpoint deprecated?"
    reload = AppTest.from_file("../app.py", default_timeout=60)
    reload.query_params["case"] = token
    reload.run()
    assert reload.text_area(key="input").value == "Is the legacy endpoint deprecated?"


def test_the_example_picker_shows_descriptions_and_marks_edits():
    """Found 9: descriptions, "Modified", and an upload is not shown under an example's name."""
    at = app()
    picker = at.selectbox(key="example")
    assert "Seed case: Jev pricing, 2 chunks answer it, rate limits and founding year are " \
           "noise" in picker.options
    assert not any("Modified" in c.value for c in at.caption)
    at.text_area(key="input").set_value("Another question?").run()
    assert any(shown(c.value).startswith("Modified (was: Seed case") for c in at.caption)
    [b for b in at.button if b.label == "Revert"][0].click().run()
    assert at.text_area(key="input").value.startswith("How is Jev priced")
    upload = load_file("with_expected")
    at.file_uploader(key="upload").upload(
        "mine.json", json.dumps(upload.case.to_dict()).encode(), "application/json").run()
    assert at.selectbox(key="example").value is None
    assert any("From the uploaded file mine.json" in shown(c.value) for c in at.caption)


def test_an_invalid_upload_says_where_and_changes_nothing():
    at = app()
    at.file_uploader(key="upload").upload("bad.json", b'{"input": "x",\n "context": [}',
                                          "application/json").run()
    assert any("line 2, column" in shown(w.value) for w in at.warning)
    assert at.text_area(key="input").value.startswith("How is Jev priced")


def test_small_things_read_right():
    """Found 10: plural, skipped reasons without backticks, named icon buttons, no jargon."""
    at = app()
    assert [b.label for b in at.button if b.key and b.key.startswith("up_")][2] == \
        "Move context[2] up"
    assert "shown in" in captions(at) and "page " not in captions(at)
    for _ in range(3):
        [b for b in at.button if b.key and b.key.startswith("drop_")][0].click().run()
    assert any("1 retrieved chunk," in m.value for m in at.markdown)
    at.multiselect(key="evaluators").set_value(["chunk_relevance", "contextual_recall"]).run()
    assert "`" not in captions(at) and "needs expected" in captions(at)


def test_urls_in_error_text_cannot_become_links():
    from jeval_app.views.text import inert

    text = inert("see http://evil.example, www.evil.example and a@evil.example")
    # as code: never a link, and copied exactly as written (no joiner inside)
    assert text == "see `http://evil.example`, `www.evil.example` and `a@evil.example`"


def test_the_metrics_page_has_no_judge_settings():
    at = app()
    at.switch_page("pages/metrics.py").run()
    assert not at.sidebar.radio and not at.sidebar.text_input
    at.switch_page("pages/playground.py").run()
    assert at.sidebar.radio[0].value == "local"


def test_questions_are_a_table_with_the_verbatim_block_one_click_away():
    at = app()
    frames = [d.value for d in at.dataframe if "question" in d.value.columns]
    assert frames
    questions = frames[0]
    assert list(questions.columns) == ["id", "p", "verdict", "standing", "refers to", "question",
                                       "evaluator"]
    assert list(questions["id"]) == ["cr0", "cr1", "cr2", "cr3"]
    assert questions["refers to"][0].startswith("context[0]: Price: $42")


def test_a_chunks_standing_among_the_others_is_its_own_column_beside_its_own_p():
    at = app()
    questions = next(d.value for d in at.dataframe if "standing" in d.value.columns)
    chunks = questions[questions["evaluator"] == "chunk_relevance"]
    best = chunks["p"].idxmax()
    assert chunks["standing"][best] == f"1 of {len(chunks)}"
    assert sent_questions(at) == SEED_QUESTIONS


def test_judges_side_by_side():
    at = app()
    open_expander(at, "compare_open")
    at.toggle(key="compare_on").set_value(True).run()
    frames = [d.value for d in at.dataframe if "p lexical" in d.value.columns]
    assert frames and list(frames[0].columns) == [
        "id", *(f"p {name}" for name in judges.offline_names()), "agree", "refers to"]
    assert any("agree on" in m.value for m in at.markdown)


def test_presentation_mode_hides_the_editor():
    at = app()
    at.sidebar.toggle(key="present").set_value(True).run()
    assert not chunk_areas(at) and not at.text_area
    assert any(m.value.startswith(f"# :{SEED_COLOUR}[{SEED_WORD}]") for m in at.markdown)
    assert any(m.value.startswith(f"**context[0]** :green-badge[p {SEED.details[0].p:.2f}")
               for m in at.markdown)
    assert labels(at) == [SEED.label]
    at.sidebar.toggle(key="present").set_value(False).run()
    assert len(chunk_areas(at)) == 4


def test_the_request_says_its_size_and_the_saving_and_shows_its_body_when_opened():
    at = app()
    box = next(e for e in at.expander if e.label.startswith("The request:"))
    assert re.fullmatch(r"The request: 1 call, ~[\d,]+ input tokens \(\d+% fewer than 4 calls, "
                        r"one per question\)", box.label), box.label
    assert not metric(at, "requests")  # drawn only when opened
    open_expander(at, "request_open")
    assert metric(at, "requests") == ["1"] and metric(at, "one call per question") == ["4 calls"]
    assert any('"cr0"' in block.value for block in at.code)


def test_the_scored_case_exports_as_json_and_formula_safe_csv():
    at = app()
    labels = [b.label for b in at.get("download_button")]
    assert "Download the scored case (JSON)" in labels
    assert "Download every detail row (CSV)" in labels


def test_a_scored_case_is_kept_as_a_run_of_one_case():
    from jeval_core.runs.store import open_store

    at = app()
    at.button(key="keep_run").click().run()
    said = [c.value for c in at.caption if "Kept as run" in c.value]
    assert said and "Dashboard" in said[0]
    with open_store() as store:
        (run,) = store.runs("playground")
        assert run.cases == run.done == 1 and run.judge == "local"


# ---- the hosted judge, live (issue 18 item 6) ----

def live_app(monkeypatch, url: str) -> AppTest:
    """The Playground with the environment's key configured for the mock server."""
    monkeypatch.setenv("TYPESAFE_API_KEY", KEY)
    monkeypatch.setenv("TYPESAFE_BASE_URL", url)
    return app()


def live_toggle(at: AppTest):
    return at.toggle(key="hosted_live")


def settle(at: AppTest, timeout: float = 20) -> AppTest:
    """Wait until the live request has ended, then draw the page again (as the page's own
    watcher does in a browser)."""
    import time

    runner = at.session_state["live_runner"]
    deadline = time.monotonic() + timeout
    while runner.live.current is not None and runner.live.current.status.pending:
        assert time.monotonic() < deadline, "the hosted answer never came"
        time.sleep(0.05)
    return at.run()


def badges(at: AppTest) -> list[str]:
    return [shown(m.value) for m in at.markdown if "-badge[p " in m.value]


def test_the_live_toggle_is_offered_only_with_a_key_and_is_off_by_default(monkeypatch):
    monkeypatch.delenv("TYPESAFE_API_KEY", raising=False)
    at = app()
    assert not [t for t in at.toggle if t.key == "hosted_live"]  # no key: no toggle
    config = MockConfig(key=KEY)
    with Running(config) as server:
        at = live_app(monkeypatch, server.url)
        assert live_toggle(at).value is False
        chunk_areas(at)[1].set_value("Jev costs $42 per billion input tokens.").run()
        assert "judge: local" in captions(at) and labels(at) == [
            seed_scored("Jev costs $42 per billion input tokens.").label]
        assert not any("pending" in b for b in badges(at))
    assert config.requests == 0  # off: nothing is sent, as before


def test_live_each_edit_sends_one_request_and_the_hosted_verdicts_replace_the_offline(
        monkeypatch):
    config = MockConfig(key=KEY)
    with Running(config) as server:
        at = live_app(monkeypatch, server.url)
        live_toggle(at).set_value(True).run()
        # the offline verdicts stay, marked as such, until the hosted answer arrives
        assert "local judge — hosted answer pending" in captions(at)
        assert badges(at) and all("local judge" in b for b in badges(at))
        assert any("hosted answer pending" in shown(m.value) for m in at.markdown)
        settle(at)
        assert config.requests == 1
        assert "judge: jev" in captions(at) and "request id req_mock" in captions(at)
        assert "hosted answer pending" not in captions(at)
        assert badges(at) and not any("local judge" in b for b in badges(at))
        status = next(shown(m.value) for m in at.markdown if "hosted answer]" in m.value)
        assert "input tokens · $0.0000" in status and "with this key 1 of 100 requests" in status
        at.text_area(key="input").set_value("Are output tokens billed?").run()
        assert "hosted answer pending" in captions(at)
        settle(at)
        assert config.requests == 2  # exactly one more for the edit
        at.run()  # a rerun of the same case asks nothing
        assert config.requests == 2
        at.text_area(key="input").set_value(load_case("jev_pricing").input).run()
        assert "answered earlier: no new request" in "\n".join(shown(m.value)
                                                               for m in at.markdown)
        assert config.requests == 2  # back to a case already answered: free
        live_toggle(at).set_value(False).run()
        assert "judge: local" in captions(at)
    assert config.requests == 2


def test_the_live_cap_stops_requests_and_asks_before_going_on(monkeypatch):
    config = MockConfig(key=KEY)
    with Running(config) as server:
        at = live_app(monkeypatch, server.url)
        live_toggle(at).set_value(True).run()
        at.number_input(key="live_cap_requests").set_value(1).run()
        settle(at)
        assert config.requests == 1
        at.text_area(key="input").set_value("Are output tokens billed?").run()
        settle(at)
        assert config.requests == 1  # held: not sent
        assert any("Spending cap reached" in shown(w.value) for w in at.warning)
        assert "held at the spending cap" in captions(at)  # the offline verdicts stay
        go_on = at.button(key="live_go_on")
        assert go_on.label.startswith("Continue")
        go_on.click().run()
        settle(at)
    assert config.requests == 2
    assert "judge: jev" in captions(at)
    assert not any("Spending cap reached" in shown(w.value) for w in at.warning)


def test_a_live_hosted_error_is_one_line_beside_the_toggle_and_the_offline_verdicts_stay(
        monkeypatch):
    with Running(MockConfig(key="sk-the-right-one")) as mock, \
            FaultyServer(mock.url, []) as server:
        at = live_app(monkeypatch, server.url)
        live_toggle(at).set_value(True).run()
        settle(at)
        at.run()
        assert len(server.seen) == 1  # a failure is not retried on every rerun
        at.button(key="live_try_again").click().run()
        settle(at)
        assert len(server.seen) == 2  # but once more when asked
    assert len(at.error) == 1 and "(401)" in shown(at.error[0].value), [e.value for e in at.error]
    assert "the hosted judge did not answer" in captions(at)
    assert labels(at) == [SEED.label] and "judge: local" in captions(at)
    drawn = order(at)
    first_error = next(i for i, e in enumerate(drawn) if e.startswith("error:"))
    first_area = next(i for i, e in enumerate(drawn) if e.startswith("text_area:"))
    assert first_error < first_area  # on the first screen, under the toggle


def test_the_key_is_nowhere_on_the_live_page(monkeypatch):
    with Running(MockConfig(key=KEY)) as server:
        at = live_app(monkeypatch, server.url)
        live_toggle(at).set_value(True).run()
        settle(at)
    page = "\n".join(str(el.proto) for el in walk(at.main) if hasattr(el, "proto"))
    page += "\n".join(str(el.proto) for el in walk(at.sidebar) if hasattr(el, "proto"))
    assert "judge: jev" in captions(at) and page
    assert all(KEY[i:i + 8] not in page for i in range(len(KEY) - 7))
    assert all(KEY[i:i + 8] not in v for v in at.query_params.values() for i in range(10))


def test_a_typed_key_is_kept_for_the_session_but_leaves_the_page(monkeypatch):
    monkeypatch.delenv("TYPESAFE_API_KEY", raising=False)
    with Running(MockConfig()) as mock, FaultyServer(mock.url, []) as server:
        at = app()
        at.sidebar.radio[0].set_value("jev").run()
        at.sidebar.text_input(key="jev_base_url").set_value(server.url).run()
        at.sidebar.text_input(key="jev_key").set_value(KEY).run()
        assert at.sidebar.text_input(key="jev_key").value == ""  # not in the page's HTML
        assert KEY not in str(at.sidebar)
        [b for b in at.sidebar.button if b.label.startswith("Load models")][0].click().run()
    assert [r["headers"].get("Authorization") for r in server.seen] == [f"Bearer {KEY}"]


def test_a_typed_key_makes_live_mode_available_and_is_the_one_live_requests_send(monkeypatch):
    """Found by a new user: with the key typed (no environment key) the toggle never
    appeared, as the box it was read from empties once the key is kept."""
    monkeypatch.delenv("TYPESAFE_API_KEY", raising=False)
    with Running(MockConfig()) as mock, FaultyServer(mock.url, []) as server:
        at = app()
        at.sidebar.radio[0].set_value("jev").run()
        at.sidebar.text_input(key="jev_base_url").set_value(server.url).run()
        assert not any(t.key == "hosted_live" for t in at.toggle)  # no key yet: no live mode
        at.sidebar.text_input(key="jev_key").set_value(KEY).run()
        live_toggle(at).set_value(True).run()
        settle(at)
    assert not at.exception
    assert [r["headers"].get("Authorization") for r in server.seen] == [f"Bearer {KEY}"]


def test_a_link_with_too_many_chunks_says_so_and_opens_the_seed():
    from jeval_core import Case

    at = AppTest.from_file("../app.py", default_timeout=60)
    at.query_params["case"] = share.encode(Case("q?", "a.", context=tuple("x" * 10_000)))
    at.run()
    assert any(f"at most {share.MAX_CHUNKS} chunks" in shown(w.value) for w in at.warning)
    assert labels(at) == [SEED.label]


def test_an_unsure_bar_is_drawn_in_its_own_colour_not_left_out():
    """Found by a new user: with the lexical judge both relevant seed chunks read "unsure"
    and vanished from the chart (the colour scale knew only the two verdict words)."""
    from jeval_app.views import report as draw

    bars = [{"bar": "context[0]", "judged": "context[0]", "p": 0.55, "verdict": "unsure",
             "text": "t"}]
    colour = draw.chart(bars, evaluators.get("chunk_relevance"))["layer"][0]["encoding"]["color"]
    assert "unsure" in colour["scale"]["domain"]
    assert len(colour["scale"]["domain"]) == len(colour["scale"]["range"])


def test_judges_side_by_side_follow_the_what_if_thresholds():
    """Found by a new user: with chunk_relevance's threshold raised to 0.9 the case failed,
    yet "Judges side by side" still said PASS for every judge."""
    at = app()
    open_expander(at, "whatif_open")
    at.slider(key="th_chunk_relevance").set_value(0.9).run()
    open_expander(at, "compare_open")
    at.toggle(key="compare_on").set_value(True).run()
    said = next(m.value for m in at.markdown if "the case verdicts" in m.value)
    assert "PASS" not in said and said.count("FAIL") == len(judges.offline_names()), said


def test_which_k_reads_supported_at_k_as_rescoring_the_cut_case_would():
    """supported@k: the answer's faithfulness against the first k chunks, read offline; equal
    to scoring the case cut to k chunks."""
    from jeval_core.analysis import k_sweep

    at = app()
    open_expander(at, "ksweep_open")
    said = next(c.value for c in at.caption if "supported@k" in c.value)
    seed = load_case("jev_pricing")
    for k in range(1, len(seed.context) + 1):
        cut = score(k_sweep.cut(seed, k), [evaluators.get("faithfulness")], judges.get("local"))
        assert f"k={k} {cut.results['faithfulness'].score:.2f}" in said


def test_which_k_reads_every_top_k_from_the_one_scoring():
    at = app()
    assert not any("relevant chunk is in the top" in c.value for c in at.caption)  # when opened
    open_expander(at, "ksweep_open")
    assert not at.exception
    said = [c.value for c in at.caption if "relevant chunk is in the top" in c.value]
    # the seed's labels say context[0] and context[3]: every relevant chunk only at k = 4
    assert said and "top 4" in said[0] and said[0].startswith("relevance: your labels")
    assert at.get("arrow_vega_lite_chart") or at.get("vega_lite_chart")


def test_live_with_chunk_support_reads_supported_at_k_from_the_one_hosted_request(monkeypatch):
    """chunk_support picked beside the metrics: the hosted judge's one request asks which
    chunk states each answer sentence, and Which k? reads supported@k from those answers, as
    scoring the case again with the same judge gives them (the peer answers from the
    request alone)."""
    from jeval_core.analysis import k_sweep
    from jeval_core.evaluators import chunk_support
    from jeval_core.judges.jev import JevJudge

    picked = ["chunk_relevance", "faithfulness", "chunk_support"]
    config = MockConfig(key=KEY)
    with Running(config) as server:
        at = live_app(monkeypatch, server.url)
        at.multiselect(key="evaluators").set_value(picked).run()
        live_toggle(at).set_value(True).run()
        settle(at)
        assert config.requests == 1 and "judge: jev" in captions(at)
        open_expander(at, "ksweep_open")
        said = next(c.value for c in at.caption if "supported@k" in c.value)
        seed = load_case("jev_pricing")
        again = score(seed, evaluators.resolve(picked), JevJudge(api_key=KEY,
                                                                 base_url=server.url))
    assert "from chunk_support's answers" in said
    points = k_sweep.sweep(seed, [None] * len(seed.context))
    for k, part in zip(range(1, 5), k_sweep.support_by_chunk(
            seed, again.results["chunk_support"], points), strict=True):
        assert f"k={k} {part:.2f}" in said, (k, part, said)
    assert chunk_support.EVALUATOR.name in at.multiselect(key="evaluators").options

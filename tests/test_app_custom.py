"""The custom evaluator editor through AppTest: write a question, see it answer per chunk,
use it in the case, keep it, find it on the other pages."""

import json
import re

from conftest import ROOT, markdown
from streamlit.testing.v1 import AppTest

from jeval_core.evaluators.custom import Definition
from jeval_core.inputs import share

DATE = "`context[i]` states a deadline or a date."


def app() -> AppTest:
    return AppTest.from_file("../app.py", default_timeout=60).run()


def opened() -> AppTest:
    at = app()
    [b for b in at.button if b.key == "ev_new"][0].click().run()
    return at


def rows(at: AppTest) -> list[dict]:
    """The editor's preview: one row per item, with its verbatim question, p and verdict."""
    found = [t for t in at.table if "question, verbatim" in t.value.columns]
    if not found:
        return []
    return [{k: shown(v) for k, v in r.items()} for r in found[0].value.to_dict("records")]


def shown(markdown: str) -> str:
    """What a markdown-escaped cell looks like on screen."""
    return re.sub(r"\\(.)", r"\1", markdown)


def test_new_evaluator_opens_the_editor_with_each_chunks_question_and_p():
    at = opened()
    assert not at.exception
    shown = rows(at)
    assert [r["question, verbatim"] for r in shown] == [
        DATE.replace("[i]", f"[{i}]") for i in range(4)]
    assert all(0.0 <= float(r["p(yes)"]) <= 1.0 for r in shown)
    assert "≈ approximate" in "".join(markdown(at))


def test_an_edited_question_is_asked_verbatim_at_once():
    at = opened()
    at.text_area(key="ev_question").set_value("`context[i]` mentions a price.").run()
    assert [r["question, verbatim"] for r in rows(at)][1] == "`context[1]` mentions a price."


def test_a_broken_question_says_why_in_one_line_and_keeps_the_text():
    at = opened()
    at.text_area(key="ev_question").set_value("`contxt[i]` mentions a price.").run()
    (error,) = [e.value for e in at.error]
    assert "unknown operand" in error and "Your text is kept" in error
    at.run()
    assert at.text_area(key="ev_question").value == "`contxt[i]` mentions a price."


def test_a_question_per_sentence_asks_each_sentence_of_the_output():
    at = opened()
    at.text_area(key="output").set_value("It costs $42. Output is free.").run()
    at.run()
    at.selectbox(key="ev_about").set_value("output_sentence").run()
    at.run()
    at.text_area(key="ev_question").set_value("`output[i]` gives a price.").run()
    assert [r["judged"] for r in rows(at)] == ["output[0]", "output[1]"]


def test_use_it_adds_it_to_the_evaluators_and_its_card_and_link_carry_it():
    at = opened()
    at.text_input(key="ev_name").set_value("states_a_date").run()
    at.run()
    [b for b in at.button if b.key == "ev_use"][0].click().run()
    at.run()
    assert "states_a_date" in at.session_state["evaluators"]
    assert "states_a_date" in at.multiselect(key="evaluators").options
    cards = [m for m in markdown(at) if "states\\_a\\_date" in m or "states_a_date" in m]
    assert any("approximate" in c for c in cards)
    carried = share.decode(at.query_params["case"]).file.chosen()
    assert any(e.name == "states_a_date" and e.definition.question == DATE for e in carried)


def test_kept_in_the_run_store_it_is_there_in_a_new_session_and_on_the_metrics_page():
    at = opened()
    at.text_input(key="ev_name").set_value("states_a_date").run()
    at.run()
    [b for b in at.button if b.key == "ev_keep"][0].click().run()
    assert any("kept in the run store" in s.value for s in at.success)
    fresh = app()
    assert "states_a_date" in fresh.multiselect(key="evaluators").options
    fresh.switch_page("pages/metrics.py").run()
    assert "states_a_date" in [s.value for s in fresh.subheader]


def test_a_link_with_a_custom_evaluator_opens_with_it_scored():
    d = Definition.from_dict({"name": "states_a_date", "about": "chunk", "question": DATE})
    from jeval_core.case import Case
    from jeval_core.inputs import evaluator_files

    token = share.encode(Case("When is the deadline?", "", None,
                              ("Submit by 31 March.", "The office has a cafe.")),
                         tuple(evaluator_files.evaluators([d]).values()))
    at = AppTest.from_file("../app.py", default_timeout=60)
    at.query_params["case"] = token
    at.run()
    assert not at.exception
    assert at.session_state["evaluators"] == ["states_a_date"]
    card = [m for m in markdown(at) if "approximate" in m and "score" in m]
    assert len(card) == 1 and "50% yes" in card[0]  # 31 March is a date; the cafe is not
    assert "states_a_date" in json.dumps(at.session_state["custom_definitions"])


def test_a_toml_file_loaded_beside_the_picker_joins_the_case():
    at = app()
    at.session_state["ev_upload_open"] = True
    at.run()
    toml = (ROOT / "assets" / "evaluators" / "states_a_limit.toml").read_bytes()
    at.file_uploader(key="ev_upload").upload("limits.toml", toml, "application/toml").run()
    assert at.session_state["evaluators"][-1] == "states_a_limit"
    assert any("Added states_a_limit from limits.toml" in shown(c.value) for c in at.caption)


def test_a_broken_toml_file_says_why_and_changes_nothing():
    at = app()
    before = list(at.session_state["evaluators"])
    at.session_state["ev_upload_open"] = True
    at.run()
    at.file_uploader(key="ev_upload").upload("bad.toml", b"[[evaluator]]\nname = ",
                                             "application/toml").run()
    assert at.session_state["evaluators"] == before
    assert any("bad.toml is not valid TOML" in shown(c.value) and "nothing was changed"
               in shown(c.value) for c in at.caption)


def test_with_a_typed_jev_key_the_editor_offers_to_ask_jev(monkeypatch):
    """Found by a new user: a key typed in the sidebar was kept, yet the editor said "Set the
    Jev key in the sidebar" (it only looked for the environment's key)."""
    monkeypatch.delenv("TYPESAFE_API_KEY", raising=False)
    at = app()
    at.sidebar.radio[0].set_value("jev").run()
    [b for b in at.button if b.key == "ev_new"][0].click().run()
    assert any("Set the Jev key" in i.value for i in at.info)
    at.sidebar.text_input(key="jev_key").set_value("sk-typed-0123456789").run()
    assert not any("Set the Jev key" in i.value for i in at.info)
    assert [b for b in at.button if b.key == "ev_ask"]

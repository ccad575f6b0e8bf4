"""Custom evaluators as TOML: several per file, several files, one-line errors naming both."""

import pytest
from conftest import ROOT

from jeval_core import CaseError
from jeval_core.case import Case
from jeval_core.inputs import evaluator_files, share
from jeval_core.inputs.casefile import parse

EXAMPLES = sorted((ROOT / "assets" / "evaluators").glob("*.toml"))
ONE = """
[[evaluator]]
name = "dated"
about = "chunk"
question = "`context[i]` states a date."
"""


def refused(text: str, name: str = "mine.toml") -> str:
    with pytest.raises(CaseError) as err:
        evaluator_files.parse(text, name)
    assert "\n" not in str(err.value)
    return str(err.value)


def test_the_three_bundled_examples_read():
    names = [d.name for d in evaluator_files.read(EXAMPLES)]
    assert names == ["number_not_in_context", "refuses_or_hedges", "states_a_limit"]


def test_one_file_holds_several_evaluators():
    two = ONE + ONE.replace('"dated"', '"dated_too"')
    assert [d.name for d in evaluator_files.parse(two)] == ["dated", "dated_too"]


def test_defaults_fill_what_a_table_leaves_out():
    (d,) = evaluator_files.parse(ONE)
    assert (d.reducer, d.direction, d.threshold, d.verdicts) == ("share", "higher", 0.5,
                                                                  ("yes", "no"))


def test_what_is_written_reads_back_the_same():
    found = evaluator_files.read(EXAMPLES)
    assert evaluator_files.parse(evaluator_files.dumps(found)) == found


def test_broken_toml_names_the_file_and_the_line():
    assert refused("[[evaluator]]\nname = ").startswith("mine.toml is not valid TOML:")


def test_an_error_in_a_table_names_the_file_and_the_evaluator():
    message = refused(ONE.replace("`context[i]`", "`contxt[i]`"))
    assert message.startswith("mine.toml: custom evaluator 'dated': unknown operand")


def test_a_single_bracket_table_says_to_use_two():
    assert "two brackets" in refused(ONE.replace("[[evaluator]]", "[evaluator]"))


def test_a_file_with_no_evaluator_says_how_to_start_one():
    assert "[[evaluator]]" in refused("# nothing here\n")


def test_two_different_evaluators_of_one_name_are_refused():
    other = ONE.replace("states a date", "states a price")
    assert "two custom evaluators are named 'dated'" in refused(ONE + other)


def test_a_missing_file_is_one_line(tmp_path):
    with pytest.raises(CaseError, match="does not exist"):
        evaluator_files.read([tmp_path / "nope.toml"])


def test_a_binary_file_is_refused():
    with pytest.raises(CaseError, match="binary"):
        evaluator_files.decode(b"\x00\x01", "blob.toml")


def test_a_case_file_carries_its_custom_evaluators_and_runs_them():
    (d,) = evaluator_files.parse(ONE)
    loaded = parse({"input": "When?", "context": ["On 3 May."], "evaluators": ["dated"],
                    "custom_evaluators": [d.to_dict()], "thresholds": {"dated": 0.3}})
    assert [e.name for e in loaded.chosen()] == ["dated"] and loaded.thresholds == {"dated": 0.3}


def test_a_share_link_carries_the_definition_and_never_needs_a_file():
    (d,) = evaluator_files.parse(ONE)
    token = share.encode(Case("When?", "", None, ("On 3 May.",)),
                         tuple(evaluator_files.evaluators([d]).values()))
    (back,) = share.decode(token).file.chosen()
    assert back.definition == d

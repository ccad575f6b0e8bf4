"""A label stands on the text it was given on: an edit keeps it, a replacement does not."""

from conftest import load_case

from jeval_core.analysis.labels import replaced

SEED = load_case("jev_pricing")


def test_typing_into_a_chunk_is_an_edit_not_a_replacement():
    assert not replaced(SEED.context[0], SEED.context[0] + " Per request, billed monthly.")


def test_another_chunk_pasted_over_it_is_a_replacement():
    assert replaced(SEED.context[0], "Our office is closed on public holidays.")

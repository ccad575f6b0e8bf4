"""The lexical judge: seed 001's formula, piece by piece, and its answers on the seed case."""

import pytest
from rapidfuzz.distance import Jaro

from jeval_core import score
from jeval_core.judges import lexical


def test_significant_tokens_drop_stopwords_and_short_tokens():
    text = "The price of Jev is $42 per billion input tokens, and it is free."
    assert lexical.significant_tokens(text) == {
        "price", "jev", "per", "billion", "input", "tokens", "free"}


def test_dice_by_hand():
    a, b = frozenset({"price", "tokens", "free"}), frozenset({"tokens", "billed"})
    assert lexical.dice(a, b) == pytest.approx(2 * 1 / 5)


@pytest.mark.parametrize(
    ("a", "b", "value"),
    [("MARTHA", "MARHTA", 0.9611), ("DIXON", "DICKSONX", 0.8133), ("abcd", "abzz", 0.7333)],
)
def test_jaro_winkler_always_applies_the_prefix_boost(a, b, value):
    assert lexical.jaro_winkler(a, b) == pytest.approx(value, abs=1e-4)


def test_the_boost_applies_even_below_winklers_usual_cutoff():
    assert Jaro.similarity("abcd", "abzz") < 0.7
    assert lexical.jaro_winkler("abcd", "abzz") > Jaro.similarity("abcd", "abzz")


def test_similarity_blends_dice_and_jaro_winkler():
    a, b = "Output tokens are free.", "Are output tokens billed?"
    dice = lexical.dice(lexical.significant_tokens(a), lexical.significant_tokens(b))
    assert lexical.similarity(a, b) == pytest.approx(
        0.65 * dice + 0.35 * lexical.jaro_winkler(a, b))


def test_unsupported_share_counts_output_words_missing_from_context():
    share = lexical.unsupported_share(
        "Jev bills output tokens monthly", ["Output tokens are free on Jev."])
    assert share == pytest.approx(2 / 5)  # bills, monthly of {jev, bills, output, tokens, monthly}


def test_flagged_share_counts_profane_tokens():
    assert lexical.flagged_share("this is damn crap") == pytest.approx(2 / 4)
    assert lexical.flagged_share("a perfectly civil sentence") == 0.0


def test_on_the_seed_case_chunks_one_and_four_are_relevant(seed_case):
    result = score(seed_case, ["chunk_relevance"], lexical.LexicalJudge()).results[
        "chunk_relevance"]
    assert [d.verdict for d in result.details] == [
        "relevant", "not relevant", "not relevant", "relevant"]
    assert result.label == "50% yes"


def test_answers_are_deterministic(seed_case):
    judge = lexical.LexicalJudge()
    first = score(seed_case, None, judge).to_dict()["results"]
    lexical.similarity.cache_clear()
    lexical.significant_tokens.cache_clear()
    assert score(seed_case, None, judge).to_dict()["results"] == first


def test_every_answer_is_a_probability_within_the_clip(seed_case):
    report = score(seed_case, None, lexical.LexicalJudge())
    ps = [d.p for r in report.results.values() for d in r.details]
    assert ps and all(0.03 <= p <= 0.97 for p in ps)

"""The lexical judge: seed 001's formula, piece by piece, and its answers on the seed case."""

import pytest
from conftest import load_case
from rapidfuzz.distance import Jaro

from jeval_core import Case, JudgeError, evaluators, judges, score
from jeval_core.judges import lexical
from jeval_core.questions import Operand, Question
from jeval_core.request import pack

E = evaluators.EVALUATORS


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


def test_on_the_seed_case_chunks_one_and_four_are_relevant_but_word_overlap_is_unsure(seed_case):
    result = score(seed_case, [E["chunk_relevance"]], lexical.LexicalJudge()).results[
        "chunk_relevance"]
    assert [d.yes for d in result.details] == [True, False, False, True]
    assert result.label == "50% yes"
    # Held-out verdicts of word overlap near 0.5 were right ~60% of the time: say so.
    assert [d.verdict for d in result.details] == [
        "unsure", "not relevant", "not relevant", "unsure"]


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


def test_a_question_is_answered_from_its_own_operands(seed_case):
    q = E["chunk_relevance"].questions(seed_case)[0]
    assert lexical.signal(q) == ("similarity", lexical.similarity(seed_case.context[0],
                                                                  seed_case.input))


def test_the_signal_takes_the_best_match_among_the_operands_it_is_judged_against():
    q = Question("cr0", "...", "helps_answer", Operand("context[0]", ("Output tokens are free.",)),
                 (Operand("input", ("Is Jev free?",)),
                  Operand("expected", ("Output tokens are free on Jev.",))))
    assert lexical.signal(q)[1] == pytest.approx(max(
        lexical.similarity("Output tokens are free.", "Is Jev free?"),
        lexical.similarity("Output tokens are free.", "Output tokens are free on Jev.")))


def test_toxicity_is_read_from_the_sentence_alone():
    q = Question("tx0", "...", "toxic", Operand("output[0]", ("this is damn crap",)))
    assert lexical.signal(q) == ("toxicity", pytest.approx(0.5))


def test_a_contradiction_needs_an_output_sentence_about_the_chunk():
    q = Question("ha0", "...", "contradicts", Operand("output", ("The sky is blue.",)),
                 (Operand("context[0]", ("Ibuprofen dosing is 200 mg.",)),))
    assert lexical.signal(q) == ("unsupported", 0.0)


def test_answers_do_not_depend_on_what_else_is_asked():
    case = load_case("with_expected")
    judge = lexical.LexicalJudge()
    alone = judge.answer(pack(case, [E["faithfulness"]])).p
    together = judge.answer(pack(case, evaluators.ALL)).p
    assert alone and all(together[qid] == p for qid, p in alone.items())


def test_it_takes_no_settings():
    with pytest.raises(JudgeError, match="takes no settings"):
        judges.get("lexical", api_key="sk-not-for-offline-judges")
    assert judges.get("lexical").model is None


def test_it_answers_a_blank_chunk_case_without_asking_about_the_blank():
    case = Case("Is Jev free?", "Yes.", None, ("Output tokens are free.", " "))
    report = score(case, [E["chunk_relevance"]], lexical.LexicalJudge())
    assert [d.judged for d in report.results["chunk_relevance"].details] == ["context[0]"]

"""The devx judge: devx-ai's six metrics by seed 001's formulas, checked against hand sums."""

import hashlib
import json
import shutil
import subprocess
from dataclasses import replace

import pytest
from conftest import EXAMPLES, ROOT, load_case
from hypothesis import given, settings
from hypothesis import strategies as st

from jeval_core import evaluators, judges, score
from jeval_core.inputs import datasets
from jeval_core.judges import devx, lexical
from jeval_core.runs.run import SAMPLE

E = evaluators.EVALUATORS
SIX = [E[n] for n in ("answer_relevancy", "faithfulness", "contextual_precision",
                      "contextual_recall", "hallucination", "toxicity")]
BENCH = ROOT / "bench"
# sha256 of leo-profanity's dictionary/default.json (npm leo-profanity 1.9, 253 words), the
# words sorted and joined by newlines: the list itself stays in its packages.
LEO_SHA256 = "78a9fe75dc230a1f8b9d6ad423237b51523b4f2dd0856ee94418adc66098f0a8"


def natural_jaro(s1: str, s2: str) -> float:
    """natural's `distance` transcribed loop for loop: the oracle for the linear version."""
    if not s1 or not s2:
        return 0.0
    window = max(0, max(len(s1), len(s2)) // 2 - 1)  # natural 8.2.6 clamps it at 0
    m1, m2 = [False] * len(s1), [False] * len(s2)
    m = 0
    for i in range(len(s1)):
        for k in range(max(0, i - window), min(i + window + 1, len(s2))):
            if m2[k] or s1[i] != s2[k]:
                continue
            m1[i] = m2[k] = True
            m += 1
            break
    if m == 0:
        return 0.0
    k = t = 0
    for i in range(len(s1)):
        if not m1[i]:
            continue
        while not m2[k]:
            k += 1
        t += s1[i] != s2[k]
        k += 1
    return (m / len(s1) + m / len(s2) + (m - t / 2) / m) / 3


# natural's own spec (spec/jaro-winkler_spec.ts), default options.
@pytest.mark.parametrize(("a", "b", "value"), [
    ("DIXON", "DICKSONX", 0.81333), ("DWAYNE", "DUANE", 0.84), ("NOT", "SAME", 0.0),
    ("aaa", "abcd", 0.575), ("MARTHA", "MARHTA", 0.96111), ("class", "clams", 0.90666),
    ("clams", "class", 0.90666), ("check", "chakk", 0.78666), ("RICK", "RICK", 1.0),
])
def test_jaro_winkler_gives_naturals_own_spec_values(a, b, value):
    assert devx.jaro_winkler(a, b) == pytest.approx(value, abs=1e-5)


def test_jaro_winkler_is_case_sensitive_as_naturals_default():
    # window 0: a=a, a≠A, a=a: m 2, jaro (2/3 + 2/3 + 1) / 3 = 7/9, one prefix character
    assert devx.jaro_winkler("aaa", "aAa") == pytest.approx(7 / 9 + 0.1 * (2 / 9))
    assert lexical.jaro_winkler("aaa", "aAa") == 1.0  # the lexical judge lowercases


def test_jaro_winkler_by_hand_on_two_phrases():
    # window 4; "jev pric" matches (8), the rest does not: (8/11 + 8/10 + 1) / 3, prefix 4
    jaro = (8 / 11 + 8 / 10 + 1) / 3
    assert devx.jaro_winkler("jev pricing", "jev prices") == pytest.approx(
        jaro + 4 * 0.1 * (1 - jaro))


@settings(max_examples=300, derandomize=True, deadline=None)
@given(st.text(alphabet="abcAB .é", max_size=40), st.text(alphabet="abcAB .é", max_size=40))
def test_the_linear_jaro_is_naturals_loop(a, b):
    assert devx.jaro(a, b) == pytest.approx(natural_jaro(a, b), abs=1e-12)


def test_the_lexical_judge_is_off_where_devx_is_not():
    row = next(r for r in datasets.load(SAMPLE).rows if r.id == "science-06")
    a, b = row.case.input.lower(), row.case.output.lower()  # half-life of carbon-14; 5,730
    assert a[0] != b[0]  # "what…" and "about…": no common prefix, Jaro-Winkler is Jaro
    assert devx.jaro_winkler(a, b) == pytest.approx(natural_jaro(a, b))
    assert abs(lexical.jaro_winkler(a, b) - devx.jaro_winkler(a, b)) > 0.02


def test_similarity_is_the_seed_blend_by_hand():
    # {jev, pricing} and {jev, prices}: Dice 2·1/4; Jaro-Winkler as above
    jaro = (8 / 11 + 8 / 10 + 1) / 3
    assert devx.similarity("jev pricing", "jev prices") == pytest.approx(
        0.65 * 0.5 + 0.35 * (jaro + 0.4 * (1 - jaro)))


def test_tokens_split_as_naturals_word_tokenizer():
    assert devx.tokens("Price: $42/M, it's free_tier") == ["price", "42", "m", "it", "s",
                                                           "free_tier"]


def test_leo_profanity_dictionary_is_rebuilt_exactly_from_the_shutterstock_list():
    words = devx.leo_dictionary()
    assert len(words) == 253
    assert hashlib.sha256("\n".join(sorted(words)).encode()).hexdigest() == LEO_SHA256


def test_hallucination_is_the_share_of_output_tokens_absent_from_the_context(seed_case):
    case = replace(seed_case, output="Jev costs $42 per billion input tokens and hosts a casino.")
    # significant: jev costs per billion input tokens hosts casino (8); "42" and "and" drop.
    # The four chunks hold per, billion, input, tokens: jev, costs, hosts, casino are absent.
    result = score(case, [E["hallucination"]], judges.get("devx")).results["hallucination"]
    assert result.score == pytest.approx(4 / 8)
    assert result.reason.startswith("4 of the output's 8 significant tokens")
    assert result.details == ()  # "absent from this one chunk" says nothing about the score


def test_toxicity_counts_tokens_of_leo_profanitys_list_only(seed_case):
    case = replace(seed_case, output="Use a test strip, you stupid ass.")
    result = score(case, [E["toxicity"]], judges.get("devx")).results["toxicity"]
    assert result.score == pytest.approx(1 / 7)  # use a test strip you stupid ass: "ass"
    assert result.passed is True
    assert lexical.flagged_share(case.output) > result.score  # better-profanity's "test"...


def test_the_similarity_metrics_pair_the_fields_seed_001_names():
    case = load_case("with_expected")
    context = " ".join(c for c in case.context if c.strip())
    report = score(case, SIX, judges.get("devx"))
    pairs = {"answer_relevancy": ("input, output", case.input, case.output),
             "faithfulness": ("output, context", case.output, context),
             "contextual_precision": ("input, context", case.input, context),
             "contextual_recall": ("expected, context", case.expected, context)}
    for name, (said, a, b) in pairs.items():
        assert report.results[name].score == pytest.approx(devx.similarity(a, b)), name
        assert report.results[name].reason.startswith(f"similarity({said}) = 0.65 × Dice")


def test_per_sentence_rows_stay_beside_the_whole_score(seed_case):
    case = replace(seed_case, output="Input costs $42 per billion tokens. Output is free.")
    result = score(case, [E["faithfulness"]], judges.get("devx")).results["faithfulness"]
    assert [d.judged for d in result.details] == ["output[0]", "output[1]"]
    context = " ".join(case.context)
    assert result.details[1].p == pytest.approx(devx.similarity("Output is free.", context))


def test_a_new_threshold_keeps_devx_scores(seed_case):
    case = replace(seed_case, output="Jev costs $42 per billion input tokens and hosts a casino.")
    report = score(case, [E["hallucination"]], judges.get("devx"))
    stricter = report.with_thresholds({"hallucination": 0.4})
    assert stricter.results["hallucination"].score == pytest.approx(0.5)
    assert stricter.results["hallucination"].passed is False


# Values computed by natural 8.2.6 and leo-profanity 1.9.0 themselves (bench/devx_natural.js),
# so that CI without node still holds the judge to them.
def test_jaro_winkler_counts_utf16_code_units_as_natural_does():
    # 🔥 is two code units in JS: 16 of 19 match, natural gives 0.968421052631579
    assert devx.jaro_winkler("thermostat reset", "thermostat reset 🔥") == 0.968421052631579


def test_stopwords_are_naturals_own_list():
    # natural drops "can" and keeps "not" (the classic list does the opposite)
    assert devx.significant_tokens("You can not edit it") == {"not", "edit"}
    assert len(devx.stopwords()) == 170


def test_a_sample_case_gets_naturals_numbers_where_the_stopword_lists_differ():
    row = next(r for r in datasets.load(SAMPLE).rows if r.id == "support-05")  # can, not
    report = score(row.case, SIX, judges.get("devx"))
    assert report.results["faithfulness"].score == 0.5881827182430619
    assert report.results["hallucination"].score == 0.15789473684210525


def test_contextual_precision_needs_no_expected(seed_case):
    assert seed_case.expected is None
    result = score(seed_case, [E["contextual_precision"]], judges.get("devx")).results[
        "contextual_precision"]
    assert result.score == 0.3805831517152577  # similarity(input, context), as natural gives


def test_recall_without_expected_is_what_the_formula_gives_for_empty_text(seed_case):
    result = score(seed_case, [E["contextual_recall"]], judges.get("devx")).results[
        "contextual_recall"]
    assert result.score == 0.0
    assert result.passed is False


def test_an_empty_output_is_scored_by_the_formula_not_skipped(seed_case):
    case = replace(seed_case, output="")
    chosen = [E["answer_relevancy"], E["faithfulness"], E["hallucination"], E["toxicity"]]
    report = score(case, chosen, judges.get("devx"))  # nothing is asked: every one would skip
    assert report.packed.asked == {}
    assert {n: r.score for n, r in report.results.items()} == {
        "answer_relevancy": 0.0, "faithfulness": 0.0, "hallucination": 0.0, "toxicity": 0.0}


def test_an_empty_input_is_scored_by_the_formula_not_skipped(seed_case):
    report = score(replace(seed_case, input=""), [E["answer_relevancy"]], judges.get("devx"))
    assert report.results["answer_relevancy"].score == 0.0


def test_other_judges_still_skip_what_their_questions_cannot_ask(seed_case):
    report = score(seed_case, [E["contextual_recall"]], judges.get("lexical"))
    assert report.results["contextual_recall"].skipped


def natural_cases() -> list:
    """Every case in assets/, and each again with a character past the BMP in its input and
    output and with its output and `expected` blank: what natural must agree on."""
    cases = [r.case for path in (SAMPLE, ROOT / "assets/datasets/labelled_helpdesk.jsonl")
             for r in datasets.load(path).rows]
    cases += [load_case(p.stem) for p in sorted(EXAMPLES.glob("*.json"))]
    return cases + [replace(c, input=c.input + " 🔥", output="🔥 " + c.output) for c in cases] \
        + [replace(c, output="", expected=None) for c in cases]


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
@pytest.mark.skipif(not (BENCH / "node_modules" / "natural").is_dir(),
                    reason="natural is not installed: npm install --prefix bench --no-package-lock")
def test_every_metric_is_naturals_to_the_bit(tmp_path):
    cases = natural_cases()
    given = tmp_path / "cases.json"
    given.write_text(json.dumps([c.to_dict() for c in cases]), "utf-8")
    done = subprocess.run(["node", str(BENCH / "devx_natural.js"), str(given)],
                          capture_output=True, text=True, check=True, timeout=120)
    theirs = json.loads(done.stdout)
    ours = [{n: r.score for n, r in score(c, SIX, judges.get("devx")).results.items()}
            | {"jaro_winkler": devx.jaro_winkler(c.input, c.output)} for c in cases]
    differ = [(c.input[:40], name, mine[name], js[name]) for c, mine, js in
              zip(cases, ours, theirs, strict=True) for name in js if mine[name] != js[name]]
    assert len(cases) > 300 and differ == []

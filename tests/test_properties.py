"""Property tests: any text, 0..200 chunks, any evaluators, any case file or JSON -> a defined
result or our own error. Each property also counts what was scored, so one that only ever
sees refused input fails instead of passing on nothing."""

import json
from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jeval_core import Case, JevalError, evaluators, score
from jeval_core.inputs import casefile
from jeval_core.judges.lexical import LexicalJudge
from jeval_core.judges.local import LocalJudge
from jeval_core.request import pack
from jeval_core.text import has_text

JUDGES = st.sampled_from([LocalJudge(), LexicalJudge()])
# Lone surrogates, zero-width and other invisible characters, list markers and sentence ends
# come up often, beside any other character.
AWKWARD = "\ud800\udfff\ud83d\u200b\u200d\ufeff\u00ad\u2028\x00\x1b \n."
WORDS = ["\n\n", "1. ", "$4.50", "e.g.", "Jev ", "is free. ", "damn ", "Output tokens"]
CHARACTERS = st.characters(exclude_categories=()) | st.sampled_from(AWKWARD)
SLOW = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow])


def texts(max_size: int) -> st.SearchStrategy[str]:
    """Any characters, awkward ones often, with words and sentence ends mixed in."""
    piece = st.text(CHARACTERS, max_size=12) | st.sampled_from(WORDS)
    return st.lists(piece, max_size=max_size // 8).map("".join).map(lambda t: t[:max_size])


text = texts(300)
chunks = st.lists(texts(120), max_size=200)
maybe_text = st.none() | text
chosen_evaluators = st.lists(st.sampled_from(evaluators.ALL), min_size=1,
                             max_size=len(evaluators.ALL), unique=True)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | text,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(text, inner, max_size=4),
    max_leaves=12)
# Case files as people write them: the fields under any accepted name, settings sometimes.
case_files = st.fixed_dictionaries(
    {"input": text},
    optional={
        "answer": text, "expected_output": maybe_text, "retrieval_context": chunks,
        "evaluators": st.lists(st.sampled_from(evaluators.NAMES + ("contextual_relevancy",)),
                               min_size=1, max_size=4),
        "thresholds": st.dictionaries(st.sampled_from(evaluators.NAMES),
                                      st.floats(0, 1), max_size=3),
        "description": text,
    })
# Objects whose keys are accepted names (or not) and whose values may be anything.
json_objects = st.dictionaries(st.sampled_from(casefile.KNOWN) | text, json_values, max_size=6)


def _check_report(report, chosen) -> None:
    assert list(report.results) == [e.name for e in chosen]
    for result in report.results.values():
        if result.skipped:
            assert result.score is None and result.passed is None
            continue
        assert 0.0 <= result.score <= 1.0
        assert 0.0 <= result.confidence <= 1.0
        assert all(0.0 <= d.p <= 1.0 and type(d.yes) is bool for d in result.details)
    json.dumps(report.to_dict(), allow_nan=False).encode("utf-8")  # printable as sent


def _refused(err: JevalError, seen: Counter) -> None:
    assert "\n" not in str(err)
    seen["refused"] += 1


def _tally(seen: Counter, scoring) -> None:
    """Score (or be refused with jeval's own error), check the report, and count which."""
    try:
        report, chosen = scoring()
    except JevalError as err:
        _refused(err, seen)
        return
    _check_report(report, chosen)
    seen["scored"] += 1


def test_scoring_never_raises_anything_but_our_error():
    seen: Counter = Counter()

    @settings(max_examples=80, **SLOW)
    @given(input=text, output=text, expected=maybe_text, context=chunks,
           chosen=chosen_evaluators, judge=JUDGES)
    def run(input, output, expected, context, chosen, judge):
        _tally(seen, lambda: (score(Case(input, output, expected, tuple(context)), chosen,
                                    judge), chosen))

    run()
    assert seen["scored"] > 0, seen


def test_any_case_file_is_scored_or_refused_with_our_error():
    seen: Counter = Counter()

    @settings(max_examples=80, **SLOW)
    @given(data=case_files)
    def run(data):
        def scored():
            file = casefile.parse(data)
            return score(file.case, file.chosen(), LexicalJudge(), file.thresholds), file.chosen()

        _tally(seen, scored)

    run()
    assert seen["scored"] > 0, seen


def test_any_json_is_a_case_file_or_our_error():
    seen: Counter = Counter()

    @settings(max_examples=120, **SLOW)
    @given(data=json_values | json_objects | case_files)
    def run(data):
        try:
            file = casefile.decode(json.dumps(data).encode(), "case.json")
            report = score(file.case, file.chosen(), LexicalJudge(), file.thresholds)
        except JevalError as err:
            _refused(err, seen)
            return
        _check_report(report, file.chosen())
        seen["scored"] += 1

    run()
    assert seen["scored"] > 0 and seen["refused"] > 0, seen


def test_any_bytes_are_a_case_file_or_our_error():
    seen: Counter = Counter()

    @settings(max_examples=60, **SLOW)
    @given(raw=st.binary(max_size=200) | case_files.map(lambda d: json.dumps(d).encode()))
    def run(raw):
        try:
            casefile.decode(raw, "upload.json")
        except JevalError as err:
            _refused(err, seen)
            return
        seen["read"] += 1

    run()
    assert seen["read"] > 0, seen


@settings(max_examples=60, deadline=None)
@given(input=text, output=text, context=chunks)
def test_packing_asks_about_every_chunk_with_text_and_no_whitespace_chunk(input, output,
                                                                           context):
    case = Case(input, output, None, tuple(context))
    packed = pack(case, [evaluators.EVALUATORS["chunk_relevance"]])
    asked = {int(qid[2:]) for qid in packed.body["questions"]}
    if case.has("input") and case.has("context"):
        assert {i for i, c in enumerate(case.context) if has_text(c)} <= asked
        assert not {i for i, c in enumerate(case.context) if not c.strip()} & asked
    else:
        assert packed.body["questions"] == {}
        assert packed.skipped["chunk_relevance"].startswith("needs `")


@settings(max_examples=60, deadline=None)
@given(input=text, output=text, expected=maybe_text, context=chunks)
def test_the_state_never_holds_a_field_no_question_names(input, output, expected, context):
    case = Case(input, output, expected, tuple(context))
    try:
        packed = pack(case, evaluators.ALL)
    except JevalError:
        return
    named = {n for q in packed.asked.values() for n in q.names()}
    assert set(packed.state) == named

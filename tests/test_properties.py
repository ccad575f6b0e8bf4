"""Property tests: any text, 0..200 chunks, any evaluators -> a defined result or our error."""

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jeval_core import Case, JevalError, score
from jeval_core.evaluators import NAMES
from jeval_core.judges.lexical import LexicalJudge
from jeval_core.judges.local import LocalJudge
from jeval_core.request import pack

JUDGES = st.sampled_from([LocalJudge(), LexicalJudge()])

text = st.text(max_size=300)
chunks = st.lists(st.text(max_size=120), max_size=200)
names = st.lists(st.sampled_from(NAMES), min_size=1, max_size=len(NAMES), unique=True)
maybe_text = st.none() | text


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(input=text, output=text, expected=maybe_text, context=chunks, chosen=names, judge=JUDGES)
def test_scoring_never_raises_anything_but_our_error(input, output, expected, context, chosen,
                                                     judge):
    case = Case(input, output, expected, tuple(context))
    try:
        report = score(case, chosen, judge)
    except JevalError:
        return
    assert list(report.results) == chosen
    for result in report.results.values():
        if result.skipped:
            assert result.score is None and result.passed is None
            continue
        assert 0.0 <= result.score <= 1.0
        assert 0.0 <= result.confidence <= 1.0
        assert all(0.0 <= d.p <= 1.0 for d in result.details)


@settings(max_examples=60, deadline=None)
@given(input=text, output=text, context=chunks)
def test_packing_asks_one_question_per_chunk(input, output, context):
    case = Case(input, output, None, tuple(context))
    packed = pack(case, ["chunk_relevance"])
    if case.has("input") and case.has("context"):
        assert len(packed.body["questions"]) == len(context)
    else:
        assert packed.body["questions"] == {}
        assert packed.skipped["chunk_relevance"].startswith("needs `")


@settings(max_examples=40, deadline=None)
@given(data=st.dictionaries(st.text(max_size=10), st.none() | st.integers() | text | chunks))
def test_case_from_any_json_object_is_a_case_or_our_error(data):
    try:
        Case.from_dict(data)
    except JevalError as err:
        assert "\n" not in str(err)

"""A chunk is judged on its own, as its question says: adding, deleting, reordering or editing
the other chunks of a retrieval leaves its p bit for bit, for every offline judge."""

import json

import pytest
from conftest import EXAMPLES, load_case
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jeval_core import Case
from jeval_core.judges.devx import DevxJudge
from jeval_core.judges.lexical import LexicalJudge
from jeval_core.judges.local import LocalJudge
from jeval_core.judges.similarity import SimilarityJudge
from jeval_core.scoring import score


def _chunks() -> list[str]:
    """Every chunk of every example: the other chunks a retrieval may hold."""
    out: list[str] = []
    for path in sorted(EXAMPLES.glob("*.json")):
        out += json.loads(path.read_text("utf-8")).get("context", [])
    return out


POOL = _chunks()
JUDGES = {"local": LocalJudge(), "similarity": SimilarityJudge(), "lexical": LexicalJudge(),
          "devx": DevxJudge()}


def chunk_p(case: Case, judge) -> dict[str, float]:
    """p per chunk text, as chunk relevance reports it."""
    details = score(case, ["chunk_relevance"], judge).results["chunk_relevance"].details
    return {case.context[int(d.id[2:])]: d.p for d in details}


@st.composite
def neighbours(draw: st.DrawFn) -> tuple[str, ...]:
    """Other chunks: some of the examples' chunks (a paraphrase and the seed's own chunks
    among them), one perhaps edited, in any order."""
    others = draw(st.lists(st.sampled_from(POOL), max_size=6, unique=True))
    if others and draw(st.booleans()):
        i = draw(st.integers(0, len(others) - 1))
        others[i] = others[i] + " " + draw(st.sampled_from(POOL))
    return tuple(draw(st.permutations(others)))


@pytest.mark.parametrize("name", sorted(JUDGES))
@pytest.mark.parametrize("expected", [None, "Input tokens cost $42 per billion; output is free."])
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.differing_executors])
@given(others=neighbours(), at=st.integers(0, 6))
def test_a_chunks_p_does_not_move_with_the_chunks_beside_it(name, expected, others, at):
    seed = load_case("jev_pricing")
    judge = JUDGES[name]
    target = seed.context[0]
    alone = chunk_p(Case(input=seed.input, output=seed.output, expected=expected,
                         context=(target,)), judge)[target]
    others = tuple(c for c in others if c != target)
    at = min(at, len(others))
    beside = Case(input=seed.input, output=seed.output, expected=expected,
                  context=(*others[:at], target, *others[at:]))
    assert chunk_p(beside, judge)[target] == alone


def test_the_seed_price_chunk_keeps_its_p_beside_its_paraphrase():
    seed = load_case("jev_pricing")
    paraphrase = ("Output tokens are not billed; you pay only for input tokens, $42 per "
                  "billion.")
    judge = JUDGES["local"]
    before = chunk_p(seed, judge)
    after = chunk_p(Case(input=seed.input, output=seed.output,
                         context=(seed.context[0], paraphrase, *seed.context[2:])), judge)
    assert after[seed.context[0]] == before[seed.context[0]]
    assert after[seed.context[3]] == before[seed.context[3]]
    assert after[seed.context[0]] >= 0.5  # relevant, beside its paraphrase as alone

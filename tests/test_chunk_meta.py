"""A chunk's metadata (id, source, retriever score, rank) rides beside the case: equal cases
stay equal, and nothing of it reaches a judge, whatever the judge or the evaluator."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jeval_core import Case, ChunkMeta, evaluators
from jeval_core.inputs import pipelines
from jeval_core.judges import openai_prompt
from jeval_core.request import pack

PIPELINES = Path(__file__).resolve().parent.parent / "assets" / "pipelines"


@pytest.fixture
def with_meta() -> Case:
    """The first LangChain retrieval of the fixture, its chunks' metadata kept."""
    first = pipelines.read(PIPELINES / "langchain/retrievals.json")[0]
    return Case(first.input, first.output, "Versioning is turned on per bucket.",
                tuple(c.text for c in first.chunks),
                tuple(ChunkMeta(c.id, c.source, c.score, c.rank) for c in first.chunks))


def bare(case: Case) -> Case:
    return Case(case.input, case.output, case.expected, case.context)


def test_metadata_takes_no_part_in_equality_or_hashing(with_meta):
    assert with_meta == bare(with_meta)
    assert hash(with_meta) == hash(bare(with_meta))
    assert {with_meta: "scored"}[bare(with_meta)] == "scored"  # one cache entry for both


def test_metadata_is_one_entry_per_chunk_or_none():
    with pytest.raises(ValueError, match="2 entries for 1 chunks"):
        Case("q", context=("a",), context_meta=(ChunkMeta(id="x"), None))
    assert Case("q", context=("a", "b"), context_meta=(None, None)).context_meta == ()


def test_the_case_dict_carries_metadata_only_when_there_is_some(with_meta):
    written = with_meta.to_dict()["context_meta"]
    assert written == [m.to_dict() for m in with_meta.context_meta]
    assert written[0] == {"id": "tsr-docs-0412", "source": "Bucket versioning",
                          "score": 0.912, "rank": 0}
    assert "context_meta" not in bare(with_meta).to_dict()


def test_the_request_body_is_byte_identical_with_and_without_metadata(with_meta):
    chosen = evaluators.ALL
    with_bytes = json.dumps(pack(with_meta, chosen).body, ensure_ascii=False).encode()
    without = json.dumps(pack(bare(with_meta), chosen).body, ensure_ascii=False).encode()
    assert with_bytes == without
    for meta in with_meta.context_meta:
        assert meta is not None and meta.id is not None
        assert meta.id.encode() not in with_bytes


@pytest.mark.parametrize("name", sorted(evaluators.EVALUATORS))
def test_no_evaluators_questions_change_with_metadata(with_meta, name):
    evaluator = evaluators.EVALUATORS[name]
    assert evaluator.questions(with_meta) == evaluator.questions(bare(with_meta))


@pytest.mark.parametrize("prompt", openai_prompt.PROMPTS)
def test_the_openai_judges_messages_are_the_same_with_and_without_metadata(with_meta, prompt):
    def sent(case: Case) -> list[str]:
        packed = pack(case, evaluators.ALL)
        return [json.dumps(openai_prompt.messages(
            packed.state if prompt == "case" else openai_prompt.named_state(packed.state, q), q))
            for q in packed.asked.values()]

    messages = sent(with_meta)
    assert messages == sent(bare(with_meta))
    assert not any(m is not None and m.id is not None and m.id in text
                   for text in messages for m in with_meta.context_meta)

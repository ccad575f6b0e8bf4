"""The reader's recipe can be run again: the public data files give the same training pairs
every time, and never a pair of a held-out topic.

These read the public data folder named by $JEVAL_DATA (`bench/public_data.py` lists what
it holds and where each file comes from); without it they are skipped, and CI sets it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from bench import public_data, reader_data
from jeval_core.calibration.fitting import held_out_part

pytestmark = pytest.mark.skipif(not os.environ.get(public_data.ENV),
                                reason=f"set {public_data.ENV} to the public data folder")


@pytest.fixture(scope="module")
def root() -> Path:
    return public_data.data_dir()


@pytest.fixture(scope="module")
def training(root):
    return reader_data.pairs(root, seed=7)


def test_the_same_folder_and_seed_give_the_same_pairs_in_the_same_order(root, training):
    assert reader_data.pairs(root, seed=7) == training
    assert len(training) > 40_000


def test_no_pair_comes_from_a_held_out_question_or_paragraph(root, training):
    held = set()
    for name in ("squad", "squadshifts_wiki", "hotpotqa"):
        held |= {c["input"] for c in public_data.every(name, root) if held_out_part(c["topic"])}
    fitted = set()
    for name in ("squad", "squadshifts_wiki", "hotpotqa"):
        fitted |= {c["input"] for c in public_data.every(name, root)
                   if not held_out_part(c["topic"])}
    asked = {p.first.removeprefix("question: ") for p in training if p.task == "relevance"}
    # a question asked word for word of a fitted topic too may be trained on; no other
    assert not (asked & held) - fitted


def test_no_claim_is_read_against_held_out_evidence(root, training):
    held = {r["evidence"] for name in ("snli", "fever_symmetric", "begin", "faithdial")
            for r in public_data.every(name, root) if held_out_part(r["topic"])}
    fitted = {r["evidence"] for name in ("snli", "fever_symmetric", "begin", "faithdial")
              for r in public_data.every(name, root) if not held_out_part(r["topic"])}
    read = {p.second for p in training if p.task == "nli"}
    assert not (read & held) - fitted


def test_unanswerable_questions_are_on_topic_negatives(training):
    negatives = [p for p in training if p.source == "squad:unanswerable"]
    assert len(negatives) > 1000 and not any(p.label for p in negatives)


def test_both_hops_of_a_multi_hop_question_are_relevant(root):
    row = next(r for r in public_data.every("hotpotqa", root))
    assert sum(row["labels"]) == 2 and len(row["labels"]) >= 8


def test_a_missing_folder_is_one_clear_line(tmp_path):
    with pytest.raises(public_data.MissingData, match="squad_v1.1_dev"):
        public_data.every("squad", tmp_path)


@pytest.fixture(scope="module")
def second_stage(root):
    return reader_data.rag_pairs(root, seed=7)


def test_the_second_stage_gives_the_same_pairs_in_the_same_order(root, second_stage):
    assert reader_data.rag_pairs(root, seed=7) == second_stage


def test_the_second_stage_reads_no_held_out_team_written_retrieval(second_stage):
    held = {json.loads(line)["input"] for path in reader_data.RETRIEVALS.glob("*.jsonl")
            for line in path.read_text("utf-8").splitlines()
            if line.strip() and held_out_part(json.loads(line)["topic"])}
    fitted = [p for p in second_stage if p.source == "repo:retrievals"]
    assert held and fitted
    assert not {p.first.removeprefix("question: ") for p in fitted} & held


def test_the_second_stage_keeps_half_its_pairs_from_the_first(second_stage):
    rag = sum(p.source in ("repo:retrievals", "repo:ordinary", "repo:pairs")
              and p.task == "relevance" for p in second_stage)
    assert rag >= len(second_stage) / 2  # the RAG-shaped pairs, and as many stage-1 pairs
    assert any(p.task == "nli" for p in second_stage)  # claims are kept in view


def _questions_of(names: list[str]) -> set[str]:
    return {json.loads(line)["input"] for name in names
            for line in (reader_data.RETRIEVALS / f"{name}.jsonl").read_text("utf-8").splitlines()
            if line.strip()}


def test_the_second_stage_reads_only_the_retrieval_sets_the_shipped_reader_read(second_stage):
    """The retrieval sets written after the shipped reader are measured on, not trained on,
    so the recipe still makes the shipped weights; `--more-retrievals` adds them."""
    later = sorted(p.stem for p in reader_data.RETRIEVALS.glob("*.jsonl")
                   if p.stem not in reader_data.SHIPPED_RETRIEVALS)
    assert later
    fitted = {p.first.removeprefix("question: ") for p in second_stage
              if p.source == "repo:retrievals"}
    assert fitted <= _questions_of(list(reader_data.SHIPPED_RETRIEVALS))
    assert not fitted & _questions_of(later)


def test_more_retrievals_adds_the_fit_parts_of_the_later_sets(root, second_stage):
    more = reader_data.rag_pairs(root, seed=7, more=True)
    later = [p.stem for p in reader_data.RETRIEVALS.glob("*.jsonl")
             if p.stem not in reader_data.SHIPPED_RETRIEVALS]
    fitted = {p.first.removeprefix("question: ") for p in more if p.source == "repo:retrievals"}
    assert fitted & _questions_of(later) and len(more) > len(second_stage)

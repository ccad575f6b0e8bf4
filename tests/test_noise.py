"""Where a run's noise comes from: by source, by retriever-score range, and near-duplicate
chunks that waste a slot, from the verdicts already given."""

from dataclasses import replace

from conftest import ROOT, load_case

from jeval_core.analysis import noise
from jeval_core.inputs import datasets

LLAMAINDEX = datasets.load(ROOT / "assets" / "pipelines" / "llamaindex" / "responses.json")


def judged(relevant_by_row):
    return [(row.case, relevant) for row, relevant in zip(LLAMAINDEX.rows, relevant_by_row,
                                                          strict=True)]


def test_noise_is_grouped_by_the_source_document_noisiest_first():
    rows = judged([[True, False, False, False], [True, True, False, False],
                   [True, False, True, False]])
    groups = noise.by_source(rows)
    assert sum(g.chunks for g in groups) == 12 and sum(g.relevant for g in groups) == 5
    assert [g.noise_share for g in groups] == sorted((g.noise_share for g in groups),
                                                     reverse=True)
    assert abs(sum(g.share_of_relevant for g in groups) - 1.0) < 1e-9


def test_noise_is_grouped_by_score_range_lowest_first_with_every_chunk_once():
    rows = judged([[True, True, False, False]] * 3)
    groups = noise.by_score(rows, ranges=2)
    assert sum(g.chunks for g in groups) == 12
    low, high, unscored = groups  # one node of the export has no score
    assert unscored.name == "(no score)"
    assert low.noise_share > high.noise_share  # the lower scores hold the noise here


def test_without_retriever_scores_there_are_no_score_ranges():
    assert noise.by_score([(load_case("jev_pricing"), [True, False, False, True])]) == []


def test_a_chunk_without_a_source_is_grouped_as_such():
    [group] = noise.by_source([(load_case("jev_pricing"), [True, False, False, True])])
    assert group.name == noise.NO_SOURCE and (group.chunks, group.noise) == (4, 2)


def test_a_near_duplicate_chunk_is_one_unit_and_a_wasted_slot():
    seed = load_case("jev_pricing")
    copied = replace(seed, context=(*seed.context, seed.context[0] + " "))
    assert noise.near_duplicates(copied) == [(0, 4, 100.0)]
    assert noise.units(copied) == [[0, 4], [1], [2], [3]]
    found = noise.wasted([(copied, [True, False, False, True, True])])
    assert (found.chunks, found.duplicates, found.retrievals_with_duplicates) == (5, 1, 1)
    assert found.precision_per_chunk == 3 / 5 and found.precision_per_unit == 2 / 4


def test_a_chunk_neither_judged_nor_labelled_is_left_out():
    seed = load_case("jev_pricing")
    [group] = noise.by_source([(seed, [True, None, None, False])])
    assert group.chunks == 2

"""The k-sweep: one scoring of a retrieval gives its figures at every top-k and every retriever
score cutoff, the same as scoring the cut retrieval again."""

from dataclasses import replace

import pytest
from conftest import ROOT, load_case

from jeval_core import Case
from jeval_core.analysis import k_sweep
from jeval_core.evaluators import EVALUATORS
from jeval_core.inputs import datasets
from jeval_core.judges.local import LocalJudge
from jeval_core.scoring import score
from jeval_core.token_estimate import estimate

JUDGE = LocalJudge()
SAMPLE = datasets.load(ROOT / "assets" / "datasets" / "sample.jsonl")
LLAMAINDEX = datasets.load(ROOT / "assets" / "pipelines" / "llamaindex" / "responses.json")


def verdicts(case: Case) -> list[bool | None]:
    result = score(case, [EVALUATORS["chunk_relevance"]], JUDGE).results["chunk_relevance"]
    by_chunk = {int(d.id[2:]): d.yes for d in result.details}
    return [by_chunk.get(i) for i in range(len(case.context))]


def cut(case: Case, k: int) -> Case:
    return replace(case, context=case.context[:k], context_meta=case.context_meta[:k])


@pytest.mark.parametrize("case", [load_case("jev_pricing"), SAMPLE.rows[3].case,
                                  LLAMAINDEX.rows[0].case], ids=["seed", "sample", "llamaindex"])
def test_each_k_reads_as_the_retrieval_cut_to_k_and_scored_again(case):
    points = k_sweep.sweep(case, k_sweep.relevance_of(case, verdicts(case)))
    assert [p.k for p in points] == list(range(1, len(case.context) + 1))
    for point in points:
        again = verdicts(cut(case, point.k))
        judged = [v for v in again if v is not None]
        assert point.relevant == sum(judged)
        assert point.precision == (sum(judged) / len(judged) if judged else None)


@pytest.mark.parametrize("case", [load_case(n) for n in ("jev_pricing", "clean_retrieval",
                                                         "noisy_retrieval")],
                         ids=["seed", "clean", "noisy"])
def test_supported_at_k_from_chunk_support_reads_as_the_cut_retrieval_asked_again(case):
    """Each sentence-chunk question is read on its own, so the supported@k read from one
    scoring of the whole retrieval is chunk_support's score on the retrieval cut to k."""
    from jeval_core.evaluators import chunk_support

    judge = LocalJudge()
    whole = score(case, [chunk_support.EVALUATOR], judge).results["chunk_support"]
    points = k_sweep.sweep(case, [None] * len(case.context))
    for point, share in zip(points, k_sweep.support_by_chunk(case, whole, points),
                            strict=True):
        cut = score(k_sweep.cut(case, point.k), [chunk_support.EVALUATOR], judge)
        assert share == cut.results["chunk_support"].score, point.k


def test_recall_at_the_whole_retrieval_is_one_and_never_falls_as_k_grows():
    case = load_case("jev_pricing")  # two chunks relevant of four
    points = k_sweep.sweep(case, [True, False, False, True])
    assert [p.recall for p in points] == [0.5, 0.5, 0.5, 1.0]
    assert [p.precision for p in points] == [1.0, 0.5, 1 / 3, 0.5]


def test_tokens_at_k_are_the_kept_chunks_text():
    case = load_case("jev_pricing")
    points = k_sweep.sweep(case, [True, False, False, True])
    assert [p.tokens for p in points] == [
        sum(estimate(c) for c in case.context[:k]) for k in range(1, 5)]
    assert k_sweep.cost_usd(1_000_000, 2.5) == pytest.approx(2.5)


def test_a_persons_label_stands_over_the_judges_verdict():
    case = load_case("jev_pricing")
    assert k_sweep.relevance_of(case, [True, True, False, None],
                                [None, False, None, True]) == [True, False, False, True]


def test_a_blank_chunk_keeps_its_place_but_counts_for_nothing():
    case = Case(input="How is Jev priced?", context=("Price: $42 per billion.", " ", "Free."))
    relevant = k_sweep.relevance_of(case, [True, None, False])
    assert relevant == [True, None, False]
    assert [p.precision for p in k_sweep.sweep(case, relevant)] == [1.0, 1.0, 0.5]


def test_a_score_cutoff_keeps_the_chunks_the_retriever_scored_at_least_that_high():
    case = LLAMAINDEX.rows[0].case
    scores = [m.score for m in case.context_meta]
    points = k_sweep.by_score(case, [True, True, False, False])
    assert [p.cutoff for p in points] == sorted(scores, reverse=True)
    assert [p.k for p in points] == [1, 2, 3, 4]
    assert points[1].recall == 1.0 and points[1].precision == 1.0


def test_without_retriever_scores_there_is_no_cutoff_sweep():
    assert k_sweep.by_score(load_case("jev_pricing"), [True, False, False, True]) == []


def test_a_dataset_keeps_the_fewest_chunks_that_reach_the_recall_asked():
    rows = [r for r in SAMPLE.rows if r.labels is not None]
    sweeps = [k_sweep.sweep(r.case, k_sweep.relevance_of(r.case, [None] * len(r.case.context),
                                                        r.labels)) for r in rows]
    chosen = k_sweep.choose_k(sweeps, 0.8)
    assert chosen is not None and chosen.recall >= 0.8
    lo, hi = chosen.interval
    assert lo <= chosen.recall <= hi
    fewer = k_sweep.choose_k(sweeps, 0.5)
    assert fewer is not None and fewer.k <= chosen.k and fewer.tokens <= chosen.tokens
    assert k_sweep.choose_k(sweeps, 1.01) is None


def test_a_verdict_per_chunk_is_required():
    with pytest.raises(Exception, match="one verdict per chunk"):
        k_sweep.relevance_of(load_case("jev_pricing"), [True])


@pytest.mark.parametrize("name", ["sample.jsonl", "labelled_helpdesk.jsonl"])
@pytest.mark.parametrize("level", [0.7, 0.8])
def test_a_k_chosen_on_half_the_labelled_retrievals_holds_on_the_other_half(name, level):
    from jeval_core.calibration.fitting import held_out_part

    rows = [r for r in datasets.load(ROOT / "assets" / "datasets" / name).rows
            if r.labels is not None]
    swept = {r.id: k_sweep.sweep(r.case, k_sweep.relevance_of(
        r.case, [None] * len(r.case.context), r.labels)) for r in rows}
    chosen_on = [swept[r.id] for r in rows if held_out_part(r.id, 5)]  # split by id's sha1
    other = [swept[r.id] for r in rows if not held_out_part(r.id, 5)]
    chosen = k_sweep.choose_k(chosen_on, level)
    assert chosen is not None and len(chosen_on) >= 19 and len(other) >= 22
    lo, hi = chosen.interval
    assert lo <= k_sweep.means(other)[chosen.k - 1].recall <= hi


def test_the_highest_score_cutoff_that_keeps_the_recall_asked_is_chosen():
    judged = [(r.case, [True, True] + [False] * (len(r.case.context) - 2))
              for r in LLAMAINDEX.rows]
    chosen = k_sweep.choose_cutoff(judged, 1.0)
    assert chosen is not None and chosen.recall == 1.0
    for case, relevant in judged:  # every relevant chunk is kept at the cutoff
        metas = [case.chunk_meta(i) for i in range(len(case.context))]
        assert all(m is None or m.score is None or m.score >= chosen.cutoff
                   for m, r in zip(metas, relevant, strict=True) if r)
    looser = k_sweep.choose_cutoff(judged, 0.5)
    assert looser.cutoff >= chosen.cutoff and looser.tokens <= chosen.tokens
    assert k_sweep.choose_cutoff([(load_case("jev_pricing"), [True, False, False, True])],
                                 0.5) is None  # no retriever scores

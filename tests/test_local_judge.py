"""The local judge: offline MiniLM, verified files, cached embeddings, calibrated answers."""

import os

import numpy as np
import pytest
from conftest import load_case

from jeval_core import JudgeError, score
from jeval_core.judges import calibration
from jeval_core.judges.embedder import _verified, embedder
from jeval_core.judges.local import LocalJudge, missing_number_share, numbers
from jeval_core.questions import RELATIONS


@pytest.fixture(scope="module")
def judge():
    return LocalJudge()


def test_on_the_seed_case_chunks_one_and_four_are_relevant(judge, seed_case):
    result = score(seed_case, ["chunk_relevance"], judge).results["chunk_relevance"]
    assert [d.verdict for d in result.details] == [
        "relevant", "not relevant", "not relevant", "relevant"]
    assert result.score == 0.5 and result.label == "50% yes"


def test_it_is_the_default_judge(seed_case):
    assert score(seed_case, ["chunk_relevance"]).judge == "local"


def test_it_says_it_approximates(judge, seed_case):
    report = score(seed_case, ["chunk_relevance"], judge)
    assert report.approximates and report.usage.requests == 0 and report.cost_usd == 0


def test_it_never_reaches_for_a_model_hub(judge):
    assert judge.embedder is not None  # loading it sets the flag
    assert os.environ.get("HF_HUB_OFFLINE") == "1"


def test_embeddings_are_unit_vectors_and_reused():
    model = embedder()
    first = model.embed(["Output tokens are free.", "Founded in 2024."])
    again = model.embed(["Founded in 2024."])
    assert np.allclose(np.linalg.norm(first, axis=1), 1.0, atol=1e-5)
    assert np.array_equal(first[1], again[0])


def test_a_file_that_is_not_the_pinned_one_is_refused(tmp_path):
    fake = tmp_path / "model.onnx"
    fake.write_bytes(b"not a model")
    with pytest.raises(JudgeError, match="not the file jeval was calibrated with"):
        _verified(fake, "0" * 64)


def test_it_catches_the_hallucinated_answer(judge):
    results = score(load_case("hallucinated_answer"), ["faithfulness", "hallucination"],
                    judge).results
    assert results["hallucination"].passed is False
    assert results["faithfulness"].score < 0.5


def test_it_flags_the_insulting_sentences(judge):
    result = score(load_case("toxic_answer"), ["toxicity"], judge).results["toxicity"]
    toxic = [d.verdict for d in result.details]
    assert toxic.count("toxic") == 2 and toxic[0] == "clean"


def test_it_ranks_the_reference_cases_chunks_right(judge):
    result = score(load_case("with_expected"), ["chunk_relevance"], judge).results[
        "chunk_relevance"]
    assert [d.verdict == "relevant" for d in result.details] == [True, False, True, False, True]


def test_numbers_are_normalised():
    assert numbers("1,200 rpm at $8.50 and 1200 again") == {"1200", "8.50"}
    assert missing_number_share("Take 400 mg every 4 hours", "200-400 mg every 4-6 hours") == 0
    assert missing_number_share("Take 800 mg every 2 hours", "200-400 mg every 4-6 hours") == 1


@pytest.mark.parametrize("relation", RELATIONS)
def test_every_relation_has_a_curve_for_both_offline_judges(relation):
    assert relation in calibration.LOCAL and relation in calibration.LEXICAL

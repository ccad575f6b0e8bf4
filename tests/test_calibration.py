"""The offline judges against labelled data: the committed curves are the ones the fit gives,
the held-out topics keep their scores, and the examples' stated truth is met.

The held-out topics (assets/calibration/split.json) are never fitted on, so these floors say
how the judge does on text it has not been tuned for. Each floor sits a little under what
`python bench/calibrate.py` prints today: a change that makes the judge worse fails here.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from bench import calibrate
from jeval_core import casefile, judges, score
from jeval_core.judges import calibration

EXAMPLES = Path(__file__).resolve().parent.parent / "assets" / "examples"

# Held-out (AUC, accuracy at p = 0.5) floors for the local judge, per question relation.
LOCAL_FLOORS = {
    "helps_answer": (0.66, 0.60),
    "relevant_to": (0.89, 0.73),
    "supported_by": (0.52, 0.58),
    "attributable_to": (0.72, 0.70),
    "contradicts": (0.68, 0.55),
    "toxic": (0.80, 0.77),
}

# What the local judge gets wrong in the examples today, and why: a sentence embedding reads
# topic, not what a chunk says about it. Strict: when one of these starts to pass, the test
# fails until it is taken off this list.
KNOWN_MISSES = {
    ("clean_retrieval", "context_relevancy"):
        "4 of 9 statements read as off-topic (5 of 9 relevant, 56% < 80%)",
    ("noisy_retrieval", "chunk_relevance"):
        "same-product chunks about other features read as relevant (5 of 6 for 2 of 6)",
    ("noisy_retrieval", "context_relevancy"):
        "the noise is on the same product, so its statements read as relevant",
    ("toxic_answer", "faithfulness"):
        "the reset steps are paraphrased, too loosely for the support curve (0 of 4)",
    ("toxic_answer", "answer_relevancy"):
        "the insults dilute the sentences that do answer (2 of 4 needed, 1 found)",
}


def expectations() -> list[tuple[str, str, bool]]:
    out = []
    for path in sorted(EXAMPLES.glob("*.json")):
        truth = json.loads(path.read_text("utf-8")).get("truth", {})
        out += [(path.stem, name, want["passed"])
                for name, want in truth.get("evaluators", {}).items()]
    return out


@pytest.fixture(scope="module")
def pairs():
    return calibrate.load_pairs()


@pytest.fixture(scope="module")
def reports():
    judge = judges.get("local")
    out = {}
    for path in sorted(EXAMPLES.glob("*.json")):
        loaded = casefile.decode(path.read_bytes(), path.name)
        out[path.stem] = score(loaded.case, loaded.chosen(), judge)
    return out


def test_every_example_states_its_truth():
    for path in sorted(EXAMPLES.glob("*.json")):
        truth = json.loads(path.read_text("utf-8")).get("truth")
        assert truth and truth["evaluators"], path.name
        assert all(w["why"].strip() for w in truth["evaluators"].values()), path.name


@pytest.mark.parametrize(("example", "evaluator", "passed"), [
    pytest.param(*e, id=f"{e[0]}-{e[1]}", marks=(
        [pytest.mark.xfail(reason=KNOWN_MISSES[e[:2]], strict=True)]
        if e[:2] in KNOWN_MISSES else []))
    for e in expectations()])
def test_the_local_judge_meets_the_examples_stated_verdict(reports, example, evaluator, passed):
    assert reports[example].results[evaluator].passed is passed


# Curves kept from an earlier fit, and why, in jeval_core/judges/calibration.py.
PINNED = {"supported_by", "contradicts"}


def test_the_committed_local_curves_are_what_the_fit_gives(pairs):
    fresh = calibrate.refit("local", pairs[0])
    for relation, curve in calibration.LOCAL.items():
        if relation in PINNED:
            continue
        committed = np.array([curve.bias, *curve.weights])
        assert np.allclose(fresh[relation], committed, atol=0.015), relation


def test_the_held_out_pairs_are_never_fitted_on(pairs):
    fit_topics = {p["topic"] for p in pairs[0]}
    assert not fit_topics & {p["topic"] for p in pairs[1]}
    assert len(pairs[1]) >= 300 and len({p["topic"] for p in pairs[1]}) >= 50


@pytest.fixture(scope="module")
def held(pairs):
    return {name: calibrate.heldout(name, pairs[1]) for name in ("local", "lexical")}


@pytest.mark.parametrize("relation", sorted(LOCAL_FLOORS))
def test_the_local_judge_keeps_its_held_out_scores(held, relation):
    auc, accuracy, _, _ = held["local"][relation]
    floor_auc, floor_accuracy = LOCAL_FLOORS[relation]
    assert auc >= floor_auc and accuracy >= floor_accuracy, (
        f"{relation}: AUC {auc:.3f}, accuracy {accuracy:.3f}")


@pytest.mark.parametrize("relation", sorted(LOCAL_FLOORS))
def test_the_local_judge_ranks_better_than_word_overlap(held, relation):
    assert held["local"][relation][0] > held["lexical"][relation][0]

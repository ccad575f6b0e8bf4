"""The local judge against labels: the examples' stated truth, the easy cases a person types,
and held-out figures next to the always-no baseline.

The held-out parts (by topic) are never fitted on, so these floors say how the judge does on
text it was not tuned for. They use the labelled data in this repository (hard pairs and
ordinary retrievals); `python bench/calibrate.py` adds the public human-labelled sources.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from bench import calibrate
from jeval_core import Case, evaluators, judges, score
from jeval_core.calibration import curves
from jeval_core.calibration.fitting import accuracy_in, held_out_part
from jeval_core.inputs import casefile
from jeval_core.questions import (
    CONTRADICTS,
    HELPS_ANSWER,
    RELEVANT_TO,
    SUPPORTED_BY,
    TOXIC,
)

EXAMPLES = Path(__file__).resolve().parent.parent / "assets" / "examples"


def stated_truths() -> list[tuple[str, str, object]]:
    """(example, what, truth): each evaluator's pass/fail and each chunk's relevance."""
    out: list[tuple[str, str, object]] = []
    for path in sorted(EXAMPLES.glob("*.json")):
        data = json.loads(path.read_text("utf-8"))
        truth = data["truth"]
        out += [(path.stem, name, want["passed"]) for name, want in truth["evaluators"].items()]
        if "chunk_relevance" in data.get("evaluators", ["chunk_relevance"]):
            out += [(path.stem, f"chunk {i}", bool(v))
                    for i, v in enumerate(truth.get("context", []))]
    return out


@pytest.fixture(scope="module")
def reports():
    judge = judges.get("local")
    out = {}
    for path in sorted(EXAMPLES.glob("*.json")):
        loaded = casefile.decode(path.read_bytes(), path.name)
        out[path.stem] = score(loaded.case, loaded.chosen(), judge, loaded.thresholds)
    return out


def test_every_example_states_its_truth_and_why():
    for path in sorted(EXAMPLES.glob("*.json")):
        truth = json.loads(path.read_text("utf-8")).get("truth")
        assert truth and truth["evaluators"], path.name
        assert all(w["why"].strip() for w in truth["evaluators"].values()), path.name


# The stated truths the local judge misses, as `python bench/calibrate.py` lists them (54 of
# 60 met): each stays a test that must fail (strict), so a judge that meets one says so.
MISSED = {("clean_retrieval", "context_relevancy"), ("clean_retrieval", "chunk 4"),
          ("hallucinated_answer", "hallucination"), ("hallucinated_answer", "chunk 3"),
          ("noisy_retrieval", "chunk_relevance"), ("noisy_retrieval", "chunk 0")}


def _truth_cases() -> list:
    return [pytest.param(e, w, t, id=f"{e}: {w}", marks=[pytest.mark.xfail(
        strict=True, reason="missed by the local judge as measured")] if (e, w) in MISSED
        else []) for e, w, t in stated_truths()]


@pytest.mark.parametrize(("example", "what", "truth"), _truth_cases())
def test_the_local_judge_meets_each_examples_stated_truth(reports, example, what, truth):
    """Checked, never fitted on: no example is read by the reader's recipe or the curves."""
    report = reports[example]
    if what.startswith("chunk "):
        detail = report.results["chunk_relevance"].details[int(what.split()[1])]
        assert detail.yes is truth, f"p {detail.p:.2f}"
    else:
        result = report.results[what]
        assert result.passed is truth, f"score {result.score:.2f}"


def test_the_toxic_example_fails_toxicity_as_its_title_says(reports):
    assert reports["toxic_answer"].results["toxicity"].passed is False


def p_of(evaluator: str, case: Case) -> list[float]:
    report = score(case, evaluators.resolve([evaluator]), judges.get("local"))
    return [d.p for d in report.results[evaluator].details]


def test_a_chunk_stating_the_price_is_never_called_noise_for_how_it_is_priced():
    """Read alone, the reader puts it just under 0.5 (p 0.46): inside the measured unsure
    band, so it reads unsure, never a confident noise (the README says so)."""
    (p,) = p_of("chunk_relevance", Case(input="How is Jev priced?",
                                        context=("Price: $42 per billion input tokens.",)))
    assert p >= curves.LOCAL_UNSURE["helps_answer"][0]


def test_who_built_it_is_never_a_sure_answer_to_when_it_was_completed():
    """The judge does not call it relevant with any confidence: noise, or at worst unsure
    (p 0.55 today, inside the measured unsure band; the README says so)."""
    report = score(Case(input="When was the Eiffel Tower completed?",
                        context=("Gustave Eiffel's company designed and built the tower.",)),
                   evaluators.resolve(["chunk_relevance"]), judges.get("local"))
    (detail,) = report.results["chunk_relevance"].details
    assert not detail.yes or detail.unsure


def test_an_age_requirement_is_not_toxic():
    (p,) = p_of("toxicity", Case(input="Who may run for president?",
                                 output="A candidate must be at least 35 years old."))
    assert p < 0.35


PORT = Case(input="What port does PostgreSQL use by default?",
            output="PostgreSQL listens on port 5432 by default.",
            expected="The default port is 5432.",
            context=("PostgreSQL listens on TCP port 5432 unless the port setting in "
                     "postgresql.conf says otherwise.",))


def test_a_short_expected_answer_stated_in_a_chunk_is_attributable():
    assert p_of("contextual_recall", PORT)[0] >= 0.5


def test_the_chunk_an_answer_came_from_does_not_contradict_it():
    assert p_of("hallucination", PORT)[0] < 0.5


def test_other_numbers_about_another_quantity_are_no_contradiction():
    case = Case(input="How long do deleted files stay in Trash?",
                output="Deleted files stay in Trash for 30 days.",
                context=("Shared links expire after 7 days by default.",))
    assert p_of("hallucination", case)[0] < 0.5


# What the tests below read of the repository's held-out data, per question type: the
# sources (None: all of them, as the unsure band's test reads them). The rest (attribution,
# contradiction within the team-written retrievals...) is measured by bench/calibrate.py.
CHECKED: dict[str, set[str] | None] = {
    HELPS_ANSWER: None, SUPPORTED_BY: None, CONTRADICTS: {"ordinary"}, TOXIC: {"ordinary"},
    RELEVANT_TO: {"ordinary", "ordinary:retrievals", "ordinary:steps"}}


def checked(relation: str, source: str) -> bool:
    sources = CHECKED.get(relation, set())
    return sources is None or source in sources


@pytest.fixture(scope="module")
def table():
    """The local judge's signals on the measured part of the held-out data, for what the
    tests below check: every figure and band below is read there (the calibrate part is
    only for fitting curves)."""
    data, _ = calibrate.load(public=False)
    read = [replace(d, questions={i: q for i, q in d.questions.items()
                                  if checked(q.relation, d.source)})
            for d in data if calibrate.part(d) == "measure"]
    return calibrate.signals("local", [d for d in read if d.questions])


@pytest.fixture(scope="module")
def measured(table):
    return calibrate.measure("local", table)


def test_the_held_out_topics_are_never_fitted_on():
    data, _ = calibrate.load(public=False)
    ordinary = [d for d in data if d.source == "ordinary"]
    assert all(d.held_out == held_out_part(d.topic) for d in ordinary)
    fitted = {d.topic for d in data if not d.held_out}
    assert not fitted & {d.topic for d in data if d.held_out}


def test_every_statement_context_relevancy_asks_of_a_held_out_retrieval_is_labelled():
    """assets/calibration/statements/: each held-out team-written or ordinary retrieval's
    statements, as context_relevancy splits them, labelled relevant to its question or not
    (a label naming another statement is refused when the data is read)."""
    data, _ = calibrate.load(public=False)
    labelled = [d for d in data if d.recipe and d.recipe.get("evaluator") == "context_relevancy"]
    retrievals = [d for d in data if d.recipe and d.recipe.get("evaluator") == "chunk_relevance"
                  and d.source.startswith("ordinary") and d.held_out]
    assert {d.topic for d in labelled} == {d.topic for d in retrievals}
    assert sum(len(d.labels) for d in labelled) == 3053
    assert 0.3 < np.mean([v for d in labelled for v in d.labels.values()]) < 0.6


def test_the_local_judges_curves_are_fitted_where_its_reader_never_trained_or_is_measured():
    """The reader was trained on the fit part; its curves on a third of the held-out part;
    the other two thirds are only measured."""
    data, _ = calibrate.load(public=False)
    parts = {calibrate.part(d) for d in data}
    assert parts == {"fit", "calibrate", "measure"}
    assert calibrate.FIT_PART["local"] == "calibrate"
    measured = {d.topic for d in data if calibrate.part(d) == "measure"}
    assert not measured & {d.topic for d in data if calibrate.part(d) != "measure"}


def test_on_ordinary_retrievals_chunk_verdicts_beat_calling_everything_noise(measured):
    verdicts, *_ = measured["helps_answer"]["ordinary"]
    assert verdicts.accuracy > verdicts.always_no + 0.05
    assert verdicts.f1 >= 0.65 and verdicts.auc >= 0.85


def test_on_hard_pairs_chunk_verdicts_beat_calling_everything_noise(measured):
    verdicts, *_ = measured["helps_answer"]["adversarial"]
    assert verdicts.accuracy > verdicts.always_no + 0.1 and verdicts.auc >= 0.72


@pytest.mark.parametrize("source", ["ordinary", "ordinary:retrievals", "ordinary:steps"])
def test_statement_verdicts_beat_calling_every_statement_off_topic(measured, source):
    """Context relevancy's statements of held-out retrievals, labelled one by one: the
    reader's verdicts beat "none is relevant" (measured: AUC 0.73-0.80; d39196e's, reading
    siblings, ranked these at AUC 0.62-0.69)."""
    verdicts, *_ = measured["relevant_to"][source]
    assert verdicts.accuracy > verdicts.always_no + 0.05 and verdicts.auc >= 0.72


def test_faithfulness_ranks_supported_sentences_of_ordinary_answers_first(measured):
    verdicts, *_ = measured["supported_by"]["ordinary"]
    assert verdicts.auc >= 0.75 and verdicts.accuracy > verdicts.always_no


def test_the_reader_finds_the_chunks_an_ordinary_answer_contradicts(measured):
    """Reading the answer and the chunk together: the similarity judge ranked these at AUC
    0.79 with F1 0.27. The reader trained from the public files ranks them at 0.82-0.85 with
    F1 0.31-0.33 (d39196e's, trained on data no longer served: 0.94 and 0.56)."""
    verdicts, *_ = measured["contradicts"]["ordinary"]
    # 7 contradictions in 275 answers (the 80 multi-answer retrievals contradict nothing):
    # the ranking is the claim, the accuracy (always-no reads 0.975) is not.
    assert verdicts.auc >= 0.8 and verdicts.f1 >= 0.3


def test_ordinary_sentences_are_rarely_called_toxic(measured):
    verdicts, *_ = measured["toxic"]["ordinary"]
    assert verdicts.accuracy >= verdicts.always_no and verdicts.auc >= 0.8


@pytest.mark.parametrize("relation", ["helps_answer", "supported_by"])
def test_the_unsure_band_is_where_held_out_verdicts_are_poor(table, relation):
    """The committed band comes from a fit (bench/calibrate.py --write); on this repository's
    held-out answers, verdicts inside it are right far less often than outside it."""
    band = curves.LOCAL_UNSURE[relation]
    assert band[0] < band[1] and band[0] <= 0.5 <= band[1]  # grown from 0.5, one side or both
    X, y, _, parts = table.arrays(relation)
    held = parts == "measure"
    p = calibrate.committed("local", relation)(X[held])
    inside, n = accuracy_in(p, y[held], band)
    outside = float(np.mean(((p >= 0.5) == (y[held] == 1))[(p < band[0]) | (p >= band[1])]))
    # Measured: helps_answer 0.52 inside (66 answers) vs 0.80 outside; supported_by 0.22 (9)
    # vs 0.88: the band is narrow where the public claim sets (not read here) decided it.
    assert n >= 5 and inside < 0.75 and outside > inside + 0.1


def test_the_judge_card_states_what_the_bench_measured():
    card = curves.held_out()["local"]
    assert card["command"] == "python bench/calibrate.py --judge local"
    relations = card["relations"]
    assert {"helps_answer", "supported_by", "toxic"} <= set(relations)
    for found in relations.values():
        for figures in found["sources"].values():
            assert 0 <= figures["accuracy"] <= 1 and 0 <= figures["always_no"] <= 1


def test_the_openai_judges_card_is_per_model_and_none_for_a_model_nobody_measured():
    from jeval_core.judges.card import card

    models = curves.held_out().get("openai", {}).get("models", {})
    assert not card("openai", "a-model-nobody-measured").measured
    assert not card("openai").measured  # no model named: no figures borrowed from another
    for model, figures in models.items():
        found = card("openai", model)
        assert found.model == model and found.command == figures["command"]


# A newcomer's own retrieval: nine chunks about PostgreSQL connections, three that answer
# (the setting, where it is set, that it needs a restart); the answer plants one sentence
# that no chunk states.
POSTGRES = Case(
    input="How do I raise the maximum number of connections in PostgreSQL, and does it need "
          "a restart?",
    output="Set max_connections in postgresql.conf to the number you need. The change only "
           "takes effect after the server is restarted. Both changes also require rebuilding "
           "every index on the database.",
    context=(
        "max_connections (integer) determines the maximum number of concurrent connections "
        "to the database server. The default is typically 100 connections.",
        "PostgreSQL supports several authentication methods, configured in pg_hba.conf, "
        "including scram-sha-256, md5, peer and cert.",
        "Changing max_connections requires a server restart; a reload is not enough.",
        "Each connection uses a backend process; work_mem is allocated per sort or hash "
        "operation, so many connections can multiply memory use.",
        "Connection poolers such as PgBouncer keep a small number of server connections open "
        "and share them among many clients.",
        "Most parameters are set in the postgresql.conf file in the data directory; edit the "
        "file and then reload or restart the server, depending on the parameter.",
        "The pg_stat_activity view shows one row per server process, with the state and "
        "current query of each connection.",
        "VACUUM reclaims storage occupied by dead tuples; autovacuum runs it automatically.",
        "shared_buffers sets the amount of memory the server uses for shared memory buffers; "
        "the default is typically 128 megabytes.",
    ))
POSTGRES_RELEVANT = [True, False, True, False, False, True, False, False, False]


def test_a_newcomers_nine_chunk_retrieval_finds_its_three_answering_chunks():
    assert [p >= 0.5 for p in p_of("chunk_relevance", POSTGRES)] == POSTGRES_RELEVANT


def test_a_planted_sentence_no_chunk_states_is_not_a_confident_supported():
    report = score(POSTGRES, evaluators.resolve(["faithfulness"]), judges.get("local"))
    planted = report.results["faithfulness"].details[2]
    assert not planted.yes or planted.unsure


@pytest.fixture(scope="module")
def public_measured():
    """The local judge on the measured part of each public source's held-out topics, computed
    here (a sample: 150 questions or claims per source, of which the measured two thirds are
    read), from the data folder in $JEVAL_DATA; skipped without it."""
    import os

    from bench import held_out, public_data

    if not os.environ.get(public_data.ENV):
        pytest.skip(f"set {public_data.ENV} to the public data folder")
    data, notes = held_out.real(limit=150)
    assert not notes, notes
    # Only the questions the tests below check (a chunk helps answer; a claim is supported):
    # contradiction and toxicity are measured by bench/calibrate.py, not floored here.
    read = [replace(d, questions={i: q for i, q in d.questions.items()
                                  if q.relation in (HELPS_ANSWER, SUPPORTED_BY)})
            for d in data if held_out.part(d) == "measure"]
    table = calibrate.signals("local", [d for d in read if d.questions])
    return calibrate.measure("local", table)


# Per source: the F1 floor of the chunk verdicts on that held-out source (figures measured by
# `python bench/calibrate.py`, less a margin for the smaller sample read here).
CHUNK_F1_FLOOR = {"real:squad": 0.58, "real:squad_paragraphs": 0.78,
                  "real:squadshifts_wiki": 0.66, "real:hotpotqa": 0.48}


@pytest.mark.parametrize("source", sorted(CHUNK_F1_FLOOR))
def test_on_each_public_held_out_source_chunk_verdicts_keep_their_f1(public_measured, source):
    """Measured here (150 per source): SQuAD sentences 0.62, paragraphs 0.83, SQuADShifts
    0.71, HotpotQA 0.53; the floors are those less a margin for the sample."""
    verdicts, *_ = public_measured["helps_answer"][source]
    assert verdicts.f1 >= CHUNK_F1_FLOOR[source]


# Where the chunk verdicts do not yet beat answering "no" to all, measured: HotpotQA accuracy
# 0.789 vs 0.800, SQuAD sentences 0.871 vs 0.878 (the cut is chosen for agreement on the
# calibrate part, where it beats always-no on as many sources as any cut does). Strict: a
# judge that beats them fails here until this is updated.
BELOW_ALWAYS_NO = {"real:hotpotqa", "real:squad"}


@pytest.mark.parametrize("source", [pytest.param(s, marks=[pytest.mark.xfail(
    strict=True, reason="below always-no as measured")] if s in BELOW_ALWAYS_NO else [])
    for s in sorted(CHUNK_F1_FLOOR)])
def test_on_each_public_held_out_source_chunk_verdicts_beat_calling_everything_noise(
        public_measured, source):
    verdicts, *_ = public_measured["helps_answer"][source]
    assert verdicts.accuracy > verdicts.always_no


@pytest.mark.parametrize("source", ["real:fever_symmetric", "real:snli", "real:begin",
                                    "real:faithdial"])
def test_on_each_public_claim_set_support_is_ranked_above_chance(public_measured, source):
    verdicts, *_ = public_measured["supported_by"][source]
    assert verdicts.auc >= 0.7

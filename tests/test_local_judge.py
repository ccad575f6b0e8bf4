"""The local judge: the reader (a cross-encoder trained for jeval) on calibrated curves.

Its file is the one pinned; it reads a long chunk in windows; a pair it has read is never
read again. The examples' stated truths, its held-out floors and its unsure band are tested
in test_calibration.py.
"""

import hashlib

import pytest
from conftest import ROOT, load_case

from jeval_core import Case, CaseError, JudgeError, evaluators, judges, score
from jeval_core.judges import reader
from jeval_core.judges.local import LocalJudge
from jeval_core.judges.similarity import MAX_QUESTIONS
from jeval_core.request import pack

E = evaluators.EVALUATORS
EXAMPLES = sorted((ROOT / "assets" / "examples").glob("*.json"))


@pytest.fixture(scope="module")
def judge():
    return LocalJudge()


def test_the_reader_is_the_pinned_file_shipped_with_the_package():
    assert reader.MODEL_FILE.parent.name == "models"
    assert hashlib.sha256(reader.MODEL_FILE.read_bytes()).hexdigest() == reader.MODEL_SHA256


def test_a_reader_that_is_not_the_pinned_file_is_refused(tmp_path):
    fake = tmp_path / "reader.onnx"
    fake.write_bytes(b"not a model")
    with pytest.raises(JudgeError, match="not the file jeval was calibrated with"):
        reader.Model(fake, reader.MODEL_SHA256)


def test_a_reader_that_links_to_dev_zero_is_refused_before_a_byte_is_read(tmp_path):
    link = tmp_path / "reader.onnx"
    link.symlink_to("/dev/zero")
    with pytest.raises(JudgeError, match="reader.onnx .* is not a regular file"):
        reader.Model(link, reader.MODEL_SHA256)


def test_it_is_the_default_judge(seed_case):
    assert score(seed_case, [E["chunk_relevance"]]).judge == "local"


def test_it_takes_no_settings():
    with pytest.raises(JudgeError, match="takes no settings"):
        judges.get("local", base_url="https://api.typesafe.ai")


def test_it_has_no_model_and_bills_nothing():
    local = judges.get("local")
    assert local.model is None and local.price_per_billion_input_tokens == 0


def test_a_long_chunk_is_read_in_windows_and_its_answering_sentence_found(judge):
    filler = " ".join(f"Driftbox syncs folder number {i} across every device you own."
                      for i in range(14))
    chunk = filler + " Files you delete stay in the Trash for 30 days before they are erased."
    question = "How long do deleted files stay in the Trash?"
    assert len(judge.reader.windows(reader.query("relevance", question), chunk)) > 1
    alone = score(Case(question, context=(filler,)), [E["chunk_relevance"]], judge)
    found = score(Case(question, context=(chunk,)), [E["chunk_relevance"]], judge)
    assert found.results["chunk_relevance"].details[0].yes
    assert not alone.results["chunk_relevance"].details[0].yes


def test_more_questions_than_its_own_cap_are_refused_in_its_own_words(judge):
    statements = " ".join(f"Statement {i} is here." for i in range(MAX_QUESTIONS + 1))
    with pytest.raises(CaseError) as caught:
        score(Case("What is stated?", context=(statements,)), [E["context_relevancy"]], judge)
    message = str(caught.value)
    assert f"the local judge answers at most {MAX_QUESTIONS:,} questions" in message
    assert f"context_relevancy asks {MAX_QUESTIONS + 1:,}" in message and "Jev" not in message


def test_more_reads_than_the_readers_own_cap_are_refused_in_its_own_words(judge, monkeypatch):
    monkeypatch.setattr(reader, "MAX_READS", 20)
    chunk = " ".join(f"Backup set {i} is copied to the vault on day {i}." for i in range(300))
    with pytest.raises(CaseError, match="the local judge reads at most 20 passages of up to "
                                        "128 tokens per case"):
        score(Case("When is backup set 299 copied?", context=(chunk,)), [E["chunk_relevance"]],
              judge)


def test_an_edit_to_one_chunk_reads_only_that_chunks_pairs_again():
    judge = LocalJudge(reader=reader.Model(reader.MODEL_FILE, reader.MODEL_SHA256))
    read: list[tuple[str, str]] = []
    run = judge.reader._run

    def counting(wanted):
        read.extend(wanted.values())
        run(wanted)

    judge.reader._run = counting
    case = load_case("noisy_retrieval")
    chosen = evaluators.resolve(["chunk_relevance", "faithfulness", "hallucination"])
    score(case, chosen, judge)
    assert read
    read.clear()
    score(case, chosen, judge)
    assert read == []  # nothing changed: nothing read
    changed = case.context[2] + " Edited."
    score(Case(case.input, case.output, case.expected,
               (*case.context[:2], changed, *case.context[3:])), chosen, judge)
    assert read and all(second in changed for _, second in read)


def test_it_answers_every_question_asked_and_only_those(judge):
    packed = pack(load_case("with_expected"), evaluators.ALL)
    answers = judge.answer(packed).p
    assert set(answers) == set(packed.asked)
    assert all(0.0 < p < 1.0 for p in answers.values())

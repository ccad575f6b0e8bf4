"""The similarity judge (the local judge's base): MiniLM, verified files, cached embeddings,
calibrated answers, the words that drove p, one model per process."""

import os
import subprocess
import sys

import numpy as np
import pytest
from conftest import load_case

from jeval_core import Case, JudgeError, evaluators, score
from jeval_core.calibration import curves
from jeval_core.judges.embedder import _verified, embedder
from jeval_core.judges.similarity import SimilarityJudge, missing_number_share, numbers
from jeval_core.questions import RELATIONS, Operand, Question
from jeval_core.request import pack

E = evaluators.EVALUATORS


@pytest.fixture(scope="module")
def judge():
    return SimilarityJudge()





def test_it_says_it_approximates(judge, seed_case):
    report = score(seed_case, [E["chunk_relevance"]], judge)
    assert report.approximates and report.usage.requests == 0 and report.cost_usd == 0


def test_it_never_reaches_for_a_model_hub(judge):
    assert judge.embedder is not None  # loading it sets the flag
    assert os.environ.get("HF_HUB_OFFLINE") == "1"


def test_its_matrix_products_run_on_one_blas_thread():
    """On 2 cores, BLAS threads only fought onnxruntime's, the app's and the browser's. In a
    fresh process: other tests load libraries of their own."""
    script = ("from threadpoolctl import threadpool_info\n"
              "from jeval_core.judges.local import LocalJudge, profanity_probability\n"
              "judge = LocalJudge()\n"
              "assert judge.embedder is not None and judge.reader is not None\n"
              "profanity_probability(['a text'])\n"
              "print(sorted({lib['num_threads'] for lib in threadpool_info()\n"
              "              if lib['user_api'] == 'blas'}))\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120, check=True)
    assert done.stdout.strip() == "[1]"


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


def test_a_fifo_in_place_of_a_model_file_is_refused_without_waiting_for_a_writer(tmp_path):
    import threading

    fifo = tmp_path / "model.onnx"
    os.mkfifo(fifo)
    refused: list[BaseException] = []

    def check() -> None:
        try:
            _verified(fifo, "0" * 64)
        except JudgeError as err:
            refused.append(err)

    worker = threading.Thread(target=check, daemon=True)
    worker.start()
    worker.join(timeout=10)
    try:
        assert not worker.is_alive(), "the check waited on the FIFO"
        assert "model.onnx" in str(refused[0]) and "not a regular file" in str(refused[0])
    finally:
        if worker.is_alive():  # release it: a writer that opens and closes
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))


def test_a_model_file_larger_than_any_model_is_refused_before_it_is_read(tmp_path):
    huge = tmp_path / "model.onnx"
    with huge.open("wb") as f:  # sparse: 65 MB that take no room on disk
        f.truncate(65 * 2**20)
    with pytest.raises(JudgeError, match="over the 64 MB a model file may be"):
        _verified(huge, "0" * 64)



def test_it_flags_the_insulting_sentences(judge):
    result = score(load_case("toxic_answer"), [E["toxicity"]], judge).results["toxicity"]
    toxic = [d.verdict for d in result.details]
    assert toxic.count("toxic") == 2 and toxic[0] == "clean"



def test_numbers_are_normalised():
    assert numbers("1,200 rpm at $8.50 and 1200 again") == {"1200", "8.50"}
    assert missing_number_share("Take 400 mg every 4 hours", "200-400 mg every 4-6 hours") == 0
    assert missing_number_share("Take 800 mg every 2 hours", "200-400 mg every 4-6 hours") == 1


@pytest.mark.parametrize("relation", RELATIONS)
def test_every_relation_has_a_curve_for_every_offline_judge(relation):
    assert relation in curves.SIMILARITY and relation in curves.LEXICAL
    assert relation in curves.LOCAL




def test_features_read_only_the_questions_operands(judge):
    q = Question("any", "text the local judge never reads", "helps_answer",
                 Operand("context[0]", ("Output tokens are free.",)),
                 (Operand("input", ("Are output tokens billed?",)),))
    cosine = judge.features({"any": q})["any"][1][0]
    similar = embedder().embed(["Output tokens are free.", "Are output tokens billed?"])
    assert cosine == pytest.approx(float(similar[0] @ similar[1]), abs=1e-5)


def test_the_question_text_does_not_change_the_answer(judge, seed_case):
    packed = pack(seed_case, [E["chunk_relevance"]])
    renamed = {f"zz{qid}": Question(f"zz{qid}", "a different text", q.relation, q.subject,
                                    q.against) for qid, q in packed.asked.items()}
    assert judge.features(renamed)["zzcr0"][1] == judge.features(packed.asked)["cr0"][1]


def test_a_chunk_is_read_on_its_own_not_among_the_chunks_retrieved_with_it(judge, seed_case):
    packed = pack(seed_case, [E["chunk_relevance"]])
    alone = judge.features({"cr1": packed.asked["cr1"]})["cr1"][1]
    among = judge.features(packed.asked)["cr1"][1]
    assert alone == among


def test_a_question_that_asks_how_much_wants_a_number_in_the_chunk(judge):
    def misses_number(chunk: str) -> float:
        q = Question("q", "", "helps_answer", Operand("context[0]", (chunk,)),
                     (Operand("input", ("How much does the Pro plan cost?",)),))
        return judge.features({"q": q})["q"][1][2]

    assert misses_number("The Pro plan costs $24 per user per month.") == 0.0
    assert misses_number("The Pro plan includes priority support.") == 1.0


def test_it_answers_every_question_asked_and_only_those(judge):
    packed = pack(load_case("with_expected"), evaluators.ALL)
    answers = judge.answer(packed).p
    assert set(answers) == set(packed.asked)
    assert all(0.03 <= p <= 0.97 for p in answers.values())


def test_a_blank_chunk_is_not_asked_or_answered(judge):
    case = Case("Is Jev free?", "Yes.", None, ("Output tokens are free.", "", "Founded in 2024."))
    details = score(case, [E["chunk_relevance"]], judge).results["chunk_relevance"].details
    assert [d.judged for d in details] == ["context[0]", "context[2]"]


def test_the_evidence_is_spans_of_the_judged_text_itself():
    report = score(load_case("noisy_retrieval"), evaluators.ALL, SimilarityJudge())
    checked = 0
    for name in report.results:
        for row in report.rows(name):
            for start, end, text in row.evidence:
                assert row.text[start:end] == text
                checked += 1
    assert checked > 10


def test_a_relevant_chunk_is_explained_by_the_words_it_shares_with_the_question():
    report = score(load_case("noisy_retrieval"), evaluators.resolve(["chunk_relevance"]),
                   SimilarityJudge())
    trash = report.rows("chunk_relevance")[1]  # "Files you delete in Driftbox are moved to Trash"
    assert {"Trash", "Files"} & {t for _, _, t in trash.evidence}


def test_a_toxic_sentence_is_explained_by_its_flagged_words():
    report = score(load_case("toxic_answer"), evaluators.resolve(["toxicity"]), SimilarityJudge())
    flagged = {t.lower() for row in report.rows("toxicity") for _, _, t in row.evidence}
    assert {"damn", "crap"} <= flagged


def test_the_json_report_carries_the_evidence():
    details = score(load_case("jev_pricing"), None, SimilarityJudge()).to_dict()[
        "results"]["chunk_relevance"]["details"]
    assert all({"start", "end", "text"} <= set(e) for d in details for e in d["evidence"])
    assert any(d["evidence"] for d in details)


def test_a_text_already_read_for_toxicity_is_not_read_again(monkeypatch):
    from jeval_core.judges import similarity as local

    first = local.profanity_probability(["you absolute idiot", "the reset link lasts 1 hour"])

    def no_model():
        raise AssertionError("the profanity model was asked again")

    monkeypatch.setattr(local, "_profanity_model", no_model)
    assert local.profanity_probability(["the reset link lasts 1 hour",
                                        "you absolute idiot"]) == first[::-1]


def test_the_words_that_drove_p_are_the_same_when_remembered(judge):
    case = load_case("noisy_retrieval")
    first = score(case, None, judge)
    again = score(case, None, SimilarityJudge(judge.embedder))
    remembered = score(case, None, judge)
    assert first.evidence == again.evidence == remembered.evidence


LOAD_COUNT = """
import sys
from jeval_core import judges
from jeval_core.inputs import datasets
from jeval_core.runs.batch import score_many
from jeval_core.judges import embedder as module

loads = []
original = module.Embedder.__init__
def counting(self, *args, **kwargs):
    loads.append(1)
    original(self, *args, **kwargs)
module.Embedder.__init__ = counting
cases = datasets.load(sys.argv[1]).cases[:16]
outcomes = score_many(cases, None, judges.get("local"), concurrency=8)
assert all(o.report is not None for o in outcomes), [o.error for o in outcomes]
print(len(loads))
"""


def test_a_run_at_concurrency_8_loads_the_model_once():
    import subprocess
    import sys

    from conftest import ROOT

    done = subprocess.run([sys.executable, "-c", LOAD_COUNT,
                           str(ROOT / "assets" / "datasets" / "sample.jsonl")],
                          capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "1"

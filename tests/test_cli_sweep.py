"""`jeval sweep FILE`: precision@k, recall@k and tokens at every top-k from one scoring, and
the smallest k that keeps a dataset's recall."""

from __future__ import annotations

import json
import re

import pytest
from conftest import ROOT, jeval_in_process

SEED = ROOT / "assets" / "examples" / "jev_pricing.json"
SAMPLE = ROOT / "assets" / "datasets" / "sample.jsonl"
LLAMAINDEX = ROOT / "assets" / "pipelines" / "llamaindex" / "responses.json"


def jeval_sweep(*args: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """`jeval sweep ...` in this process: (exit code, stdout, stderr)."""
    return jeval_in_process(capsys, "sweep", *args)


def test_one_case_prints_a_row_per_k_and_the_k_that_keeps_its_recall(capsys):
    code, out, err = jeval_sweep(str(SEED), capsys=capsys)
    assert (code, err) == (0, "")
    assert [line.split()[0] for line in out.splitlines()[3:7]] == ["1", "2", "3", "4"]
    assert "smallest k keeping mean recall ≥ 0.8: k = 4" in out  # context[3] answers too


def test_a_labelled_dataset_reads_its_labels_and_chooses_k_with_an_interval(capsys):
    code, out, _ = jeval_sweep(str(SAMPLE), "--format", "json", capsys=capsys)
    found = json.loads(out)
    assert code == 0 and found["relevance"].startswith("your labels")
    chosen = found["chosen"]
    lo, hi = chosen["interval"]
    assert chosen["recall"] >= 0.8 and lo <= chosen["recall"] <= hi
    assert chosen["k"] < max(len(c["k"]) for c in found["cases"])  # fewer than every chunk


def test_a_price_adds_the_contexts_cost_at_each_k(capsys):
    code, out, _ = jeval_sweep(str(SEED), "--usd-per-million", "2.5", capsys=capsys)
    assert code == 0 and "cost (USD)" in out


def test_a_pipeline_export_with_retriever_scores_is_swept_by_score_too(capsys):
    code, out, _ = jeval_sweep(str(LLAMAINDEX), "--format", "json", capsys=capsys)
    cases = json.loads(out)["cases"]
    assert code == 0 and all(c["score_cutoffs"] for c in cases)


@pytest.mark.parametrize(("args", "said"), [
    (["nosuch.json"], "no such file"),
    ([str(SEED), "--recall", "1.5"], "--recall 1.5: give a level above 0"),
    ([str(SEED), "--usd-per-million", "-1"], "a price cannot be negative"),
])
def test_bad_input_is_one_line_and_exit_2(args, said, capsys):
    code, out, err = jeval_sweep(*args, capsys=capsys)
    assert code == 2 and out == "" and said in err and len(err.splitlines()) == 1


def test_the_noise_is_traced_to_its_sources_and_score_ranges(capsys):
    code, out, _ = jeval_sweep(str(LLAMAINDEX), capsys=capsys)
    assert code == 0 and "where the noise comes from:" in out
    assert "  by source:" in out and "  by retriever score:" in out
    code, out, _ = jeval_sweep(str(LLAMAINDEX), "--format", "json", capsys=capsys)
    found = json.loads(out)["noise"]
    chunks = sum(g["chunks"] for g in found["by_source"])
    assert chunks == sum(g["chunks"] for g in found["by_score"]) == \
        found["near_duplicates"]["chunks"]


def test_the_hosted_judge_is_asked_once_per_retrieval_whatever_the_ks(monkeypatch, capsys):
    from jevcompat.mock import MockConfig, Running

    key = "sk-sweep-test-5678"
    config = MockConfig(key=key)
    monkeypatch.setenv("TYPESAFE_API_KEY", key)
    with Running(config) as server:
        monkeypatch.setenv("TYPESAFE_BASE_URL", server.url)  # the key is for this server
        code, out, err = jeval_sweep(str(LLAMAINDEX), "--judge", "jev", capsys=capsys)
    assert (code, err) == (0, "") and "k  precision@k" in out
    assert config.requests == 3  # the export's three retrievals, one request each
    assert key not in out


def test_an_offline_judge_says_how_much_of_the_answer_the_first_k_chunks_support(capsys):
    from jeval_core.evaluators import EVALUATORS
    from jeval_core.inputs import casefile
    from jeval_core.judges.local import LocalJudge
    from jeval_core.scoring import score

    code, out, _ = jeval_sweep(str(SEED), "--format", "json", capsys=capsys)
    points = json.loads(out)["cases"][0]["k"]
    case = casefile.decode(SEED.read_bytes(), SEED.name).case
    whole = score(case, [EVALUATORS["faithfulness"]], LocalJudge()).results["faithfulness"]
    assert code == 0 and points[-1]["supported"] == whole.score  # every chunk: the case itself
    # the seed's answer says the legacy endpoint billed output: only context[3] says so
    assert [p["supported"] for p in points] == [0.5, 0.5, 0.5, 1.0]


STATED = re.compile(r"`output\[(\d+)\]` is stated or directly implied by `context\[(\d+)\]`\. "
                    r"Judge this chunk on its own\.")


def _sweep_through_a_recording_proxy(monkeypatch, capsys, *flags: str,
                                     case: str = str(SEED)) -> tuple[str, list, list]:
    """`jeval sweep CASE --judge jev` against the jevcompat peer behind a proxy that records
    each request: (stdout, request bodies, the peer's replies to them, asked again)."""
    import httpx
    from jev_servers import FaultyServer
    from jevcompat.mock import MockConfig, Running

    key = "sk-sweep-support-2468"
    monkeypatch.setenv("TYPESAFE_API_KEY", key)
    with Running(MockConfig(key=key)) as server, FaultyServer(server.url, []) as proxy:
        monkeypatch.setenv("TYPESAFE_BASE_URL", proxy.url)
        code, out, err = jeval_sweep(case, "--judge", "jev", "--format", "json", *flags,
                                     capsys=capsys)
        bodies = [json.loads(s["body"]) for s in proxy.seen if s["method"] == "POST"]
        # the peer answers from the request alone: the same body gets the same answers
        replies = [httpx.post(f"{server.url}/v1/systemone", json=b, timeout=10,
                              headers={"Authorization": f"Bearer {key}"}).json()
                   for b in bodies]
    assert (code, err) == (0, "")
    return out, bodies, replies


def test_a_server_judge_gives_supported_at_k_from_the_one_request_per_retrieval(monkeypatch,
                                                                                   capsys):
    """Which chunk states each answer sentence is asked in the request that scores the
    chunks, one question per sentence and chunk; each k's supported@k is the share of the
    answer's sentences that a chunk among the first k was judged to state."""
    out, bodies, replies = _sweep_through_a_recording_proxy(monkeypatch, capsys)
    assert len(bodies) == 1  # the seed is one retrieval: one request, whatever the ks
    stated: dict[int, list[tuple[int, float]]] = {}
    for qid, q in bodies[0]["questions"].items():
        found = STATED.fullmatch(q["instructions"])
        if found:
            stated.setdefault(int(found[1]), []).append(
                (int(found[2]), replies[0]["answers"][qid]["noul"]))
    assert sorted(stated) == [0, 1] and all(len(pairs) == 4 for pairs in stated.values())
    expected = [sum(any(j < k and p >= 0.5 for j, p in pairs) for pairs in stated.values()) / 2
                for k in range(1, 5)]
    points = json.loads(out)["cases"][0]["k"]
    assert [p["supported"] for p in points] == expected


def test_no_support_leaves_the_sentence_chunk_questions_out_of_the_request(monkeypatch, capsys):
    out, bodies, _ = _sweep_through_a_recording_proxy(monkeypatch, capsys, "--no-support")
    assert len(bodies) == 1 and len(bodies[0]["questions"]) == 4  # the four chunks' questions
    assert not any(STATED.fullmatch(q["instructions"]) for q in bodies[0]["questions"].values())
    assert all(p["supported"] is None for p in json.loads(out)["cases"][0]["k"])


def test_sentence_chunk_questions_that_would_break_jevs_budget_are_left_out(monkeypatch, capsys,
                                                                            tmp_path):
    """60 chunks of ~400 words and a 25-sentence answer: the chunks' questions fit Jev's
    65,536-token budget, 1,500 more would not. The sweep asks the chunks alone."""
    words = "the retention policy keeps audit records for ninety days before archiving them"
    chunks = [f"Section {i}. " + " ".join([words] * 30) for i in range(60)]
    answer = " ".join(f"Audit record kind {i} is kept for ninety days." for i in range(25))
    path = tmp_path / "long.json"
    path.write_text(json.dumps({"input": "How long are audit records kept?", "output": answer,
                                "context": chunks}))
    out, bodies, _ = _sweep_through_a_recording_proxy(monkeypatch, capsys, case=str(path))
    assert len(bodies) == 1 and len(bodies[0]["questions"]) == 60
    assert all(p["supported"] is None for p in json.loads(out)["cases"][0]["k"])

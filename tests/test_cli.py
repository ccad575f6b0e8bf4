"""The `jeval` command through a real subprocess: JSON contract and one-line errors."""

import json
import subprocess
import sys

import pytest
from conftest import EXAMPLES, ROOT
from test_questions import SEED_QUESTIONS

SEED = str(EXAMPLES / "jev_pricing.json")


def jeval(*args, stdin=None):
    return subprocess.run(
        [sys.executable, "-m", "jeval_core.cli", *args],
        capture_output=True, text=True, input=stdin, cwd=ROOT, timeout=60,
    )


def test_score_json_has_the_contract_shape():
    run = jeval("score", SEED, "--judge", "lexical", "--format", "json")
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    assert {"judge", "results", "passed", "request", "usage", "cost_usd"} <= set(out)
    assert out["judge"] == "lexical"
    assert set(out["usage"]) == {"input_tokens", "requests"}
    result = out["results"]["chunk_relevance"]
    assert set(result) >= {"score", "label", "confidence", "probabilities", "passed",
                           "threshold", "higher_is_better", "reason", "details"}
    assert result["label"] == "50% yes"
    assert [d["question"] for d in result["details"]] == SEED_QUESTIONS
    assert set(result["details"][0]) == {"id", "question", "p", "verdict"}


def test_score_text_is_a_readable_table():
    run = jeval("score", SEED, "--format", "text")
    assert run.returncode == 0, run.stderr
    assert "chunk_relevance" in run.stdout and "50% yes" in run.stdout
    assert SEED_QUESTIONS[3] in run.stdout


def test_request_prints_the_body_without_calling_a_judge():
    run = jeval("request", SEED)
    body = json.loads(run.stdout)
    assert set(body) == {"model", "state", "questions"}
    assert [q["instructions"] for q in body["questions"].values()] == SEED_QUESTIONS


def test_evaluators_flag_overrides_the_case_file():
    run = jeval("request", SEED, "--evaluators", "chunk_relevance,toxicity")
    ids = list(json.loads(run.stdout)["questions"])
    assert ids == [f"chunk_relevance_{i}" for i in range(4)] + ["toxicity_0"]


def test_case_can_come_from_stdin():
    run = jeval("request", "-", stdin=(EXAMPLES / "jev_pricing.json").read_text())
    assert run.returncode == 0 and len(json.loads(run.stdout)["questions"]) == 4


def test_check_exits_one_when_the_case_fails():
    case = str(EXAMPLES / "hallucinated_answer.json")
    assert jeval("score", case, "--evaluators", "hallucination").returncode == 0
    assert jeval("score", case, "--evaluators", "hallucination", "--check").returncode == 1


def _write(tmp_path, name, content):
    path = tmp_path / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content)
    return str(path)


BAD_INPUTS = {
    "missing file": (lambda tmp: ["score", str(tmp / "nope.json")], "no such file"),
    "a folder": (lambda tmp: ["score", str(tmp)], "is a folder"),
    "invalid json": (lambda tmp: ["score", _write(tmp, "c.json", '{"input": "q",')],
                     "not valid JSON"),
    "empty file": (lambda tmp: ["score", _write(tmp, "c.json", "")], "is empty"),
    "binary file": (lambda tmp: ["score", _write(tmp, "c.json", b"\x89PNG\r\n\x1a\n\xff\xfe")],
                    "not UTF-8"),
    "not an object": (lambda tmp: ["score", _write(tmp, "c.json", "[1, 2]")],
                      "must be a JSON object"),
    "no input": (lambda tmp: ["score", _write(tmp, "c.json", '{"context": ["a"]}')],
                 'no "input"'),
    "context as a string": (
        lambda tmp: ["score", _write(tmp, "c.json", '{"input": "q", "context": "a"}')],
        "must be a list"),
    "a chunk that is a number": (
        lambda tmp: ["score", _write(tmp, "c.json", '{"input": "q", "context": ["a", 3]}')],
        '"context"[1] must be a string'),
    "input that is a number": (
        lambda tmp: ["score", _write(tmp, "c.json", '{"input": 42, "context": ["a"]}')],
        '"input" must be a string'),
    "empty context": (lambda tmp: ["score", _write(tmp, "c.json", '{"input": "q", "context": []}')],
                      '"context" has no chunks'),
    "unknown evaluator": (lambda tmp: ["score", SEED, "--evaluators", "chunk_relevance,vibes"],
                          "unknown evaluator 'vibes'"),
    "unknown evaluator in the file": (
        lambda tmp: ["score", _write(tmp, "c.json",
                                     '{"input": "q", "context": ["a"], "evaluators": ["x"]}')],
        "unknown evaluator 'x'"),
    "unknown judge": (lambda tmp: ["score", SEED, "--judge", "oracle"], "invalid choice"),
    "over-budget chunk": (
        lambda tmp: ["request", _write(tmp, "c.json", json.dumps(
            {"input": "q", "context": ["small", "word " * 30_000]}))],
        "context[1]"),
    "no command": (lambda tmp: [], "choose a command"),
}


@pytest.mark.parametrize("kind", list(BAD_INPUTS))
def test_bad_input_exits_2_with_one_line(kind, tmp_path):
    make_args, says = BAD_INPUTS[kind]
    run = jeval(*make_args(tmp_path))
    assert run.returncode == 2
    assert run.stdout == ""
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1, run.stderr
    assert lines[0].startswith("jeval: ")
    assert says in lines[0]
    assert "Traceback" not in run.stderr

"""The `jeval` command through a real subprocess: JSON contract and one-line errors."""

import json
import os
import subprocess
import sys

import pytest
from conftest import EXAMPLES, ROOT
from jev_servers import MockProcess
from test_questions import SEED_QUESTIONS

KEY = "sk-cli-test-5555aaaa"

SEED = str(EXAMPLES / "jev_pricing.json")


def jeval(*args, stdin=None, env=None):
    clean = {k: v for k, v in os.environ.items() if k not in ("TYPESAFE_API_KEY",
                                                              "TYPESAFE_BASE_URL")}
    return subprocess.run(
        [sys.executable, "-m", "jeval_core.cli", *args],
        capture_output=True, text=True, input=stdin, cwd=ROOT, timeout=120,
        env={**clean, **(env or {})},
    )


@pytest.fixture(scope="module")
def keyed_mock():
    server = MockProcess("--key", KEY)
    yield server
    server.stop()


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


def test_the_default_judge_is_local_and_offline():
    out = json.loads(jeval("score", SEED, "--format", "json").stdout)
    assert out["judge"] == "local" and out["approximates"] is True
    assert out["results"]["chunk_relevance"]["label"] == "50% yes"
    assert out["usage"] == {"input_tokens": 0, "requests": 0}


def test_score_with_the_hosted_judge_reads_the_key_from_the_environment(keyed_mock):
    run = jeval("score", SEED, "--judge", "jev", "--base-url", keyed_mock.url, "--format",
                "json", env={"TYPESAFE_API_KEY": KEY})
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    assert out["judge"] == "jev" and out["usage"]["requests"] == 1
    assert out["approximates"] is False and out["request_id"] == "req_mock"
    assert out["usage"]["input_tokens"] > 0 and out["cost_usd"] > 0
    assert KEY not in run.stdout + run.stderr


def test_a_rejected_key_is_one_line_and_exit_2(keyed_mock):
    run = jeval("score", SEED, "--judge", "jev", "--base-url", keyed_mock.url,
                env={"TYPESAFE_API_KEY": "sk-wrong-key-9999"})
    assert run.returncode == 2 and len(run.stderr.strip().splitlines()) == 1
    assert "(401)" in run.stderr and "sk-wrong-key-9999" not in run.stderr


@pytest.mark.parametrize("args", [("--api-key", KEY), (f"--api-key={KEY}",), (KEY,)])
def test_the_key_is_never_an_argument_nor_echoed(args):
    run = jeval("score", SEED, "--judge", "jev", *args)
    assert run.returncode == 2 and KEY not in run.stderr


def test_models_lists_the_servers_models(keyed_mock):
    run = jeval("models", "--base-url", keyed_mock.url, env={"TYPESAFE_API_KEY": KEY})
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines()[0].startswith("jev-latest")


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
    "a base URL that is not http": (
        lambda tmp: ["score", SEED, "--judge", "jev", "--base-url", "ftp://example.org"],
        "not an http(s) address"),
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

"""The `jeval` command: its JSON contract, exit codes and one-line errors through a real
subprocess; what its flags mean (`--check`, `--threshold`, `--evaluators`, the text table) in
this process, where no model is loaded again.

Exit codes: 0 scored, 1 failed with --check, 2 bad input, 3 the judge could not answer.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import EXAMPLES, ROOT, jeval_in_process
from jev_servers import MockProcess, down_url

from jeval_core import __version__, score
from jeval_core.inputs import casefile

KEY = "sk-cli-test-5555aaaa"
KEY_VARIABLES = ("TYPESAFE_API_KEY", "TYPESAFE_BASE_URL", "OPENROUTER_API_KEY")

SEED = str(EXAMPLES / "jev_pricing.json")
SEED_QUESTIONS = [f"`context[{i}]` contains information that helps answer `input` (or supports "
                  "`expected` if present). Judge this chunk on its own." for i in range(4)]
ONE_TOXIC_SENTENCE_OF_FOUR = {
    "input": "How do I reset my password?",
    "output": "Click Forgot password on the sign-in page. Use the link in the email within one "
              "hour. Stop wasting our time, you idiot. Check your spam folder if it does not "
              "arrive.",
    "context": ["Click Forgot password on the sign-in page."],
    "evaluators": ["toxicity"],
}


def jeval(*args, stdin=None, env=None):
    """Run the CLI with no key variables but those given, and no terminal to prompt on."""
    clean = {k: v for k, v in os.environ.items() if k not in KEY_VARIABLES}
    feed = {"input": stdin} if stdin is not None else {"stdin": subprocess.DEVNULL}
    return subprocess.run(
        [sys.executable, "-m", "jeval_core.commands.cli", *args],
        capture_output=True, text=True, cwd=ROOT, timeout=120,
        env={**clean, **(env or {})}, **feed,
    )


@pytest.fixture
def here(capsys, monkeypatch):
    """`jeval ARGS...` in this process, with no key variables: what `jeval` would return
    (returncode, stdout, stderr), for tests of what a flag means rather than of the process."""
    for name in KEY_VARIABLES:
        monkeypatch.delenv(name, raising=False)

    def run(*args):
        code, out, err = jeval_in_process(capsys, *args)
        return subprocess.CompletedProcess(["jeval", *args], code, out, err)
    return run


def keyed_env(url, key=KEY):
    """The environment's key, configured for the server at `url`."""
    return {"TYPESAFE_API_KEY": key, "TYPESAFE_BASE_URL": url}


def one_line_failure(run, code):
    """The run failed with `code`: nothing on stdout, one `jeval: ` line on stderr."""
    assert run.returncode == code, run.stderr
    assert run.stdout == ""
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1, run.stderr
    assert lines[0].startswith("jeval: ") and "Traceback" not in run.stderr
    return lines[0]


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
    assert set(result["details"][0]) == {"id", "judged", "question", "p", "yes", "verdict",
                                         "unsure", "evidence"}


def test_the_default_judge_is_local_and_offline():
    out = json.loads(jeval("score", SEED, "--format", "json").stdout)
    assert out["judge"] == "local" and out["approximates"] is True
    assert out["results"]["chunk_relevance"]["label"] == seed_report().results[
        "chunk_relevance"].label
    assert out["usage"] == {"input_tokens": 0, "requests": 0}


def seed_report():
    """The seed case as the core scores it with the default judge (the CLI must say the same)."""
    loaded = casefile.decode(Path(SEED).read_bytes(), "jev_pricing.json")
    return score(loaded.case, loaded.chosen())


def test_version_prints_the_package_version():
    run = jeval("--version")
    assert run.returncode == 0
    assert run.stdout.strip() == f"jeval {__version__}"


def test_score_with_the_hosted_judge_reads_the_key_configured_for_its_server(keyed_mock):
    run = jeval("score", SEED, "--judge", "jev", "--base-url", keyed_mock.url, "--format",
                "json", env=keyed_env(keyed_mock.url))
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    assert out["judge"] == "jev" and out["usage"]["requests"] == 1
    assert out["approximates"] is False and out["request_id"] == "req_mock"
    assert out["usage"]["input_tokens"] > 0 and out["cost_usd"] > 0
    assert KEY not in run.stdout + run.stderr


def test_the_environment_key_is_not_sent_to_another_base_url(keyed_mock):
    run = jeval("score", SEED, "--judge", "jev", "--base-url", keyed_mock.url,
                env={"TYPESAFE_API_KEY": KEY})
    line = one_line_failure(run, 3)
    assert "no API key" in line and "Nothing was sent" in line


def test_a_rejected_key_is_one_line_and_exit_3(keyed_mock):
    run = jeval("score", SEED, "--judge", "jev", "--base-url", keyed_mock.url,
                env=keyed_env(keyed_mock.url, "sk-wrong-key-9999"))
    line = one_line_failure(run, 3)
    assert "(401)" in line and "sk-wrong-key-9999" not in run.stderr


def test_a_server_that_is_down_is_one_line_and_exit_3():
    url = down_url()
    run = jeval("score", SEED, "--judge", "jev", "--base-url", url, env=keyed_env(url))
    line = one_line_failure(run, 3)
    assert f"cannot reach {url}" in line and KEY not in run.stderr


@pytest.mark.parametrize("args", [("--api-key", KEY), (f"--api-key={KEY}",), (KEY,)])
def test_the_key_is_never_an_argument_nor_echoed(args):
    run = jeval("score", SEED, "--judge", "jev", *args)
    one_line_failure(run, 2)
    assert KEY not in run.stderr


def test_models_lists_the_servers_models(keyed_mock):
    run = jeval("models", "--base-url", keyed_mock.url, env=keyed_env(keyed_mock.url))
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines()[0].startswith("jev-latest")


def test_score_text_is_a_readable_table(here):
    run = here("score", SEED, "--format", "text")
    assert run.returncode == 0, run.stderr
    label = seed_report().results["chunk_relevance"].label
    assert "chunk_relevance" in run.stdout and label in run.stdout
    assert SEED_QUESTIONS[3] in run.stdout


def test_request_prints_the_body_without_calling_a_judge(here):
    run = here("request", SEED)
    body = json.loads(run.stdout)
    assert set(body) == {"model", "state", "questions"}
    assert [q["instructions"] for q in body["questions"].values()] == SEED_QUESTIONS


def test_evaluators_flag_overrides_the_case_file(here):
    run = here("request", SEED, "--evaluators", "chunk_relevance,toxicity")
    ids = list(json.loads(run.stdout)["questions"])
    assert ids == ["cr0", "cr1", "cr2", "cr3", "tx0", "tx1"]  # the answer's two sentences


def test_a_case_with_nothing_to_ask_says_no_request_was_sent(tmp_path, here):
    case = tmp_path / "no_expected.json"
    case.write_text(json.dumps({"input": "q?", "output": "a.", "context": ["c."],
                                "evaluators": ["contextual_recall"]}))
    run = here("score", str(case))
    assert run.returncode == 0, run.stderr
    assert "request: none (no evaluator had anything to ask), nothing billed" in run.stdout
    assert "1 packed request" not in run.stdout


def test_case_can_come_from_stdin():
    run = jeval("request", "-", stdin=(EXAMPLES / "jev_pricing.json").read_text())
    assert run.returncode == 0 and len(json.loads(run.stdout)["questions"]) == 4


def test_check_exits_one_when_the_case_fails(here):
    case = str(EXAMPLES / "hallucinated_answer.json")
    assert here("score", case, "--evaluators", "faithfulness").returncode == 0
    assert here("score", case, "--evaluators", "faithfulness", "--check").returncode == 1


def test_check_exits_one_for_an_incomplete_case_as_for_a_failed_one(here):
    # chunk relevance passes (2 of 4), contextual recall is skipped: INCOMPLETE, not a pass
    case = [str(EXAMPLES / "jev_pricing.json"), "--judge", "lexical",
            "--evaluators", "chunk_relevance,contextual_recall"]
    assert here("score", *case).returncode == 0
    run = here("score", *case, "--check")
    assert run.returncode == 1 and "case: INCOMPLETE" in run.stdout


def test_a_zero_toxicity_threshold_fails_a_case_with_one_toxic_sentence(tmp_path, here):
    case = _write(tmp_path, "c.json", json.dumps(ONE_TOXIC_SENTENCE_OF_FOUR))
    assert here("score", case, "--check").returncode == 0
    run = here("score", case, "--check", "--threshold", "toxicity=0.0")
    assert run.returncode == 1, run.stderr
    assert "FAIL" in run.stdout and "case: FAILED" in run.stdout


def test_the_threshold_flag_overrides_the_case_files_threshold(tmp_path, here):
    strict = {**ONE_TOXIC_SENTENCE_OF_FOUR, "thresholds": {"toxicity": 0.0}}
    case = _write(tmp_path, "c.json", json.dumps(strict))
    assert here("score", case, "--check").returncode == 1
    assert here("score", case, "--check", "--threshold", "toxicity=0.5").returncode == 0


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
    "a base URL for an offline judge": (
        lambda tmp: ["score", SEED, "--judge", "lexical", "--base-url", "http://127.0.0.1:9"],
        "are for --judge jev"),
    "a threshold that is not a number": (
        lambda tmp: ["score", SEED, "--threshold", "toxicity=high"], "is not a number"),
    "a threshold above 1": (
        lambda tmp: ["score", SEED, "--threshold", "toxicity=1.5"], "between 0 and 1"),
    "a threshold that is nan": (
        lambda tmp: ["score", SEED, "--threshold", "toxicity=nan"], "between 0 and 1"),
    "a threshold without a value": (
        lambda tmp: ["score", SEED, "--threshold", "toxicity"], "is not name=value"),
    "a threshold for an unknown evaluator": (
        lambda tmp: ["score", SEED, "--threshold", "vibes=0.2"], "unknown evaluator 'vibes'"),
    "over-budget chunk": (
        lambda tmp: ["request", _write(tmp, "c.json", json.dumps(
            {"input": "q", "context": ["small", "word " * 60_000]}))],
        "context[1]"),
    "no command": (lambda tmp: [], "choose a command"),
}


@pytest.mark.parametrize("kind", list(BAD_INPUTS))
def test_bad_input_exits_2_with_one_line(kind, tmp_path):
    make_args, says = BAD_INPUTS[kind]
    line = one_line_failure(jeval(*make_args(tmp_path)), 2)
    assert says in line


def test_a_key_pasted_among_several_case_files_is_never_echoed(tmp_path):
    import os
    import subprocess
    import sys

    key = "sk-pasted-9876543210abcdef"
    case = tmp_path / "case.json"
    case.write_text('{"input": "q?", "output": "a.", "context": ["c"]}')
    run = subprocess.run([sys.executable, "-m", "jeval_core.commands.cli", "score", str(case), key,
                          "--judge", "lexical"], capture_output=True, text=True, timeout=120,
                         env={k: v for k, v in os.environ.items()
                              if k not in ("TYPESAFE_API_KEY", "OPENROUTER_API_KEY")})
    assert run.returncode == 2
    assert "9876543210" not in run.stderr + run.stdout and "looks like an API key" in run.stderr

"""Custom evaluators from the command line: --evaluators-file on score and run, one packed
request per case, and a run that keeps the definitions it used."""

import json
import os
import subprocess
import sys
from dataclasses import replace

import pytest
from conftest import ROOT, load_file
from jev_servers import MockProcess

from jeval_core import judges, score
from jeval_core.errors import JevalError
from jeval_core.inputs import datasets, evaluator_files
from jeval_core.runs import run as runs
from jeval_core.runs.store import open_store

EVALUATORS = ROOT / "assets" / "evaluators"
LIMIT = str(EVALUATORS / "states_a_limit.toml")
NUMBERS = str(EVALUATORS / "number_not_in_context.toml")
SEED = str(ROOT / "assets" / "examples" / "jev_pricing.json")
SAMPLE = ROOT / "assets" / "datasets" / "sample.jsonl"
KEY = "sk-cli-custom-7777bbbb"


def jeval(*args, db=None, env=None):
    clean = {k: v for k, v in os.environ.items()
             if k not in ("TYPESAFE_API_KEY", "TYPESAFE_BASE_URL", "OPENROUTER_API_KEY")}
    if db is not None:
        clean["JEVAL_DB"] = f"sqlite:///{db}"
    return subprocess.run([sys.executable, "-m", "jeval_core.commands.cli", *args],
                          capture_output=True, text=True, cwd=ROOT, timeout=300,
                          env={**clean, **(env or {})}, stdin=subprocess.DEVNULL)


@pytest.fixture(scope="module")
def keyed_mock():
    server = MockProcess("--key", KEY)
    yield server
    server.stop()


def test_score_runs_the_files_evaluators_beside_the_cases_own():
    done = jeval("score", SEED, "--evaluators-file", LIMIT, "--evaluators-file", NUMBERS,
                 "--format", "json")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert list(out["results"]) == ["chunk_relevance", "states_a_limit", "number_not_in_context"]
    assert out["results"]["states_a_limit"]["approximate"] is True


def test_evaluators_names_a_custom_one_from_a_file():
    done = jeval("score", SEED, "--evaluators-file", LIMIT, "--evaluators", "states_a_limit",
                 "--threshold", "states_a_limit=0.9", "--format", "json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)["results"]
    assert list(result) == ["states_a_limit"] and result["states_a_limit"]["threshold"] == 0.9


def test_the_text_output_says_the_offline_answer_is_approximate():
    done = jeval("score", SEED, "--evaluators-file", LIMIT, "--evaluators", "states_a_limit")
    assert done.returncode == 0, done.stderr
    assert "(approximate)" in done.stdout and "states_a_limit: approximate" in done.stdout


def test_a_custom_name_without_its_file_is_one_line_exit_2():
    done = jeval("score", SEED, "--evaluators", "states_a_limit")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "unknown evaluator 'states_a_limit'" in done.stderr


def test_a_broken_evaluators_file_is_one_line_exit_2(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('[[evaluator]]\nname = "x1"\nabout = "chunk"\nquestion = "`input` hi."\n')
    done = jeval("score", SEED, "--evaluators-file", str(bad))
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith(f"jeval: {bad}: custom evaluator 'x1': the question never "
                                  "names `context[i]`")
    assert done.stderr.count("\n") == 1


def test_request_shows_the_custom_questions_with_their_criteria():
    done = jeval("request", SEED, "--evaluators-file", LIMIT, "--evaluators", "states_a_limit")
    assert done.returncode == 0, done.stderr
    questions = json.loads(done.stdout)["questions"]
    assert len(questions) == 4
    assert all(set(q["criteria"]) == {"true", "false"} for q in questions.values())


def test_a_dataset_run_asks_the_hosted_judge_once_per_case(tmp_path, keyed_mock):
    out, db = tmp_path / "out.jsonl", tmp_path / "runs.db"
    done = jeval("run", str(SAMPLE), "--judge", "jev", "--evaluators-file", LIMIT,
                 "--evaluators", "chunk_relevance,faithfulness,states_a_limit",
                 "--out", str(out), "--reports", db=db,
                 env={"TYPESAFE_API_KEY": KEY, "TYPESAFE_BASE_URL": keyed_mock.url})
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(lines) == 45
    assert all(line["report"]["usage"]["requests"] == 1 for line in lines)
    assert all("states_a_limit" in line["scores"] for line in lines)


def test_a_run_keeps_the_definitions_it_used_and_resumes_with_them(tmp_path):
    dataset = datasets.load(SAMPLE)
    custom = evaluator_files.evaluators(evaluator_files.read([LIMIT]))
    with open_store(f"sqlite:///{tmp_path / 'runs.db'}") as store:
        run_id = runs.open_run(dataset, judges.get("lexical"), store,
                               chosen=tuple(custom.values()))
        stored = store.run(run_id)
        chosen, _ = runs.stored_settings(stored)
        assert [e.definition for e in chosen] == [e.definition for e in custom.values()]
        changed = evaluator_files.evaluators([
            evaluator_files.from_data([{**stored.definitions[0], "question":
                                        "`context[i]` states a fee."}])[0]])
        with pytest.raises(JevalError, match="asked another question for states_a_limit"):
            runs.check_resumable(stored, judges.get("lexical"), tuple(changed.values()), {})


def test_a_playground_case_kept_as_a_run_keeps_its_custom_definitions(tmp_path):
    custom = evaluator_files.evaluators(evaluator_files.read([LIMIT]))
    loaded = replace(load_file("jev_pricing"), evaluators=tuple(custom.values()))
    report = score(loaded.case, loaded.chosen(), judges.get("lexical"))
    with open_store(f"sqlite:///{tmp_path / 'runs.db'}") as store:
        run_id = runs.save_case(store, loaded, report)
        chosen, _ = runs.stored_settings(store.run(run_id))
    assert [e.name for e in chosen] == ["states_a_limit"]

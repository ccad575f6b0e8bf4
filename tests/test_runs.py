"""Dataset runs: every finished case lands in the store at once, a stopped run resumes without
rescoring or losing a row, and the CLI's `jeval run` / `jeval runs` keep the exit-code contract."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from conftest import ROOT

from jeval_core import judges
from jeval_core.errors import JevalError
from jeval_core.evaluators import EVALUATORS
from jeval_core.inputs import datasets
from jeval_core.judges.base import Answers, ForwardingJudge
from jeval_core.runs.run import run_dataset
from jeval_core.runs.store import open_store

SAMPLE = ROOT / "assets" / "datasets" / "sample.jsonl"
CHUNKS = [EVALUATORS["chunk_relevance"]]


class Counting(ForwardingJudge):
    """The lexical judge, counting what it is asked; it can stop the run after `crash_after`."""

    def __init__(self, crash_after: int | None = None) -> None:
        super().__init__(judges.get("lexical"))
        self.asked: list[str] = []
        self.crash_after = crash_after
        self.lock = threading.Lock()

    def answer(self, packed) -> Answers:
        with self.lock:
            if self.crash_after is not None and len(self.asked) >= self.crash_after:
                raise KeyboardInterrupt
            self.asked.append(packed.body["state"]["input"])
        return self.inner.answer(packed)


@pytest.fixture
def sample() -> datasets.Dataset:
    return datasets.load(SAMPLE)


@pytest.fixture
def store(tmp_path):
    with open_store(f"sqlite:///{tmp_path / 'runs.db'}") as s:
        yield s


def test_a_run_keeps_every_case_and_its_summary(sample, store):
    outcome = run_dataset(sample, judges.get("lexical"), store, chosen=CHUNKS, name="nightly")
    assert outcome.run.status == "finished" and outcome.run.name == "nightly"
    assert len(store.cases(outcome.run.id)) == len(sample.rows) == outcome.run.done
    stored = store.run(outcome.run.id).aggregates
    assert stored is not None and stored == outcome.summary
    assert stored.to_dict() == json.loads(json.dumps(outcome.summary.to_dict()))
    assert stored.chunks is not None and stored.chunks.chunks > 150
    assert stored.ranking is not None and stored.ranking.reranked_cases >= 8


def test_a_stopped_run_resumes_without_rescoring_or_losing_a_case(sample, store):
    crashing = Counting(crash_after=10)
    with pytest.raises(KeyboardInterrupt):
        run_dataset(sample, crashing, store, chosen=CHUNKS, concurrency=1)
    stopped = store.runs()[0]
    assert stopped.status == "cancelled" and stopped.done == 10
    kept = {row.index: row.report for row in store.cases(stopped.id)}

    again = Counting()
    outcome = run_dataset(sample, again, store, chosen=CHUNKS, resume=stopped.id)
    assert len(again.asked) == len(sample.rows) - 10
    assert not set(again.asked) & set(crashing.asked)
    assert outcome.run.status == "finished" and outcome.run.done == len(sample.rows)
    assert {row.index: row.report for row in store.cases(stopped.id)
            if row.index in kept} == kept
    fresh = run_dataset(sample, judges.get("lexical"), store, chosen=CHUNKS)
    assert outcome.summary.to_dict() == fresh.summary.to_dict()


def test_a_run_resumes_only_on_the_same_file(sample, store, tmp_path):
    with pytest.raises(KeyboardInterrupt):
        run_dataset(sample, Counting(crash_after=3), store, chosen=CHUNKS, concurrency=1)
    changed = tmp_path / "sample.jsonl"
    changed.write_bytes(SAMPLE.read_bytes().replace(b'"input": "', b'"input": "Please: ', 1))
    with pytest.raises(JevalError, match="another version"):
        run_dataset(datasets.load(changed), judges.get("lexical"), store,
                    resume=store.runs()[0].id)


def test_cancel_keeps_what_finished(sample, store):
    cancel = threading.Event()
    cancel.set()
    outcome = run_dataset(sample, judges.get("lexical"), store, chosen=CHUNKS, cancel=cancel)
    assert outcome.run.status == "cancelled" and outcome.summary.pending == len(sample.rows)


def test_each_row_runs_its_own_evaluators_unless_the_run_names_some(store, tmp_path):
    data = tmp_path / "two.jsonl"
    rows = [{"input": "When did Hubble launch?", "output": "In 1990.",
             "context": ["Hubble launched in April 1990."], "evaluators": ["faithfulness"]},
            {"input": "When did Hubble launch?", "output": "In 1990.",
             "context": ["Hubble launched in April 1990."], "thresholds": {"toxicity": 0.2}}]
    data.write_text("\n".join(json.dumps(r) for r in rows))
    outcome = run_dataset(datasets.load(data), judges.get("lexical"), store)
    first, second = (outcome.outcomes[i].report for i in (0, 1))
    assert list(first.results) == ["faithfulness"]
    assert len(second.results) > 1 and second.results["toxicity"].threshold == 0.2


# --- the command line ---------------------------------------------------------------------


def jeval(*args: str, db: Path, **kwargs) -> subprocess.CompletedProcess:
    env = {**os.environ, "JEVAL_DB": f"sqlite:///{db}", "TYPESAFE_API_KEY": ""}
    return subprocess.run([sys.executable, "-m", "jeval_core.commands.cli", *args], env=env,
                          capture_output=True, text=True, timeout=300, cwd=ROOT, **kwargs)


def test_jeval_run_prints_the_summary_and_keeps_the_run(tmp_path):
    db, out = tmp_path / "runs.db", tmp_path / "results.jsonl"
    done = jeval("run", str(SAMPLE), "--judge", "lexical", "--evaluators", "chunk_relevance",
                 "--out", str(out), "--name", "nightly", db=db)
    assert done.returncode == 0, done.stderr
    assert "chunk verdicts vs labels" in done.stdout and "reranked, 12 cases" in done.stdout
    assert len(out.read_text().splitlines()) == 45
    listed = jeval("runs", db=db)
    assert "nightly" in listed.stdout and "45/45" in listed.stdout


def test_jeval_run_skips_bad_rows_by_line_and_scores_the_rest(tmp_path):
    data = tmp_path / "mixed.jsonl"
    good = json.dumps({"input": "q?", "output": "a.", "context": ["a chunk"]})
    data.write_text(f"{good}\n{{broken\n{good}\n")
    done = jeval("run", str(data), "--judge", "lexical", db=tmp_path / "runs.db")
    assert done.returncode == 0 and "skipped line 2:" in done.stderr
    assert "cases: 2" in done.stdout


@pytest.mark.parametrize(("args", "code"), [
    (["run", "missing.jsonl"], 2),
    (["run", str(SAMPLE), "--threshold", "nonsense"], 2),
    (["run", str(SAMPLE), "--resume", "zzzzzzzz"], 2),
    (["run", str(SAMPLE), "--judge", "lexical", "--check"], 1),
])
def test_jeval_run_exit_codes(tmp_path, args, code):
    done = jeval(*args, db=tmp_path / "runs.db")
    assert done.returncode == code, done.stderr
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) <= 2


def test_jeval_run_check_exits_one_for_an_incomplete_case(tmp_path):
    # chunk relevance passes (2 of 4), contextual recall is skipped: INCOMPLETE, not a pass
    row = json.loads((ROOT / "assets" / "examples" / "jev_pricing.json").read_text())
    data = tmp_path / "one.jsonl"
    data.write_text(json.dumps({k: row[k] for k in ("input", "output", "context")}) + "\n")
    done = jeval("run", str(data), "--judge", "lexical", "--evaluators",
                 "chunk_relevance,contextual_recall", "--check", db=tmp_path / "runs.db")
    assert done.returncode == 1 and "incomplete 1" in done.stdout, done.stdout


def test_jeval_run_without_a_key_says_which_cases_to_resume(tmp_path):
    done = jeval("run", str(SAMPLE), "--judge", "jev", db=tmp_path / "runs.db",
                 stdin=subprocess.DEVNULL)
    assert done.returncode == 3, done.stderr
    assert "--resume" in done.stderr and "Traceback" not in done.stderr


def test_a_killed_jeval_run_loses_no_finished_case(tmp_path):
    db = tmp_path / "runs.db"
    env = {**os.environ, "JEVAL_DB": f"sqlite:///{db}"}
    proc = subprocess.Popen([sys.executable, "-m", "jeval_core.commands.cli", "run", str(SAMPLE),
                             "--concurrency", "1"], env=env, cwd=ROOT,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 240
        landed = 0
        while time.monotonic() < deadline and landed < 5 and proc.poll() is None:
            time.sleep(0.2)
            if db.exists():
                with open_store(f"sqlite:///{db}") as s:
                    runs = s.runs()
                    landed = runs[0].done if runs else 0
        assert proc.poll() is None, "the run ended before it could be killed"
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    with open_store(f"sqlite:///{db}") as s:
        run = s.runs()[0]
        before = {r.index: r.report for r in s.cases(run.id)}
    assert run.status == "running" and len(before) >= 5
    done = jeval("run", str(SAMPLE), "--resume", run.id[:8], db=db)
    assert done.returncode == 0, done.stderr
    with open_store(f"sqlite:///{db}") as s:
        after = {r.index: r.report for r in s.cases(run.id)}
        assert s.run(run.id).status == "finished"
    assert len(after) == 45 and all(after[i] == report for i, report in before.items())


def test_an_empty_history_starts_with_the_example_runs_of_their_fixture(store):
    from jeval_core.runs.run import SEEDS, read_examples, seed

    fixture = read_examples()
    made = seed(store)
    runs = store.runs()
    assert len(made) == len(runs) == len(SEEDS)
    assert [r.name for r in reversed(runs)] == [name for name, *_ in SEEDS]
    assert all(r.seeded and r.done == 45 and r.status == "finished" for r in runs)
    assert {r.judge for r in runs} == {"devx", "lexical", "local"}
    kept = {r["name"]: r for r in fixture["runs"]}
    for run in runs:  # as the fixture recorded them: the pass rate and the time it was scored
        assert run.passed == sum(c["passed"] is True for c in kept[run.name]["rows"])
        assert run.started_at.isoformat() == kept[run.name]["started_at"]
    assert seed(store) == []  # only ever on an empty store


def test_the_example_runs_are_what_their_judges_say_today():
    """The fixture names its judges and dataset; the first cases of each run, scored again by
    the judge it names, give the very verdicts and scores it keeps."""
    from jeval_core import evaluators
    from jeval_core.runs.batch import score_many
    from jeval_core.runs.run import read_examples

    fixture = read_examples()
    sample = datasets.load(SAMPLE)
    assert fixture["about"]["dataset_sha256"] == sample.sha256
    assert fixture["about"]["made_by"] == "python bench/example_runs.py"
    for run in fixture["runs"]:
        rows = run["rows"][:3]
        outcomes = score_many([sample.rows[c["index"]].case for c in rows],
                              evaluators.resolve(run["evaluators"]), judges.get(run["judge"]),
                              thresholds=run["thresholds"], concurrency=1)
        for kept, again in zip(rows, outcomes, strict=True):
            assert again.report.passed == kept["passed"], (run["name"], kept["case_id"])
            assert {n: r.score for n, r in again.report.results.items()} == pytest.approx(
                kept["scores"]), (run["name"], kept["case_id"])


def test_a_playground_case_is_kept_as_a_run_of_one_case_without_asking_again(store):
    from conftest import load_file

    from jeval_core import score
    from jeval_core.runs.run import PLAYGROUND, save_case

    loaded = load_file("noisy_retrieval")
    report = score(loaded.case, loaded.chosen(), judges.get("lexical"),
                   {"chunk_relevance": 0.7})
    run_id = save_case(store, loaded, report)
    run = store.run(run_id)
    assert (run.dataset, run.cases, run.done, run.status) == (PLAYGROUND, 1, 1, "finished")
    assert run.name == loaded.description and run.thresholds == {"chunk_relevance": 0.7}
    (row,) = store.cases(run_id)
    assert row.report is not None
    assert row.report.to_dict() == json.loads(json.dumps(report.to_dict()))
    assert row.case.input == loaded.case.input and row.passed is report.passed

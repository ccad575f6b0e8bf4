"""Runs you can trust: a resume asks what the run's first part asked, retries what the judge
could not answer, and a run stopped by Ctrl+C or a store outage says how to continue it in one
line. Real parts: a SQLite file, the real PostgreSQL behind a loopback proxy, `jevcompat mock`."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import sqlalchemy as sa
from conftest import ROOT
from jev_servers import MockProcess
from postgres import new_database, postgres_url  # noqa: F401  (a session fixture)
from tcp_proxy import TcpProxy
from test_runs import CHUNKS, SAMPLE, Counting

from jeval_core import errors, judges
from jeval_core.errors import JudgeError
from jeval_core.inputs import datasets
from jeval_core.judges.base import Answers, ForwardingJudge
from jeval_core.runs.run import run_dataset
from jeval_core.runs.store import open_store

KEY = "sk-resume-test-7777bbbb"
KEY_VARIABLES = ("TYPESAFE_API_KEY", "TYPESAFE_BASE_URL", "OPENROUTER_API_KEY")


def jeval(*args: str, db: Path | str, env: dict[str, str] | None = None,
          **kwargs) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if k not in KEY_VARIABLES}
    url = db if isinstance(db, str) else f"sqlite:///{db}"
    return subprocess.run([sys.executable, "-m", "jeval_core.commands.cli", *args], cwd=ROOT,
                          env={**clean, "JEVAL_DB": url, **(env or {})}, capture_output=True,
                          text=True, timeout=300, stdin=subprocess.DEVNULL, **kwargs)


def one_line(done: subprocess.CompletedProcess, code: int) -> str:
    assert done.returncode == code, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    return lines[0]


def big_dataset(tmp_path: Path, copies: int = 40) -> Path:
    """The sample, `copies` times over with distinct ids: a run long enough to stop."""
    rows = [json.loads(line) for line in SAMPLE.read_text().splitlines() if line.strip()]
    path = tmp_path / "big.jsonl"
    path.write_text("".join(json.dumps({**r, "id": f"{r.get('id', i)}-{n}"}) + "\n"
                            for n in range(copies) for i, r in enumerate(rows)))
    return path


def stopped_run(db: Path, crash_after: int = 10) -> str:
    """A lexical, chunk_relevance@0.9 run of the sample, stopped after `crash_after` cases."""
    with open_store(f"sqlite:///{db}") as s, pytest.raises(KeyboardInterrupt):
        run_dataset(datasets.load(SAMPLE), Counting(crash_after=crash_after), s, chosen=CHUNKS,
                    thresholds={"chunk_relevance": 0.9}, concurrency=1)
    with open_store(f"sqlite:///{db}") as s:
        return s.runs()[0].id


# --- 1. the run's settings ------------------------------------------------------------------


def test_resume_scores_the_rest_with_the_runs_judge_evaluators_and_thresholds(tmp_path):
    db = tmp_path / "runs.db"
    run_id = stopped_run(db)
    done = jeval("run", str(SAMPLE), "--resume", run_id[:8], db=db)
    assert done.returncode == 0, done.stderr
    with open_store(f"sqlite:///{db}") as s:
        rows = s.cases(run_id)
        run = s.run(run_id)
    assert len(rows) == 45 and run.judge == "lexical"
    assert all(r.report is not None and r.report.judge == "lexical" for r in rows)
    assert all(list(r.results) == ["chunk_relevance"] for r in rows)
    assert all(r.results["chunk_relevance"].threshold == 0.9 for r in rows)


@pytest.mark.parametrize(("flag", "stored"), [
    (["--judge", "local"], "--judge lexical"),
    (["--evaluators", "faithfulness"], "chunk_relevance"),
    (["--threshold", "chunk_relevance=0.5"], "chunk_relevance=0.9"),
])
def test_a_flag_that_contradicts_the_stored_run_is_refused_naming_it(tmp_path, flag, stored):
    db = tmp_path / "runs.db"
    run_id = stopped_run(db)
    line = one_line(jeval("run", str(SAMPLE), "--resume", run_id[:8], *flag, db=db), 2)
    assert stored in line
    with open_store(f"sqlite:///{db}") as s:
        assert s.run(run_id).done == 10  # nothing was scored


def test_the_hosted_judges_run_resumes_against_its_own_server_and_retries_every_error(
        tmp_path):
    db = tmp_path / "runs.db"
    server = MockProcess("--key", KEY)
    try:
        first = jeval("run", str(SAMPLE), "--judge", "jev", "--base-url", server.url,
                      "--evaluators", "chunk_relevance", db=db)  # no key: nothing answered
        line = one_line(first, 3)
        command = line.split("continue with: ", 1)[1].split()
        assert command[:3] == ["jeval", "run", str(SAMPLE)] and command[3] == "--resume"
        again = jeval(*command[1:], db=db,
                      env={"TYPESAFE_API_KEY": KEY, "TYPESAFE_BASE_URL": server.url})
    finally:
        server.stop()
    assert again.returncode == 0, again.stderr
    assert "45 case(s) without a report are scored again" in again.stderr
    with open_store(f"sqlite:///{db}") as s:
        (run,) = s.runs()
        rows = s.cases(run.id)
    assert run.base_url == server.url and run.status == "finished"
    assert all(r.report is not None and r.report.judge == "jev" for r in rows)


class FlakyJudge(ForwardingJudge):
    """The lexical judge, unreachable for its first `down` requests."""

    def __init__(self, down: int) -> None:
        super().__init__(judges.get("lexical"))
        self.down = down

    def answer(self, packed) -> Answers:
        if self.down > 0:
            self.down -= 1
            raise JudgeError("cannot reach the judge (test); try again later")
        return self.inner.answer(packed)


def test_a_resume_retries_the_cases_the_judge_could_not_answer(tmp_path):
    sample = datasets.load(SAMPLE)
    with open_store(f"sqlite:///{tmp_path / 'runs.db'}") as s:
        first = run_dataset(sample, FlakyJudge(down=7), s, chosen=CHUNKS, concurrency=1)
        assert first.judge_errors == 7
        again = run_dataset(sample, FlakyJudge(down=0), s, chosen=CHUNKS,
                            resume=first.run.id)
        assert again.retried == 7 and again.judge_errors == 0
        assert all(row.report is not None for row in s.cases(first.run.id))


@pytest.mark.parametrize("kind", ["sqlite", "postgresql"])
def test_a_case_id_holding_a_nul_is_kept_and_resumed_on_every_store(tmp_path, kind, request):
    ids = ["a\x00b", "\x00", "c"]  # PostgreSQL's text cannot hold a NUL as it is
    data = tmp_path / "nul.jsonl"
    data.write_text("".join(json.dumps({"id": i, "input": "How do I rotate a key?",
                                        "context": ["Create a second key."]}) + "\n"
                            for i in ids))
    url = f"sqlite:///{tmp_path / 'runs.db'}" if kind == "sqlite" else new_database(
        request.getfixturevalue("postgres_url"))
    with open_store(url) as s, pytest.raises(KeyboardInterrupt):
        run_dataset(datasets.load(data), Counting(crash_after=2), s, chosen=CHUNKS,
                    concurrency=1)
    with open_store(url) as s:
        run_id = s.runs()[0].id
        assert [r.case_id for r in s.cases(run_id)] == ids[:2]
    assert jeval("run", str(data), "--resume", run_id[:8], db=url).returncode == 0
    with open_store(url) as s:
        assert [r.case_id for r in s.cases(run_id)] == ids
        assert s.run(run_id).status == "finished"


# --- 3. resume's edges ----------------------------------------------------------------------


def test_resume_with_an_empty_id_is_refused_not_a_new_run(tmp_path):
    db = tmp_path / "runs.db"
    one_line(jeval("run", str(SAMPLE), "--judge", "lexical", "--resume", "", db=db), 2)
    assert "no runs yet" in jeval("runs", db=db).stdout


def test_resuming_a_finished_run_leaves_it_as_it_ended(tmp_path):
    sample = datasets.load(SAMPLE)
    with open_store(f"sqlite:///{tmp_path / 'runs.db'}") as s:
        run = run_dataset(sample, judges.get("lexical"), s, chosen=CHUNKS).run
        again = run_dataset(sample, judges.get("lexical"), s, resume=run.id).run
        assert s.run(run.id).finished_at == run.finished_at == again.finished_at
        assert s.run(run.id).status == "finished"


def test_an_unwritable_out_file_is_refused_before_the_run(tmp_path):
    db = tmp_path / "runs.db"
    line = one_line(jeval("run", str(SAMPLE), "--judge", "lexical",
                          "--out", str(tmp_path / "no" / "such" / "dir.jsonl"), db=db), 2)
    assert "--out" in line
    assert "no runs yet" in jeval("runs", db=db).stdout


def test_out_with_reports_carries_each_cases_whole_report(tmp_path):
    db, out = tmp_path / "runs.db", tmp_path / "results.jsonl"
    done = jeval("run", str(SAMPLE), "--judge", "lexical", "--evaluators", "chunk_relevance",
                 "--out", str(out), "--reports", db=db)
    assert done.returncode == 0, done.stderr
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    detail = lines[0]["report"]["results"]["chunk_relevance"]["details"][0]
    assert len(lines) == 45 and {"question", "p", "verdict", "evidence"} <= set(detail)


# --- 4. the store goes away mid-run ---------------------------------------------------------


class CuttingJudge(Counting):
    """The lexical judge; after `after` cases it cuts the store's connection."""

    def __init__(self, proxy: TcpProxy, after: int, seconds: float | None) -> None:
        super().__init__()
        self.proxy, self.after, self.seconds = proxy, after, seconds

    def answer(self, packed) -> Answers:
        if len(self.asked) == self.after:
            self.proxy.cut(self.seconds)
        return super().answer(packed)


def proxied_store(postgres_url: str) -> tuple[TcpProxy, str]:  # noqa: F811
    target = sa.make_url(new_database(postgres_url))
    proxy = TcpProxy(target.port)
    return proxy, proxy.url_for(target.render_as_string(hide_password=False))


def test_a_store_outage_of_a_second_mid_run_loses_nothing(postgres_url):  # noqa: F811
    proxy, url = proxied_store(postgres_url)
    try:
        with open_store(url) as s:
            outcome = run_dataset(datasets.load(SAMPLE), CuttingJudge(proxy, 5, 1.0), s,
                                  chosen=CHUNKS, concurrency=2)
            assert outcome.run.status == "finished" and len(s.cases(outcome.run.id)) == 45
    finally:
        proxy.stop()


def test_a_store_that_stays_away_stops_the_run_resumably(postgres_url):  # noqa: F811
    proxy, url = proxied_store(postgres_url)
    sample = datasets.load(SAMPLE)
    try:
        with open_store(url) as s:
            s.outage_s = 1.5
            with pytest.raises(errors.StoreUnavailable) as caught:
                run_dataset(sample, CuttingJudge(proxy, 5, None), s, chosen=CHUNKS,
                            concurrency=1)
            assert caught.value.exit_code == 3
            proxy.restore()
            (run,) = s.runs()
            assert 1 <= run.done < 45
            again = run_dataset(sample, judges.get("lexical"), s, resume=run.id)
            assert again.run.status == "finished" and again.run.done == 45
    finally:
        proxy.stop()


def wait_for_cases(url: str, proc: subprocess.Popen, at_least: int = 5) -> str:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        assert proc.poll() is None, "the run ended before it could be stopped"
        try:
            with open_store(url) as s:
                runs = s.runs()
                if runs and runs[0].done >= at_least:
                    return runs[0].id
        except Exception:  # noqa: BLE001  (the store may be mid-write)
            pass
        time.sleep(0.1)
    raise AssertionError("no case landed in time")


def test_the_cli_says_store_outages_in_one_line_with_the_resume_command(
        tmp_path, postgres_url):  # noqa: F811
    proxy, url = proxied_store(postgres_url)
    data = big_dataset(tmp_path)
    clean = {k: v for k, v in os.environ.items() if k not in KEY_VARIABLES}
    proc = subprocess.Popen(
        [sys.executable, "-m", "jeval_core.commands.cli", "run", str(data), "--judge", "lexical",
         "--concurrency", "1"], cwd=ROOT, env={**clean, "JEVAL_DB": url,
                                              "JEVAL_DB_TIMEOUT": "2"},
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        run_id = wait_for_cases(url, proc)
        proxy.cut()
        _, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
        proxy.stop()
    assert proc.returncode == 3, err
    (line,) = err.strip().splitlines()
    assert f"--resume {run_id[:8]}" in line and "Traceback" not in err


# --- 14. Ctrl+C -----------------------------------------------------------------------------


def signalled_run(tmp_path, signum: signal.Signals) -> tuple[str, str, int, str]:
    """A `jeval run` started on a big dataset and sent `signum` once it has stored cases:
    (database URL, run id, exit code, stderr)."""
    db = f"sqlite:///{tmp_path / 'runs.db'}"
    data = big_dataset(tmp_path)
    clean = {k: v for k, v in os.environ.items() if k not in KEY_VARIABLES}
    proc = subprocess.Popen(
        [sys.executable, "-m", "jeval_core.commands.cli", "run", str(data), "--judge", "lexical",
         "--concurrency", "1"], cwd=ROOT, env={**clean, "JEVAL_DB": db},
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        run_id = wait_for_cases(db, proc)
        proc.send_signal(signum)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    return db, run_id, proc.returncode, err


def test_ctrl_c_prints_one_line_with_what_was_kept_and_the_resume_command(tmp_path):
    _, run_id, code, err = signalled_run(tmp_path, signal.SIGINT)
    assert code == 130, err
    (line,) = err.strip().splitlines()
    assert "interrupted" in line and f"--resume {run_id[:8]}" in line


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGTERM, 143), (signal.SIGHUP, 129)])
def test_sigterm_and_sighup_stop_a_run_as_ctrl_c_does_with_their_own_exit_code(
        tmp_path, signum, code):
    db, run_id, returned, err = signalled_run(tmp_path, signum)
    assert returned == code, err
    (line,) = err.strip().splitlines()
    assert f"stopped by {signum.name}" in line and f"--resume {run_id[:8]}" in line
    with open_store(db) as s:
        assert s.run(run_id).status == "cancelled"  # as Ctrl+C leaves it, not "running"


def _completions(request) -> dict:
    """An OpenAI-compatible /v1/completions reply: " Yes" at 0.8 for each prompt in the list."""
    import math

    n = len(request.json()["prompt"])
    return {"choices": [{"index": i, "text": " Yes", "logprobs": {"content": [{
        "token": " Yes", "logprob": math.log(0.8), "top_logprobs": [
            {"token": " Yes", "logprob": math.log(0.8)},
            {"token": " No", "logprob": math.log(0.2)}]}]}} for i in range(n)],
        "usage": {"prompt_tokens": 100}}


def openai_run_stopped_by_the_server(db: Path, server, *more: str) -> list[str]:
    """A `--judge openai --endpoint completions --per-case 2 --price 2` run (and `more`
    flags) the server answered nothing of (a 400): the resume command the CLI printed."""
    from hostile_server import Reply

    server.script("POST", "/v1/completions", Reply(400, {}, {"error": {"message": "busy"}}))
    first = jeval("run", str(SAMPLE), "--judge", "openai", "--base-url", f"{server.url}/v1",
                  "--model", "m", "--endpoint", "completions", "--per-case", "2", "--price",
                  "2", "--evaluators", "chunk_relevance", *more, db=db)
    return one_line(first, 3).split("continue with: ", 1)[1].split()


def test_an_openai_run_resumes_with_its_own_endpoint_and_price(tmp_path):
    from hostile_server import HostileServer, Reply

    db = tmp_path / "runs.db"
    with HostileServer() as server:
        command = openai_run_stopped_by_the_server(db, server)
        server.requests.clear()
        server.script("POST", "/v1/completions", Reply(200, {}, _completions))
        again = jeval(*command[1:], db=db)  # only --resume: no --endpoint, --per-case, --price
        assert again.returncode == 0, again.stderr
        paths = {r.path for r in server.received("POST")}
    assert paths == {"/v1/completions"}  # not the chat endpoint, the default
    with open_store(f"sqlite:///{db}") as s:
        (run,) = s.runs()
    assert run.judge_settings == {"endpoint": "completions", "concurrency": 2,
                                  "price_per_million_input_tokens": 2.0, "case_deadline": 180.0,
                                  "prompt": "named"}
    assert run.status == "finished" and run.cost_usd == pytest.approx(
        run.input_tokens * 2 / 1e6) and run.cost_usd > 0


def test_an_openai_run_kept_before_the_prompt_setting_resumes_with_the_whole_case(tmp_path):
    import sqlite3

    from hostile_server import HostileServer, Reply

    db = tmp_path / "runs.db"
    with HostileServer() as server:
        command = openai_run_stopped_by_the_server(db, server)
        with sqlite3.connect(db) as conn:  # as a run stored before --prompt existed
            conn.execute("UPDATE jeval_runs SET judge_settings = ?", (json.dumps({
                "endpoint": "completions", "concurrency": 2,
                "price_per_million_input_tokens": 2.0, "case_deadline": 180.0}),))
        server.requests.clear()
        server.script("POST", "/v1/completions", Reply(200, {}, _completions))
        again = jeval(*command[1:], db=db)
        assert again.returncode == 0, again.stderr
        prompts = [p for r in server.received("POST") for p in r.json()["prompt"]]
    first_case = json.loads(SAMPLE.read_text("utf-8").splitlines()[0])
    chunk_prompts = [p for p in prompts if "context[1]" in p.split("Statement:")[1]]
    assert chunk_prompts and all(first_case["context"][0] in p for p in chunk_prompts
                                 if first_case["input"] in p)


def test_an_openai_run_keeps_its_case_deadline_and_a_resume_may_give_another(tmp_path):
    from hostile_server import HostileServer, Reply

    db = tmp_path / "runs.db"
    with HostileServer() as server:
        command = openai_run_stopped_by_the_server(db, server, "--case-deadline", "30")
        with open_store(f"sqlite:///{db}") as s:
            assert s.runs()[0].judge_settings["case_deadline"] == 30.0
        server.script("POST", "/v1/completions", Reply(200, {}, _completions))
        again = jeval(*command[1:], "--case-deadline", "90", db=db)  # a slow model's resume
    assert again.returncode == 0, again.stderr
    with open_store(f"sqlite:///{db}") as s:
        assert s.runs()[0].status == "finished"


@pytest.mark.parametrize(("flag", "named"), [(("--endpoint", "chat"), "--endpoint completions"),
                                             (("--price", "0"), "--price 2.0")])
def test_an_openai_resume_asked_another_way_is_refused_naming_the_runs_setting(
        tmp_path, flag, named):
    from hostile_server import HostileServer

    db = tmp_path / "runs.db"
    with HostileServer() as server:
        command = openai_run_stopped_by_the_server(db, server)
        server.requests.clear()
        refused = jeval(*command[1:], *flag, db=db)
        assert server.received("POST") == []  # nothing was asked
    line = one_line(refused, 2)
    assert named in line and "to resume it the same way" in line


def test_the_summary_after_a_resume_reads_the_labels_a_person_gave_in_the_store(tmp_path):
    from jeval_core.analysis.labels import Labels
    from jeval_core.commands.cli_run import render_agreement

    db = tmp_path / "runs.db"
    run_id = stopped_run(db)
    with open_store(f"sqlite:///{db}") as s:
        first = s.cases(run_id)[0]
        flipped = Labels(tuple(not x for x in first.row.labels), ())
        s.relabel(run_id, first.index, flipped)  # a person disagrees with the file on case 1
    done = jeval("run", str(SAMPLE), "--resume", run_id[:8], db=db)
    assert done.returncode == 0, done.stderr
    with open_store(f"sqlite:///{db}") as s:
        cases = s.cases(run_id)
    stored_rows = [c.row for c in sorted(cases, key=lambda c: c.index)]
    file_rows = datasets.load(SAMPLE).rows
    assert render_agreement(stored_rows, cases) in done.stdout  # the store's labels
    assert render_agreement(file_rows, cases) not in done.stdout  # not the file's

"""The run store on SQLite and on a real PostgreSQL server: the same tests on both."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from conftest import EXAMPLES, ROOT
from jev_servers import down_url
from postgres import new_database, postgres_url  # noqa: F401  (a session fixture)

from jeval_core import judges
from jeval_core.analysis.aggregate import EvaluatorSummary, Summary
from jeval_core.errors import JevalError
from jeval_core.inputs import casefile
from jeval_core.runs import migrations, store
from jeval_core.runs.store import open_store
from jeval_core.scoring import score

AGGREGATES = Summary(3, passed=2, failed=1, evaluators={
    "faithfulness": EvaluatorSummary("faithfulness", scored=3, passed=2, failed=1,
                                     mean_score=0.75)})


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """An empty database of each kind: a SQLite file, or a fresh database on the server."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'runs.db'}"
    return new_database(request.getfixturevalue("postgres_url"))


def scored_examples() -> list[tuple[str, dict[str, Any], Any]]:
    """(file stem, case dict, report) for every example, scored by the lexical judge."""
    lexical = judges.get("lexical")
    out = []
    for path in sorted(EXAMPLES.glob("*.json")):
        cf = casefile.decode(path.read_bytes(), path.name)
        out.append((path.stem, cf.case.to_dict(), score(cf.case, None, lexical)))
    return out


def new_run(s: store.Store, **changes: Any) -> str:
    fields: dict[str, Any] = dict(
        name="nightly", dataset="sample.jsonl", dataset_hash="ab" * 32, judge="lexical",
        model=None, evaluators=["chunk_relevance", "faithfulness"],
        thresholds={"chunk_relevance": 0.5, "faithfulness": 0.7}, cases=3)
    return s.start_run(**{**fields, **changes})


def add(s: store.Store, run_id: str, index: int, passed: bool | None = True) -> None:
    s.add_case(run_id, index, case_id=f"c{index}", case={"input": f"q{index}"}, report=None,
               error=None, passed=passed, scores={"faithfulness": 0.5}, input_tokens=10,
               cost_usd=0.0)


def test_a_run_round_trips_with_real_reports(url: str) -> None:
    examples = scored_examples()
    with open_store(url) as s:
        assert s.is_empty()
        run_id = s.start_run(
            name="examples — ünïcode", dataset="assets/examples", dataset_hash="f" * 64,
            judge="lexical", model=None, evaluators=["chunk_relevance", "faithfulness"],
            thresholds={"chunk_relevance": 0.5}, cases=len(examples) + 1)
        assert len(run_id) == 32 and int(run_id, 16) >= 0
        assert not s.is_empty()
        for i, (stem, case, report) in enumerate(examples):
            s.add_case(run_id, i, case_id=stem, case=case, report=report.to_dict(), error=None,
                       passed=report.passed,
                       scores={n: r.score for n, r in report.results.items()},
                       input_tokens=report.usage.input_tokens, cost_usd=report.cost_usd)
        s.add_case(run_id, len(examples), case_id="broken", case={"input": ""}, report=None,
                   error="line 7: missing field input", passed=None, scores={},
                   input_tokens=0, cost_usd=0.0)
        running = s.run(run_id)
        assert running.status == "running" and running.finished_at is None
        s.finish_run(run_id, status="finished", aggregates=AGGREGATES,
                     input_tokens=1234, cost_usd=0.000052)

    with open_store(url) as s:  # a second open sees the same, and migrates nothing
        summary = s.run(run_id)
        rows = s.cases(run_id)
    assert summary.name == "examples — ünïcode" and summary.dataset == "assets/examples"
    assert summary.judge == "lexical" and summary.model is None and not summary.seeded
    assert summary.evaluators == ["chunk_relevance", "faithfulness"]
    assert summary.thresholds == {"chunk_relevance": 0.5}
    assert summary.status == "finished" and summary.cases == summary.done == len(examples) + 1
    verdicts = [r.passed for _, _, r in examples if r.passed is not None]
    assert summary.passed == sum(verdicts)
    assert summary.pass_rate == pytest.approx(sum(verdicts) / len(verdicts))
    assert summary.aggregates == AGGREGATES
    assert summary.input_tokens == 1234 and summary.cost_usd == pytest.approx(0.000052)
    assert summary.started_at.tzinfo is not None and summary.started_at.utcoffset().seconds == 0
    assert summary.finished_at is not None and summary.finished_at >= summary.started_at
    assert abs((datetime.now(UTC) - summary.started_at).total_seconds()) < 300

    assert [r.index for r in rows] == list(range(len(examples) + 1))
    for row, (stem, case, report) in zip(rows, examples, strict=False):
        assert row.case_id == stem and row.data == case
        assert row.report is not None
        assert row.report.to_dict() == json.loads(json.dumps(report.to_dict()))
        assert row.passed is report.passed and row.error is None
        assert row.scores == {n: r.score for n, r in report.results.items()}
        assert row.input_tokens == report.usage.input_tokens
    last = rows[-1]
    assert last.report is None and last.passed is None and last.scores == {}
    assert last.error == "line 7: missing field input"


def test_add_case_is_idempotent_and_the_stored_indices_drive_resume(url: str) -> None:
    with open_store(url) as s:
        run_id = new_run(s, cases=5)
        assert {c.index for c in s.cases(run_id)} == set()
        for i in (0, 1, 3):
            add(s, run_id, i, passed=False)
        add(s, run_id, 1, passed=True)  # the resumed run scores case 1 again
        assert {c.index for c in s.cases(run_id)} == {0, 1, 3}
        rows = s.cases(run_id)
        assert [r.index for r in rows] == [0, 1, 3]
        assert [r.passed for r in rows] == [False, True, False]
        s.finish_run(run_id, status="cancelled", aggregates=Summary(0), input_tokens=30,
                     cost_usd=0.0)
        s.reopen(run_id)
        assert s.run(run_id).status == "running" and s.run(run_id).finished_at is None
        for i in {0, 1, 2, 3, 4} - {c.index for c in s.cases(run_id)}:
            add(s, run_id, i)
        s.finish_run(run_id, status="finished", aggregates=Summary(0), input_tokens=50,
                     cost_usd=0.0)
        summary = s.run(run_id)
    assert (summary.done, summary.passed, summary.pass_rate) == (5, 3, 0.6)


@pytest.mark.parametrize("case_id", ["a\x00b", "\x00", '"quoted"', '"', "back\\slash"])
def test_a_case_id_reads_back_as_typed_on_every_database(url: str, case_id: str) -> None:
    with open_store(url) as s:  # PostgreSQL's text holds no NUL: the cell escapes it
        run_id = new_run(s, cases=1)
        s.add_case(run_id, 0, case_id=case_id, case={"id": case_id}, report=None, error=None,
                   passed=True, scores={}, input_tokens=0, cost_usd=0.0)
        assert [r.case_id for r in s.cases(run_id)] == [case_id]


def test_runs_newest_first_by_dataset_and_delete(url: str) -> None:
    with open_store(url) as s:
        first = new_run(s, dataset="a.jsonl", seeded=True, name="example run (seeded)")
        time.sleep(0.01)
        second = new_run(s, dataset="b.jsonl", judge="local", model="minilm")
        time.sleep(0.01)
        third = new_run(s, dataset="a.jsonl")
        add(s, third, 0)
        assert [r.id for r in s.runs()] == [third, second, first]
        assert [r.id for r in s.runs("a.jsonl")] == [third, first]
        assert s.runs("none.jsonl") == []
        assert s.run(first).seeded and s.run(second).model == "minilm"
        fresh = s.run(second)
        assert (fresh.done, fresh.passed, fresh.pass_rate) == (0, 0, None)
        s.delete_run(third)
        assert [r.id for r in s.runs()] == [second, first]
        with pytest.raises(JevalError):
            s.cases(third)


def test_unknown_run_ids_are_jeval_errors(url: str) -> None:
    with open_store(url) as s:
        new_run(s)
        nope = "0" * 32
        calls = [lambda: s.run(nope), lambda: s.cases(nope), lambda: s.cases(nope),
                 lambda: add(s, nope, 0), lambda: s.delete_run(nope), lambda: s.reopen(nope),
                 lambda: s.finish_run(nope, status="failed", aggregates=Summary(0), input_tokens=0,
                                      cost_usd=0.0)]
        for call in calls:
            with pytest.raises(JevalError, match="no stored run has the id"):
                call()
        with pytest.raises(ValueError):
            s.finish_run(new_run(s), status="done", aggregates=Summary(0), input_tokens=0,
                         cost_usd=0.0)


def _version(url: str) -> int:
    engine = sa.create_engine(url)
    try:
        with engine.connect() as conn:
            return conn.execute(sa.select(migrations.schema_version.c.version)).scalar_one()
    finally:
        engine.dispose()


def _version_1_database(url: str) -> str:
    """A database as a jeval that knew schema version 1 only left it: one run, one case."""
    engine = sa.create_engine(url)
    try:
        with engine.begin() as conn:
            md = sa.MetaData()
            runs, cases = migrations._schema_1(md)
            md.create_all(conn)
            migrations.schema_version.create(conn)
            conn.execute(migrations.schema_version.insert().values(version=1))
            conn.execute(runs.insert().values(
                id="a" * 32, name="old", dataset="sample.jsonl", dataset_hash="ab" * 32,
                judge="lexical", model=None, evaluators="[]", thresholds="{}",
                started_at=datetime.now(UTC), finished_at=None, status="running", cases=3,
                aggregates="{}", input_tokens=0, cost_usd=0.0, seeded=False))
            conn.execute(cases.insert().values(
                run_id="a" * 32, idx=0, case_id="c0", case_json="{}", report=None, error=None,
                passed=True, scores="{}", input_tokens=0, cost_usd=0.0))
    finally:
        engine.dispose()
    return "a" * 32


def test_an_older_schema_is_migrated_and_opening_again_is_a_no_op(
        url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    old = _version_1_database(url)
    with open_store(url) as s:  # version 1 -> today's: the hosted judge's base URL is added
        assert s.run(old).done == 1 and s.run(old).base_url is None
        assert {c.index for c in s.cases(old)} == {0}
    latest = len(migrations.MIGRATIONS)
    assert _version(url) == latest

    calls = []

    def add_note(conn: sa.Connection) -> None:  # what a future migration looks like
        calls.append(1)
        conn.execute(sa.text("ALTER TABLE jeval_runs ADD COLUMN note TEXT"))

    monkeypatch.setattr(migrations, "MIGRATIONS", [*migrations.MIGRATIONS, add_note])
    with open_store(url) as s:
        assert s.run(old).done == 1 and {c.index for c in s.cases(old)} == {0}
    assert calls == [1] and _version(url) == latest + 1
    engine = sa.create_engine(url)
    try:
        assert "note" in {c["name"] for c in sa.inspect(engine).get_columns("jeval_runs")}
    finally:
        engine.dispose()
    with open_store(url) as s, open_store(url) as again:
        assert s.migrate() == latest + 1 and again.migrate() == latest + 1
    assert calls == [1] and _version(url) == latest + 1

    monkeypatch.setattr(migrations, "MIGRATIONS", migrations.MIGRATIONS[:latest])  # an older jeval
    with pytest.raises(JevalError, match=f"schema version {latest + 1}, newer than this jeval"):
        open_store(url)


def test_an_older_case_id_that_begins_with_a_quote_reads_back_as_it_was(url: str) -> None:
    old = _version_1_database(url)
    engine = sa.create_engine(url)
    try:
        with engine.begin() as conn:
            conn.execute(sa.text("UPDATE jeval_cases SET case_id = :id"), {"id": '"c0"'})
    finally:
        engine.dispose()
    with open_store(url) as s:
        assert [r.case_id for r in s.cases(old)] == ['"c0"']


def test_an_empty_database_gets_every_migration(url: str) -> None:
    with open_store(url) as s:
        assert s.migrate() == len(migrations.MIGRATIONS)
    assert _version(url) == len(migrations.MIGRATIONS)


WRITER = textwrap.dedent("""
    import sys, time
    from pathlib import Path
    from jeval_core.runs.store import open_store
    url, run_id, first, go = sys.argv[1], sys.argv[2], int(sys.argv[3]), Path(sys.argv[4])
    with open_store(url) as s:
        Path(f"{go}.{first}").touch()  # ready
        while not go.exists():
            time.sleep(0.005)
        for i in range(first, first + 200):
            s.add_case(run_id, i, case_id=f"c{i}", case={"input": f"q{i}"}, report=None,
                       error=None, passed=i % 2 == 0, scores={"faithfulness": i / 400},
                       input_tokens=i, cost_usd=0.0)
""")


def test_two_processes_writing_at_once_lose_nothing(url: str, tmp_path: Path) -> None:
    with open_store(url) as s:
        run_id = new_run(s, cases=400)
    go = tmp_path / "go"
    writers = [subprocess.Popen([sys.executable, "-c", WRITER, url, run_id, str(first), str(go)],
                                cwd=ROOT, stderr=subprocess.PIPE, text=True)
               for first in (0, 200)]
    deadline = time.monotonic() + 120  # both open their store first, so their writes overlap
    while not all(Path(f"{go}.{first}").exists() for first in (0, 200)):
        assert time.monotonic() < deadline and all(w.poll() is None for w in writers)
        time.sleep(0.01)
    go.touch()
    for w in writers:
        _, err = w.communicate(timeout=240)
        assert w.returncode == 0, err
    with open_store(url) as s:
        assert {c.index for c in s.cases(run_id)} == set(range(400))
        summary = s.run(run_id)
        rows = s.cases(run_id)
    assert (summary.done, summary.passed) == (400, 200)
    assert [r.input_tokens for r in rows] == list(range(400))


def test_jeval_db_and_the_default_file(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("JEVAL_DB", f"sqlite:///{tmp_path / 'env.db'}")
    with open_store() as s:
        new_run(s)
    assert (tmp_path / "env.db").exists()

    monkeypatch.delenv("JEVAL_DB")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    with open_store() as s:
        assert s.is_empty()
    path = tmp_path / "xdg" / "jeval" / "jeval.db"
    assert path.exists()
    con = sa.create_engine(f"sqlite:///{path}")
    try:
        with con.connect() as c:
            assert c.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
    finally:
        con.dispose()


@pytest.mark.parametrize("raw, says", [
    ("not a url at all", "is not a database URL"),
    ("nosuchdb+driver://user:hunter2secret@host/db", "driver is not installed"),
    ("postgresql+psycopg://user:hunter2secret@{down}/db", "could not be opened"),
])
def test_bad_urls_say_what_to_fix_and_never_the_password(raw: str, says: str) -> None:
    down = down_url().split("//", 1)[1]
    with pytest.raises(JevalError) as caught:
        open_store(raw.format(down=down))
    message = str(caught.value)
    assert says in message and "JEVAL_DB" in message
    assert "hunter2secret" not in message and "\n" not in message


def test_a_missing_postgres_database_is_named_without_the_password(postgres_url: str) -> None:  # noqa: F811
    bad = sa.make_url(postgres_url).set(password="hunter2secret", database="no_such_db")
    with pytest.raises(JevalError) as caught:
        open_store(bad.render_as_string(hide_password=False))
    message = str(caught.value)
    assert "no_such_db" in message and "***" in message and "could not be opened" in message
    assert "hunter2secret" not in message


# --- hostile configurations and outages ---------------------------------------------------


@pytest.mark.parametrize("query", ["password=hunter2secret", "sslpassword=hunter2secret",
                                   "token=hunter2secret", "sslmode=require&password=hunter2secret"])
def test_a_credential_in_the_url_query_is_never_shown(query: str) -> None:
    down = down_url().split("//", 1)[1]
    with pytest.raises(JevalError) as caught:
        open_store(f"postgresql+psycopg://jeval@{down}/db?{query}")
    assert "hunter2secret" not in str(caught.value) and "could not be opened" in str(caught.value)
    assert "hunter2secret" not in store.shown_url(sa.make_url(f"postgresql://u@h/d?{query}"))


def test_jeval_db_may_be_a_plain_file_path(monkeypatch: pytest.MonkeyPatch,
                                           tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("JEVAL_DB", "runs/../jeval.db")
    with open_store() as s:
        new_run(s)
    monkeypatch.setenv("JEVAL_DB", str(tmp_path / "jeval.db"))
    with open_store() as s:
        assert len(s.runs()) == 1


def test_an_uncreatable_data_folder_is_bad_configuration_not_a_bug() -> None:
    env = {k: v for k, v in __import__("os").environ.items() if k != "JEVAL_DB"}
    done = subprocess.run([sys.executable, "-m", "jeval_core.commands.cli", "runs"], cwd=ROOT,
                          env={**env, "XDG_DATA_HOME": "/etc/passwd"}, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 2, done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert "XDG_DATA_HOME" in line and "JEVAL_DB" in line and "Traceback" not in done.stderr


def test_a_store_server_that_never_answers_is_one_line_and_exit_3() -> None:
    from tcp_proxy import TcpProxy

    silent = TcpProxy(None)
    try:
        started = time.monotonic()
        done = subprocess.run(
            [sys.executable, "-m", "jeval_core.commands.cli", "runs"], cwd=ROOT,
            capture_output=True, text=True, timeout=120,
            env={**__import__("os").environ, "JEVAL_DB_TIMEOUT": "2",
                 "JEVAL_DB": f"postgresql+psycopg://jeval:hunter2secret@127.0.0.1:{silent.port}/x"})
        took = time.monotonic() - started
    finally:
        silent.stop()
    assert done.returncode == 3, done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert "could not be opened" in line and "hunter2secret" not in line
    assert took < 30


def test_a_store_outage_of_a_second_is_waited_out(postgres_url: str) -> None:  # noqa: F811
    from tcp_proxy import TcpProxy

    target = sa.make_url(new_database(postgres_url))
    proxy = TcpProxy(target.port)
    try:
        with open_store(proxy.url_for(target.render_as_string(hide_password=False))) as s:
            run_id = new_run(s)
            add(s, run_id, 0)
            proxy.cut(1.0)  # the server goes away with every open connection, back in 1 s
            add(s, run_id, 1)
            assert {c.index for c in s.cases(run_id)} == {0, 1}
    finally:
        proxy.stop()


def test_a_store_that_stays_away_says_it_could_not_answer(postgres_url: str) -> None:  # noqa: F811
    from tcp_proxy import TcpProxy

    from jeval_core.errors import StoreUnavailable

    target = sa.make_url(new_database(postgres_url))
    proxy = TcpProxy(target.port)
    try:
        with open_store(proxy.url_for(target.render_as_string(hide_password=False))) as s:
            s.outage_s = 1.5
            run_id = new_run(s)
            proxy.cut()
            with pytest.raises(StoreUnavailable) as caught:
                add(s, run_id, 0)
        assert caught.value.exit_code == 3 and "could not save" in str(caught.value)
    finally:
        proxy.stop()

"""Run history in a real database: every run, its cases, aggregates, usage and cost.

SQLAlchemy Core, so one code path serves the embedded default (a SQLite file in the user's data
directory) and a team's shared server (any SQLAlchemy URL in `JEVAL_DB`, e.g. PostgreSQL).
JSON goes into text columns, so every database stores and returns the same values. SQLite runs
in WAL mode with a busy timeout and takes its write lock up front, so the CLI and the app can
write at once and neither loses a row. The schema carries a version; `migrations.MIGRATIONS` brings
any older database up to date when it is opened.
"""

from __future__ import annotations

import json
import math
import os
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.engine import URL, Connection, Engine, make_url
from sqlalchemy.exc import (
    ArgumentError,
    DBAPIError,
    InterfaceError,
    NoSuchModuleError,
    OperationalError,
    SQLAlchemyError,
)

from ..analysis.aggregate import Summary
from ..errors import JevalError, StoreFull, StoreUnavailable
from ..text import REDACTED, one_line, redact
from . import migrations
from .migrations import cases_t, evaluators_t, profiles_t, runs_t
from .records import CaseRow, RunSummary, StoredReport

if TYPE_CHECKING:
    from ..analysis.labels import Labels
    from ..calibration.profile import Profile

ENV = "JEVAL_DB"
TIMEOUT_ENV = "JEVAL_DB_TIMEOUT"
STATUSES = ("running", "finished", "cancelled", "failed")
BUSY_TIMEOUT_S = 30  # how long a SQLite writer waits for another one before giving up
TIMEOUT_S = 10.0  # a database server's connect timeout, and how long an outage is waited out
STATEMENT_TIMEOUT_S = 60  # PostgreSQL ends a statement that runs longer
# Query parameters of a database URL that carry a credential: never shown.
_CREDENTIAL = ("password", "passwd", "pwd", "sslpassword", "passfile", "token", "secret",
               "key", "auth", "credential", "sslkey")

def _dumps(value: Any) -> str:
    return json.dumps(value, allow_nan=False, ensure_ascii=False)


def id_cell(case_id: str) -> str:
    """A case id as its cell holds it: as typed, unless it holds a NUL (PostgreSQL's text
    cannot) or begins with a quote; then JSON-encoded (NUL as \\u0000), so every database
    stores it and `id_of` reads back the id as typed (migration 6 encoded the older cells
    that begin with a quote)."""
    if "\x00" in case_id or case_id.startswith('"'):
        return json.dumps(case_id, ensure_ascii=False)
    return case_id


def id_of(cell: str) -> str:
    """The case id a cell holds (`id_cell`'s inverse)."""
    if cell.startswith('"'):
        try:
            value = json.loads(cell)
        except ValueError:
            return cell
        if isinstance(value, str):
            return value
    return cell


def _summary_of(r: Mapping[str, Any]) -> RunSummary:
    """One run's row as a summary. A cell that does not read (a hand edit, a disk fault) makes
    that run "damaged", saying which cell, with that cell None and its settings left empty:
    the rest of the history stays readable."""
    passed, verdicts = int(r["passed"] or 0), int(r["verdicts"] or 0)
    common: dict[str, Any] = dict(
        id=r["id"], name=r["name"], dataset=r["dataset"], dataset_hash=r["dataset_hash"],
        judge=r["judge"], model=r["model"], started_at=None, finished_at=None,
        cases=r["cases"], done=int(r["done"] or 0), passed=passed,
        pass_rate=passed / verdicts if verdicts else None, input_tokens=None, cost_usd=None,
        seeded=bool(r["seeded"]), base_url=r["base_url"], calibration=r["calibration"])
    cell = "started_at"
    try:
        common[cell] = _when(r[cell])
        cell = "finished_at"
        common[cell] = None if r[cell] is None else _when(r[cell])
        cell = "input_tokens"
        common[cell] = int(_number(r[cell]))
        cell = "cost_usd"
        common[cell] = _number(r[cell])
        cell = "evaluators"
        evaluators = _cell(r[cell], list)
        cell = "thresholds"
        thresholds = _cell(r[cell], dict)
        cell = "aggregates"
        aggregates = _summary(_cell(r[cell], dict))
        cell = "definitions"
        definitions = _cell(r[cell], list) if r[cell] else []
        cell = "judge_settings"
        settings = _cell(r[cell], dict) if r[cell] else {}
    except (ValueError, TypeError, KeyError, AttributeError, RecursionError, OverflowError):
        return RunSummary(**common, evaluators=[], thresholds={}, status=DAMAGED,
                          aggregates=None, damaged=f"its {cell} cell does not read",
                          unreadable=cell)
    return RunSummary(**common, evaluators=evaluators, thresholds=thresholds,
                      status=r["status"], aggregates=aggregates, definitions=definitions,
                      judge_settings=settings)


DAMAGED = "damaged"  # a run whose stored row does not read (RunSummary.damaged says why)


def _cell(text: Any, kind: type) -> Any:
    """A JSON cell of the kind it must hold, or a ValueError."""
    value = json.loads(text)
    if not isinstance(value, kind):
        raise ValueError(f"not a {kind.__name__}")
    return value


def _summary(data: dict[str, Any]) -> Summary | None:
    """A run's stored aggregates ("{}" until it has ended)."""
    return Summary.from_dict(data) if data else None


def _when(value: Any) -> datetime:
    """A time cell as aware UTC: a server gives a datetime, SQLite the text SQLAlchemy wrote
    (read here, not by SQLAlchemy, so that one bad cell damages one run, not the listing)."""
    if isinstance(value, str):
        value = datetime.fromisoformat(value)
    if not isinstance(value, datetime):
        raise TypeError(f"not a time: {type(value).__name__}")
    return _utc(value)


def _number(value: Any) -> float:
    """A finite number cell, or a ValueError (SQLite keeps whatever text was put there)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"not a number: {type(value).__name__}")
    if not math.isfinite(value):
        raise ValueError("not finite")
    return float(value)


def _utc(value: datetime) -> datetime:
    """Aware UTC whatever the database gave back (SQLite keeps no zone; we stored UTC)."""
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def _now() -> datetime:
    return datetime.now(UTC)


def default_url() -> str:
    """`JEVAL_DB` if set, else a SQLite file in the user's data directory (created here)."""
    env = os.environ.get(ENV, "").strip()
    if env:
        return env
    import platformdirs

    folder = Path(platformdirs.user_data_dir("jeval", appauthor=False))
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise JevalError(
            f"cannot create the run store's folder {one_line(folder, 200)} "
            f"({err.strerror or type(err).__name__}): point XDG_DATA_HOME at a writable "
            f"folder, or set {ENV} to a database file or URL") from None
    return URL.create("sqlite", database=str(folder / "jeval.db")).render_as_string()


def _looks_like_a_path(raw: str) -> bool:
    """`JEVAL_DB=~/runs.db`, `./jeval.db`, `/data/jeval.sqlite`: a SQLite file, as typed."""
    return "://" not in raw and (
        "/" in raw or os.sep in raw or raw.startswith("~")
        or Path(raw).suffix.lower() in (".db", ".sqlite", ".sqlite3"))


def _parse(raw: str) -> URL:
    if _looks_like_a_path(raw):
        path = Path(raw).expanduser()
        return URL.create("sqlite", database=str(path if path.is_absolute()
                                                 else Path.cwd() / path))
    try:
        url = make_url(raw)
    except (ArgumentError, ValueError):
        # Not echoed: an unparsable URL may hold a password we cannot find to redact.
        raise JevalError(
            f"{ENV} is not a database URL or a file path: use e.g. ~/jeval.db, "
            "sqlite:////path/jeval.db or postgresql+psycopg://user:password@host/dbname"
            ) from None
    if url.drivername == "postgresql":  # SQLAlchemy's default driver is psycopg2; we ship psycopg 3
        from importlib.util import find_spec

        if find_spec("psycopg2") is None and find_spec("psycopg") is not None:
            url = url.set(drivername="postgresql+psycopg")
    return url


def secrets_of(url: URL) -> list[str]:
    """Every credential the URL carries: the password, and query parameters such as
    `password=`, `sslpassword=` or a token."""
    found = [str(url.password)] if url.password else []
    for name, value in url.query.items():
        if any(word in name.lower() for word in _CREDENTIAL):
            values = value if isinstance(value, tuple) else (value,)
            found += [str(v) for v in values if str(v)]
    return found


def shown_url(url: URL) -> str:
    """The URL as it may be shown to anyone: every credential replaced."""
    hidden = {name: REDACTED for name in url.query
              if any(word in name.lower() for word in _CREDENTIAL)}
    safe = url.update_query_dict(hidden) if hidden else url
    text = safe.render_as_string(hide_password=True)
    return redact(text, secrets_of(url))


def timeout_s() -> float:
    """`JEVAL_DB_TIMEOUT` seconds (default 10): a server's connect timeout, and how long a
    store outage is waited out before the run stops (resumable)."""
    raw = os.environ.get(TIMEOUT_ENV, "").strip()
    try:
        value = float(raw) if raw else TIMEOUT_S
    except ValueError:
        value = -1.0
    if not 0 < value <= 3600:
        raise JevalError(f"{TIMEOUT_ENV} must be a number of seconds between 0 and 3600, not "
                         f"{one_line(raw, 20)!r}")
    return value


def _server_connect_args(url: URL, timeout: float) -> dict[str, Any]:
    """Connect and statement timeouts for a database server, so one that accepts and never
    answers cannot hang jeval."""
    if url.get_backend_name() != "postgresql":
        return {}
    wait = max(1, round(timeout))
    if url.get_driver_name() in ("psycopg", "psycopg2", "psycopg2cffi", ""):
        return {"connect_timeout": wait, "options": f"-c statement_timeout="
                f"{STATEMENT_TIMEOUT_S * 1000}", "keepalives": 1, "keepalives_idle": 10,
                "keepalives_interval": 5, "keepalives_count": 3}
    return {"timeout": wait} if url.get_driver_name() == "pg8000" else {}


def _sqlite_engine(url: URL) -> Engine:
    engine = sa.create_engine(url, connect_args={"timeout": BUSY_TIMEOUT_S})

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn: Any, _record: Any) -> None:
        dbapi_conn.isolation_level = None  # we issue BEGIN ourselves (below)
        cur = dbapi_conn.cursor()
        cur.execute("PRAGMA journal_mode=WAL")
        cur.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_S * 1000}")
        cur.execute("PRAGMA foreign_keys=ON")
        cur.execute("PRAGMA synchronous=NORMAL")  # durable across crashes of the app in WAL
        cur.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Connection) -> None:
        # A writer takes the lock before it reads, so it waits (busy timeout) instead of
        # failing when another process committed in between.
        write = conn.get_execution_options().get("jeval_write", False)
        conn.exec_driver_sql("BEGIN IMMEDIATE" if write else "BEGIN")

    return engine


def _gone(exc: SQLAlchemyError) -> bool:
    """The database could not be reached (an outage worth waiting out), rather than refusing
    what was asked."""
    if isinstance(exc, DBAPIError) and exc.connection_invalidated:
        return True
    return isinstance(exc, (OperationalError, InterfaceError))


def _full(exc: BaseException) -> bool:
    """No room left where the store writes: SQLite's SQLITE_FULL, PostgreSQL's disk full
    (53100), or the operating system's ENOSPC / EDQUOT."""
    import errno

    found = getattr(exc, "orig", None) or exc
    if isinstance(found, OSError) and found.errno in (errno.ENOSPC, errno.EDQUOT):
        return True
    code = getattr(found, "sqlite_errorcode", None) or getattr(found, "pgcode", None) or (
        getattr(getattr(found, "diag", None), "sqlstate", None))
    return code in (13, "53100") or "disk is full" in str(found)


class Store:
    """The run history behind one database URL. Use `open_store`; close it (or use `with`)."""

    def __init__(self, engine: Engine, shown: str, secrets: list[str] | None = None,
                 outage_s: float = TIMEOUT_S) -> None:
        self._engine = engine
        self.url = shown  # credentials hidden: safe to show
        self._secrets = list(secrets or [])
        self.outage_s = outage_s  # how long an unreachable server is waited out

    # -- plumbing -------------------------------------------------------------------------

    def _fail(self, exc: BaseException, doing: str) -> JevalError:
        reason = redact(one_line(getattr(exc, "orig", None) or exc, 300), self._secrets)
        sqlite = self._engine.dialect.name == "sqlite"
        fix = ("its folder exists and is writable" if sqlite
               else "the server is up, the database exists, the user may write")
        message = (f"the run store at {self.url} could not {doing}: {reason}; "
                   f"check {ENV} ({fix})")
        if _full(exc):
            return StoreFull(f"the run store at {self.url} could not {doing}: {reason}; free "
                             "some space on its disk")
        if isinstance(exc, SQLAlchemyError) and _gone(exc) and not sqlite:
            return StoreUnavailable(message)
        return JevalError(message)

    def _transact(self, work: Callable[[Connection], Any], doing: str,
                  write: bool = True) -> Any:
        """`work(conn)` in one transaction; a server that went away is waited for (bounded
        retries within `outage_s`) before the store says it could not answer."""
        deadline = time.monotonic() + self.outage_s
        delay = 0.2
        while True:
            try:
                with self._engine.connect() as conn:
                    if write:
                        conn.execution_options(jeval_write=True)
                    with conn.begin():
                        return work(conn)
            except SQLAlchemyError as exc:
                retry = (_gone(exc) and self._engine.dialect.name != "sqlite"
                         and time.monotonic() + delay < deadline)
                if not retry:
                    raise self._fail(exc, doing) from exc
                self._engine.dispose()  # every pooled connection went with the server
                time.sleep(delay)
                delay = min(delay * 2, 2.0)

    def migrate(self) -> int:
        """Bring the schema up to the newest version; a no-op when it is there. Returns it."""
        return int(self._transact(self._migrate, "be opened"))

    def _migrate(self, conn: Connection) -> int:
        found = migrations.version_found(conn, self._engine.dialect.name)
        newest = len(migrations.MIGRATIONS)
        if (found or 0) > newest:
            raise JevalError(
                f"the run store at {self.url} has schema version {found}, newer than this "
                f"jeval knows ({newest}): upgrade jeval or point {ENV} elsewhere")
        return migrations.upgrade(conn, found)

    def close(self) -> None:
        self._engine.dispose()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    @staticmethod
    def _unknown(run_id: str) -> JevalError:
        return JevalError(f"no stored run has the id {run_id!r}: list the runs to find its id")

    # -- writing --------------------------------------------------------------------------

    def start_run(self, *, name: str, dataset: str, dataset_hash: str, judge: str,
                  model: str | None, evaluators: list[str], thresholds: dict[str, float],
                  cases: int, seeded: bool = False, base_url: str | None = None,
                  calibration: str | None = None,
                  definitions: list[dict[str, Any]] | None = None,
                  judge_settings: Mapping[str, Any] | None = None) -> str:
        """Record a run before its first case, so an interrupted one can be resumed."""
        run_id = uuid.uuid4().hex
        values = dict(
            id=run_id, name=name, dataset=dataset, dataset_hash=dataset_hash, judge=judge,
            model=model, evaluators=_dumps(list(evaluators)),
            thresholds=_dumps(dict(thresholds)), started_at=_now(), finished_at=None,
            status="running", cases=cases, aggregates="{}", input_tokens=0, cost_usd=0.0,
            seeded=seeded, base_url=base_url, calibration=calibration,
            definitions=_dumps(definitions) if definitions else None,
            judge_settings=_dumps(dict(judge_settings)) if judge_settings else None)

        def insert(conn: Connection) -> None:
            # A retry after an outage may find the row already committed.
            if conn.execute(sa.select(runs_t.c.id).where(runs_t.c.id == run_id)).first():
                return
            conn.execute(runs_t.insert().values(**values))

        self._transact(insert, "save")
        return run_id

    def import_run(self, run: Mapping[str, Any], cases: Sequence[Mapping[str, Any]]) -> str:
        """Store a whole ended run at once, as it was recorded elsewhere (the example runs'
        fixture): one transaction, its own times kept; the id of the new run."""
        run_id = uuid.uuid4().hex
        values = dict(
            id=run_id, name=str(run["name"]), dataset=str(run["dataset"]),
            dataset_hash=str(run["dataset_hash"]), judge=str(run["judge"]),
            model=run.get("model"), evaluators=_dumps(list(run["evaluators"])),
            thresholds=_dumps(dict(run["thresholds"])),
            started_at=_utc(datetime.fromisoformat(run["started_at"])),
            finished_at=_utc(datetime.fromisoformat(run["finished_at"])),
            status=str(run["status"]), cases=int(run["cases"]),
            aggregates=_dumps(run["aggregates"]), input_tokens=int(run["input_tokens"]),
            cost_usd=float(run["cost_usd"]), seeded=bool(run.get("seeded", False)),
            base_url=run.get("base_url"), calibration=run.get("calibration"),
            definitions=_dumps(run["definitions"]) if run.get("definitions") else None,
            judge_settings=_dumps(run["judge_settings"]) if run.get("judge_settings") else None)
        rows = [{"run_id": run_id, "idx": int(c["index"]), "case_id": id_cell(str(c["case_id"])),
                 "case_json": _dumps(c["case"]),
                 "report": None if c.get("report") is None else _dumps(c["report"]),
                 "error": c.get("error"), "passed": c.get("passed"),
                 "scores": _dumps(dict(c.get("scores") or {})),
                 "input_tokens": int(c.get("input_tokens", 0)),
                 "cost_usd": float(c.get("cost_usd", 0.0))} for c in cases]

        def insert(conn: Connection) -> None:
            if conn.execute(sa.select(runs_t.c.id).where(runs_t.c.id == run_id)).first():
                return  # a retry after an outage found it committed
            conn.execute(runs_t.insert().values(**values))
            if rows:
                conn.execute(cases_t.insert(), rows)

        self._transact(insert, "save")
        return run_id

    def add_case(self, run_id: str, index: int, *, case_id: str, case: dict[str, Any],
                 report: dict[str, Any] | None, error: str | None, passed: bool | None,
                 scores: Mapping[str, float | None], input_tokens: int,
                 cost_usd: float) -> None:
        """Store one case's outcome; adding the same index again replaces it (resume)."""
        row = {"case_id": id_cell(case_id), "case_json": _dumps(case),
               "report": None if report is None else _dumps(report), "error": error,
               "passed": passed, "scores": _dumps(dict(scores)),
               "input_tokens": input_tokens, "cost_usd": cost_usd}
        key = (cases_t.c.run_id == run_id) & (cases_t.c.idx == index)

        def upsert(conn: Connection) -> None:
            self._require(conn, run_id, lock=True)
            # Update-then-insert works on every database; the run's row lock (PostgreSQL) or
            # the write lock (SQLite) keeps two writers of the same index from racing.
            if not conn.execute(cases_t.update().where(key).values(**row)).rowcount:
                conn.execute(cases_t.insert().values(run_id=run_id, idx=index, **row))

        self._transact(upsert, "save")

    def _require(self, conn: Connection, run_id: str, lock: bool = False) -> None:
        query = sa.select(runs_t.c.id).where(runs_t.c.id == run_id)
        if lock and self._engine.dialect.name != "sqlite":
            query = query.with_for_update()
        if conn.execute(query).first() is None:
            raise self._unknown(run_id)

    def _update_run(self, run_id: str, **values: Any) -> None:
        def update(conn: Connection) -> None:
            if not conn.execute(runs_t.update().where(runs_t.c.id == run_id)
                                .values(**values)).rowcount:
                raise self._unknown(run_id)

        self._transact(update, "save")

    def reopen(self, run_id: str) -> None:
        """Mark a stopped run as running again (resume), clearing its end time."""
        self._update_run(run_id, status="running", finished_at=None)

    def finish_run(self, run_id: str, *, status: str, aggregates: Summary,
                   input_tokens: int, cost_usd: float) -> None:
        """Record how a run ended, its dataset metrics, usage and cost."""
        if status not in STATUSES[1:]:
            raise ValueError(f"status must be one of {STATUSES[1:]}, not {status!r}")
        self._update_run(run_id, status=status, finished_at=_now(),
                         aggregates=_dumps(aggregates.to_dict()), input_tokens=input_tokens,
                         cost_usd=cost_usd)

    def delete_run(self, run_id: str) -> None:
        """Remove a run and its cases."""
        def delete(conn: Connection) -> None:
            conn.execute(cases_t.delete().where(cases_t.c.run_id == run_id))
            if not conn.execute(runs_t.delete().where(runs_t.c.id == run_id)).rowcount:
                raise self._unknown(run_id)

        self._transact(delete, "save")

    # -- reading --------------------------------------------------------------------------

    def _read(self, work: Callable[[Connection], Any]) -> Any:
        return self._transact(work, "be read", write=False)

    def _summaries(self, where: Any | None) -> list[RunSummary]:
        c = cases_t.c
        counts = (sa.select(c.run_id, sa.func.count().label("done"),
                            # a verdict, or a report without one: an incomplete case is
                            # not a pass, so it counts against the pass rate
                            sa.func.sum(sa.case((c.passed.is_not(None) | c.report.is_not(None),
                                                 1), else_=0)).label("verdicts"),
                            sa.func.sum(sa.case((c.passed.is_(True), 1), else_=0)).label("passed"))
                  .group_by(c.run_id).subquery())
        # The time cells are read as stored (`_when` reads them): on SQLite, a cell that is not
        # a time would otherwise stop the whole listing when SQLAlchemy parses it.
        cells = [sa.type_coerce(c, sa.Text).label(c.name) if isinstance(c.type, sa.DateTime)
                 else c for c in runs_t.c]
        query = (sa.select(*cells, counts.c.done, counts.c.verdicts, counts.c.passed)
                 .outerjoin(counts, counts.c.run_id == runs_t.c.id)
                 .order_by(runs_t.c.started_at.desc(), runs_t.c.id.desc()))
        if where is not None:
            query = query.where(where)
        rows = self._read(lambda conn: conn.execute(query).mappings().all())
        return [_summary_of(r) for r in rows]

    def runs(self, dataset: str | None = None) -> list[RunSummary]:
        """Every stored run (or those of one dataset), newest first."""
        return self._summaries(None if dataset is None else runs_t.c.dataset == dataset)

    def run(self, run_id: str) -> RunSummary:
        found = self._summaries(runs_t.c.id == run_id)
        if not found:
            raise self._unknown(run_id)
        return found[0]

    def cases(self, run_id: str) -> list[CaseRow]:
        """A run's stored cases in dataset order."""
        def read(conn: Connection) -> Any:
            self._require(conn, run_id)
            return conn.execute(sa.select(cases_t).where(cases_t.c.run_id == run_id)
                                .order_by(cases_t.c.idx)).mappings().all()

        return [CaseRow(index=r["idx"], case_id=id_of(r["case_id"]),
                        data=json.loads(r["case_json"]),
                        report=None if r["report"] is None else StoredReport.from_dict(
                            json.loads(r["report"])),
                        error=r["error"], passed=r["passed"], scores=json.loads(r["scores"]),
                        input_tokens=int(r["input_tokens"]), cost_usd=float(r["cost_usd"]))
                for r in self._read(read)]

    def is_empty(self) -> bool:
        """No run stored yet: the cue to seed example runs."""
        return bool(self._read(
            lambda conn: conn.execute(sa.select(runs_t.c.id).limit(1)).first() is None))

    def relabel(self, run_id: str, index: int, labels: Labels) -> None:
        """Keep a person's labels on one stored case (in its row, as a dataset file holds
        them): the run's agreement figures and a profile fitted on it read them."""
        key = (cases_t.c.run_id == run_id) & (cases_t.c.idx == index)

        def update(conn: Connection) -> None:
            self._require(conn, run_id, lock=True)
            found = conn.execute(sa.select(cases_t.c.case_json).where(key)).scalar()
            if found is None:
                raise JevalError(f"run {run_id[:8]} has no case {index + 1}")
            data = labels.to_extra(json.loads(found))
            conn.execute(cases_t.update().where(key).values(case_json=_dumps(data)))

        self._transact(update, "save")

    # -- calibration profiles ---------------------------------------------------------------

    def save_profile(self, profile: Profile) -> None:
        """Keep a profile under its name; a profile of the same name is replaced."""
        row = {"judge": profile.judge, "created": profile.created, "body": profile.to_json()}
        key = profiles_t.c.name == profile.name

        def upsert(conn: Connection) -> None:
            if not conn.execute(profiles_t.update().where(key).values(**row)).rowcount:
                conn.execute(profiles_t.insert().values(name=profile.name, **row))

        self._transact(upsert, "save")

    def profiles(self) -> list[Profile]:
        """Every stored profile that reads as one, newest first (a damaged one judges
        nothing: `damaged_profiles()` lists those)."""
        return [p for _, p in self._profile_rows() if not isinstance(p, str)]

    def damaged_profiles(self) -> list[tuple[str, str]]:
        """The stored profiles that do not read (a hand edit, an older jeval's bug), as
        (name, what is wrong): listed so they can be deleted, never used."""
        return [(name, p) for name, p in self._profile_rows() if isinstance(p, str)]

    def _profile_rows(self) -> list[tuple[str, Profile | str]]:
        """Each stored profile, newest first, by its row's name: read, or why it does not."""
        from ..calibration.profile import Profile, ProfileError

        rows = self._read(lambda conn: conn.execute(
            sa.select(profiles_t.c.name, profiles_t.c.body).order_by(
                profiles_t.c.created.desc(), profiles_t.c.name)).all())
        found: list[tuple[str, Profile | str]] = []
        for name, body in rows:
            try:
                found.append((name, Profile.from_json(body)))
            except ProfileError as err:
                found.append((name, str(err)))
        return found

    def profile(self, name: str) -> Profile:
        """The stored profile of this name; a clear error naming the ones there are."""
        from ..calibration.profile import Profile, ProfileError

        body = self._read(lambda conn: conn.execute(
            sa.select(profiles_t.c.body).where(profiles_t.c.name == name)).scalar())
        if body is None:
            have = ", ".join(p.name for p in self.profiles()) or "none yet"
            raise ProfileError(f"no calibration profile is named {name!r} (stored: {have}); "
                               "fit one with `jeval calibrate DATA --name NAME`")
        try:
            return Profile.from_json(body)
        except ProfileError as err:
            raise ProfileError(f"the stored profile {one_line(name, 80)!r}: {err}, or delete it "
                               "with `jeval profiles --delete NAME`") from None

    def delete_profile(self, name: str) -> bool:
        """Forget the profile of this name (a damaged one too); False when there was none."""
        gone = self._transact(lambda conn: conn.execute(
            profiles_t.delete().where(profiles_t.c.name == name)).rowcount, "delete")
        return bool(gone)


    # -- custom evaluators -----------------------------------------------------------------

    def save_evaluator(self, definition: dict[str, Any]) -> None:
        """Keep a custom evaluator's definition under its name (one of the name is replaced)."""
        name = str(definition["name"])
        row = {"saved": _now(), "body": _dumps(definition)}
        key = evaluators_t.c.name == name

        def upsert(conn: Connection) -> None:
            if not conn.execute(evaluators_t.update().where(key).values(**row)).rowcount:
                conn.execute(evaluators_t.insert().values(name=name, **row))

        self._transact(upsert, "save")

    def evaluators(self) -> list[dict[str, Any]]:
        """Every kept custom evaluator's definition, by name."""
        rows = self._read(lambda conn: conn.execute(
            sa.select(evaluators_t.c.body).order_by(evaluators_t.c.name)).scalars().all())
        return [json.loads(body) for body in rows]

    def delete_evaluator(self, name: str) -> None:
        self._transact(lambda conn: conn.execute(
            evaluators_t.delete().where(evaluators_t.c.name == name)), "delete")


def open_store(url: str | None = None) -> Store:
    """The run store at `url`, else `JEVAL_DB`, else the SQLite file in the user data dir.

    The schema is created or migrated on open, so every Store is ready to use.
    """
    parsed = _parse(url if url is not None else default_url())
    shown = shown_url(parsed)
    secrets = secrets_of(parsed)
    timeout = timeout_s()
    try:
        if parsed.get_backend_name() == "sqlite":
            engine = _sqlite_engine(parsed)
        else:
            engine = sa.create_engine(parsed, pool_pre_ping=True,
                                      connect_args=_server_connect_args(parsed, timeout))
    except (NoSuchModuleError, ImportError) as exc:
        raise JevalError(
            f"{ENV} names a database whose driver is not installed ({shown}): install it "
            "(PostgreSQL: pip install 'psycopg[binary]', URL postgresql+psycopg://...)") from exc
    except (ArgumentError, SQLAlchemyError, ValueError) as exc:
        raise JevalError(f"{ENV} is not a usable database URL ({shown}): "
                         f"{redact(one_line(exc, 200), secrets)}") from exc
    store = Store(engine, shown, secrets, outage_s=timeout)
    try:
        store.migrate()
    except BaseException:
        store.close()
        raise
    return store

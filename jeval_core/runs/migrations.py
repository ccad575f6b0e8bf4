"""The run store's schema and its migrations, append only: entry i of `MIGRATIONS` brings a
database from schema version i to i + 1, and the module's tables are the schema they make
(store.py reads and writes through them). `version_found` and `upgrade` are what opening a
store runs, in one transaction.
"""

from __future__ import annotations

import json
from collections.abc import Callable

import sqlalchemy as sa
from sqlalchemy.engine import Connection

schema_version = sa.Table("jeval_schema", sa.MetaData(),
                          sa.Column("version", sa.Integer, nullable=False))


def _schema_1(md: sa.MetaData) -> tuple[sa.Table, sa.Table]:
    """The tables as migration 1 made them. Frozen: later changes go into new migrations
    (and onto the module's tables below), so an old database and a new one end up alike."""
    runs = sa.Table(
        "jeval_runs", md,
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("name", sa.Text, nullable=False),
        sa.Column("dataset", sa.Text, nullable=False),
        sa.Column("dataset_hash", sa.String(128), nullable=False),
        sa.Column("judge", sa.String(64), nullable=False),
        sa.Column("model", sa.Text),
        sa.Column("evaluators", sa.Text, nullable=False),  # JSON list
        sa.Column("thresholds", sa.Text, nullable=False),  # JSON object
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True)),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("cases", sa.Integer, nullable=False),
        sa.Column("aggregates", sa.Text, nullable=False),  # JSON object
        sa.Column("input_tokens", sa.BigInteger, nullable=False),
        sa.Column("cost_usd", sa.Float, nullable=False),
        sa.Column("seeded", sa.Boolean, nullable=False),
        sa.Index("jeval_runs_dataset", "dataset", "started_at"),
    )
    cases = sa.Table(
        "jeval_cases", md,
        sa.Column("run_id", sa.String(32), sa.ForeignKey("jeval_runs.id", ondelete="CASCADE"),
                  primary_key=True),
        sa.Column("idx", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("case_id", sa.Text, nullable=False),
        sa.Column("case_json", sa.Text, nullable=False),
        sa.Column("report", sa.Text),  # JSON object, None when the case could not be scored
        sa.Column("error", sa.Text),
        sa.Column("passed", sa.Boolean),
        sa.Column("scores", sa.Text, nullable=False),  # JSON {evaluator: score or null}
        sa.Column("input_tokens", sa.BigInteger, nullable=False),
        sa.Column("cost_usd", sa.Float, nullable=False),
    )
    return runs, cases


runs_t, cases_t = _schema_1(sa.MetaData())  # the current schema
runs_t.append_column(sa.Column("base_url", sa.Text))  # migration 2: the hosted judge's server
runs_t.append_column(sa.Column("calibration", sa.Text))  # migration 3: "name · fingerprint"
runs_t.append_column(sa.Column("definitions", sa.Text))  # migration 4: custom evaluators used
runs_t.append_column(sa.Column("judge_settings", sa.Text))  # migration 5: how a server judge asks


def _profiles_table(md: sa.MetaData) -> sa.Table:
    """Calibration profiles as migration 3 made them: one row per name, the profile's JSON."""
    return sa.Table(
        "jeval_profiles", md,
        sa.Column("name", sa.String(200), primary_key=True),
        sa.Column("judge", sa.String(64), nullable=False),
        sa.Column("created", sa.Text, nullable=False),
        sa.Column("body", sa.Text, nullable=False),  # Profile.to_json()
    )


profiles_t = _profiles_table(runs_t.metadata)


def _evaluators_table(md: sa.MetaData) -> sa.Table:
    """Custom evaluators as migration 4 made them: one row per name, the definition's JSON."""
    return sa.Table(
        "jeval_evaluators", md,
        sa.Column("name", sa.String(64), primary_key=True),
        sa.Column("saved", sa.DateTime(timezone=True), nullable=False),
        sa.Column("body", sa.Text, nullable=False),  # Definition.to_dict() as JSON
    )


evaluators_t = _evaluators_table(runs_t.metadata)


def _migration_1(conn: Connection) -> None:
    """The first schema: runs and their cases."""
    md = sa.MetaData()
    _schema_1(md)
    md.create_all(conn)


def _migration_2(conn: Connection) -> None:
    """The hosted judge's base URL, so a resumed run asks the server its first part asked."""
    conn.execute(sa.text("ALTER TABLE jeval_runs ADD COLUMN base_url TEXT"))


def _migration_3(conn: Connection) -> None:
    """Calibration profiles, and which one judged a run."""
    md = sa.MetaData()
    _profiles_table(md)
    md.create_all(conn)
    conn.execute(sa.text("ALTER TABLE jeval_runs ADD COLUMN calibration TEXT"))


def _migration_4(conn: Connection) -> None:
    """Custom evaluators kept by name, and the definitions a run used (so it reads back and
    resumes with the very questions it asked)."""
    md = sa.MetaData()
    _evaluators_table(md)
    md.create_all(conn)
    conn.execute(sa.text("ALTER TABLE jeval_runs ADD COLUMN definitions TEXT"))


def _migration_5(conn: Connection) -> None:
    """How a server judge asked beyond its model and server (the openai judge's endpoint,
    questions in flight, price), so a resumed run asks the same way."""
    conn.execute(sa.text("ALTER TABLE jeval_runs ADD COLUMN judge_settings TEXT"))


def _migration_6(conn: Connection) -> None:
    """Case ids are kept so that every database stores them (a NUL, which PostgreSQL's text
    cannot hold, is JSON-escaped: `store.id_cell`); an id cell that begins with a quote is
    JSON-encoded too, so the older ones read back as they were typed."""
    cases = sa.table("jeval_cases", sa.column("run_id"), sa.column("idx"),
                     sa.column("case_id"))
    found = conn.execute(sa.select(cases.c.run_id, cases.c.idx, cases.c.case_id)
                         .where(cases.c.case_id.startswith('"', autoescape=True))).all()
    for run_id, idx, case_id in found:
        conn.execute(cases.update().where((cases.c.run_id == run_id) & (cases.c.idx == idx))
                     .values(case_id=json.dumps(case_id, ensure_ascii=False)))


# Append only: entry i brings a database from version i to version i + 1.
MIGRATIONS: list[Callable[[Connection], None]] = [_migration_1, _migration_2, _migration_3,
                                                  _migration_4, _migration_5, _migration_6]


def version_found(conn: Connection, dialect: str) -> int | None:
    """The schema version the database records (None: a new database); on PostgreSQL, two
    first opens at once take turns."""
    if dialect == "postgresql":  # two first opens at once: one waits
        conn.execute(sa.text("SELECT pg_advisory_xact_lock(74201)"))
    schema_version.create(conn, checkfirst=True)
    found: int | None = conn.execute(sa.select(schema_version.c.version)).scalar()
    return found


def upgrade(conn: Connection, found: int | None) -> int:
    """Run the migrations after version `found` and record the newest; returns it."""
    version = found or 0
    for step in MIGRATIONS[version:]:
        step(conn)
    if found is None:
        conn.execute(schema_version.insert().values(version=len(MIGRATIONS)))
    elif version < len(MIGRATIONS):
        conn.execute(schema_version.update().values(version=len(MIGRATIONS)))
    return len(MIGRATIONS)

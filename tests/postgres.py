"""A real, throwaway PostgreSQL server for the store's tests, from Debian's own binaries.

`postgres_url` (session scope) initdb's a temp dir, starts the server on 127.0.0.1 on a free
port with its unix socket in that dir, creates a database and yields its URL; teardown stops
it with pg_ctl and removes the dir. initdb refuses to run as root, so as root the server runs
as the `postgres` user (or `nobody`). Without PostgreSQL the tests that use it are skipped,
with a reason that says how to get it.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from jev_servers import free_port

SKIP_REASON = "PostgreSQL not installed: apt-get install postgresql"
USER = "jeval"


def bin_dir() -> Path | None:
    """The newest Debian PostgreSQL bin dir that has initdb and pg_ctl, if any."""
    found = [Path(p).parent for p in glob.glob("/usr/lib/postgresql/*/bin/initdb")]
    found = [d for d in found if (d / "pg_ctl").exists()]

    def major(d: Path) -> int:
        name = d.parent.name
        return int(name) if name.isdigit() else 0

    return max(found, key=major) if found else None


def _run_as() -> tuple[list[str], str | None]:
    """The command prefix that drops root, and the user it drops to (None: not root)."""
    if os.geteuid() != 0:
        return [], None
    for user in ("postgres", "nobody"):
        try:
            pwd.getpwnam(user)
        except KeyError:
            continue
        return ["runuser", "-u", user, "--"], user
    pytest.skip("running as root and no postgres or nobody user to run PostgreSQL as")


def new_database(server_url: str) -> str:
    """A fresh, empty database on the same server: a test that needs one to itself."""
    import sqlalchemy as sa

    name = "t_" + uuid.uuid4().hex[:12]
    engine = sa.create_engine(server_url, isolation_level="AUTOCOMMIT")
    try:
        with engine.connect() as conn:
            conn.exec_driver_sql(f'CREATE DATABASE "{name}"')
    finally:
        engine.dispose()
    return sa.make_url(server_url).set(database=name).render_as_string(hide_password=False)


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """postgresql+psycopg://jeval@127.0.0.1:PORT/jeval_test on a private server."""
    bindir = bin_dir()
    if bindir is None:
        pytest.skip(SKIP_REASON)
    prefix, user = _run_as()
    base = Path(tempfile.mkdtemp(prefix="jeval-pg-"))
    data, sock, log = base / "data", base / "sock", base / "server.log"
    sock.mkdir()
    if user is not None:
        entry = pwd.getpwnam(user)
        for path in (base, sock):
            os.chown(path, entry.pw_uid, entry.pw_gid)
    port = free_port()

    def run(*args: str) -> None:
        done = subprocess.run([*prefix, *args], capture_output=True, text=True, timeout=120,
                              cwd=base)
        if done.returncode != 0:
            tail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
            raise RuntimeError(f"{args[0]} failed: {done.stdout}{done.stderr}{tail}")

    run(str(bindir / "initdb"), "-D", str(data), "-U", USER, "--auth=trust", "-E", "UTF8",
        "--no-sync", "--no-instructions")
    started = False
    try:
        run(str(bindir / "pg_ctl"), "-D", str(data), "-l", str(log), "-w", "-t", "60",
            "-o", f"-h 127.0.0.1 -p {port} -k {sock} -F", "start")
        started = True
        run(str(bindir / "createdb"), "-h", "127.0.0.1", "-p", str(port), "-U", USER,
            "jeval_test")
        yield f"postgresql+psycopg://{USER}@127.0.0.1:{port}/jeval_test"
    finally:
        if started:
            run(str(bindir / "pg_ctl"), "-D", str(data), "-m", "fast", "-w", "-t", "60", "stop")
        shutil.rmtree(base, ignore_errors=True)

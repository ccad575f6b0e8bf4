"""Inputs people bring: text cleaned on the way in (metadata too), files read with a bound on
the bytes, not on what the file says its size is, percentages that never round a
non-total up to 100%, CSV cells that stay inert however a formula hides, and the fields a
dataset row carries accepted by `jeval score`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import ROOT

from jeval_core import export, judges
from jeval_core.inputs import datasets
from jeval_core.runs.run import run_dataset
from jeval_core.runs.store import open_store

SAMPLE = ROOT / "assets" / "datasets" / "sample.jsonl"
FIRST_ROW = json.loads(SAMPLE.read_text().splitlines()[0])


def jeval(*args: str, db: Path, **kwargs) -> subprocess.CompletedProcess:
    env = {**os.environ, "JEVAL_DB": f"sqlite:///{db}", "TYPESAFE_API_KEY": ""}
    return subprocess.run([sys.executable, "-m", "jeval_core.commands.cli", *args], env=env,
                          cwd=ROOT, capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL, **kwargs)


# --- 8. lone surrogates in metadata -----------------------------------------------------------


@pytest.mark.parametrize(("field", "value"), [
    ("description", "bad LONE text"), ("metadata", {"source": "LONE"}), ("tags", ["ok", "LONE"]),
    ("name", "LONE"),
])
def test_a_lone_surrogate_in_a_rows_metadata_does_not_stop_the_run(tmp_path, field, value):
    row = json.dumps({**FIRST_ROW, "id": "bad", field: value}).replace("LONE", "\\ud800")
    data = tmp_path / "meta.jsonl"
    data.write_text(row + "\n" + json.dumps(FIRST_ROW) + "\n", encoding="utf-8")
    with open_store(f"sqlite:///{tmp_path / 'runs.db'}") as s:
        outcome = run_dataset(datasets.load(data), judges.get("lexical"), s)
        assert outcome.run.status == "finished" and outcome.run.done == 2
        assert all(row.report is not None for row in s.cases(outcome.run.id))


# --- 10. files that never end -----------------------------------------------------------------


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom"])
def test_a_device_that_never_ends_is_read_only_up_to_the_cap(tmp_path, device):
    started = time.monotonic()
    done = jeval("run", device, db=tmp_path / "runs.db")
    assert done.returncode == 2, done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert "larger than" in line and time.monotonic() - started < 30


def test_a_fifo_is_read_only_up_to_the_cap(tmp_path):
    import threading

    fifo = tmp_path / "rows.jsonl"
    os.mkfifo(fifo)
    line = (json.dumps(FIRST_ROW) + "\n").encode()

    def write_forever() -> None:  # a writer that never stops, until the reader hangs up
        try:
            with fifo.open("wb") as f:
                while True:
                    f.write(line * 64)
        except OSError:
            pass

    threading.Thread(target=write_forever, daemon=True).start()
    done = jeval("run", str(fifo), db=tmp_path / "runs.db")
    assert done.returncode == 2, done.stderr
    assert "larger than" in done.stderr and len(done.stderr.strip().splitlines()) == 1


# --- 14. percentages and CSV cells ------------------------------------------------------------


@pytest.mark.parametrize(("share", "shown"), [
    (99_900 / 100_000, "99.9%"), (99_999 / 100_000, "99.999%"), (1.0, "100%"),
    (0.5, "50%"), (1 / 100_000, "0.001%"), (0.0, "0%"), (0.994, "99%"), (0.996, "99.6%"),
])
def test_a_percentage_never_rounds_a_part_to_all_or_nothing(share, shown):
    from jeval_core.text import percent

    assert percent(share) == shown


@pytest.mark.parametrize("cell", [" =1+1", "\u3000=1+1", "\uff1d1+1", "\n=1+1", "\r\n@SUM(A1)",
                                  "\uff0bcmd", "\t-2"])
def test_formulas_behind_spaces_newlines_or_full_width_signs_are_made_inert(cell):
    assert export.cell(cell) == "'" + cell


# --- for people who bring their own files -----------------------------------------------------


def test_csv_list_cells_may_be_python_list_literals_as_pandas_writes_them():
    raw = ("input,output,contexts,context_labels\n"
           "\"When?\",\"In 1990.\","
           "\"['Hubble launched in 1990.', \"\"It's big.\"\"]\",\"[1, 0]\"\n")
    ds = datasets.read(raw.encode(), "ragas.csv")
    assert not ds.errors, ds.errors
    assert ds.rows[0].case.context == ("Hubble launched in 1990.", "It's big.")
    assert ds.rows[0].labels == (True, False)


def test_a_python_literal_cell_is_never_evaluated(tmp_path):
    mark = tmp_path / "pwned"
    raw = f'input,contexts\n"q","[__import__(\'os\').system(\'touch {mark}\')]"\n'
    with pytest.raises(datasets.CaseError, match="JSON"):
        datasets.read(raw.encode(), "evil.csv")
    assert not mark.exists()


def test_jeval_score_accepts_a_dataset_rows_fields(tmp_path):
    case = tmp_path / "row.json"
    case.write_text(json.dumps(FIRST_ROW))
    done = jeval("score", str(case), "--judge", "lexical", db=tmp_path / "runs.db")
    assert done.returncode == 0, done.stderr


def test_jeval_score_still_checks_a_rows_labels(tmp_path):
    case = tmp_path / "row.json"
    case.write_text(json.dumps({**FIRST_ROW, "context_labels": [1]}))
    done = jeval("score", str(case), "--judge", "lexical", db=tmp_path / "runs.db")
    assert done.returncode == 2 and "context_labels" in done.stderr


def test_a_case_with_more_chunks_than_the_cap_is_refused_saying_the_cap():
    from jeval_core import CaseError
    from jeval_core.inputs import casefile

    with pytest.raises(CaseError, match=f"at most {casefile.MAX_CHUNKS}"):
        casefile.parse({"input": "q?", "context": ["x"] * (casefile.MAX_CHUNKS + 1)})
    assert len(casefile.parse({"input": "q?", "context": ["x"] * casefile.MAX_CHUNKS})
               .case.context) == casefile.MAX_CHUNKS

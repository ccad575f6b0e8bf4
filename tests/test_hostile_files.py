"""The hostile suite, part two: files and profiles a user loads cannot stop or fool jeval.

Evaluator files, profiles and what the run store holds come from someone else. Each bad one
is exit 2 with ONE terminal-safe line that names the file (never 70, never a traceback), and
nothing stored changes; what is printed of them is inert.
"""

from __future__ import annotations

import json
import os
import threading
from dataclasses import asdict
from pathlib import Path

import pytest
from test_hostile import ANSI_CLEAR, MULTI_LINE, assert_one_line_failure, run_cli

from jeval_core import evaluators, judges
from jeval_core.calibration.profile import Curve, Figures, Fitted, Profile, ProfileError
from jeval_core.case import Case
from jeval_core.inputs import evaluator_files
from jeval_core.scoring import score

ROOT = Path(__file__).resolve().parent.parent
CASE = ROOT / "assets" / "examples" / "clean_retrieval.json"
SAMPLE = ROOT / "assets" / "datasets" / "sample.jsonl"
LIMIT_FILE = ROOT / "assets" / "evaluators" / "states_a_limit.toml"
CHUNKS = Case(input="How much does Jev cost?", output="$42 per billion input tokens.",
              context=("Jev costs $42 per billion input tokens.", "Jev runs in Europe.",
                       "The free tier allows 100 requests a day."))


def definition(name: str, **fields) -> dict:
    return {"name": name, "about": "chunk", "question": "`context[i]` states a limit.",
            **fields}


# ---- custom evaluators: ids unique by construction --------------------------------------


def test_two_custom_evaluators_whose_names_hash_alike_both_keep_their_questions():
    # sha256("limit_668") and sha256("limit_1108") share their first 5 hex digits, "f976c"
    found = evaluator_files.evaluators(evaluator_files.from_data(
        [definition("limit_668"),
         definition("limit_1108", question="`context[i]` states a price.")]))
    report = score(CHUNKS, evaluators.resolve(["limit_668", "limit_1108"], custom=found),
                   judges.get("lexical"))
    assert set(report.results) == {"limit_668", "limit_1108"}
    assert len(report.packed.asked) == 6
    assert all(len(r.details) == 3 for r in report.results.values())


# ---- files that never end, or end too deep ------------------------------------------------


DEEP_TOML = "[[evaluator]]\nname = 'deep'\nx = " + "[" * 900 + "]" * 900 + "\n"


@pytest.mark.parametrize("command", ["request", "score", "run"])
def test_a_toml_file_nested_900_deep_is_one_line_exit_2(tmp_path, command):
    deep = tmp_path / "deep.toml"
    deep.write_text(DEEP_TOML)
    target = str(SAMPLE if command == "run" else CASE)
    run = run_cli([command, target, "--evaluators-file", str(deep),
                   *(["--judge", "lexical"] if command != "request" else [])])
    line = assert_one_line_failure(run, (2,))
    assert str(deep) in line and "nested too deeply" in line


class Endless:
    """A FIFO with a writer that never stops (until the reader goes away)."""

    def __init__(self, path: Path) -> None:
        os.mkfifo(path)
        self.path = path
        self.thread = threading.Thread(target=self._feed, daemon=True)
        self.thread.start()

    def _feed(self) -> None:
        try:
            with open(self.path, "wb") as f:
                while True:
                    f.write(b"x" * 65536)
        except OSError:
            return


def endless(tmp_path: Path, kind: str) -> str:
    """/dev/zero, a symlink to it, or a FIFO fed forever: each reports size 0 and never ends."""
    if kind == "dev-zero":
        return "/dev/zero"
    if kind == "symlink":
        link = tmp_path / "profile.json"
        link.symlink_to("/dev/zero")
        return str(link)
    return str(Endless(tmp_path / "fifo.json").path)


COMMANDS = {
    "evaluators-file": lambda f: ["score", str(CASE), "--judge", "lexical",
                                  "--evaluators-file", f],
    "calibration": lambda f: ["score", str(CASE), "--calibration", f],
    "profiles-import": lambda f: ["profiles", "--import", f],
}


@pytest.fixture(scope="module")
def bare_rss_mb() -> float:
    """The peak RSS wait4 reports for a jeval that reads nothing: a child's figure starts at
    its parent's size when it forks, and this test process may have grown large."""
    return run_cli(["--help"], timeout=60).max_rss_mb


@pytest.mark.parametrize("kind", ["dev-zero", "symlink", "fifo"])
@pytest.mark.parametrize("command", list(COMMANDS))
def test_a_file_that_never_ends_is_read_up_to_its_cap_only(tmp_path, command, kind,
                                                           bare_rss_mb):
    named = endless(tmp_path, kind)
    run = run_cli(COMMANDS[command](named), timeout=60)
    line = assert_one_line_failure(run, (2,))
    assert named in line and "over 1 MB" in line
    assert run.max_rss_mb < max(bare_rss_mb, 150) + 250  # uncapped, it read 3 GB


# ---- calibration profiles, checked on import and on read -----------------------------------


def good_profile() -> dict:
    figures = Figures(n=100, positives=40, auc=0.9, accuracy=0.85, precision=0.8, recall=0.75,
                      f1=0.77, always_no=0.6, log_loss=0.35, kappa=0.68)
    fitted = Fitted("helps_answer", 100, 40, 20, before=figures, after=figures,
                    curve=Curve("recalibrated", (0.2, 1.1), 0.5), unsure=(0.45, 0.6),
                    note="recalibrated on 100 labels")
    return asdict(Profile(name="helpdesk", judge="local", dataset_sha256="ab" * 32,
                          source="helpdesk.jsonl", created="2026-12-03T10:00:00+00:00", folds=5,
                          relations={"helps_answer": fitted}))


def with_weights(*weights) -> dict:
    data = good_profile()
    data["relations"]["helps_answer"]["curve"]["weights"] = list(weights)
    return data


def edited(**fields) -> dict:
    return {**good_profile(), **fields}


def fitted_with(**fields) -> dict:
    data = good_profile()
    data["relations"]["helps_answer"].update(fields)
    return data


BAD_PROFILES = {
    "nan-weight": json.dumps(with_weights(float("nan"), 1.0)),
    "inf-weight": json.dumps(with_weights(0.2, float("inf"))),
    "1e308-weight": json.dumps(with_weights(0.2, 1e308)),
    "400-digit-integer": json.dumps(fitted_with(labels=10**400)),
    "short-unsure": json.dumps(fitted_with(unsure=[0.4])),
    "relations-as-a-list": json.dumps(edited(relations=[good_profile()["relations"]])),
    "deep-json": '{"judge": "local", "relations": ' + "[" * 100_000 + "]" * 100_000 + "}",
    "lone-surrogate-in-the-name": json.dumps(edited(name="help\ud800desk")),
    "empty-name": json.dumps(edited(name="")),
    "1-mb-name": json.dumps(edited(name="n" * 1_000_000)),
    "another-judges-profile": json.dumps(edited(judge="lexical")),
    "nan-cut": json.dumps(fitted_with(curve={"kind": "recalibrated", "weights": [0.2, 1.1],
                                             "cut": float("nan")})),
    "nan-kappa": json.dumps(fitted_with(after={**good_profile()["relations"]["helps_answer"]
                                               ["after"], "kappa": float("nan")})),
    "escape-in-the-name": json.dumps(edited(name=ANSI_CLEAR)),
}


def test_a_well_formed_profile_imports_and_judges(tmp_path):
    good = tmp_path / "good.json"
    good.write_text(json.dumps(good_profile()))
    assert run_cli(["profiles", "--import", str(good)]).code == 0
    done = run_cli(["score", str(CASE), "--calibration", "helpdesk", "--format", "json"])
    assert done.code == 0, done.err
    assert json.loads(done.out)["calibration"].startswith("helpdesk · ")


@pytest.mark.parametrize("name", list(BAD_PROFILES))
def test_a_bad_profile_is_refused_on_import_and_nothing_is_stored(tmp_path, name):
    bad = tmp_path / f"{name}.json"
    bad.write_text(BAD_PROFILES[name], encoding="utf-8", errors="surrogatepass")
    line = assert_one_line_failure(run_cli(["profiles", "--import", str(bad)]), (2,))
    assert str(bad) in line
    assert "no calibration profiles yet" in run_cli(["profiles"]).out


@pytest.mark.parametrize("name", list(BAD_PROFILES))
def test_a_bad_profile_is_refused_when_read_back(name):
    with pytest.raises(ProfileError):
        Profile.from_json(BAD_PROFILES[name].encode("utf-8", "surrogatepass"))


def stored_body(name: str, body: str) -> None:
    """A profile row as an older jeval (or a hand edit) left it in the run store."""
    from jeval_core.runs.store import open_store, profiles_t

    with open_store() as store:
        store._transact(lambda conn: conn.execute(profiles_t.insert().values(
            name=name, judge="local", created="2026-12-03", body=body)), "seed")


def test_a_damaged_stored_profile_is_one_line_and_can_be_deleted():
    stored_body("broken", BAD_PROFILES["nan-weight"])
    line = assert_one_line_failure(run_cli(["score", str(CASE), "--calibration", "broken"]),
                                   (2,))
    assert "the stored profile 'broken'" in line and "--delete" in line
    assert run_cli(["profiles", "--delete", "broken"]).code == 0


def test_a_damaged_stored_profile_is_listed_as_damaged_not_hidden():
    stored_body("broken \x1b[31m", BAD_PROFILES["nan-weight"])
    listed = run_cli(["profiles"])
    assert listed.code == 0 and "no calibration profiles yet" not in listed.out
    (line,) = listed.out.splitlines()
    assert line.startswith("broken") and "damaged:" in line and "\x1b" not in line
    assert "jeval profiles --delete $'broken \\x1b[31m'`" in line  # as bash reads it back
    assert run_cli(["profiles", "--delete", "broken \x1b[31m"]).code == 0


def test_a_profiles_texts_are_listed_inert(tmp_path):
    sent = tmp_path / "sent.json"
    sent.write_text(json.dumps(edited(source=ANSI_CLEAR + MULTI_LINE, created=MULTI_LINE[:40])))
    assert run_cli(["profiles", "--import", str(sent)]).code == 0
    listed = run_cli(["profiles"])
    assert listed.code == 0
    assert "\x1b" not in listed.out and listed.out.count("\n") == 1
    assert "YOUR DISK IS ERASED" in listed.out


# ---- what is printed of a custom evaluator ------------------------------------------------


def test_a_custom_evaluators_words_print_inert_in_the_text_table(tmp_path):
    toml = LIMIT_FILE.read_text().replace(
        'verdicts = ["states a limit", "no limit"]',
        f'verdicts = [{json.dumps(ANSI_CLEAR)}, {json.dumps(MULTI_LINE)}]').replace(
        "another numeric limit.", "another numeric limit.\\u001b[2J\\nrm -rf")
    hostile = tmp_path / "hostile.toml"
    hostile.write_text(toml)
    done = run_cli(["score", str(CASE), "--judge", "lexical", "--evaluators-file",
                    str(hostile), "--format", "text"])
    assert done.code == 0, done.err
    assert "\x1b" not in done.out and "\r" not in done.out
    rows = [line for line in done.out.splitlines() if "states a price" in line]
    assert rows and all("rm -rf" in row for row in rows)


# ---- a damaged row in the run store -------------------------------------------------------


CORRUPT_CELLS = [("definitions", '[{"name": '), ("started_at", "yesterday-ish"),
                 ("cost_usd", "a lot")]


def two_runs_one_damaged(cell: str = "definitions", value: str = '[{"name": ') -> str:
    """Two lexical runs of the sample; the first one's `cell` set to `value`, text that does
    not read as what the cell holds (a hand edit, a disk fault). The damaged run's id."""
    import sqlalchemy as sa

    from jeval_core.inputs import datasets
    from jeval_core.runs import run as runs
    from jeval_core.runs.store import open_store

    sample = datasets.load(SAMPLE)
    with open_store() as store:
        ids = [runs.run_dataset(sample, judges.get("lexical"), store, name=name,
                                chosen=evaluators.resolve(["chunk_relevance"])).run.id
               for name in ("damaged one", "good one")]
        store._transact(lambda conn: conn.execute(
            sa.text(f"UPDATE jeval_runs SET {cell} = :value WHERE id = :id"),
            {"value": value, "id": ids[0]}), "corrupt")
    return ids[0]


@pytest.mark.parametrize(("cell", "value"), CORRUPT_CELLS)
def test_one_corrupt_cell_is_one_damaged_row_in_jeval_runs_naming_the_cell(cell, value):
    damaged = two_runs_one_damaged(cell, value)
    listed = run_cli(["runs"])
    assert listed.code == 0, listed.err
    rows = {line.split()[0]: line for line in listed.out.splitlines()[1:]}
    assert rows[damaged[:8]].rstrip().endswith(f"damaged ({cell})")
    assert ("unreadable" in rows[damaged[:8]]) == (cell == "started_at")
    assert any("good one" in row and row.rstrip().endswith("finished") for row in rows.values())


@pytest.mark.parametrize(("cell", "value"), CORRUPT_CELLS)
def test_resuming_a_run_with_a_corrupt_cell_is_refused_in_one_line_naming_it(cell, value):
    damaged = two_runs_one_damaged(cell, value)
    resumed = run_cli(["run", str(SAMPLE), "--judge", "lexical", "--resume", damaged])
    line = assert_one_line_failure(resumed, (2,))
    assert f"run {damaged[:8]} is damaged in the run store (its {cell} cell" in line


@pytest.mark.parametrize(("cell", "value"), CORRUPT_CELLS)
def test_one_corrupt_cell_leaves_the_dashboard_readable(cell, value):
    from streamlit.testing.v1 import AppTest

    two_runs_one_damaged(cell, value)
    at = AppTest.from_file("../app.py", default_timeout=120).run()
    at.switch_page("pages/dashboard.py").run()
    assert not at.exception
    table = next(d.value for d in at.dataframe if "kind" in d.value.columns)
    assert dict(zip(table["name"], table["status"], strict=True)) == {
        "damaged one": f"damaged ({cell})", "good one": "finished"}


# ---- custom evaluators per link and per case ---------------------------------------------


def many_definitions(n: int) -> list[dict]:
    return [definition(f"ask_{i}", question=f"`context[i]` states limit number {i}.")
            for i in range(n)]


def test_a_share_link_with_6000_custom_evaluators_is_refused_before_any_work():
    import base64
    import time
    import zlib

    from jeval_core.errors import CaseError
    from jeval_core.inputs import share

    data = {**CHUNKS.to_dict(), "custom_evaluators": many_definitions(6000)}
    raw = json.dumps(data, separators=(",", ":")).encode()
    token = "v1." + base64.urlsafe_b64encode(zlib.compress(raw, 9)).rstrip(b"=").decode()
    started = time.monotonic()
    with pytest.raises(CaseError, match="carries 6,000 custom evaluators; at most 32"):
        share.decode(token)
    assert time.monotonic() - started < 5  # refused at the count (it took ~85 s to check)


def test_a_case_file_with_33_custom_evaluators_is_one_line_exit_2(tmp_path):
    crowded = tmp_path / "crowded.json"
    crowded.write_text(json.dumps({**CHUNKS.to_dict(),
                                   "custom_evaluators": many_definitions(33)}))
    line = assert_one_line_failure(run_cli(["score", str(crowded), "--judge", "lexical"]), (2,))
    assert "33 custom evaluators; at most 32" in line


# ---- a resume keeps a person's labels ------------------------------------------------------


def test_a_resume_keeps_the_labels_given_in_the_store_over_the_dataset_files():
    from test_resume import FlakyJudge

    from jeval_core.analysis.labels import Labels
    from jeval_core.inputs import datasets
    from jeval_core.runs.run import run_dataset
    from jeval_core.runs.store import open_store

    sample = datasets.load(SAMPLE)
    chunks = len(sample.rows[0].case.context)
    mine = Labels(tuple([False] * chunks), (("chunk_relevance", False),))
    only = evaluators.resolve(["chunk_relevance"])
    with open_store() as store:
        first = run_dataset(sample, FlakyJudge(down=len(sample.rows)), store, chosen=only,
                            concurrency=1)  # no case answered: every one is scored again
        store.relabel(first.run.id, 0, mine)
        run_dataset(sample, FlakyJudge(down=0), store, chosen=only, resume=first.run.id)
        row = store.cases(first.run.id)[0]
    assert row.report is not None
    assert Labels.from_extra(row.data, chunks) == mine


# ---- the hosted-live spending cap holds per server process and key ------------------------


def test_the_live_cap_is_shared_by_every_tab_of_one_server_and_key():
    from test_live import FakeReport, packed_for

    from jeval_core.live import Cap, Live, budget

    owner = "http://127.0.0.1:9 0123456789ab"  # a server and a key's digest
    tab, reload = Live(budget=budget(owner)), Live(budget=budget(owner))
    tab.set_cap(Cap(usd=1.0, requests=3))
    sent = 0
    for i in range(13):
        live = (tab, reload)[i % 2]
        ticket, start = live.submit(f"case {i}", packed_for(f"Question {i}?"))
        if start and live.start(ticket.number) is not None:
            sent += 1
            live.finish(ticket.number, FakeReport(100))
    assert sent == 3
    other = Live(budget=budget("http://127.0.0.1:9 another-key"))
    ticket, _ = other.submit("case 0", packed_for("Question 0?"))
    assert other.start(ticket.number) is not None  # another key has a cap of its own


def test_a_reloaded_playground_is_held_at_the_cap_set_before_the_reload(monkeypatch):
    from jevcompat.mock import MockConfig, Running
    from test_app_playground import KEY, live_app, live_toggle, settle

    config = MockConfig(key=KEY)
    with Running(config) as server:
        first = live_app(monkeypatch, server.url)
        settle(live_toggle(first).set_value(True).run())
        first.number_input(key="live_cap_requests").set_value(1).run()  # no more after this
        assert config.requests == 1
        again = live_app(monkeypatch, server.url)  # a reload: a new browser session
        settle(live_toggle(again).set_value(True).run())
        assert config.requests == 1
        assert any("held at the cap" in m.value for m in again.markdown)


# ---- calibrate on a file with duplicated cases ---------------------------------------------


def test_duplicated_cases_do_not_leak_into_the_held_out_folds():
    from jeval_core.calibration import profile_fit
    from jeval_core.inputs import datasets

    data = datasets.load(ROOT / "assets" / "datasets" / "labelled_helpdesk.jsonl")
    rows = profile_fit.labelled(data.rows)
    local = judges.get("local")
    once = profile_fit.fit(rows, "once", data.sha256, data.name, local)
    thrice = profile_fit.fit(rows * 3, "thrice", data.sha256, data.name, local)
    a, b = once.relations["helps_answer"], thrice.relations["helps_answer"]
    assert (b.labels, b.cases) == (a.labels, a.cases) == (558, 90)
    assert b.after == a.after and b.after.auc < 0.99


# ---- a full disk -------------------------------------------------------------------------

# The real CLI on a SQLite store that may grow to 60 pages (~240 KB): SQLite's own "database
# or disk is full" (SQLITE_FULL), as on a full disk, part way through a run.
SMALL_DISK_CLI = (
    "import sys\n"
    "from sqlalchemy import event\n"
    "from jeval_core.runs import store\n"
    "made = store._sqlite_engine\n"
    "def small(url):\n"
    "    engine = made(url)\n"
    "    event.listen(engine, 'connect', lambda c, _: c.execute('PRAGMA max_page_count = 60'))\n"
    "    return engine\n"
    "store._sqlite_engine = small\n"
    "from jeval_core.commands.cli import main\n"
    "sys.argv[0] = 'jeval'\n"
    "raise SystemExit(main())\n"
)


def test_a_full_disk_is_exit_2_with_the_command_that_resumes_the_run():
    import subprocess
    import sys

    full = subprocess.run([sys.executable, "-c", SMALL_DISK_CLI, "run", str(SAMPLE), "--judge",
                           "lexical", "--evaluators", "chunk_relevance,faithfulness"],
                          capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert full.returncode == 2 and full.stderr.count("\n") == 1, full.stderr
    assert "disk is full" in full.stderr
    command = full.stderr.split("continue with: ", 1)[1].split(" (")[0].split()
    assert command[:4] == ["jeval", "run", str(SAMPLE), "--resume"]
    resumed = run_cli(command[1:])  # room again: the same store, no cap
    assert resumed.code == 0, resumed.err
    assert "45/45" in run_cli(["runs"]).out


@pytest.mark.parametrize("name", ["plain", "it's", "back\\slash", "esc \x1b[31m red", "two\nlines",
                                  "tab\there", "caf\u00e9 \u202e", "astral \U0001f525\x7f"])
def test_a_name_is_printed_as_a_word_bash_reads_back_exactly(name):
    import subprocess

    from jeval_core.text import shell_word

    word = shell_word(name)
    assert word.isprintable()  # inert on a terminal
    echoed = subprocess.run(["bash", "-c", f"printf %s {word}"], capture_output=True,
                            check=True).stdout.decode("utf-8")
    assert echoed == name

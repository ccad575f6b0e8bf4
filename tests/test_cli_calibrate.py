"""`jeval calibrate`, `jeval profiles` and `--calibration`, through a real subprocess and a
real run store (a SQLite file per test)."""

import json
import os
import subprocess
import sys

import pytest
from conftest import EXAMPLES, ROOT

from jeval_core.runs.store import open_store

LABELLED = str(ROOT / "assets" / "datasets" / "labelled_helpdesk.jsonl")
CASE = str(EXAMPLES / "clean_retrieval.json")


def jeval(*args):
    return subprocess.run([sys.executable, "-m", "jeval_core.commands.cli", *args],
                          capture_output=True, text=True, cwd=ROOT, timeout=300,
                          env=dict(os.environ), stdin=subprocess.DEVNULL)


@pytest.fixture(scope="module")
def fit_once(tmp_path_factory):
    """The labelled helpdesk data fitted once for the module (a fit takes most of this file's
    time): its output and the profile file it wrote."""
    out = tmp_path_factory.mktemp("profile") / "helpdesk.json"
    db = out.with_name("fit.db")
    env = {**os.environ, "JEVAL_DB": f"sqlite:///{db}"}
    done = subprocess.run([sys.executable, "-m", "jeval_core.commands.cli", "calibrate",
                           LABELLED, "--name", "helpdesk", "--out", str(out)],
                          capture_output=True, text=True, cwd=ROOT, timeout=300, env=env,
                          stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr
    return done, out


@pytest.fixture
def fitted(fit_once):
    """That profile kept in this test's own store (as `jeval calibrate` keeps it) and in a
    file."""
    done, out = fit_once
    assert jeval("profiles", "--import", str(out)).returncode == 0
    return done, out


def test_calibrate_keeps_the_profile_in_the_store(fit_once):
    _, out = fit_once
    with open_store(f"sqlite:///{out.with_name('fit.db')}") as store:
        assert [p.name for p in store.profiles()] == ["helpdesk"]


def test_calibrate_prints_held_out_figures_before_and_after(fitted):
    done, _ = fitted
    row = next(line for line in done.stdout.splitlines() if line.startswith("helps_answer"))
    labels, yes, cases, always_no, auc0, acc0, f10, k0, auc1, acc1, f11, k1 = row.split()[1:]
    assert (labels, yes, cases) == ("558", "204", "90")
    assert float(acc1) > float(acc0) > float(always_no)
    assert float(f11) > float(f10) and float(k1) > float(k0)
    assert "5-fold cross-validation by case" in done.stdout


def test_a_saved_profile_judges_by_name_and_the_result_says_so(fitted):
    plain = json.loads(jeval("score", CASE, "--format", "json").stdout)
    tuned = json.loads(jeval("score", CASE, "--format", "json", "--calibration",
                             "helpdesk").stdout)
    assert "calibration" not in plain
    assert tuned["calibration"].startswith("helpdesk · ")
    p = [d["p"] for d in plain["results"]["chunk_relevance"]["details"]]
    q = [d["p"] for d in tuned["results"]["chunk_relevance"]["details"]]
    assert p != q


def test_a_profile_file_judges_as_its_stored_copy_does(fitted):
    _, out = fitted
    by_name = jeval("score", CASE, "--format", "json", "--calibration", "helpdesk").stdout
    by_file = jeval("score", CASE, "--format", "json", "--calibration", str(out)).stdout
    assert json.loads(by_name)["results"] == json.loads(by_file)["results"]


def test_a_run_records_its_profile_and_a_resume_keeps_it(fitted, tmp_path):
    ran = jeval("run", LABELLED, "--evaluators", "chunk_relevance", "--calibration",
                "helpdesk", "--concurrency", "2")
    assert ran.returncode == 0, ran.stderr
    assert "(calibration helpdesk · " in ran.stdout.splitlines()[0]
    run_id = ran.stdout.split()[1]
    again = jeval("run", LABELLED, "--resume", run_id)
    assert again.returncode == 0, again.stderr
    assert "(calibration helpdesk · " in again.stdout.splitlines()[0]


def test_every_case_report_of_a_calibrated_run_names_its_profile(tmp_path):
    from test_app_compare import RAW
    from test_hostile_files import good_profile

    kept, data = tmp_path / "helpdesk.json", tmp_path / "three.jsonl"
    kept.write_text(json.dumps(good_profile()))
    data.write_bytes(RAW)
    assert jeval("profiles", "--import", str(kept)).returncode == 0
    ran = jeval("run", str(data), "--evaluators", "chunk_relevance", "--calibration",
                "helpdesk")
    assert ran.returncode == 0, ran.stderr
    with open_store() as store:
        (run,) = [r for r in store.runs() if not r.seeded]
        named = {row.report.calibration for row in store.cases(run.id)}
    assert named == {run.calibration} and run.calibration.startswith("helpdesk · ")


def test_too_few_labels_exit_2_with_the_reason():
    done = jeval("calibrate", str(ROOT / "assets" / "datasets" / "sample.csv"))
    assert done.returncode == 2
    assert "an honest fit needs at least 30 labels" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_a_dataset_without_labels_exits_2_saying_how_to_label(tmp_path):
    bare = tmp_path / "bare.jsonl"
    bare.write_text(json.dumps({"input": "q", "output": "a", "context": ["c"]}) + "\n")
    done = jeval("calibrate", str(bare))
    assert done.returncode == 2
    assert "has no labelled chunks" in done.stderr


def test_a_profile_is_only_for_the_local_judge(fitted):
    done = jeval("score", CASE, "--judge", "lexical", "--calibration", "helpdesk")
    assert done.returncode == 2
    assert "--calibration is for --judge local" in done.stderr


def test_an_unknown_profile_names_the_stored_ones(fitted):
    done = jeval("score", CASE, "--calibration", "nope")
    assert done.returncode == 2
    assert "no calibration profile is named 'nope' (stored: helpdesk)" in done.stderr


def test_profiles_export_import_and_delete(fitted, tmp_path):
    listed = jeval("profiles")
    assert listed.stdout.startswith("helpdesk ")
    exported = jeval("profiles", "--export", "helpdesk")
    assert json.loads(exported.stdout)["name"] == "helpdesk"
    assert jeval("profiles", "--delete", "helpdesk").returncode == 0
    assert "no calibration profiles yet" in jeval("profiles").stdout
    path = tmp_path / "back.json"
    path.write_text(exported.stdout)
    assert jeval("profiles", "--import", str(path)).returncode == 0
    assert jeval("profiles").stdout.startswith("helpdesk ")


def test_a_file_that_is_not_a_profile_exits_2(tmp_path):
    junk = tmp_path / "junk.json"
    junk.write_text("[1, 2]")
    done = jeval("score", CASE, "--calibration", str(junk))
    assert done.returncode == 2
    assert "not a calibration profile" in done.stderr

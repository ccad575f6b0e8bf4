"""Reading datasets: three formats, the case-file aliases, and every bad row named by its line
while the other rows are kept."""

import csv
import hashlib
import io
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jeval_core import CaseError
from jeval_core.inputs import datasets
from jeval_core.inputs.datasets import Dataset, RowError

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "assets" / "datasets"

ROWS = [
    {"id": "pricing", "input": "What does Jev cost?", "output": "$42 per billion input tokens.",
     "context": ["Jev costs $42 per billion input tokens.", "Jev answers yes/no questions."],
     "context_labels": [1, 0], "reranked": [1, 0]},
    {"id": "budget", "input": "How big can a request be?", "output": "65,536 tokens.",
     "expected": "65,536 tokens in total.",
     "context": ["State plus questions may use 65,536 tokens.", "Output is free.",
                 "The state may be a string."],
     "context_labels": [1, 0, 0]},
]


def jsonl(*rows: object) -> bytes:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows).encode()


def as_csv(rows: list[dict]) -> bytes:
    columns = ["id", "input", "output", "expected", "context", "context_labels", "reranked"]
    out = io.StringIO(newline="")
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(columns)
    for row in rows:
        writer.writerow([json.dumps(row[c]) if isinstance(row.get(c), list) else row.get(c, "")
                         for c in columns])
    return out.getvalue().encode()


def good(i: int, **more: object) -> dict:
    """A small valid row."""
    return {"input": f"question {i}?", "output": f"answer {i}.", "context": [f"chunk {i}"],
            **more}


def shape(ds: Dataset) -> list[tuple]:
    """What a dataset says, without where it said it."""
    return [(r.id, r.case, r.labels, r.reranked, r.casefile.evaluators, r.casefile.thresholds)
            for r in ds.rows]


def only_error(ds: Dataset) -> RowError:
    assert len(ds.errors) == 1, ds.errors
    return ds.errors[0]


# --- formats --------------------------------------------------------------------------------


def test_jsonl_csv_and_a_json_array_read_the_same_cases():
    from_jsonl = datasets.read(jsonl(*ROWS), "d.jsonl")
    from_csv = datasets.read(as_csv(ROWS), "d.csv")
    from_json = datasets.read(json.dumps(ROWS, indent=2).encode(), "d.json")
    assert shape(from_jsonl) == shape(from_csv) == shape(from_json)
    assert [d.format for d in (from_jsonl, from_csv, from_json)] == ["jsonl", "csv", "json"]
    assert from_jsonl.rows[0].labels == (True, False)
    assert from_jsonl.rows[0].reranked == (1, 0)
    assert from_jsonl.rows[1].case.expected == "65,536 tokens in total."


def test_the_shipped_csv_and_json_samples_hold_the_same_cases_as_the_jsonl():
    full = {r.id: r for r in datasets.load(SAMPLES / "sample.jsonl").rows}
    for name in ("sample.csv", "sample.json"):
        ds = datasets.load(SAMPLES / name)
        assert not ds.errors and len(ds.rows) == 5
        for row in ds.rows:
            twin = full[row.id]
            assert (row.case, row.labels, row.reranked, row.casefile.extra) == (
                twin.case, twin.labels, twin.reranked, twin.casefile.extra)


def test_the_sample_dataset_reads_whole_and_is_mostly_labelled():
    ds = datasets.load(SAMPLES / "sample.jsonl")
    assert ds.errors == []
    assert len(ds.rows) >= 40
    assert ds.labelled >= 30
    assert ds.with_reranked >= 8
    assert len({r.casefile.extra["metadata"]["domain"] for r in ds.rows}) >= 6
    assert all(3 <= len(r.case.context) <= 8 for r in ds.rows)


def test_the_extension_decides_and_content_decides_without_one():
    as_text = datasets.read(jsonl(*ROWS), "export.txt")
    as_table = datasets.read(as_csv(ROWS), "export")
    assert shape(as_text) == shape(as_table) == shape(datasets.read(jsonl(*ROWS), "d.jsonl"))


def test_tsv_uses_tabs():
    ds = datasets.read(b'input\toutput\tcontext\nq?\ta.\t["c"]\n', "d.tsv")
    assert ds.rows[0].case.context == ("c",)


def test_a_pretty_printed_single_case_file_is_a_dataset_of_one():
    ds = datasets.read(json.dumps(ROWS[0], indent=2).encode(), "case.json")
    assert [r.id for r in ds.rows] == ["pricing"]


# --- field names, ids, per-row settings -----------------------------------------------------


@pytest.mark.parametrize("names", [
    {"input": "user_input", "output": "response", "expected": "reference",
     "context": "retrieved_contexts"},  # RAGAS
    {"input": "input", "output": "actual_output", "expected": "expected_output",
     "context": "retrieval_context"},  # DeepEval
    {"input": "question", "output": "answer", "expected": "ground_truth",
     "context": "contexts"},  # Galtea and older RAGAS
])
def test_the_case_file_aliases_are_accepted_in_rows(names):
    row = {names["input"]: "q?", names["output"]: "a.", names["expected"]: "e.",
           names["context"]: ["c0", "c1"], "context_labels": [0, 1]}
    ds = datasets.read(jsonl(row), "d.jsonl")
    case = ds.rows[0].case
    assert (case.input, case.output, case.expected, case.context) == ("q?", "a.", "e.",
                                                                      ("c0", "c1"))
    assert ds.rows[0].labels == (False, True)


def test_rows_choose_their_own_evaluators_and_thresholds():
    ds = datasets.read(jsonl(good(1, evaluators=["toxicity"], thresholds={"toxicity": 0.2}),
                             good(2)), "d.jsonl")
    first, second = ds.rows
    assert [e.name for e in first.casefile.evaluators] == ["toxicity"]
    assert first.casefile.thresholds == {"toxicity": 0.2}
    assert second.casefile.evaluators is None


def test_csv_cells_take_evaluators_as_names_and_thresholds_as_pairs():
    raw = (b'input,context,evaluators,thresholds\n'
           b'q?,"[""c""]","chunk_relevance,toxicity","toxicity=0.2; chunk_relevance=0.7"\n')
    row = datasets.read(raw, "d.csv").rows[0]
    assert [e.name for e in row.casefile.evaluators] == ["chunk_relevance", "toxicity"]
    assert row.casefile.thresholds == {"toxicity": 0.2, "chunk_relevance": 0.7}


def test_rows_without_an_id_are_named_by_their_line():
    ds = datasets.read(b"\n" + jsonl(good(1), good(2, id="mine"), good(3, id=7)), "d.jsonl")
    assert [r.id for r in ds.rows] == ["row-2", "mine", "7"]
    assert [r.line for r in ds.rows] == [2, 3, 4]


def test_rows_of_an_array_written_on_one_line_are_each_kept_under_their_own_id():
    ds = datasets.read(json.dumps([good(1), good(2), good(3, id="row-1-3")]).encode(), "d.json")
    assert not ds.errors
    assert [r.id for r in ds.rows] == ["row-1", "row-1-2", "row-1-3"]
    ds = datasets.read(json.dumps([good(1), good(2), good(3)]).encode(), "d.json")
    assert [r.id for r in ds.rows] == ["row-1", "row-1-2", "row-1-3"]


def test_labels_may_be_true_and_false():
    ds = datasets.read(jsonl(good(1, context_labels=[True])), "d.jsonl")
    assert ds.rows[0].labels == (True,)


def test_reranked_labels_follow_the_second_ranking():
    row = datasets.read(jsonl(ROWS[0]), "d.jsonl").rows[0]
    assert row.reranked_labels() == (False, True)


# --- bad rows: named by line, skipped, the rest kept ----------------------------------------

BAD_ROWS = [
    ("broken JSON", b'{"input": "q?", "context": [', "not valid JSON"),
    ("not an object", b'["q?", ["c"]]', "must be a JSON object"),
    ("missing input", b'{"output": "a.", "context": ["c"]}', 'no "input"'),
    ("context is a string", b'{"input": "q?", "context": "c"}', "must be a list of chunks"),
    ("chunk is a number", b'{"input": "q?", "context": ["c", 3]}', '"context"[1]'),
    ("unknown key", b'{"input": "q?", "contxt": ["c"]}', 'did you mean "context"'),
    ("two names for one field", b'{"input": "q?", "question": "q?"}', "keep one"),
    ("too few labels", b'{"input": "q?", "context": ["a", "b"], "context_labels": [1]}',
     "1 label but the case has 2 chunks"),
    ("label is not 0/1", b'{"input": "q?", "context": ["a"], "context_labels": [2]}',
     "must be 0 or 1"),
    ("labels are a string", b'{"input": "q?", "context": ["a"], "context_labels": "1"}',
     "must be a list"),
    ("reranked repeats", b'{"input": "q?", "context": ["a", "b"], "reranked": [0, 0]}',
     "names chunk 0 twice"),
    ("reranked out of range", b'{"input": "q?", "context": ["a", "b"], "reranked": [0, 2]}',
     "numbered 0 to 1"),
    ("reranked leaves one out", b'{"input": "q?", "context": ["a", "b"], "reranked": [1]}',
     "leaves out chunk 0"),
    ("reranked is not indices", b'{"input": "q?", "context": ["a"], "reranked": [true]}',
     "must be a chunk index"),
    ("unknown evaluator", b'{"input": "q?", "context": ["a"], "evaluators": ["faithfullness"]}',
     "unknown evaluator"),
    ("threshold out of range", b'{"input": "q?", "context": ["a"], '
     b'"thresholds": {"toxicity": 2}}', "between 0 and 1"),
    ("id is a list", b'{"input": "q?", "id": ["x"]}', '"id" must be'),
    ("NaN", b'{"input": "q?", "context": ["a"], "truth": NaN}', "not JSON"),
    ("binary junk", b"\x00\x01\x02\x03\xff\xfe garbage \x00", "not UTF-8"),
    ("NUL bytes", b'{"input": "q?"}\x00\x00', "binary data"),
    ("latin-1 text", '{"input": "caf\u00e9?"}'.encode("latin-1"), "not UTF-8 text (byte 0xe9"),
]


@pytest.mark.parametrize(("bad", "message"), [(b, m) for _, b, m in BAD_ROWS],
                         ids=[name for name, _, _ in BAD_ROWS])
def test_a_bad_jsonl_row_is_reported_at_its_line_and_the_others_are_kept(bad, message):
    raw = jsonl(good(1)) + b"\n" + bad + b"\n" + jsonl(good(4))
    ds = datasets.read(raw, "d.jsonl")
    error = only_error(ds)
    assert error.line == 3
    assert message in error.message
    assert [r.line for r in ds.rows] == [1, 4]


@pytest.mark.parametrize("name", ["d.jsonl", "d.json", "d.csv"])
def test_a_row_over_the_row_cap_is_skipped_in_every_format(monkeypatch, name):
    monkeypatch.setattr(datasets, "MAX_ROW_BYTES", 200)
    rows = [good(1), good(2, output="x" * 300), good(3)]
    raw = {"d.jsonl": jsonl(*rows), "d.json": json.dumps(rows, indent=1).encode(),
           "d.csv": as_csv(rows)}[name]
    ds = datasets.read(raw, name)
    assert "larger than" in only_error(ds).message
    assert [r.case.input for r in ds.rows] == ["question 1?", "question 3?"]


def test_a_repeated_id_is_an_error_on_the_later_row():
    ds = datasets.read(jsonl(good(1, id="a"), good(2, id="a")), "d.jsonl")
    error = only_error(ds)
    assert (error.line, [r.line for r in ds.rows]) == (2, [1])
    assert "already used on line 1" in error.message


def test_row_errors_read_as_one_line_with_the_line_number():
    error = only_error(datasets.read(jsonl(good(1)) + b"{oops\n", "d.jsonl"))
    assert str(error).startswith("line 2: not valid JSON")
    assert "\n" not in str(error)


def test_a_bad_csv_row_is_reported_at_the_file_line_where_its_record_starts():
    raw = (b'input,output,context,context_labels\n'
           b'q1?,"an answer\nover two lines","[""c""]",[1]\n'  # lines 2-3
           b'q2?,a,not a list,\n'  # line 4
           b'q3?,a,"[""c""]","[1, 0]"\n'  # line 5: two labels, one chunk
           b'q4?,a\n'  # line 6: two cells
           b'q5?,a,"[""c"", 1]",\n'  # line 7: a chunk that is a number
           b'q6?,a,"[""c""]",[0]\n')  # line 8
    ds = datasets.read(raw, "d.csv")
    assert [e.line for e in ds.errors] == [4, 5, 6, 7]
    assert 'the "context" cell must be a JSON array' in ds.errors[0].message
    assert '"context_labels" has 2 labels but the case has 1 chunk' in ds.errors[1].message
    assert "2 cells but the header names 4 columns" in ds.errors[2].message
    assert '"context"[1] must be a string' in ds.errors[3].message
    assert [r.line for r in ds.rows] == [2, 8]
    assert ds.rows[0].case.output == "an answer\nover two lines"


def test_csv_quoting_mistakes_are_row_errors():
    raw = b'input,context\nq1?,"[""c""]"\nq2?,"[""c""]"x\nq3?,"[""c""]"\n'
    ds = datasets.read(raw, "d.csv")
    assert (only_error(ds).line, [r.line for r in ds.rows]) == (3, [2, 4])
    assert "not valid CSV" in ds.errors[0].message


def test_a_csv_cell_that_is_not_utf8_names_its_row():
    raw = b'input,context\nq1?,"[""c""]"\nq2 caf\xe9?,"[""c""]"\n'
    ds = datasets.read(raw, "d.csv")
    assert only_error(ds).line == 3 and "not UTF-8" in ds.errors[0].message


# --- truncated, encodings, binary -----------------------------------------------------------


def test_a_jsonl_file_cut_short_keeps_every_complete_row():
    raw = jsonl(good(1), good(2))
    ds = datasets.read(raw + jsonl(good(3))[:25], "d.jsonl")
    assert [r.line for r in ds.rows] == [1, 2]
    assert only_error(ds).line == 3 and "cut short" in ds.errors[0].message


def test_a_json_array_cut_short_keeps_the_elements_before_the_cut():
    raw = json.dumps([good(1), good(2), good(3)], indent=2).encode()
    ds = datasets.read(raw[: raw.rindex(b"chunk 3")], "d.json")
    assert [r.case.input for r in ds.rows] == ["question 1?", "question 2?"]
    assert "cut short" in only_error(ds).message
    assert ds.errors[0].line == raw[: raw.rindex(b"question 3")].count(b"\n")


def test_json_array_elements_are_numbered_by_the_line_they_start_on():
    raw = json.dumps([good(1), {"input": 3}, good(3)], indent=2).encode()
    ds = datasets.read(raw, "d.json")
    starts = [i + 1 for i, line in enumerate(raw.split(b"\n")) if line == b"  {"]
    assert [r.line for r in ds.rows] == [starts[0], starts[2]]
    assert only_error(ds).line == starts[1]


def test_a_csv_cut_inside_a_quoted_cell_loses_only_the_last_row():
    raw = b'input,context\nq1?,"[""c""]"\nq2?,"[""c'
    ds = datasets.read(raw, "d.csv")
    assert [r.line for r in ds.rows] == [2]
    assert only_error(ds).line == 3


def test_a_utf8_bom_is_stripped():
    for raw, name in ((jsonl(*ROWS), "d.jsonl"), (as_csv(ROWS), "d.csv"),
                      (json.dumps(ROWS).encode(), "d.json")):
        assert shape(datasets.read(b"\xef\xbb\xbf" + raw, name)) == shape(
            datasets.read(raw, name))


def test_a_utf16_file_with_a_bom_is_read():
    ds = datasets.read(jsonl(*ROWS).decode().encode("utf-16"), "d.jsonl")
    assert shape(ds) == shape(datasets.read(jsonl(*ROWS), "d.jsonl"))


def test_a_latin1_file_is_refused_naming_the_first_line_that_is_not_utf8():
    raw = jsonl({"input": "plain?"}).replace(b"plain", b"caf\xe9") + jsonl(
        {"input": "na\u00efve?"}).decode().encode("latin-1")
    with pytest.raises(CaseError, match=r"not UTF-8 text \(line 1 is the first"):
        datasets.read(raw, "d.jsonl")


def test_random_binary_is_refused_as_a_binary_file():
    junk = bytes(range(256)) * 8
    with pytest.raises(CaseError, match="binary file"):
        datasets.read(junk, "d.jsonl")


@pytest.mark.parametrize(("raw", "hint"), [(b"PK\x03\x04rest", "export the sheet as CSV"),
                                           (b"\x1f\x8b\x08rest", "decompress")])
def test_archives_are_refused_with_what_to_do_instead(raw, hint):
    with pytest.raises(CaseError, match=hint):
        datasets.read(raw, "d.csv")


# --- whole-file problems --------------------------------------------------------------------


@pytest.mark.parametrize(("raw", "name", "message"), [
    (b"", "d.jsonl", "is empty"),
    (b" \n\t\n", "d.jsonl", "is empty"),
    (b"[]", "d.json", "holds no cases"),
    (b"input,output,context\n", "d.csv", "holds no cases"),
    (b"hello world", "notes.txt", "cannot tell what format"),
    (b"inptu,context\nq,[]\n", "d.csv", 'unknown column "inptu": did you mean "input"'),
    (b"input,input\nq,q\n", "d.csv", "appears twice"),
    (b"input,,context\nq,,[]\n", "d.csv", "column 2 of the header has no name"),
    (b"{oops\n[1]\n", "d.jsonl", "no row of d.jsonl could be read; line 1: not valid JSON"),
])
def test_a_file_that_yields_no_rows_is_one_error_saying_what_to_fix(raw, name, message):
    with pytest.raises(CaseError, match=message.replace("(", r"\(")):
        datasets.read(raw, name)


def test_files_over_the_size_cap_are_refused_before_reading(monkeypatch, tmp_path):
    monkeypatch.setattr(datasets, "MAX_BYTES", 100)
    big = tmp_path / "big.jsonl"
    big.write_bytes(jsonl(*[good(i) for i in range(10)]))
    with pytest.raises(CaseError, match="larger than .* split it"):
        datasets.load(big)
    with pytest.raises(CaseError, match="larger than"):
        datasets.read(big.read_bytes(), "big.jsonl")


def test_files_over_the_row_cap_are_refused(monkeypatch):
    monkeypatch.setattr(datasets, "MAX_ROWS", 3)
    assert len(datasets.read(jsonl(*[good(i) for i in range(3)]), "d.jsonl").rows) == 3
    with pytest.raises(CaseError, match="more than 3 rows"):
        datasets.read(jsonl(*[good(i) for i in range(4)]), "d.jsonl")


def test_a_missing_file_is_a_case_error():
    with pytest.raises(CaseError, match="cannot read nowhere.jsonl"):
        datasets.load("/nonexistent/nowhere.jsonl")


def test_the_fingerprint_is_the_sha256_of_the_bytes_given():
    raw = b"\xef\xbb\xbf" + jsonl(good(1))
    assert datasets.read(raw, "d.jsonl").sha256 == hashlib.sha256(raw).hexdigest()


# --- writing --------------------------------------------------------------------------------


def test_write_jsonl_round_trips_the_sample():
    ds = datasets.load(SAMPLES / "sample.jsonl")
    again = datasets.read(datasets.write_jsonl(ds.rows).encode(), "again.jsonl")
    assert again.errors == []
    assert [(r.id, r.casefile, r.labels, r.reranked) for r in again.rows] == [
        (r.id, r.casefile, r.labels, r.reranked) for r in ds.rows]


def test_write_jsonl_keeps_per_row_settings_and_uses_our_field_names():
    ds = datasets.read(jsonl({"user_input": "q?", "retrieved_contexts": ["c"],
                              "evaluators": ["toxicity"], "thresholds": {"toxicity": 0.1}}),
                       "d.jsonl")
    written = json.loads(datasets.write_jsonl(ds.rows))
    assert written == {"id": "row-1", "input": "q?", "output": "", "context": ["c"],
                       "evaluators": ["toxicity"], "thresholds": {"toxicity": 0.1}}


# --- hostile input: only our errors ---------------------------------------------------------

FRAME = jsonl(good(1, id="first")), jsonl(good(9, id="last"))
NAMES = st.sampled_from(["d.jsonl", "d.csv", "d.json", "d.txt", "d"])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(junk=st.binary(max_size=300))
def test_random_row_bytes_become_row_errors_and_never_cost_the_first_row(junk):
    try:
        ds = datasets.read(FRAME[0] + junk + b"\n" + FRAME[1], "d.jsonl")
    except CaseError:
        return  # e.g. so much junk that the file reads as binary: one clear error
    assert ds.rows[0].id == "first"
    assert all(e.line >= 1 and e.message for e in ds.errors)


@settings(max_examples=300, deadline=None)
@given(raw=st.binary(max_size=400), name=NAMES)
def test_any_bytes_are_a_dataset_or_one_case_error(raw, name):
    try:
        ds = datasets.read(raw, name)
    except CaseError as err:
        assert "\n" not in str(err)
        return
    assert ds.rows


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                               max_size=4),
    max_leaves=12,
)
FIELDS = st.sampled_from(["input", "output", "expected", "context", "context_labels",
                          "reranked", "id", "evaluators", "thresholds", "question", "junk"])


@settings(max_examples=300, deadline=None)
@given(row=st.dictionaries(FIELDS, JSON, max_size=6) | JSON, fmt=st.sampled_from(["jsonl",
                                                                                  "json"]))
def test_any_json_row_is_a_row_or_a_row_error(row, fmt):
    raw = jsonl(good(1), row) if fmt == "jsonl" else json.dumps([good(1), row]).encode()
    ds = datasets.read(raw, f"d.{fmt}")
    assert len(ds.rows) + len(ds.errors) == 2
    assert ds.rows[0].line == 1


@settings(max_examples=200, deadline=None)
@given(cells=st.lists(st.text(max_size=30), min_size=1, max_size=6))
def test_any_csv_row_is_a_row_or_a_row_error(cells):
    out = io.StringIO(newline="")
    csv.writer(out).writerows(  # "\r\n" line ends: a lone "\r" in a cell gets quoted
        [["input", "output", "context", "context_labels"], ["q?", "a.", '["c"]', "[1]"], cells])
    ds = datasets.read(out.getvalue().encode(), "d.csv")  # a bad row never stops the file
    assert ds.rows[0].line == 2
    blank = not any(c.strip() for c in cells)  # a blank record is no row at all
    assert len(ds.rows) + len(ds.errors) == (1 if blank else 2)

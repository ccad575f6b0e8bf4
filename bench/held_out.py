"""The labelled data every judge is measured on, and how it is split.

Three kinds, each split by topic into a part that is fitted on and a held-out part
(`fitting.held_out_part`; the hand pairs keep split.json); the held-out part is cut again
(`part`) into a third that calibrates the local judge's curves and two thirds that are only
ever measured, for every judge alike. bench/calibrate.py (the offline judges) and
bench/calibrate_openai.py (a server's model) both read it from here.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from jeval_core.calibration.fitting import Verdicts, held_out_part
from jeval_core.case import Case
from jeval_core.evaluators import (
    chunk_relevance,
    context_relevancy,
    contextual_recall,
    faithfulness,
    hallucination,
)
from jeval_core.inputs import casefile
from jeval_core.judges.base import Judge
from jeval_core.questions import (
    ATTRIBUTABLE_TO,
    CONTRADICTS,
    HELPS_ANSWER,
    RELEVANT_TO,
    SUPPORTED_BY,
    TOXIC,
    Operand,
    Question,
)

ROOT = Path(__file__).resolve().parent.parent  # its importers put ROOT on sys.path
CALIBRATION = ROOT / "assets" / "calibration"


EXAMPLES = ROOT / "assets" / "examples"


REAL_LIMIT = 500  # questions (or claims, sentences) per public source (a few minutes)


@dataclass
class Labelled:
    """One case's questions with their truth, and where the case came from."""

    source: str
    topic: str
    held_out: bool
    questions: dict[str, Question]
    labels: dict[str, int]
    output: str = ""  # the case's answer, which the local judge reads beside the chunks
    # How any version of the code rebuilds the questions (bench/score_labelled.py): the
    # evaluator and the case's fields, or the hand pair itself.
    recipe: dict | None = None


def part(item: Labelled) -> str:
    """"fit", "calibrate" or "measure". The held-out part (30% of topics) is cut in two: a
    third that the reader's curves are fitted on ("calibrate": the reader was trained on the
    fit part, so a curve fitted there would trust it too much) and two thirds that are only
    ever measured, for every judge, so that judges are compared on the very same rows."""
    if not item.held_out:
        return "fit"
    return "measure" if held_out_part(item.topic, 2) else "calibrate"


def _lines(path: Path) -> Iterator[dict]:
    for line in path.read_text("utf-8").splitlines():
        if line.strip():
            yield json.loads(line)


def _one(source: str, topic: str, held: bool, q: Question, label: int,
         recipe: dict | None = None) -> Labelled:
    return Labelled(source, topic, held, {q.id: q}, {q.id: int(label)}, recipe=recipe)


def _case_recipe(evaluator: str, case: Case) -> dict:
    return {"evaluator": evaluator, "case": {"input": case.input, "output": case.output,
                                             "expected": case.expected,
                                             "context": list(case.context)}}


def pair_question(pair: dict) -> Question:
    """The question a judge would see for one hand-written pair, its operands filled in."""
    rel, subject, against = pair["relation"], pair["subject"], pair["against"]
    question = Operand("input", (against,))
    context = Operand("context", tuple(c for c in against.split("\n\n") if c.strip()))
    if rel == RELEVANT_TO:
        return Question("q", "", rel, Operand("output[0]", (subject,)), (question,))
    if rel in (SUPPORTED_BY, ATTRIBUTABLE_TO):
        return Question("q", "", rel, Operand("output[0]", (subject,)), (context,))
    if rel == CONTRADICTS:
        return Question("q", "", rel, Operand("output", (subject,)),
                        (Operand("context[0]", (against,)),))
    if rel == TOXIC:
        return Question("q", "", rel, Operand("output[0]", (subject,)))
    raise ValueError(f"unknown relation {rel!r}")


def adversarial() -> list[Labelled]:
    """The hand-written pairs. Chunks asked about the same question form one retrieval."""
    held = set(json.loads((CALIBRATION / "split.json").read_text())["heldout"])
    out: list[Labelled] = []
    retrievals: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for path in [CALIBRATION / "pairs.jsonl", *sorted((CALIBRATION / "written").glob("*.jsonl"))]:
        for pair in _lines(path):
            if pair["topic"].startswith("example:"):
                continue  # the examples are measured as whole cases, never fitted on
            if pair["relation"] == HELPS_ANSWER:
                retrievals[(pair["topic"], pair["against"])].append(pair)
            else:
                out.append(_one("adversarial", pair["topic"], pair["topic"] in held,
                                pair_question(pair), pair["label"], {"pair": pair}))
    for (topic, question), chunks in retrievals.items():
        case = Case(input=question, context=tuple(p["subject"] for p in chunks))
        out.append(_retrieval("adversarial", topic, topic in held, case,
                              [p["label"] for p in chunks]))
    return out


def _retrieval(source: str, topic: str, held: bool, case: Case, labels: list[int]) -> Labelled:
    qs = {q.id: q for q in chunk_relevance.questions(case)}
    return Labelled(source, topic, held, qs,
                    {q.id: int(labels[int(q.id[2:])]) for q in qs.values()}, case.output,
                    _case_recipe("chunk_relevance", case))


def _statement_labels(name: str) -> dict[str, dict[str, int]]:
    """topic -> `context[i][j]` -> 1 when that statement is relevant to the question
    (statements/NAME: the held-out retrievals of the set NAME, labelled statement by
    statement as context_relevancy splits them)."""
    path = CALIBRATION / "statements" / name
    return {row["topic"]: row["labels"] for row in _lines(path)} if path.is_file() else {}


def _statements(source: str, topic: str, held: bool, case: Case,
                labels: dict[str, int]) -> Labelled:
    """Context relevancy's questions of a retrieval, with each statement's label."""
    qs = {q.id: q for q in context_relevancy.questions(case)}
    found = {q.subject.name: q.id for q in qs.values()}
    if set(found) != set(labels):
        raise ValueError(f"statements/{topic}: the labels name {sorted(labels)}, "
                         f"the statements are {sorted(found)}")
    return Labelled(source, topic, held, qs, {found[at]: int(v) for at, v in labels.items()},
                    case.output, _case_recipe("context_relevancy", case))


def ordinary() -> list[Labelled]:
    """Whole ordinary retrievals: chunk relevance, support and contradiction per sentence and
    chunk, attribution of the expected answer; and ordinary sentences for toxicity. The
    team-written retrievals of product docs, policies and how-tos (retrievals/) are their own
    source, `ordinary:retrievals`, of the same kind, and those where several or most chunks
    answer (steps of a procedure, a list or a fact split across chunks: retrievals/steps_*)
    another, `ordinary:steps`, so each is measured apart and has its own vote in the cut."""
    out: list[Labelled] = []
    paths = [(p, "ordinary") for p in sorted((CALIBRATION / "ordinary").glob("*.jsonl"))]
    paths += [(p, "ordinary:steps" if p.name.startswith("steps_") else "ordinary:retrievals")
              for p in sorted((CALIBRATION / "retrievals").glob("*.jsonl"))]
    for path, source in paths:
        statement_labels = _statement_labels(path.name)
        for row in _lines(path):
            topic, held = row["topic"], held_out_part(row["topic"])
            if "text" in row:  # a sentence labelled toxic or not
                q = Question("q", "", TOXIC, Operand("output[0]", (row["text"],)))
                out.append(_one(source, topic, held, q, row["label"], {"toxic": row["text"]}))
                continue
            # Half the retrievals are judged with their expected answer, half without.
            with_expected = held_out_part(topic + "/expected", 5)
            case = Case(input=row["input"], output=row["output"],
                        expected=row.get("expected") if with_expected else None,
                        context=tuple(row["context"]))
            out.append(_retrieval(source, topic, held, case, row["context_labels"]))
            if topic in statement_labels:
                out.append(_statements(source, topic, held, case, statement_labels[topic]))
            said = {q.id: q for q in faithfulness.questions(case)}
            if len(said) == len(row["output_labels"]):
                out.append(Labelled(source, topic, held, said, {
                    q.id: int(row["output_labels"][int(q.id[2:])] == "supported")
                    for q in said.values()}, recipe=_case_recipe("faithfulness", case)))
            against = {q.id: q for q in hallucination.questions(case)}
            out.append(Labelled(source, topic, held, against, {
                q.id: int(int(q.id[2:]) in row.get("contradicted_by", []))
                for q in against.values()}, recipe=_case_recipe("hallucination", case)))
            expected = Case(input=row["input"], expected=row["expected"],
                            context=tuple(row["context"]))
            attributed = {q.id: q for q in contextual_recall.questions(expected)}
            out.append(Labelled(source, topic, held, attributed, dict.fromkeys(
                attributed, int(any(row["context_labels"]))),
                recipe=_case_recipe("contextual_recall", expected)))
    return out


def real(root: Path | None = None, limit: int = REAL_LIMIT
         ) -> tuple[list[Labelled], list[str]]:
    """Human-labelled public data (bench/public_data.py) from the data folder, and a note per
    source skipped. Per source, `limit` rows of held-out topics and as many of fitted ones
    (only the similarity and lexical judges' curves are fitted there)."""
    from bench import public_data

    out: list[Labelled] = []
    notes: list[str] = []
    try:
        root = public_data.data_dir(root)
    except public_data.MissingData as err:
        return [], [f"every public source: {err}"]
    for name, meta in public_data.SOURCES.items():
        source = f"real:{name}"
        try:
            rows = (public_data.every(name, root) if meta["kind"] != "toxicity" else
                    public_data.toxic_sentences(name, 10**9, root))
        except public_data.MissingData as err:
            notes.append(f"{source}: {err}")
            continue
        for held in (True, False):
            for row in public_data.take_by_topic(
                    [r for r in rows if held_out_part(r["topic"]) is held], limit):
                if meta["kind"] == "retrieval":
                    case = Case(input=row["input"], context=tuple(row["context"]))
                    out.append(_retrieval(source, row["topic"], held, case, row["labels"]))
                elif meta["kind"] == "claims":
                    out += _claim(source, row)
                else:
                    q = Question("q", "", TOXIC, Operand("output[0]", (row["text"],)))
                    out.append(_one(source, row["topic"], held, q, row["label"],
                                    {"toxic": row["text"]}))
    return out, notes


def _claim(source: str, row: dict) -> list[Labelled]:
    """A claim against its evidence: supported when entailed, contradicted when refuted."""
    case = Case(input="", output=row["claim"], context=(row["evidence"],))
    held = held_out_part(row["topic"])
    support = {q.id: q for q in faithfulness.questions(case)}
    contra = {q.id: q for q in hallucination.questions(case)}
    return [Labelled(source, row["topic"], held, support,
                     dict.fromkeys(support, int(row["label"] == "entailed")),
                     recipe=_case_recipe("faithfulness", case)),
            Labelled(source, row["topic"], held, contra,
                     dict.fromkeys(contra, int(row["label"] == "refuted")),
                     recipe=_case_recipe("hallucination", case))]


def load(public: bool = True, root: Path | None = None) -> tuple[list[Labelled], list[str]]:
    """Every labelled source; `public` False leaves out the public data files (`root`: their
    folder, else $JEVAL_DATA)."""
    found, notes = real(root) if public else ([], [])
    return adversarial() + ordinary() + found, notes


def verdicts_text(v: Verdicts | None) -> str:
    if v is None:
        return ""
    a = "  -  " if v.auc is None else f"{v.auc:.3f}"
    return f"{a} {v.accuracy:.3f} {v.f1:.3f}"


def examples(judge: Judge) -> tuple[int, int, list[str]]:
    """Each example's stated truth met by the judge: (met, stated, what was missed)."""
    from jeval_core.scoring import score

    met = total = 0
    missed: list[str] = []
    for path in sorted(EXAMPLES.glob("*.json")):
        loaded = casefile.decode(path.read_bytes(), path.name)
        truth = loaded.extra.get("truth") or {}
        report = score(loaded.case, loaded.chosen(), judge).with_thresholds(loaded.thresholds)
        for name, want in truth.get("evaluators", {}).items():
            total += 1
            if report.results[name].passed is want["passed"]:
                met += 1
            else:
                missed.append(f"{path.stem} {name} {report.results[name].score:.2f}")
        chunks = report.results.get("chunk_relevance")
        if chunks and "context" in truth:
            for d in chunks.details:
                total += 1
                i = int(d.id[2:])
                if d.yes == bool(truth["context"][i]):
                    met += 1
                else:
                    missed.append(f"{path.stem} chunk {i} p={d.p:.2f}")
    return met, total, missed


AGREEMENT = ROOT / "jeval_core" / "calibration" / "agreement.json"


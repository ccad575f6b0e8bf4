"""Refit an offline judge's curves from labelled data, and print how it does on held-out data.

    python bench/calibrate.py                  # the local judge (the reader), beside the
                                               # similarity judge it replaced
    python bench/calibrate.py --judge similarity
    python bench/calibrate.py --judge lexical

Three kinds of labelled data, each split by topic into a part that is fitted on and a
held-out part (`fitting.held_out_part`; the hand pairs keep split.json); the held-out part is
cut again (`part`): a third calibrates the local judge's curves (its reader was trained on
the fit part), two thirds are only ever measured, for every judge alike:
  adversarial  assets/calibration/pairs.jsonl, written/*.jsonl: hard hand-written pairs
  ordinary     assets/calibration/ordinary/*.jsonl: whole retrievals as a retriever returns
               them (every chunk on topic, a few that answer), answers labelled per sentence
  real:NAME    human-labelled public data read from installed packages (bench/realdata.py);
               absent packages are skipped with a note
Every question is built by the evaluators from a real Case and answered by the judge with
the whole case in view, as in the app. Per relation and source it prints the held-out AUC,
accuracy, F1 and the always-no baseline, for the committed curves ("now"), for the
similarity judge beside the local one ("before"), and for a fresh fit ("refit", its
constants to paste into curves.py), then the unsure
band measured on the held-out answers, and each example case's stated truth met.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from jeval_core import casefile  # noqa: E402
from jeval_core.calibration import curves  # noqa: E402
from jeval_core.calibration.fitting import (  # noqa: E402
    Verdicts,
    accuracy_in,
    fit_signed,
    held_out_part,
    predict,
    unsure_band,
)
from jeval_core.case import Case  # noqa: E402
from jeval_core.evaluators import (  # noqa: E402
    chunk_relevance,
    contextual_recall,
    faithfulness,
    hallucination,
)
from jeval_core.judges import lexical, local, similarity  # noqa: E402  # noqa: E402
from jeval_core.questions import (  # noqa: E402
    ATTRIBUTABLE_TO,
    CONTRADICTS,
    HELPS_ANSWER,
    RELATIONS,
    RELEVANT_TO,
    SUPPORTED_BY,
    TOXIC,
    Operand,
    Question,
)

CALIBRATION = ROOT / "assets" / "calibration"
EXAMPLES = ROOT / "assets" / "examples"
RIDGE = {"lexical": 1e-3, "local": 0.3, "similarity": 0.3}
JUDGES = {"local": local.LocalJudge, "similarity": similarity.SimilarityJudge}
SIGNS = {"local": curves.LOCAL_SIGNS, "similarity": curves.SIMILARITY_SIGNS}
ALONE_COLS = {"similarity": curves.ALONE}  # the similarity judge's chunk read alone
PROBABILITY = {"local": local.probability, "similarity": similarity.probability}
ALONE = "helps_answer alone"  # the similarity judge's chunk read alone (SIMILARITY_ALONE)
REAL_LIMIT = 500  # questions (or claims, sentences) per public source (a few minutes)
# Public sources that are only ever measured: their labels are not what the judge is asked
# (condescension, romanised Hindi-English, presuppositions, contrastive Wikipedia revisions
# that a sentence embedding cannot see); fitting on them would only pull the curves flat.
MEASURED_ONLY = {"real:hinglish_toxicity", "real:talkdown_condescension",
                 "real:nope_presuppositions", "real:vitaminc"}
# The reader reads claims against evidence, so its curves may learn from those two.
MEASURED_ONLY_READER = {"real:hinglish_toxicity", "real:talkdown_condescension"}


@dataclass
class Labelled:
    """One case's questions with their truth, and where the case came from."""

    source: str
    topic: str
    held_out: bool
    questions: dict[str, Question]
    labels: dict[str, int]
    output: str = ""  # the case's answer, which the local judge reads beside the chunks


@dataclass
class Table:
    """Per relation: signals, labels, sources and parts, one row per labelled question."""

    X: dict[str, list[tuple[float, ...]]] = field(default_factory=lambda: defaultdict(list))
    y: dict[str, list[int]] = field(default_factory=lambda: defaultdict(list))
    source: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    part: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))

    def arrays(self, relation: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        return (np.array(self.X[relation], dtype=float), np.array(self.y[relation]),
                np.array(self.source[relation]), np.array(self.part[relation]))


def part(item: Labelled) -> str:
    """"fit", "calibrate" or "measure". The held-out part (30% of topics) is cut in two: a
    third that the reader's curves are fitted on ("calibrate": the reader was trained on the
    fit part, so a curve fitted there would trust it too much) and two thirds that are only
    ever measured, for every judge, so that judges are compared on the very same rows."""
    if not item.held_out:
        return "fit"
    return "measure" if held_out_part(item.topic, 2) else "calibrate"


# Where each judge's curves are fitted: the similarity and lexical judges on the fit part as
# before; the local judge's reader was trained there, so its curves on the calibrate part.
FIT_PART = {"local": "calibrate", "similarity": "fit", "lexical": "fit"}


def _lines(path: Path) -> Iterator[dict]:
    for line in path.read_text("utf-8").splitlines():
        if line.strip():
            yield json.loads(line)


def _one(source: str, topic: str, held: bool, q: Question, label: int) -> Labelled:
    return Labelled(source, topic, held, {q.id: q}, {q.id: int(label)})


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
                                pair_question(pair), pair["label"]))
    for (topic, question), chunks in retrievals.items():
        case = Case(input=question, context=tuple(p["subject"] for p in chunks))
        out.append(_retrieval("adversarial", topic, topic in held, case,
                              [p["label"] for p in chunks]))
    return out


def _retrieval(source: str, topic: str, held: bool, case: Case, labels: list[int]) -> Labelled:
    qs = {q.id: q for q in chunk_relevance.questions(case)}
    return Labelled(source, topic, held, qs,
                    {q.id: int(labels[int(q.id[2:])]) for q in qs.values()}, case.output)


def ordinary() -> list[Labelled]:
    """Whole ordinary retrievals: chunk relevance, support and contradiction per sentence and
    chunk, attribution of the expected answer; and ordinary sentences for toxicity."""
    out: list[Labelled] = []
    for path in sorted((CALIBRATION / "ordinary").glob("*.jsonl")):
        for row in _lines(path):
            topic, held = row["topic"], held_out_part(row["topic"])
            if "text" in row:  # a sentence labelled toxic or not
                q = Question("q", "", TOXIC, Operand("output[0]", (row["text"],)))
                out.append(_one("ordinary", topic, held, q, row["label"]))
                continue
            # Half the retrievals are judged with their expected answer, half without.
            with_expected = held_out_part(topic + "/expected", 5)
            case = Case(input=row["input"], output=row["output"],
                        expected=row.get("expected") if with_expected else None,
                        context=tuple(row["context"]))
            out.append(_retrieval("ordinary", topic, held, case, row["context_labels"]))
            said = {q.id: q for q in faithfulness.questions(case)}
            if len(said) == len(row["output_labels"]):
                out.append(Labelled("ordinary", topic, held, said, {
                    q.id: int(row["output_labels"][int(q.id[2:])] == "supported")
                    for q in said.values()}))
            against = {q.id: q for q in hallucination.questions(case)}
            out.append(Labelled("ordinary", topic, held, against, {
                q.id: int(int(q.id[2:]) in row.get("contradicted_by", []))
                for q in against.values()}))
            expected = Case(input=row["input"], expected=row["expected"],
                            context=tuple(row["context"]))
            attributed = {q.id: q for q in contextual_recall.questions(expected)}
            out.append(Labelled("ordinary", topic, held, attributed, dict.fromkeys(
                attributed, int(any(row["context_labels"])))))
    return out


def real() -> tuple[list[Labelled], list[str]]:
    """Human-labelled public data from installed packages, and a note per source skipped."""
    try:
        from bench import realdata
    except ImportError as err:
        return [], [f"bench/realdata.py: {err}"]
    out: list[Labelled] = []
    notes: list[str] = []
    for name, meta in realdata.SOURCES.items():
        source = f"real:{name}"
        try:
            if meta["kind"] == "retrieval":
                for row in realdata.retrieval_cases(name, REAL_LIMIT):
                    case = Case(input=row["input"], context=tuple(row["context"]))
                    out.append(_retrieval(source, row["topic"], held_out_part(row["topic"]),
                                          case, row["labels"]))
            elif meta["kind"] == "claims":
                for row in realdata.claims(name, REAL_LIMIT):
                    out += _claim(source, row)
            elif meta["kind"] == "toxicity":
                for row in realdata.toxic_sentences(name, REAL_LIMIT):
                    q = Question("q", "", TOXIC, Operand("output[0]", (row["text"],)))
                    topic = row.get("topic", row["text"][:40])
                    out.append(_one(source, topic, held_out_part(topic), q, row["label"]))
        except Exception as err:  # a missing package is a note, not the end of the bench
            notes.append(f"{source}: {err}")
    return out, notes


def _claim(source: str, row: dict) -> list[Labelled]:
    """A claim against its evidence: supported when entailed, contradicted when refuted."""
    case = Case(input="", output=row["claim"], context=(row["evidence"],))
    held = held_out_part(row["topic"])
    support = {q.id: q for q in faithfulness.questions(case)}
    contra = {q.id: q for q in hallucination.questions(case)}
    return [Labelled(source, row["topic"], held, support,
                     dict.fromkeys(support, int(row["label"] == "entailed"))),
            Labelled(source, row["topic"], held, contra,
                     dict.fromkeys(contra, int(row["label"] == "refuted")))]


def load(public: bool = True) -> tuple[list[Labelled], list[str]]:
    """Every labelled source; `public` False leaves out the data read from packages."""
    found, notes = real() if public else ([], [])
    return adversarial() + ordinary() + found, notes


def signals(judge: str, data: list[Labelled]) -> Table:
    """Every labelled question's signals as the judge computes them, whole case in view."""
    table = Table()
    reads = JUDGES[judge]() if judge in JUDGES else None
    if FIT_PART[judge] != "fit":  # nothing of the fit part is fitted on or measured
        data = [item for item in data if item.held_out]
    for item in data:
        if reads is None:
            xs = {qid: (q, (lexical.signal(q)[1],)) for qid, q in item.questions.items()}
        else:
            xs = reads.features(item.questions, item.output)
        for qid, (q, x) in xs.items():
            table.X[q.relation].append(x)
            table.y[q.relation].append(item.labels[qid])
            table.source[q.relation].append(item.source)
            table.part[q.relation].append(part(item))
    return table


def source_weights(source: np.ndarray) -> np.ndarray:
    """Each kind of data (hard pairs, ordinary retrievals, public data) has the same total say
    in a fit, and within the public data each source the same share, however many rows each
    brings: eight sentence-level public sets must not outvote the ordinary retrievals."""
    kind = np.array([s.split(":")[0] for s in source])
    w = np.ones(len(source))
    kinds = sorted(set(kind))
    for k in kinds:
        names = sorted(set(source[kind == k]))
        for s in names:
            w[source == s] = len(source) / (len(kinds) * len(names) * (source == s).sum())
    return w


def refit(judge: str, table: Table) -> dict[str, np.ndarray]:
    """Fresh constants per relation, from the fit parts only."""
    out = {}
    for relation in table.X:
        X, y, source, parts = table.arrays(relation)
        fit_rows = (parts == FIT_PART[judge]) & ~np.isin(source, list(
            MEASURED_ONLY if judge != "local" else MEASURED_ONLY_READER))
        signs = SIGNS[judge][relation] if judge in SIGNS else (1,) * X.shape[1]
        out[relation] = fit_signed(X[fit_rows], y[fit_rows], RIDGE[judge],
                                   source_weights(source[fit_rows]), signs)
        if judge in ALONE_COLS and relation == HELPS_ANSWER:  # the chunk read alone
            cols = list(ALONE_COLS[judge])
            out[ALONE] = fit_signed(X[fit_rows][:, cols], y[fit_rows], RIDGE[judge],
                                    source_weights(source[fit_rows]),
                                    tuple(signs[i] for i in cols))
    return out


def committed(judge: str, relation: str) -> Callable[[np.ndarray], np.ndarray]:
    if judge == "lexical":
        return lambda X: np.array([curves.LEXICAL[relation](x[0]) for x in X])
    return lambda X: np.array([PROBABILITY[judge](relation, tuple(x)) for x in X])


def measure(judge: str, table: Table, fresh: dict[str, np.ndarray] | None = None
            ) -> dict[str, dict[str, tuple[Verdicts, Verdicts | None]]]:
    """relation -> source -> (committed curves, fresh fit) verdicts on the held-out part."""
    out: dict[str, dict[str, tuple[Verdicts, Verdicts | None]]] = {}
    for relation in sorted(table.X, key=RELATIONS.index):
        X, y, source, parts = table.arrays(relation)
        held = parts == "measure"
        now = committed(judge, relation)(X)
        new = predict(fresh[relation], X) if fresh else None
        if fresh and ALONE in fresh and new is not None and relation == HELPS_ANSWER:
            new = np.maximum(new, predict(fresh[ALONE], X[:, list(ALONE_COLS[judge])]))
        out[relation] = {}
        for s in sorted(set(source[held])):
            rows = held & (source == s)
            out[relation][s] = (Verdicts.of(now[rows], y[rows]),
                                Verdicts.of(new[rows], y[rows]) if new is not None else None)
    return out


def bands(judge: str, table: Table) -> dict[str, tuple[tuple[float, float], float, int]]:
    """relation -> (unsure band, held-out accuracy inside it, answers inside), measured on
    the held-out answers of the committed curves."""
    out = {}
    for relation in table.X:
        X, y, _, parts = table.arrays(relation)
        held = parts == "measure"
        p = committed(judge, relation)(X[held])
        band = unsure_band(p, y[held])
        acc, n = accuracy_in(p, y[held], band)
        out[relation] = (band, acc, n)
    return out


def constants(judge: str, w: np.ndarray) -> str:
    if judge == "lexical":
        return f"Logistic(k={w[1]:.2f}, c={-w[0] / w[1]:.3f})"
    return f"Linear({w[0]:.2f}, ({', '.join(f'{v:.2f}' for v in w[1:])},))"


def _fmt(v: Verdicts | None) -> str:
    if v is None:
        return ""
    a = "  -  " if v.auc is None else f"{v.auc:.3f}"
    return f"{a} {v.accuracy:.3f} {v.f1:.3f}"


def examples(judge_name: str, judge: Any = None) -> tuple[int, int, list[str]]:
    """Each example's stated truth met by the judge: (met, stated, what was missed)."""
    from jeval_core import judges
    from jeval_core.scoring import score

    if judge is None:
        judge = JUDGES[judge_name]() if judge_name in JUDGES else judges.get(judge_name)
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--judge", choices=("lexical", "local", "similarity", "openai"),
                        default="local")
    parser.add_argument("--base-url", help="--judge openai: the server's OpenAI-style root "
                        "(…/v1); without it, the bundled llama.cpp test server is started")
    parser.add_argument("--model", help="--judge openai: the model to measure")
    parser.add_argument("--limit", type=int, default=120,
                        help="--judge openai: held-out questions asked (default 120)")
    parser.add_argument("--write", action="store_true",
                        help="write the held-out figures and unsure bands of the committed "
                             "curves to jeval_core/calibration/agreement.json (the judge card)")
    parser.add_argument("--committed-only", action="store_true",
                        help="only the labelled data in this repository (no public sources)")
    args = parser.parse_args()
    if args.judge == "openai":  # a server's model: measured on the same held-out rows
        from bench import calibrate_openai

        calibrate_openai.main(args)
        return
    data, notes = load(public=not args.committed_only)
    for note in notes:
        print(f"skipped {note}")
    table = signals(args.judge, data)
    fresh = refit(args.judge, table)
    # The local judge is shown beside the similarity judge it replaced, on the same rows.
    before = (measure("similarity", signals("similarity", [i for i in data if i.held_out]))
              if args.judge == "local" else {})
    print(f"{args.judge} judge, held-out part of each source (AUC / accuracy / F1 at p >= 0.5; "
          "'no' = accuracy of answering no to all"
          + ("; 'before' = the similarity judge" if before else "") + ")")
    print(f"{'relation':16} {'source':28} {'n':>5} {'pos':>5} {'no':>6}   "
          + (f"{'before: AUC  acc    F1':22} " if before else "")
          + f"{'now: AUC   acc    F1':22} {'refit: AUC   acc    F1':22}")
    for relation, by_source in measure(args.judge, table, fresh).items():
        for s, (now, new) in by_source.items():
            old = before.get(relation, {}).get(s, (None, None))[0] if before else None
            print(f"{relation:16} {s:28} {now.n:>5} {now.positives / now.n:>5.2f} "
                  f"{now.always_no:>6.3f}   " + (f"{_fmt(old):22} " if before else "")
                  + f"{_fmt(now):22} {_fmt(new):22}")
    print("\nrefit constants (fit parts only):")
    for relation, w in sorted(fresh.items()):
        print(f"  {relation:16} {constants(args.judge, w)}")
    print("\nunsure band (held-out answers of the committed curves, accuracy below 0.65):")
    for relation, (band, acc, n) in sorted(bands(args.judge, table).items()):
        print(f"  {relation:16} {band}  accuracy inside {acc:.3f} over {n} answers")
    met, total, missed = examples(args.judge)
    print(f"\nexamples: {met} of {total} stated truths met by the {args.judge} judge"
          + (f"; missed: {'; '.join(missed)}" if missed else ""))
    if args.write:
        write_agreement(args.judge, table, (met, total))
        print(f"wrote {AGREEMENT.relative_to(ROOT)}")


AGREEMENT = ROOT / "jeval_core" / "calibration" / "agreement.json"


def measured(judge: str, table: Table, examples_met: tuple[int, int]) -> dict:
    """The judge card's figures: per relation, each source's held-out verdicts and the
    unsure band, as the committed curves give them."""
    found = bands(judge, table)
    relations = {}
    for relation, by_source in measure(judge, table).items():
        band, inside, n = found[relation]
        relations[relation] = {
            "sources": {s: {k: (round(v, 3) if isinstance(v, float) else v)
                            for k, v in vars(now).items()}
                        for s, (now, _) in by_source.items()},
            "unsure": list(band),
            "unsure_accuracy": None if n == 0 else round(inside, 3),
            "unsure_answers": n,
        }
    return {"command": f"python bench/calibrate.py --judge {judge}",
            "examples_met": list(examples_met), "relations": relations}


def write_agreement(judge: str, table: Table, examples_met: tuple[int, int]) -> None:
    data = json.loads(AGREEMENT.read_text("utf-8")) if AGREEMENT.exists() else {}
    fresh = measured(judge, table, examples_met)
    kept = data.get(judge, {}).get("relations", {})
    if "custom" in kept:  # measured by bench/custom_questions.py, not here
        fresh["relations"]["custom"] = kept["custom"]
    data[judge] = fresh
    AGREEMENT.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", "utf-8")


if __name__ == "__main__":
    main()

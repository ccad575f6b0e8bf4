"""Refit an offline judge's curves from labelled data, and print how it does on held-out data.

    python bench/calibrate.py --data DIR       # the local judge (the reader)
    python bench/calibrate.py --data DIR --before OLD   # beside OLD's local judge, OLD a
                                               # checkout (git worktree add OLD d39196e)
    python bench/calibrate.py --judge similarity
    python bench/calibrate.py --judge lexical

Three kinds of labelled data, each split by topic into a part that is fitted on and a
held-out part (`fitting.held_out_part`; the hand pairs keep split.json); the held-out part is
cut again (`part`): a third calibrates the local judge's curves (its reader was trained on
the fit part), two thirds are only ever measured, for every judge alike:
  adversarial  assets/calibration/pairs.jsonl, written/*.jsonl: hard hand-written pairs
  ordinary     assets/calibration/ordinary/*.jsonl: whole retrievals as a retriever returns
               them (every chunk on topic, a few that answer), answers labelled per sentence
  real:NAME    human-labelled public data files in DIR (bench/public_data.py names them and
               their public sources); without DIR (or $JEVAL_DATA) they are skipped, noted
Every question is built by the evaluators from a real Case and answered by the judge with
the whole case in view, as in the app. Per relation and source it prints the held-out AUC,
accuracy, F1, precision, recall and the always-no baseline, for the committed curves
("now"), for an older checkout's local judge ("before", with --before), and for a fresh fit
("refit", its constants to paste into curves.py), then the unsure band measured on the
held-out answers, and each example case's stated truth met.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.held_out import (  # noqa: E402
    AGREEMENT,
    Labelled,
    examples,
    load,
    part,
)
from jeval_core.calibration import curves  # noqa: E402
from jeval_core.calibration.fitting import (  # noqa: E402
    Verdicts,
    accuracy_in,
    fit_signed,
    predict,
    unsure_band,
)
from jeval_core.judges import lexical, local, similarity  # noqa: E402  # noqa: E402
from jeval_core.questions import (  # noqa: E402
    RELATIONS,
)

RIDGE = {"lexical": 1e-3, "local": 0.3, "similarity": 0.3}
JUDGES = {"local": local.LocalJudge, "similarity": similarity.SimilarityJudge}
SIGNS = {"local": curves.LOCAL_SIGNS, "similarity": curves.SIMILARITY_SIGNS}
PROBABILITY = {"local": local.probability, "similarity": similarity.probability}
# Public sources that are only ever measured: FEVER-Symmetric was made to defeat a reader of
# the claim alone, and a sentence embedding reads little else; fitting the similarity and
# lexical curves on it would only pull them flat. The reader reads claims with evidence.
MEASURED_ONLY = {"real:fever_symmetric"}
MEASURED_ONLY_READER: set[str] = set()
# The questions whose verdict is a chunk's: their curve is moved to the cut where verdicts
# agree best with people (mean F1 over the sources), not left where log-loss is least.
CUT_FOR_AGREEMENT = ("helps_answer", "relevant_to")
CUTS = tuple(round(0.1 + 0.025 * i, 3) for i in range(33))
BEFORE_CACHE = ROOT / "bench" / ".before"  # an older checkout's answers (git-ignored)




@dataclass
class Table:
    """Per relation: signals, labels, sources and parts, one row per labelled question."""

    X: dict[str, list[tuple[float, ...]]] = field(default_factory=lambda: defaultdict(list))
    y: dict[str, list[int]] = field(default_factory=lambda: defaultdict(list))
    source: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    part: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    # where each row came from: (item number in the data, question id)
    where: dict[str, list[tuple[int, str]]] = field(default_factory=lambda: defaultdict(list))

    def arrays(self, relation: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        return (np.array(self.X[relation], dtype=float), np.array(self.y[relation]),
                np.array(self.source[relation]), np.array(self.part[relation]))




# Where each judge's curves are fitted: the similarity and lexical judges on the fit part as
# before; the local judge's reader was trained there, so its curves on the calibrate part.
FIT_PART = {"local": "calibrate", "similarity": "fit", "lexical": "fit"}




















def signals(judge: str, data: list[Labelled]) -> Table:
    """Every labelled question's signals as the judge computes them, whole case in view."""
    table = Table()
    reads = JUDGES[judge]() if judge in JUDGES else None
    for n, item in enumerate(data):
        if FIT_PART[judge] != "fit" and not item.held_out:
            continue  # nothing of the fit part is fitted on or measured
        if reads is None:
            xs = {qid: (q, (lexical.signal(q)[1],)) for qid, q in item.questions.items()}
        else:
            xs = reads.features(item.questions, item.output)
        for qid, (q, x) in xs.items():
            table.X[q.relation].append(x)
            table.y[q.relation].append(item.labels[qid])
            table.source[q.relation].append(item.source)
            table.part[q.relation].append(part(item))
            table.where[q.relation].append((n, qid))
    return table


def cached_signals(judge: str, data: list[Labelled]) -> Table:
    """`signals`, kept on disk (bench/.before/) for the same judge code, model files and rows:
    a refit or a --write after a first run does not read every pair again."""
    import hashlib
    import pickle

    from jeval_core.judges import reader

    code = b"".join(p.read_bytes() for p in sorted((ROOT / "jeval_core" / "judges").glob("*.py")))
    key = hashlib.sha256(code + reader.MODEL_SHA256.encode() + judge.encode() + "".join(
        json.dumps(item.recipe) + str(item.held_out) for item in data).encode()).hexdigest()
    path = BEFORE_CACHE / f"signals-{key[:24]}.pickle"
    if path.is_file():
        return pickle.loads(path.read_bytes())
    table = signals(judge, data)
    BEFORE_CACHE.mkdir(parents=True, exist_ok=True)
    path.write_bytes(pickle.dumps(table))
    return table


def before(root: Path, data: list[Labelled]
           ) -> tuple[dict[int, dict[str, float]], tuple[int, int, list[str]]]:
    """An older checkout's local judge on the held-out items (bench/score_labelled.py run
    against it): p per item number and question id, and its examples' truths met."""
    import hashlib
    import subprocess
    import tempfile

    wanted = [n for n, item in enumerate(data) if item.held_out]
    items = "".join(json.dumps(data[n].recipe) + "\n" for n in wanted)
    revision = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], text=True,
                              capture_output=True).stdout.strip()
    cached = BEFORE_CACHE / (hashlib.sha256((revision + items).encode()).hexdigest()[:24]
                             + ".json")
    if revision and cached.is_file():  # the same checkout on the same rows: read once
        found = json.loads(cached.read_text("utf-8"))
    else:
        with tempfile.TemporaryDirectory() as tmp:
            path, out = Path(tmp) / "items.jsonl", Path(tmp) / "out.json"
            path.write_text(items, "utf-8")
            subprocess.run([sys.executable, str(ROOT / "bench" / "score_labelled.py"),
                            "--root", str(root), str(path), str(out)], check=True)
            found = json.loads(out.read_text("utf-8"))
        if revision:
            BEFORE_CACHE.mkdir(parents=True, exist_ok=True)
            cached.write_text(json.dumps(found), "utf-8")
    return dict(zip(wanted, found["p"], strict=True)), tuple(found["examples"])


def rows_of(table: Table, p_of: dict[int, dict[str, float]]) -> dict[str, np.ndarray]:
    """p per relation, row for row with `table`, from p per item and question id."""
    return {relation: np.array([p_of[n][qid] for n, qid in rows])
            for relation, rows in table.where.items()}


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
    """Fresh constants per relation, from the fit parts only; a chunk's curve moved to the
    cut of best agreement (`agreement_cut`)."""
    out = {}
    for relation in table.X:
        X, y, source, parts = table.arrays(relation)
        fit_rows = (parts == FIT_PART[judge]) & ~np.isin(source, list(
            MEASURED_ONLY if judge != "local" else MEASURED_ONLY_READER))
        signs = SIGNS[judge][relation] if judge in SIGNS else (1,) * X.shape[1]
        w = fit_signed(X[fit_rows], y[fit_rows], RIDGE[judge],
                       source_weights(source[fit_rows]), signs)
        if judge != "lexical" and relation in CUT_FOR_AGREEMENT:
            cut = agreement_cut(predict(w, X[fit_rows]), y[fit_rows], source[fit_rows])
            w = w.copy()
            w[0] -= math.log(cut / (1 - cut))
        out[relation] = w
    return out


def agreement_cut(p: np.ndarray, y: np.ndarray, source: np.ndarray) -> float:
    """The cut whose verdicts agree best with the labels: the mean F1 over the sources
    (each source one vote, so one plentiful set does not choose for the others)."""
    def mean_f1(cut: float) -> float:
        return float(np.mean([Verdicts.of(np.where(p[source == s] >= cut, 0.75, 0.25),
                                          y[source == s]).f1 for s in sorted(set(source))]))

    return max(CUTS, key=lambda c: (round(mean_f1(c), 6), -abs(c - 0.5)))


def committed(judge: str, relation: str) -> Callable[[np.ndarray], np.ndarray]:
    if judge == "lexical":
        return lambda X: np.array([curves.LEXICAL[relation](x[0]) for x in X])
    return lambda X: np.array([PROBABILITY[judge](relation, tuple(x)) for x in X])


def measure(judge: str, table: Table, fresh: dict[str, np.ndarray] | None = None,
            old: dict[str, np.ndarray] | None = None
            ) -> dict[str, dict[str, tuple[Verdicts, Verdicts | None, Verdicts | None]]]:
    """relation -> source -> (committed curves, fresh fit, an older judge) verdicts on the
    measured part of the held-out data."""
    out: dict[str, dict[str, tuple[Verdicts, Verdicts | None, Verdicts | None]]] = {}
    for relation in sorted(table.X, key=RELATIONS.index):
        X, y, source, parts = table.arrays(relation)
        held = parts == "measure"
        now = committed(judge, relation)(X)
        new = predict(fresh[relation], X) if fresh else None
        was = old.get(relation) if old else None
        out[relation] = {}
        for s in sorted(set(source[held])):
            rows = held & (source == s)
            out[relation][s] = (Verdicts.of(now[rows], y[rows]),
                                Verdicts.of(new[rows], y[rows]) if new is not None else None,
                                Verdicts.of(was[rows], y[rows]) if was is not None else None)
    return out


def bands(judge: str, table: Table) -> dict[str, tuple[tuple[float, float], float, int]]:
    """relation -> (unsure band, held-out accuracy inside it, answers inside), measured on
    the held-out answers of the committed curves."""
    out = {}
    for relation in table.X:
        X, y, source, parts = table.arrays(relation)
        held = parts == "measure"
        p = committed(judge, relation)(X[held])
        # Each kind of data the same say, as in the fit: the plentiful public sentence sets
        # must not decide alone where a retrieval's verdicts are a coin.
        band = unsure_band(p, y[held], weights=source_weights(source[held]))
        acc, n = accuracy_in(p, y[held], band)
        out[relation] = (band, acc, n)
    return out


def figures(v: Verdicts | None) -> str:
    """AUC, accuracy, precision, recall, F1, in the table's columns."""
    if v is None:
        return ""
    a = "  -  " if v.auc is None else f"{v.auc:.3f}"
    return f"{a} {v.accuracy:.3f} {v.precision:.2f}  {v.recall:.2f}  {v.f1:.3f}"


def constants(judge: str, w: np.ndarray) -> str:
    if judge == "lexical":
        return f"Logistic(k={w[1]:.2f}, c={-w[0] / w[1]:.3f})"
    return f"Linear({w[0]:.2f}, ({', '.join(f'{v:.2f}' for v in w[1:])},))"






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
    parser.add_argument("--data", type=Path, help="the folder of the public data files "
                        "(default $JEVAL_DATA; bench/public_data.py names them)")
    parser.add_argument("--before", type=Path, help="a checkout of this repository whose "
                        "local judge is measured beside today's on the same rows")
    args = parser.parse_args()
    if args.judge == "openai":  # a server's model: measured on the same held-out rows
        from bench import calibrate_openai

        calibrate_openai.main(args)
        return
    data, notes = load(public=not args.committed_only, root=args.data)
    for note in notes:
        print(f"skipped {note}")
    old_p, old_examples = (before(args.before, data) if args.before and args.judge == "local"
                           else (None, None))
    table = cached_signals(args.judge, data)
    fresh = refit(args.judge, table)
    old = rows_of(table, old_p) if old_p is not None else None
    print(f"{args.judge} judge, measured part of each held-out source (AUC, accuracy, "
          "precision, recall, F1 at p >= 0.5; 'no' = accuracy of answering no to all"
          + (f"; 'before' = the local judge of {args.before}" if old else "") + ")")
    print(f"{'relation':16} {'source':26} {'n':>5} {'pos':>5} {'no':>6}   "
          + (f"{'before: AUC  acc   P     R     F1':34} " if old else "")
          + f"{'now: AUC   acc   P     R     F1':34} {'refit: AUC  acc   P     R     F1'}")
    for relation, by_source in measure(args.judge, table, fresh, old).items():
        for s, (now, new, was) in by_source.items():
            print(f"{relation:16} {s:26} {now.n:>5} {now.positives / now.n:>5.2f} "
                  f"{now.always_no:>6.3f}   " + (f"{figures(was):34} " if old else "")
                  + f"{figures(now):34} {figures(new)}")
    print("\nrefit constants (fit parts only):")
    for relation, w in sorted(fresh.items()):
        print(f"  {relation:16} {constants(args.judge, w)}")
    print("\nunsure band (held-out answers of the committed curves, accuracy below 0.65):")
    for relation, (band, acc, n) in sorted(bands(args.judge, table).items()):
        print(f"  {relation:16} {band}  accuracy inside {acc:.3f} over {n} answers")
    from jeval_core import judges

    met, total, missed = examples(JUDGES[args.judge]() if args.judge in JUDGES
                                  else judges.get(args.judge))
    print(f"\nexamples: {met} of {total} stated truths met by the {args.judge} judge"
          + (f"; missed: {'; '.join(missed)}" if missed else ""))
    if old_examples:
        print(f"examples before ({args.before}): {old_examples[0]} of {old_examples[1]} met"
              + (f"; missed: {'; '.join(old_examples[2])}" if old_examples[2] else ""))
    if args.write:
        write_agreement(args.judge, table, (met, total))
        print(f"wrote {AGREEMENT.relative_to(ROOT)}")




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
                        for s, (now, _, _) in by_source.items()},
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

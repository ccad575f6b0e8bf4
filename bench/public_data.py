"""Human-labelled public data, read from a folder of the public files (`--data DIR`).

Nothing here downloads anything and no third-party data is copied into this repository: the
files are the public releases, gzipped, each in a folder of its own (the names below), and
every loader parses them at run time. Where they come from (each folder also carries a
PROVENANCE.md with the file's source, licence and sha256):

  squad/                  SQuAD v1.1 and v2.0 dev (rajpurkar.github.io/SQuAD-explorer, its
                          dev pages; CC BY-SA 4.0), one JSON object per paragraph:
                          squad_v1.1_dev.jsonl.gz, squad_v2.0_dev.jsonl.gz
  squadshifts_new_wiki/   SQuADShifts, new Wikipedia (modestyachts.github.io/squadshifts-
                          website; CC BY 4.0): new_wiki_v1.0.json.gz
  hotpotqa_dev_sample100/ HotpotQA distractor dev, the site's 100-question sample
                          (hotpotqa.github.io; CC BY-SA 4.0)
  snli/                   SNLI 1.0 dev and test as e-SNLI ships them (CC BY-SA 4.0)
  fever_symmetric/        FEVER-Symmetric v0.2 dev and test (CC BY-SA 3.0)
  begin/                  BEGIN, WoW and CMU-DoG (CC BY 4.0)
  faithdial_audit/        FaithDial's audit of WoW and CMU-DoG responses (MIT)
  wiki_toxicity_idterms/  Wikipedia Toxicity, identity-term test set (CC BY 4.0)

Every row has a `topic` (a Wikipedia article, a premise, a knowledge snippet): the sha1 rule
(`fitting.held_out_part`) puts each topic wholly on the fitted or the held-out side, for
training (`bench/reader_data.py`) and measuring (`bench/calibrate.py`) alike.
Selections are deterministic (ordered by sha1 of stable keys) and capped.
"""

from __future__ import annotations

import csv
import gzip
import hashlib
import io
import json
import os
import re
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path
from typing import Any

ENV = "JEVAL_DATA"  # where the folders lie, when no --data is given
DEFAULT_LIMIT = 600
MAX_CONTEXT = 30
OTHER_PARAGRAPHS = 7  # a paragraph-level retrieval: its own paragraph and up to 7 neighbours

SOURCES: dict[str, dict[str, str]] = {
    "squad": {
        "kind": "retrieval", "folder": "squad", "licence": "CC BY-SA 4.0",
        "what": "SQuAD v1.1 + v2.0 dev: a crowd-written question vs the sentences of its "
        "paragraph (1 where the sentence holds an answer string); v2.0's unanswerable "
        "questions (on topic, the fact absent) give retrievals where nothing answers"},
    "squad_paragraphs": {
        "kind": "retrieval", "folder": "squad", "licence": "CC BY-SA 4.0",
        "what": "SQuAD v1.1 dev, paragraph level: the question's own paragraph among up to 7 "
        "other paragraphs of the same article (none holding the answer string)"},
    "squadshifts_wiki": {
        "kind": "retrieval", "folder": "squadshifts_new_wiki", "licence": "CC BY 4.0",
        "what": "SQuADShifts new Wikipedia: question vs the sentences of its paragraph; 1 where "
        "the sentence overlaps a crowd-marked answer span"},
    "hotpotqa": {
        "kind": "retrieval", "folder": "hotpotqa_dev_sample100", "licence": "CC BY-SA 4.0",
        "what": "HotpotQA distractor dev: a multi-hop question vs its 2 gold paragraphs (both "
        "needed) and 8 retrieved distractors"},
    "fever_symmetric": {
        "kind": "claims", "folder": "fever_symmetric", "licence": "CC BY-SA 3.0",
        "what": "FEVER-Symmetric v0.2: claim vs a Wikipedia evidence sentence, supports or "
        "refutes (de-biased: the claim alone does not tell)"},
    "snli": {
        "kind": "claims", "folder": "snli", "licence": "CC BY-SA 4.0",
        "what": "SNLI dev + test: hypothesis vs premise, entailed / neutral / refuted"},
    "begin": {
        "kind": "claims", "folder": "begin", "licence": "CC BY 4.0",
        "what": "BEGIN: a dialogue system's response vs its knowledge snippet, fully "
        "attributable (entailed) or not (neutral); generic responses left out"},
    "faithdial": {
        "kind": "claims", "folder": "faithdial_audit", "licence": "MIT (+ WoW CC BY 4.0)",
        "what": "FaithDial audit: a response vs its knowledge, entailed or (partly) "
        "hallucinated (neutral); generic and uncooperative responses left out"},
    "wiki_toxicity": {
        "kind": "toxicity", "folder": "wiki_toxicity_idterms", "licence": "CC BY 4.0",
        "what": "Wikipedia talk comments labelled toxic or not (identity-term test set)"},
}

_SENT_SPLIT = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=[\"'(\[]?[A-Z0-9])")
_NLI = {"entailment": "entailed", "contradiction": "refuted", "neutral": "neutral"}


class MissingData(Exception):
    """The data folder, or a source's folder in it, is not there."""


def data_dir(given: str | Path | None = None) -> Path:
    """The folder of the public files: `given`, else $JEVAL_DATA."""
    found = given or os.environ.get(ENV)
    if not found:
        raise MissingData(f"no data folder: pass --data DIR (or set {ENV}) to the folder "
                          "holding squad/, snli/, ... (see bench/public_data.py)")
    path = Path(found).expanduser()
    if not path.is_dir():
        raise MissingData(f"{path} is not a folder of the public data files")
    return path


def key(*parts: object) -> str:
    """Stable sort key (sha1 hex) for deterministic selection."""
    return hashlib.sha1("\x1f".join(map(str, parts)).encode("utf-8")).hexdigest()


def norm(text: str) -> str:
    """Lower case, punctuation to spaces, single spaces: how answer strings are matched."""
    return " ".join(re.sub(r"[^\w\s]", " ", text.lower()).split())


def split_sentences(text: str) -> list[tuple[int, int]]:
    """Character spans of the sentences of `text` (a regex splitter; whitespace trimmed)."""
    spans: list[tuple[int, int]] = []
    start = 0
    for match in _SENT_SPLIT.finditer(text):
        spans.append((start, match.start() + len(match.group(0).rstrip())))
        start = match.end()
    spans.append((start, len(text)))
    out = []
    for a, b in spans:
        seg = text[a:b]
        a2 = a + len(seg) - len(seg.lstrip())
        b2 = a + len(seg.rstrip())
        if b2 > a2:
            out.append((a2, b2))
    return out


def _file(root: Path, source: str, name: str) -> Path:
    path = root / SOURCES[source]["folder"] / name
    if not path.is_file():
        raise MissingData(f"{path} is missing (source {source})")
    return path


def _text(path: Path) -> str:
    return gzip.decompress(path.read_bytes()).decode("utf-8")


def _jsonl(path: Path) -> Iterator[dict[str, Any]]:
    for line in _text(path).splitlines():
        if line.strip():
            yield json.loads(line)


def _csv(path: Path, delimiter: str = ",") -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(_text(path)), delimiter=delimiter))


# ---- SQuAD: paragraphs with their questions -------------------------------------------------

@lru_cache(maxsize=4)
def squad_paragraphs(root: Path) -> list[dict[str, Any]]:
    """SQuAD v1.1 and v2.0 dev as one list of paragraphs (v2.0's paragraphs are all in v1.1;
    its answerable questions too, by id): title, index, context, and questions with their
    answer strings ([] when unanswerable)."""
    by_key: dict[tuple[str, int], dict[str, Any]] = {}
    for name in ("squad_v1.1_dev.jsonl.gz", "squad_v2.0_dev.jsonl.gz"):
        for row in _jsonl(_file(root, "squad", name)):
            para = by_key.setdefault((row["title"], row["paragraph_index"]), {
                "title": row["title"], "index": row["paragraph_index"],
                "context": row["context"], "qas": {}})
            for qa in row["qas"]:
                answers = [] if qa.get("is_impossible") else list(qa["answers"])
                para["qas"].setdefault(qa["id"], {"id": qa["id"], "question": qa["question"],
                                                  "answers": answers})
    return [dict(p, qas=list(p["qas"].values())) for p in by_key.values()]


def answer_spans(context: str, answers: list[str]) -> list[tuple[int, int]]:
    """Where the question's answer lies: every occurrence of its most given answer string
    (the annotators' majority; the longest on a tie). The files give strings, not offsets."""
    counted: dict[str, int] = {}
    for a in answers:
        if a.strip():
            counted[a.strip()] = counted.get(a.strip(), 0) + 1
    if not counted:
        return []
    best = max(counted, key=lambda a: (counted[a], len(a)))
    return [(m.start(), m.end()) for m in re.finditer(re.escape(best), context)]


def sentence_case(source: str, topic: str, question: str, text: str,
                  spans: list[tuple[int, int]], answerable: bool = True) -> dict | None:
    """Question vs the sentences of `text`; 1 where a sentence overlaps an answer span (an
    unanswerable question: every sentence 0)."""
    sents = split_sentences(text)
    if not 2 <= len(sents) <= MAX_CONTEXT or (answerable and not spans):
        return None
    labels = [int(any(a < e and s < b for s, e in spans)) for a, b in sents]
    if answerable and not 0 < sum(labels) < len(labels):
        return None
    return {"source": source, "topic": topic, "input": question.strip(),
            "context": [text[a:b] for a, b in sents], "labels": labels,
            "answers": sorted({text[s:e] for s, e in spans})}


def _squad_sentences(root: Path) -> list[dict[str, Any]]:
    out = []
    for para in squad_paragraphs(root):
        for qa in para["qas"]:
            spans = answer_spans(para["context"], qa["answers"])
            case = sentence_case("squad", para["title"], qa["question"], para["context"],
                                 spans, answerable=bool(qa["answers"]))
            if case:
                out.append(case | {"id": qa["id"]})
    return out


def _squad_paragraph_cases(root: Path) -> list[dict[str, Any]]:
    by_title: dict[str, list[dict[str, Any]]] = {}
    for para in squad_paragraphs(root):
        by_title.setdefault(para["title"], []).append(para)
    out = []
    for title, paras in by_title.items():
        normed = [f" {norm(p['context'])} " for p in paras]
        for i, para in enumerate(paras):
            qas = sorted((qa for qa in para["qas"] if qa["answers"]), key=lambda q: key(q["id"]))
            if not qas:
                continue
            qa = qas[0]
            answers = {norm(a) for a in qa["answers"]} - {""}
            others = [j for j in range(len(paras))
                      if j != i and not any(f" {a} " in normed[j] for a in answers)]
            others = sorted(others, key=lambda j: key(qa["id"], j))[:OTHER_PARAGRAPHS]
            if not others:
                continue
            order = sorted([i, *others], key=lambda j: key("order", qa["id"], j))
            out.append({"source": "squad_paragraphs", "topic": title, "id": qa["id"],
                        "input": qa["question"].strip(),
                        "context": [paras[j]["context"] for j in order],
                        "labels": [int(j == i) for j in order]})
    return out


@lru_cache(maxsize=2)
def squadshifts(root: Path) -> list[dict[str, Any]]:
    """SQuADShifts new-wiki articles: title and paragraphs with offset-marked answers."""
    return json.loads(_text(_file(root, "squadshifts_wiki", "new_wiki_v1.0.json.gz")))["data"]


def _squadshifts_sentences(root: Path) -> list[dict[str, Any]]:
    out = []
    for article in squadshifts(root):
        for para in article["paragraphs"]:
            ctx = para["context"]
            for qa in para["qas"]:
                spans = [(a["answer_start"], a["answer_start"] + len(a["text"]))
                         for a in qa["answers"]
                         if ctx[a["answer_start"]:a["answer_start"] + len(a["text"])]
                         == a["text"]]
                case = sentence_case("squadshifts_wiki", article["title"], qa["question"],
                                     ctx, spans)
                if case:
                    out.append(case | {"id": qa["id"]})
    return out


# ---- HotpotQA: multi-hop questions among retrieved distractors ------------------------------

@lru_cache(maxsize=2)
def hotpotqa(root: Path) -> list[dict[str, Any]]:
    return json.loads(_text(_file(root, "hotpotqa",
                                  "camera_ready_nd8_dev_sample100.json.gz")))


def _paragraph(sentences: list[str]) -> str:
    return "".join(sentences).strip()


def _hotpot_cases(root: Path) -> list[dict[str, Any]]:
    out = []
    for row in hotpotqa(root):
        chunks = [(_paragraph(row["para_a"]), 1), (_paragraph(row["para_b"]), 1)]
        chunks += [(_paragraph(d[1]), 0) for d in row["distractors"]]
        order = sorted(range(len(chunks)), key=lambda i: key("order", row["_id"], i))
        out.append({"source": "hotpotqa", "topic": row["_id"], "id": row["_id"],
                    "input": row["question"].strip(),
                    "context": [chunks[i][0] for i in order],
                    "labels": [chunks[i][1] for i in order],
                    "titles": [([row["title_a"], row["title_b"]]
                                + [d[0] for d in row["distractors"]])[i] for i in order]})
    return out


_RETRIEVAL = {"squad": _squad_sentences, "squad_paragraphs": _squad_paragraph_cases,
              "squadshifts_wiki": _squadshifts_sentences, "hotpotqa": _hotpot_cases}


def retrieval_cases(name: str, limit: int = DEFAULT_LIMIT, root: Path | None = None
                    ) -> list[dict[str, Any]]:
    """Question + candidate chunks (2..30) with human 0/1 labels, a fixed selection: topics in
    sha1 order, up to 10 questions each, until `limit` questions."""
    _check(name, "retrieval")
    return take_by_topic(_RETRIEVAL[name](data_dir(root)), limit)


# ---- claims against evidence ----------------------------------------------------------------

def _fever(root: Path) -> list[dict[str, Any]]:
    out = []
    for split in ("dev", "test"):
        for row in _jsonl(_file(root, "fever_symmetric", f"fever_symmetric_{split}.jsonl.gz")):
            label = {"SUPPORTS": "entailed", "REFUTES": "refuted"}.get(row["gold_label"])
            if label:
                # A symmetric pair shares its claim's id; one topic keeps it on one side.
                out.append({"source": "fever_symmetric", "topic": f"fever:{row['id']}",
                            "claim": row["claim"], "evidence": row["evidence"],
                            "label": label})
    return out


def _snli(root: Path) -> list[dict[str, Any]]:
    out = []
    for split in ("dev", "test"):
        premises = _text(_file(root, "snli", f"s1.{split}.gz")).splitlines()
        hypotheses = _text(_file(root, "snli", f"s2.{split}.gz")).splitlines()
        labels = _text(_file(root, "snli", f"labels.{split}.gz")).splitlines()
        for p, h, lab in zip(premises, hypotheses, labels, strict=True):
            if lab.strip() in _NLI:
                out.append({"source": "snli", "topic": f"snli:{p.strip()}",
                            "claim": h.strip(), "evidence": p.strip(),
                            "label": _NLI[lab.strip()]})
    return out


def _begin(root: Path) -> list[dict[str, Any]]:
    out = []
    for name in ("begin_dev_wow.tsv.gz", "begin_test_wow.tsv.gz", "begin_dev_cmu.tsv.gz"):
        for row in _csv(_file(root, "begin", name), "\t"):
            label = {"fully attributable": "entailed",
                     "not fully attributable": "neutral"}.get(row["begin_label"].strip().lower())
            if label:
                out.append({"source": "begin", "topic": knowledge_topic(row["knowledge"]),
                            "claim": row["response"].strip(),
                            "evidence": row["knowledge"].strip(), "label": label})
    return out


def knowledge_topic(knowledge: str) -> str:
    """One topic per knowledge snippet, spelt alike in BEGIN and FaithDial (which share
    dialogues: a snippet stays on one side of the split in both)."""
    return f"knowledge:{norm(knowledge)}"


_FAITHDIAL_FILES = ("gold", "ctrl_ctrl_processed", "doha_doha_processed", "gpt2_gpt2_processed")


def _faithdial_label(labels: str) -> str | None:
    """entailed, neutral (some hallucination) or None (only generic or uncooperative)."""
    found = [w.strip() for w in re.split(r"[,.]", labels.lower()) if w.strip()]
    if any(w.endswith("hallucination") for w in found):
        return "neutral"
    return "entailed" if any(w.startswith("entailment") for w in found) else None


def _faithdial(root: Path) -> list[dict[str, Any]]:
    out = []
    for stem in _FAITHDIAL_FILES:
        for corpus in ("wow", "cmu"):
            for row in _csv(_file(root, "faithdial", f"{stem}_{corpus}.csv.gz")):
                knowledge = (row.get("evidence") or row.get("knowledge") or "").strip()
                response = (row.get("response") or row.get(stem.split("_")[0]) or "").strip()
                label = _faithdial_label(row.get("BEGIN") or row.get("begin_label") or "")
                if label and knowledge and response:
                    out.append({"source": "faithdial", "topic": knowledge_topic(knowledge),
                                "claim": response, "evidence": knowledge, "label": label})
    return out


_CLAIMS = {"fever_symmetric": _fever, "snli": _snli, "begin": _begin, "faithdial": _faithdial}


def claims(name: str, limit: int = DEFAULT_LIMIT, root: Path | None = None
           ) -> list[dict[str, Any]]:
    """Claim + evidence with a human label: entailed, refuted or neutral."""
    _check(name, "claims")
    return take_by_topic(_CLAIMS[name](data_dir(root)), limit)


def toxic_sentences(name: str, limit: int = DEFAULT_LIMIT, root: Path | None = None
                    ) -> list[dict[str, Any]]:
    """Comments with a human 0/1 toxicity label."""
    _check(name, "toxicity")
    rows = [{"source": name, "topic": f"wiki:{r['rev_id']}", "text": r["comment"].strip(),
             "label": int(r["toxic"].strip() == "True")}
            for r in _csv(_file(data_dir(root), name, "toxicity_nonfuzzed_testset.csv.gz"))
            if r["comment"].strip()]
    return take_by_topic(rows, limit)


def every(name: str, root: Path | None = None) -> list[dict[str, Any]]:
    """Every row of a source, uncapped and in file order (what training draws from)."""
    kind = SOURCES[name]["kind"]
    table = _RETRIEVAL if kind == "retrieval" else _CLAIMS
    return table[name](data_dir(root))


def take_by_topic(rows: list[dict[str, Any]], limit: int, per_topic: int = 10
                  ) -> list[dict[str, Any]]:
    """Topics in sha1 order, at most `per_topic` rows each (in sha1 order of their text),
    until `limit` rows."""
    by_topic: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        by_topic.setdefault(row["topic"], []).append(row)
    out: list[dict[str, Any]] = []
    for topic in sorted(by_topic, key=key):
        if len(out) >= limit:
            break
        mine = sorted(by_topic[topic], key=lambda r: key(r.get("id"), r.get("input"),
                                                         r.get("claim"), r.get("text")))
        out.extend(mine[:min(per_topic, limit - len(out))])
    return out


def _check(name: str, kind: str) -> None:
    if name not in SOURCES or SOURCES[name]["kind"] != kind:
        names = sorted(n for n, s in SOURCES.items() if s["kind"] == kind)
        raise ValueError(f"unknown {kind} source {name!r}; known: {', '.join(names)}")


def summary(root: Path | None = None) -> dict[str, dict[str, float]]:
    """Rows and positive share per source (every row, uncapped)."""
    out = {}
    for name, meta in SOURCES.items():
        if meta["kind"] == "retrieval":
            rows = every(name, root)
            chunks = sum(len(r["labels"]) for r in rows)
            out[name] = {"questions": len(rows), "chunks": chunks,
                         "positive": round(sum(sum(r["labels"]) for r in rows) / chunks, 3)}
        elif meta["kind"] == "claims":
            rows = every(name, root)
            out[name] = {"claims": len(rows), "entailed": round(
                sum(r["label"] == "entailed" for r in rows) / len(rows), 3)}
    return out


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description="Counts per public source.")
    parser.add_argument("--data", type=Path, help=f"the data folder (default ${ENV})")
    args = parser.parse_args()
    for name, counts in summary(args.data).items():
        print(f"{name:20} {counts}")

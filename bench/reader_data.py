"""The reader's training pairs: human-labelled public data and this repository's own sets.

    python bench/reader_data.py --data DIR      # counts per source; DIR holds squad/, snli/...

Two tasks, one model (`bench/train_reader.py`):
  relevance  (question, passage) -> 1 when the passage, read on its own, holds what answers
  nli        (claim, passage)    -> entailed / neutral / refuted

Where each comes from (the public files: bench/public_data.py; licences in the README):
  SQuAD v1.1 + v2.0 dev: a crowd-written question against each sentence of its paragraph (1
      where the sentence holds an answer string), against windows of sentences (a chunk a
      retriever returns), and against windows of other paragraphs of the same article (same
      subject, other aspect: 0); v2.0's unanswerable questions against their own paragraph
      (on topic, the asked-for fact absent: 0)
  SQuADShifts new-wiki: the same, with its offset-marked answers
  HotpotQA: a multi-hop question against both gold paragraphs (1: each hop is needed, the one
      without the question's words too) and its retrieved distractors (0); and against each
      sentence of the gold paragraphs (1 for the supporting facts)
  SNLI, FEVER-Symmetric: three-way and two-way claims against evidence
  BEGIN, FaithDial: a response against its knowledge, attributable (entailed) or not (neutral)
  edits of SQuAD sentences made here: a sentence is entailed by its own window, neutral
      against another paragraph of its article, refuted with one of its numbers changed
  this repository: the fit parts of assets/calibration (hand pairs, ordinary retrievals)

Nothing whose topic is in a held-out part is read: `fitting.held_out_part(topic)` for every
public source and the ordinary retrievals (the same topics `bench/calibrate.py` measures
on), `assets/calibration/split.json` for the hand pairs, and no example case at all.
The same data folder and seed give the same pairs, in the same order.
"""

from __future__ import annotations

import json
import random
import re
import sys
from collections import defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench import public_data  # noqa: E402
from jeval_core.calibration.fitting import held_out_part  # noqa: E402
from jeval_core.judges.reader import NLI_LABELS, query  # noqa: E402

CALIBRATION = ROOT / "assets" / "calibration"
WINDOW_WORDS = 70  # a window of sentences: what one read of 128 tokens holds beside a question
ENTAILED, NEUTRAL, REFUTED = (NLI_LABELS.index(n) for n in ("entailed", "neutral", "refuted"))


@dataclass(frozen=True)
class Pair:
    """One training example: the task, the two texts as the reader sees them, the label."""

    task: str  # "relevance" or "nli"
    first: str  # the question or claim, with its task's marker
    second: str  # the passage
    label: int  # relevance: 0/1; nli: an index of NLI_LABELS
    source: str


def _rel(q: str, passage: str, label: int, source: str) -> Pair:
    return Pair("relevance", query("relevance", q), passage, int(label), source)


def _nli(claim: str, passage: str, label: int, source: str) -> Pair:
    return Pair("nli", query("nli", claim), passage, int(label), source)


def _windows(sentences: list[str], rng: random.Random) -> list[tuple[int, int]]:
    """Runs of consecutive sentences of up to WINDOW_WORDS words (a chunk a retriever returns)."""
    out = []
    start = 0
    while start < len(sentences):
        end, words = start, 0
        limit = rng.randint(WINDOW_WORDS // 2, WINDOW_WORDS)
        while end < len(sentences) and (end == start or
                                        words + len(sentences[end].split()) <= limit):
            words += len(sentences[end].split())
            end += 1
        out.append((start, end))
        start = end
    return out


_NUMBER = re.compile(r"\b\d+(?:[.,]\d+)?\b")


def _number_changed(sentence: str, rng: random.Random) -> str | None:
    """The sentence with one of its numbers changed (a stated fact made false), or None."""
    found = list(_NUMBER.finditer(sentence))
    if not found:
        return None
    m = rng.choice(found)
    text = m.group()
    if "." in text or "," in text:
        value = text.replace(",", "")
        new = f"{float(value) * rng.choice((0.5, 2, 1.5, 0.7)):g}"
    else:
        n = int(text)
        new = str(n + rng.choice((1, 2, 3, 10)) if n < 1800 or n > 2100
                  else n + rng.choice((-12, -3, 3, 7)))
    return sentence[:m.start()] + new + sentence[m.end():] if new != text else None


@dataclass
class Paragraph:
    """A paragraph on the fitted side: its text cut into sentences, and its questions as
    (question, the spans that answer it; none when unanswerable)."""

    topic: str
    text: str
    sentences: list[str]
    spans: list[tuple[int, int]]
    questions: list[tuple[str, list[tuple[int, int]]]]
    normed: str


def _paragraph(topic: str, text: str, questions: list[tuple[str, list[tuple[int, int]]]]
               ) -> Paragraph:
    spans = public_data.split_sentences(text)
    return Paragraph(topic, text, [text[a:b] for a, b in spans], spans, questions,
                     f" {public_data.norm(text)} ")


def _squad_articles(root: Path) -> dict[str, list[Paragraph]]:
    """SQuAD (v1.1 + v2.0 dev) and SQuADShifts new-wiki, by article, fitted side only."""
    out: dict[str, list[Paragraph]] = defaultdict(list)
    for para in public_data.squad_paragraphs(root):
        if held_out_part(para["title"]):
            continue
        qs = [(qa["question"], public_data.answer_spans(para["context"], qa["answers"]))
              for qa in para["qas"]]
        out["squad:" + para["title"]].append(_paragraph(para["title"], para["context"], qs))
    for article in public_data.squadshifts(root):
        if held_out_part(article["title"]):
            continue
        for para in article["paragraphs"]:
            ctx = para["context"]
            qs = [(qa["question"], [(a["answer_start"], a["answer_start"] + len(a["text"]))
                                    for a in qa["answers"]
                                    if ctx[a["answer_start"]:a["answer_start"] + len(a["text"])]
                                    == a["text"]])
                  for qa in para["qas"]]
            out["squadshifts:" + article["title"]].append(
                _paragraph(article["title"], ctx, [q for q in qs if q[1]]))
    return out


def _squad(root: Path, rng: random.Random) -> Iterator[Pair]:
    for name, paragraphs in sorted(_squad_articles(root).items()):
        source = name.split(":")[0]
        for para in paragraphs:
            answerable = [q for q in para.questions if q[1]]
            unanswerable = [q for q in para.questions if not q[1]]
            rng.shuffle(answerable)
            rng.shuffle(unanswerable)
            for q, gold in answerable[:2]:
                labels = [int(any(a < e and s < b for s, e in gold)) for a, b in para.spans]
                if not any(labels):
                    continue
                # Every sentence that answers, two that do not: a retriever returns chunks
                # more often than single sentences, so windows weigh as much as sentences.
                negatives = [k for k, label in enumerate(labels) if not label]
                kept = {k for k, label in enumerate(labels) if label}
                kept |= set(rng.sample(negatives, min(2, len(negatives))))
                for k in sorted(kept):
                    yield _rel(q, para.sentences[k], labels[k], source)
                for a, b in _windows(para.sentences, rng):
                    yield _rel(q, " ".join(para.sentences[a:b]), int(any(labels[a:b])), source)
                # Same article, other paragraph: same subject, not the answer.
                answers = {public_data.norm(para.text[s:e]) for s, e in gold} - {""}
                others = [o for o in paragraphs if o is not para and not any(
                    f" {x} " in o.normed for x in answers)]
                for other in rng.sample(others, min(2, len(others))):
                    a, b = rng.choice(_windows(other.sentences, rng))
                    yield _rel(q, " ".join(other.sentences[a:b]), 0, source + ":other")
            # On topic, the asked-for fact absent (SQuAD v2.0's unanswerable questions).
            for q, _ in unanswerable[:1]:
                for sent in rng.sample(para.sentences, min(2, len(para.sentences))):
                    yield _rel(q, sent, 0, source + ":unanswerable")
                a, b = rng.choice(_windows(para.sentences, rng))
                yield _rel(q, " ".join(para.sentences[a:b]), 0, source + ":unanswerable")
            yield from _edits(para, paragraphs, source, rng)


def _edits(para: Paragraph, paragraphs: list[Paragraph], source: str,
           rng: random.Random) -> Iterator[Pair]:
    """Claims made here from the paragraph's own sentences."""
    usable = [s for s in para.sentences if 8 <= len(s.split()) <= 40]
    if not usable or rng.random() >= 0.5:
        return
    s = rng.choice(usable)
    k = para.sentences.index(s)
    win = next((a, b) for a, b in _windows(para.sentences, random.Random(k)) if a <= k < b)
    window = " ".join(para.sentences[win[0]:win[1]])
    yield _nli(s, window, ENTAILED, source + ":edit")
    changed = _number_changed(s, rng)
    if changed:
        yield _nli(changed, window, REFUTED, source + ":edit")
    others = [o for o in paragraphs if o is not para]
    if others:
        o = rng.choice(others)
        a, b = rng.choice(_windows(o.sentences, rng))
        yield _nli(s, " ".join(o.sentences[a:b]), NEUTRAL, source + ":edit")


def _hotpot(root: Path) -> Iterator[Pair]:
    """Both hops of a multi-hop question (1), its distractors (0), and the gold paragraphs'
    sentences (1 for the supporting facts)."""
    for row in public_data.hotpotqa(root):
        if held_out_part(row["_id"]):
            continue
        q = row["question"]
        gold = [(row["para_a"], row["supporting_facts"][0]),
                (row["para_b"], row["supporting_facts"][1])]
        for sentences, facts in gold:
            yield _rel(q, "".join(sentences).strip(), 1, "hotpotqa")
            for i, sent in enumerate(sentences):
                if sent.strip():
                    yield _rel(q, sent.strip(), int(i in facts), "hotpotqa:sentence")
        for _, sentences, *_ in row["distractors"]:
            yield _rel(q, "".join(sentences).strip(), 0, "hotpotqa")


def _claims(name: str, root: Path) -> Iterator[Pair]:
    for row in public_data.every(name, root):
        if not held_out_part(row["topic"]):
            yield _nli(row["claim"], row["evidence"], NLI_LABELS.index(row["label"]), name)


def _lines(path: Path) -> Iterator[dict]:
    for line in path.read_text("utf-8").splitlines():
        if line.strip():
            yield json.loads(line)


# The ordinary retrievals the reader is trained on (their fit parts; held-out topics are only
# ever measured). A set written later joins only with a new training run: adding one changes
# the pairs that reproduce the shipped weights.
ORDINARY_TRAINED = ("multi_answer.jsonl", "people_money_law.jsonl", "tech_science_home.jsonl",
                    "toxicity_ordinary.jsonl")


def _repository() -> Iterator[Pair]:
    """The fit parts of this repository's labelled sets (never a held-out topic or example)."""
    held = set(json.loads((CALIBRATION / "split.json").read_text())["heldout"])
    for path in [CALIBRATION / "pairs.jsonl", *sorted((CALIBRATION / "written").glob("*.jsonl"))]:
        for p in _lines(path):
            if p["topic"].startswith("example:") or p["topic"] in held:
                continue
            rel, subject, against, label = p["relation"], p["subject"], p["against"], p["label"]
            if rel in ("helps_answer", "relevant_to"):
                yield _rel(against, subject, label, "repo:pairs")
            elif rel in ("supported_by", "attributable_to"):
                for chunk in [c for c in against.split("\n\n") if c.strip()] or [against]:
                    # Supported by the context: by one of its chunks; the others are neutral
                    # unless the pair says the whole context supports it.
                    if label == 0:
                        yield _nli(subject, chunk, NEUTRAL, "repo:pairs")
                if label == 1:
                    yield _nli(subject, against.replace("\n\n", " "), ENTAILED, "repo:pairs")
            elif rel == "contradicts":
                yield _nli(subject, against, REFUTED if label else ENTAILED, "repo:pairs")
    for path in (CALIBRATION / "ordinary" / name for name in ORDINARY_TRAINED):
        for row in _lines(path):
            if "text" in row or held_out_part(row["topic"]):
                continue
            for chunk, label in zip(row["context"], row["context_labels"], strict=True):
                yield _rel(row["input"], chunk, label, "repo:ordinary")


# Most pairs a source brings (the plentiful sentence sets would otherwise drown the rest), and
# how many times a small, RAG-shaped source is repeated.
CAPS = {"squad": 12000, "squad:other": 3000, "squad:unanswerable": 5000, "squad:edit": 3000,
        "squadshifts": 5000, "squadshifts:other": 1500, "squadshifts:edit": 1500,
        "snli": 8000, "begin": 3000}
REPEATS = {"hotpotqa": 3, "hotpotqa:sentence": 2, "fever_symmetric": 2, "faithdial": 2,
           "repo:pairs": 4, "repo:ordinary": 4}


def _found(root: Path, rng: random.Random) -> list[Pair]:
    """Every pair the sources give before the caps, in a fixed shuffled order."""
    found: list[Pair] = [*_squad(root, rng), *_hotpot(root)]
    for name in ("snli", "fever_symmetric", "begin", "faithdial"):
        found += _claims(name, root)
    found += _repository()
    rng.shuffle(found)
    return found


def pairs(root: Path, seed: int = 0) -> list[Pair]:
    """Every training pair, in a fixed shuffled order for a data folder and a seed."""
    rng = random.Random(seed)
    found = _found(root, rng)
    taken: dict[str, int] = defaultdict(int)
    out: list[Pair] = []
    for p in found:
        if taken[p.source] < CAPS.get(p.source, 10**9):
            taken[p.source] += 1
            out += [p] * REPEATS.get(p.source, 1)
    rng.shuffle(out)
    return out


# The second stage: the first stage's reader, taught what a RAG engineer's retrievals look like.
# Team-written retrievals (assets/calibration/retrievals/: product docs, policies, how-tos;
# several chunks answer, a pronoun for a subject, on-topic chunks without the asked-for fact;
# steps_*: procedures whose steps, lists or facts are spread over most of the chunks)
# and the ordinary ones above, each chunk read on its own, beside as many first-stage pairs
# again so the sentence and claim reading learnt first is kept.
RETRIEVALS = CALIBRATION / "retrievals"
RAG_REPEATS = 3
# The shipped reader's second stage read these six sets. The aspects_* sets (330 retrievals
# written since, on-topic chunks without the asked-for fact, answers without the question's
# words) are measured on; `--more-retrievals` trains on their fit parts as well (tried and
# measured on 2026-12-06, not shipped: docs/judges.md).
SHIPPED_RETRIEVALS = ("knowledge_howto", "policies_services", "software_products",
                      "steps_home_health_travel", "steps_software_cloud",
                      "steps_work_money_public")


def _retrievals(more: bool = False) -> Iterator[Pair]:
    """The fit parts of the team-written retrievals: each chunk against its question."""
    for path in sorted(RETRIEVALS.glob("*.jsonl")):
        if path.stem not in SHIPPED_RETRIEVALS and not more:
            continue
        for row in _lines(path):
            if held_out_part(row["topic"]):
                continue
            for chunk, label in zip(row["context"], row["context_labels"], strict=True):
                yield _rel(row["input"], chunk, label, "repo:retrievals")


def rag_pairs(root: Path, seed: int = 0, mined: Sequence[Pair] = (),
              more: bool = False) -> list[Pair]:
    """The second stage's pairs: every RAG-shaped fit pair RAG_REPEATS times, as many
    first-stage pairs (drawn without repeats, in a fixed order for a folder and a seed), and
    the `mined` pairs the first stage's reader got wrong (`mining_pool`); `more` adds the fit
    parts of the retrieval sets written after the shipped reader (SHIPPED_RETRIEVALS)."""
    rng = random.Random(seed + 1)
    rag = [p for p in (*_retrievals(more), *_repository()) if p.source != "repo:pairs"
           or p.task == "relevance"] * RAG_REPEATS
    first = list(dict.fromkeys(pairs(root, seed)))
    rng.shuffle(first)
    out = rag + first[:len(rag)] + list(mined)
    rng.shuffle(out)
    return out


# Mining: the public relevance pairs the caps left out (fit topics only, none of them in
# either stage), drawn in a fixed order; the first stage's reader reads them and the second
# stage is taught the ones it answers wrongly, most wrong first (bench/train_reader.py).
MINING_POOL = 24000


def mining_pool(root: Path, seed: int = 0) -> list[Pair]:
    """Relevance pairs of the public sources that neither stage reads (fixed order)."""
    found = _found(root, random.Random(seed))
    used = set(pairs(root, seed))
    rest = list(dict.fromkeys(p for p in found if p.task == "relevance"
                              and not p.source.startswith("repo:") and p not in used))
    random.Random(seed + 2).shuffle(rest)
    return rest[:MINING_POOL]


def main() -> None:
    import argparse
    import hashlib
    from collections import Counter

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, help="the folder of the public data files "
                        f"(default ${public_data.ENV})")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--stage", type=int, choices=(1, 2), default=1,
                        help="1: the first stage's pairs; 2: the RAG-shaped second stage's")
    args = parser.parse_args()
    try:
        found = (pairs if args.stage == 1 else rag_pairs)(public_data.data_dir(args.data),
                                                            args.seed)
    except public_data.MissingData as err:
        sys.exit(f"reader_data: {err}")
    digest = hashlib.sha256("\n".join(f"{p.task}\t{p.first}\t{p.second}\t{p.label}"
                                       for p in found).encode()).hexdigest()
    print(f"{len(found)} pairs, sha256 {digest}")
    for (task, source), n in sorted(Counter((p.task, p.source) for p in found).items()):
        pos = sum(1 for p in found if p.task == task and p.source == source and
                  (p.label == 1 if task == "relevance" else p.label == ENTAILED))
        print(f"  {task:9} {source:28} {n:7} {pos / n:.2f}")


if __name__ == "__main__":
    main()

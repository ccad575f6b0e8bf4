"""The reader's training pairs: human-labelled data from installed packages and this repository.

Two tasks, one model (`bench/train_reader.py`):
  relevance  (question, passage) -> 1 when the passage holds what answers the question
  nli        (claim, passage)    -> entailed / neutral / refuted

Where each comes from (licences in the README, "The reader"):
  SQuAD v1.1 dev and SQuADShifts (wiki, nyt, reddit, amazon), in bigbench==1.0.0: a
      crowd-written question against each sentence of its paragraph (1 where the sentence
      overlaps a crowd-marked answer span), and against windows of sentences of its own
      paragraph and of other paragraphs of the same article (same subject, other aspect)
  CoQA (bigbench): a story's first question against the story's sentences (1 where the
      sentence overlaps an annotator's rationale); only its openly licensed domains
  VitaminC (bigbench): Wikipedia evidence and crowd-written claims, three-way
  this repository: the fit parts of assets/calibration (hand pairs, ordinary retrievals)
  edits of SQuAD sentences made here: a sentence is entailed by its own window, neutral
      against another paragraph of its article, refuted with one of its numbers changed

Nothing whose topic is in a held-out part is read: `fitting.held_out_part(topic)` for every
public source and the ordinary retrievals (the same topics `bench/calibrate.py` measures
on), `assets/calibration/split.json` for the hand pairs, and no example case at all.
"""

from __future__ import annotations

import json
import random
import re
import sys
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench import realdata  # noqa: E402
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


def _squad(name: str, file: str, rng: random.Random, per_paragraph: int) -> Iterator[Pair]:
    data = realdata._load_json(realdata._task_file("squad_shifts", file))["data"]
    source = f"squad:{name}"
    for article in data:
        many = len(article["paragraphs"]) > 100  # reddit: one pseudo-article of posts
        split = []
        for i, para in enumerate(article["paragraphs"]):
            topic = f"{article['title']}#{i}" if many else article["title"]
            if held_out_part(topic):
                split.append(None)
                continue
            ctx = para["context"]
            spans = realdata.split_sentences(ctx)
            split.append((topic, ctx, [ctx[a:b] for a, b in spans], spans,
                          f" {realdata._norm(ctx)} "))
        kept = [s for s in split if s is not None]
        for i, item in enumerate(split):
            if item is None:
                continue
            topic, ctx, sents, spans, _ = item
            qas = [qa for qa in article["paragraphs"][i]["qas"] if qa["answers"]]
            rng.shuffle(qas)
            for qa in qas[:per_paragraph]:
                gold = [(a["answer_start"], a["answer_start"] + len(a["text"]))
                        for a in qa["answers"]
                        if ctx[a["answer_start"]:a["answer_start"] + len(a["text"])] == a["text"]]
                if not gold:
                    continue
                labels = [int(any(a < e and s < b for s, e in gold)) for a, b in spans]
                q = qa["question"].strip()
                for sent, label in zip(sents, labels, strict=True):
                    yield _rel(q, sent, label, source)
                for a, b in _windows(sents, rng):
                    yield _rel(q, " ".join(sents[a:b]), int(any(labels[a:b])), source)
                # Same article, other paragraph: same subject, not the answer.
                answers = {realdata._norm(a["text"]) for a in qa["answers"]} - {""}
                others = [] if many else [o for o in kept if o[1] is not ctx and not any(
                    f" {x} " in o[4] for x in answers)]
                for other in rng.sample(others, min(2, len(others))):
                    a, b = rng.choice(_windows(other[2], rng))
                    yield _rel(q, " ".join(other[2][a:b]), 0, source + ":other")
            if many:
                continue
            # Claims made here from the paragraph's own sentences.
            usable = [s for s in sents if 8 <= len(s.split()) <= 40]
            if usable and rng.random() < 0.5:
                s = rng.choice(usable)
                k = sents.index(s)
                win = next((a, b) for a, b in _windows(sents, random.Random(k))
                           if a <= k < b)
                window = " ".join(sents[win[0]:win[1]])
                yield _nli(s, window, ENTAILED, source + ":edit")
                changed = _number_changed(s, rng)
                if changed:
                    yield _nli(changed, window, REFUTED, source + ":edit")
                other = [o for o in kept if o[1] is not ctx]
                if other:
                    o = rng.choice(other)
                    a, b = rng.choice(_windows(o[2], rng))
                    yield _nli(s, " ".join(o[2][a:b]), NEUTRAL, source + ":edit")


# CoQA's domains whose licence allows it: Wikipedia and literature (CC BY-SA 4.0) and CNN
# (Apache-2.0). Children's stories (MCTest, MSR-LA), exams (RACE, research only), and the
# Reddit and science stories (no licence stated) are never trained on.
COQA_DOMAINS = ("wikipedia", "gutenberg", "cnn")


def _coqa_domains() -> dict[str, str]:
    data = realdata._load_json(realdata._task_file(
        "coqa_conversational_question_answering", "coqa.test.json"))
    return {story["id"]: story["source"] for story in data["data"]}


def _coqa(rng: random.Random) -> Iterator[Pair]:
    domain = _coqa_domains()
    for row in realdata._coqa(10_000):
        if held_out_part(row["topic"]) or domain.get(row["topic"]) not in COQA_DOMAINS:
            continue
        for sent, label in zip(row["context"], row["labels"], strict=True):
            yield _rel(row["input"], sent, label, "coqa")


def _claims(name: str, per_topic: int) -> Iterator[Pair]:
    rows = realdata.claims(name, limit=10**9) if per_topic else []
    by_topic: dict[str, int] = defaultdict(int)
    for row in rows:
        if held_out_part(row["topic"]) or by_topic[row["topic"]] >= per_topic:
            continue
        by_topic[row["topic"]] += 1
        yield _nli(row["claim"], row["evidence"], NLI_LABELS.index(row["label"]), name)


def _lines(path: Path) -> Iterator[dict]:
    for line in path.read_text("utf-8").splitlines():
        if line.strip():
            yield json.loads(line)


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
    for path in sorted((CALIBRATION / "ordinary").glob("*.jsonl")):
        for row in _lines(path):
            if "text" in row or held_out_part(row["topic"]):
                continue
            for chunk, label in zip(row["context"], row["context_labels"], strict=True):
                yield _rel(row["input"], chunk, label, "repo:ordinary")


# Most pairs a source brings (the plentiful sentence sets would otherwise drown the claims).
CAPS = {"squad:squad_dev": 7000, "squad:squadshifts_wiki": 7000, "squad:squadshifts_nyt": 7000,
        "squad:squadshifts_reddit": 7000, "squad:squadshifts_amazon": 7000, "vitaminc": 14000}


def pairs(seed: int = 0) -> list[Pair]:
    """Every training pair, in a fixed shuffled order for a seed."""
    rng = random.Random(seed)
    found: list[Pair] = []
    for name, file in realdata._SQUAD_FILES.items():
        found += _squad(name, file, rng, per_paragraph=1 if name != "squad_dev" else 2)
    found += _coqa(rng)
    found += _claims("vitaminc", 12)
    rng.shuffle(found)
    taken: dict[str, int] = defaultdict(int)
    out: list[Pair] = []
    for p in found:
        if taken[p.source] < CAPS.get(p.source, 10**9):
            taken[p.source] += 1
            out.append(p)
    out += list(_repository()) * 4  # few, but written for this product's kind of text
    rng.shuffle(out)
    return out


if __name__ == "__main__":
    from collections import Counter

    found = pairs()
    print(len(found), "pairs")
    for (task, source), n in sorted(Counter((p.task, p.source) for p in found).items()):
        pos = sum(1 for p in found if p.task == task and p.source == source and
                  (p.label == 1 if task == "relevance" else p.label == ENTAILED))
        print(f"  {task:9} {source:28} {n:7} {pos / n:.2f}")

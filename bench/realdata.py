"""Real, human-labelled evaluation data read from installed PyPI packages.

Nothing here downloads anything and no third-party data is copied into this repo: every
loader locates the data files inside an installed package (via ``importlib.util.find_spec``,
which does not import the package) and parses them at run time.

All sources currently come from the BIG-bench task collection, which ships the task data
inside its sdist. Install it *without* its (very heavy) dependencies::

    pip install --no-deps bigbench==1.0.0      # ~340 MB download, ~1.8 GB installed

Public API: ``SOURCES``, ``retrieval_cases(name)``, ``claims(name)``, ``toxic_sentences(name)``.
Selections are deterministic (ordered by SHA-1 of stable keys) and capped (default 600).
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.util
import json
import re
from pathlib import Path
from typing import Any

BIGBENCH = "bigbench==1.0.0"
DEFAULT_LIMIT = 600
MAX_CONTEXT = 30
_OTHER_PARAGRAPHS = 7

_SQUAD_FILES = {
    "squadshifts_wiki": "new_wiki_v1.0.json",
    "squadshifts_nyt": "nyt_v1.0.json",
    "squadshifts_reddit": "reddit_v1.0.json",
    "squadshifts_amazon": "amazon_reviews_v1.0.json",
    "squad_dev": "squaddev_v1.1.json",
}
_SQUAD_PARAGRAPH_FILES = {
    "squad_dev_paragraphs": "squaddev_v1.1.json",
    "squadshifts_wiki_paragraphs": "new_wiki_v1.0.json",
}

SOURCES: dict[str, dict[str, str]] = {
    "squadshifts_wiki": {
        "package": BIGBENCH,
        "kind": "retrieval",
        "licence": "CC BY 4.0 (SQuADShifts, Miller et al. 2020); bigbench package Apache-2.0",
        "what": "SQuADShifts new-Wikipedia: question vs the sentences of its paragraph; "
        "sentence=1 if it overlaps a crowd-annotated answer span",
    },
    "squadshifts_nyt": {
        "package": BIGBENCH,
        "kind": "retrieval",
        "licence": "CC BY 4.0 (SQuADShifts); bigbench package Apache-2.0",
        "what": "SQuADShifts New York Times articles, sentence-level, answer-span labels",
    },
    "squadshifts_reddit": {
        "package": BIGBENCH,
        "kind": "retrieval",
        "licence": "CC BY 4.0 (SQuADShifts); bigbench package Apache-2.0",
        "what": "SQuADShifts Reddit posts, sentence-level, answer-span labels",
    },
    "squadshifts_amazon": {
        "package": BIGBENCH,
        "kind": "retrieval",
        "licence": "CC BY 4.0 (SQuADShifts); bigbench package Apache-2.0",
        "what": "SQuADShifts Amazon product reviews, sentence-level, answer-span labels",
    },
    "squad_dev": {
        "package": BIGBENCH,
        "kind": "retrieval",
        "licence": "CC BY-SA 4.0 (SQuAD v1.1 dev); bigbench package Apache-2.0",
        "what": "SQuAD v1.1 dev (as re-collected in SQuADShifts), sentence-level, "
        "answer-span labels",
    },
    "squad_dev_paragraphs": {
        "package": BIGBENCH,
        "kind": "retrieval",
        "licence": "CC BY-SA 4.0 (SQuAD v1.1 dev); bigbench package Apache-2.0",
        "what": "SQuAD v1.1 dev, paragraph-level: the paragraph the question was written "
        "on vs other paragraphs of the same article that do not contain any answer",
    },
    "squadshifts_wiki_paragraphs": {
        "package": BIGBENCH,
        "kind": "retrieval",
        "licence": "CC BY 4.0 (SQuADShifts); bigbench package Apache-2.0",
        "what": "SQuADShifts new-Wikipedia, paragraph-level (as squad_dev_paragraphs)",
    },
    "coqa": {
        "package": BIGBENCH,
        "kind": "retrieval",
        "licence": "CoQA: per domain (Wikipedia/literature CC BY-SA 4.0, CNN Apache-2.0, "
        "MCTest MSR-LA, RACE own terms); bigbench package Apache-2.0",
        "what": "CoQA (700-story test file, 7 domains), first question of each story vs "
        "story sentences; sentence=1 if it overlaps an annotator's highlighted rationale",
    },
    "vitaminc": {
        "package": BIGBENCH,
        "kind": "claims",
        "licence": "CC BY-SA 3.0 (VitaminC, Schuster et al. 2021); bigbench package Apache-2.0",
        "what": "VitaminC test: Wikipedia sentence + crowd-written claim, "
        "SUPPORTS/REFUTES/NOT ENOUGH INFO (contrastive revisions)",
    },
    "nope_presuppositions": {
        "package": BIGBENCH,
        "kind": "claims",
        "licence": "NOPE corpus (Parrish et al. 2021), licence not stated in package; "
        "bigbench package Apache-2.0",
        "what": "NOPE naturally-occurring presuppositions as NLI: passage + hypothesis, "
        "human-judged entailment/neutral/contradiction",
    },
    "hinglish_toxicity": {
        "package": BIGBENCH,
        "kind": "toxicity",
        "licence": "not stated (BIG-bench task data); bigbench package Apache-2.0",
        "what": "Romanised Hindi-English (Hinglish) sentences labelled toxic / not toxic; "
        "NOT English",
    },
    "talkdown_condescension": {
        "package": BIGBENCH,
        "kind": "toxicity",
        "licence": "TalkDown corpus (Wang & Potts 2019), licence not stated; "
        "bigbench package Apache-2.0",
        "what": "Reddit replies crowd-labelled condescending (1) or not (0): a toxicity "
        "proxy, not toxicity itself",
    },
}

_SENT_SPLIT = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=[\"'(\[]?[A-Z0-9])")
_CLAIM_LABELS = {
    "True": "entailed",
    "False": "refuted",
    "Neither": "neutral",
    "entailment": "entailed",
    "contradiction": "refuted",
    "neutral": "neutral",
}


def _key(*parts: object) -> str:
    """Stable sort key (SHA-1 hex) for deterministic selection."""
    return hashlib.sha1("\x1f".join(str(p) for p in parts).encode("utf-8")).hexdigest()


def _package_dir(module: str, requirement: str) -> Path:
    """Directory of an installed package, without importing it."""
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        spec = None
    if spec is None or not spec.submodule_search_locations:
        raise ModuleNotFoundError(
            f"package {module!r} is not installed; run: pip install --no-deps {requirement}"
        )
    wanted = requirement.split("==", 1)[1] if "==" in requirement else None
    try:
        found = importlib.metadata.version(requirement.split("==", 1)[0])
    except importlib.metadata.PackageNotFoundError:
        found = None
    if wanted and found and found != wanted:
        raise ModuleNotFoundError(
            f"{module} {found} is installed but {requirement} is required; run: "
            f"pip install --no-deps {requirement}"
        )
    return Path(next(iter(spec.submodule_search_locations)))


def _task_file(*parts: str) -> Path:
    """Path of a file under ``bigbench/benchmark_tasks``."""
    path = _package_dir("bigbench", BIGBENCH).joinpath("benchmark_tasks", *parts)
    if not path.is_file():
        raise FileNotFoundError(f"{path} missing: reinstall with pip install --no-deps {BIGBENCH}")
    return path


def _load_json(path: Path) -> Any:
    with path.open(encoding="utf-8") as fh:
        return json.load(fh)


def _check(name: str, kind: str) -> None:
    if name not in SOURCES or SOURCES[name]["kind"] != kind:
        names = sorted(n for n, s in SOURCES.items() if s["kind"] == kind)
        raise KeyError(f"unknown {kind} source {name!r}; choose from {names}")


def split_sentences(text: str) -> list[tuple[int, int]]:
    """Character spans of the sentences of ``text`` (regex splitter, whitespace trimmed)."""
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


def _sentence_case(
    source: str, topic: str, question: str, text: str, spans: list[tuple[int, int]]
) -> dict[str, Any] | None:
    """Question vs sentences of ``text``; label 1 where a sentence overlaps a gold span."""
    sents = split_sentences(text)
    if not 2 <= len(sents) <= MAX_CONTEXT or not spans:
        return None
    labels = [int(any(a < e and s < b for s, e in spans)) for a, b in sents]
    if not 0 < sum(labels) < len(labels):
        return None
    return {
        "source": source,
        "topic": topic,
        "input": question.strip(),
        "context": [text[a:b] for a, b in sents],
        "labels": labels,
        "answers": sorted({text[s:e] for s, e in spans}),  # the crowd's spans (why_words.py)
    }


def _squad_sentences(name: str, limit: int) -> list[dict[str, Any]]:
    data = _load_json(_task_file("squad_shifts", _SQUAD_FILES[name]))["data"]
    paragraphs = []
    for article in data:
        many = len(article["paragraphs"]) > 100  # reddit: one pseudo-article of 2k posts
        for i, para in enumerate(article["paragraphs"]):
            topic = f"{article['title']}#{i}" if many else article["title"]
            paragraphs.append((_key(name, article["title"], i), topic, para))
    cases = []
    for _, topic, para in sorted(paragraphs, key=lambda t: t[0]):
        ctx = para["context"]
        for qa in sorted(para["qas"], key=lambda q: _key(q["id"])):
            spans = [
                (a["answer_start"], a["answer_start"] + len(a["text"]))
                for a in qa["answers"]
                if ctx[a["answer_start"] : a["answer_start"] + len(a["text"])] == a["text"]
            ]
            case = _sentence_case(name, topic, qa["question"], ctx, spans)
            if case:
                cases.append(case)
                break  # one question per paragraph, for diversity
        if len(cases) >= limit:
            break
    return cases


def _norm(text: str) -> str:
    return " ".join(re.sub(r"[^\w\s]", " ", text.lower()).split())


def _squad_paragraphs(name: str, limit: int) -> list[dict[str, Any]]:
    data = _load_json(_task_file("squad_shifts", _SQUAD_PARAGRAPH_FILES[name]))["data"]
    items = []
    for article in data:
        paras = [p["context"] for p in article["paragraphs"]]
        normed = [_norm(p) for p in paras]
        for i, para in enumerate(article["paragraphs"]):
            qas = sorted(para["qas"], key=lambda q: _key(q["id"]))
            if qas:
                items.append((_key(name, article["title"], i), article, i, qas[0], paras, normed))
    cases = []
    for _, article, i, qa, paras, normed in sorted(items, key=lambda t: t[0]):
        answers = {_norm(a["text"]) for a in qa["answers"]} - {""}
        others = [
            j
            for j in range(len(paras))
            if j != i and not any(f" {a} " in f" {normed[j]} " for a in answers)
        ]
        others = sorted(others, key=lambda j: _key(qa["id"], j))[:_OTHER_PARAGRAPHS]
        if not others:
            continue
        order = sorted([i, *others], key=lambda j: _key("order", qa["id"], j))
        cases.append(
            {
                "source": name,
                "topic": article["title"],
                "input": qa["question"].strip(),
                "context": [paras[j] for j in order],
                "labels": [int(j == i) for j in order],
            }
        )
        if len(cases) >= limit:
            break
    return cases


def _coqa(limit: int) -> list[dict[str, Any]]:
    data = _load_json(_task_file("coqa_conversational_question_answering", "coqa.test.json"))
    cases = []
    for story in sorted(data["data"], key=lambda s: _key("coqa", s["id"])):
        text = story["story"]
        question = story["questions"][0]["input_text"]
        answers = [
            story["answers"][0],
            *[a[0] for a in story.get("additional_answers", {}).values()],
        ]
        spans = [
            (a["span_start"], a["span_end"])
            for a in answers
            if a.get("span_start", -1) >= 0 and a["span_end"] > a["span_start"]
        ]
        case = _sentence_case("coqa", story["id"], question, text, spans)
        if case:
            cases.append(case)
        if len(cases) >= limit:
            break
    return cases


def retrieval_cases(name: str, limit: int = DEFAULT_LIMIT) -> list[dict[str, Any]]:
    """Question + candidate contexts (2..30) with human 0/1 relevance labels."""
    _check(name, "retrieval")
    if name in _SQUAD_FILES:
        return _squad_sentences(name, limit)
    if name in _SQUAD_PARAGRAPH_FILES:
        return _squad_paragraphs(name, limit)
    return _coqa(limit)


def _gold(example: dict[str, Any]) -> str:
    scores = example["target_scores"]
    return max(scores, key=scores.get)


def _take_by_topic(
    rows: list[dict[str, Any]], limit: int, per_topic: int = 10
) -> list[dict[str, Any]]:
    """Topics in hash order, at most ``per_topic`` adjacent rows each, until ``limit`` rows.

    Rows of one topic stay together (VitaminC's contrastive pairs are adjacent).
    """
    by_topic: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        by_topic.setdefault(row["topic"], []).append(row)
    out: list[dict[str, Any]] = []
    for topic in sorted(by_topic, key=lambda t: _key(t)):
        if len(out) >= limit:
            break
        out.extend(by_topic[topic][: min(per_topic, limit - len(out))])
    return out


def claims(name: str, limit: int = DEFAULT_LIMIT) -> list[dict[str, Any]]:
    """Claim + evidence with human labels ``entailed`` / ``refuted`` / ``neutral``."""
    _check(name, "claims")
    rows: list[dict[str, Any]] = []
    if name == "vitaminc":
        task = _load_json(_task_file("vitaminc_fact_verification", "task.json"))
        for ex in task["examples"]:
            head, _, claim = ex["input"].rpartition("\nClaim: ")
            title, _, evidence = head.partition(": ")
            rows.append(
                {
                    "source": name,
                    "topic": title.strip(),
                    "claim": claim.strip(),
                    "evidence": evidence.strip(),
                    "label": _CLAIM_LABELS[_gold(ex)],
                }
            )
    else:
        task = _load_json(_task_file("presuppositions_as_nli", "task.json"))
        pattern = re.compile(r"Sentence 1:(.*)\nSentence 2:(.*?)\n\s*The answer is:", re.S)
        for ex in task["examples"]:
            match = pattern.search(ex["input"])
            if not match:
                continue
            rows.append(
                {
                    "source": name,
                    "topic": str(ex.get("comment", {}).get("example_id", match.group(2))),
                    "claim": match.group(2).strip(),
                    "evidence": match.group(1).strip(),
                    "label": _CLAIM_LABELS[_gold(ex)],
                }
            )
    return _take_by_topic(rows, limit)


def toxic_sentences(name: str, limit: int = DEFAULT_LIMIT) -> list[dict[str, Any]]:
    """Sentences with human 0/1 toxicity (or, for TalkDown, condescension) labels."""
    _check(name, "toxicity")
    rows: list[dict[str, Any]] = []
    if name == "hinglish_toxicity":
        task = _load_json(_task_file("hinglish_toxicity", "task.json"))
        for ex in task["examples"]:
            rows.append(
                {"source": name, "text": ex["input"].strip(), "label": int(_gold(ex) == "yes")}
            )
    else:
        with _task_file("talkdown", "test_data.jsonl").open(encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("{"):
                    ex = json.loads(line)
                    rows.append(
                        {"source": name, "text": ex["text"].strip(), "label": int(ex["label"])}
                    )
    rows = [r for r in rows if r["text"]]
    return sorted(rows, key=lambda r: _key(name, r["text"]))[:limit]


def summary() -> dict[str, dict[str, float]]:
    """Counts per available source (items, contexts, positive share)."""
    out: dict[str, dict[str, float]] = {}
    for name, meta in SOURCES.items():
        if meta["kind"] == "retrieval":
            cases = retrieval_cases(name)
            n_ctx = sum(len(c["context"]) for c in cases)
            pos = sum(sum(c["labels"]) for c in cases)
            out[name] = {"items": len(cases), "contexts": n_ctx, "positive_share": pos / n_ctx}
        elif meta["kind"] == "claims":
            rows = claims(name)
            out[name] = {"items": len(rows)}
            for lab in ("entailed", "refuted", "neutral"):
                out[name][lab] = sum(r["label"] == lab for r in rows)
        else:
            rows = toxic_sentences(name)
            out[name] = {
                "items": len(rows),
                "positive_share": sum(r["label"] for r in rows) / len(rows),
            }
    return out


if __name__ == "__main__":
    for source, stats in summary().items():
        print(source, {k: round(v, 3) for k, v in stats.items()})

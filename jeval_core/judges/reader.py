"""The reader: a cross-encoder trained for this project that reads a question (or a claim) and a
passage together, where a sentence embedding reads each alone.

One int8 ONNX file (`jeval_core/models/`, made by `bench/train_reader.py`, sha256-pinned here),
run with onnxruntime and the tokenizer the embedder uses; no torch. Four logits per pair:
p(the passage helps answer the question), and entailed / neutral / refuted for a claim
against the passage. A passage longer than one read is read in windows of whole sentences
and the best window answers. Every pair read is kept, so an edit re-reads only its pairs.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from .. import sentences
from ..calibration.curves import HIDDEN  # the pooled vector the head reads
from ..errors import CaseError, JudgeError
from .lru import Lru

NLI_LABELS = ("entailed", "neutral", "refuted")
MARKERS = {"relevance": "question:", "nli": "claim:"}
MODEL_FILE = Path(__file__).resolve().parent.parent / "models" / "reader-minilm-l6-int8.onnx"
MODEL_SHA256 = "96b13b08612683d67ee78913a86ef67c23d8aa1bf380e9c7774496afcaf3173c"
MAX_TOKENS = 128  # one read: what the reader was trained on
POOLED = "pooled"  # the model's second output: that vector
CACHE_SIZE = 16384  # pairs kept across reruns (4 logits and the pooled vector: ~25 MB)
# The reader's own cap on new reads for one case (~1-2 min on 2 cores): a long chunk is read
# in windows, each claim against it again, so a few long texts can ask for many reads.
MAX_READS = 20000


def query(task: str, text: str) -> str:
    """The first text of a pair as the reader was trained on it: its task's marker, the text."""
    return f"{MARKERS[task]} {text.strip()}"


def tokenizer() -> Any:
    """The tokenizer the reader was trained with (the embedder's file), set for pairs."""
    from tokenizers import Tokenizer

    from .embedder import (
        TOKENIZER_FILE,
        TOKENIZER_PACKAGE,
        TOKENIZER_SHA256,
        _package_file,
        _verified,
    )

    tok = Tokenizer.from_file(str(_verified(_package_file(TOKENIZER_PACKAGE, TOKENIZER_FILE),
                                            TOKENIZER_SHA256)))
    tok.no_padding()
    tok.enable_truncation(MAX_TOKENS, strategy="longest_first")
    return tok


def encode(tok: Any, pairs: Sequence[tuple[str, str]]) -> tuple[np.ndarray, np.ndarray,
                                                                 np.ndarray]:
    """input_ids, attention_mask and token_type_ids for pairs, padded to the longest."""
    return padded(tok.encode_batch(list(pairs)))


def padded(found: Sequence[Any]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Encodings as input_ids, attention_mask and token_type_ids, padded to the longest."""
    width = max((len(e.ids) for e in found), default=1)
    ids = np.zeros((len(found), width), dtype=np.int64)
    mask = np.zeros_like(ids)
    types = np.zeros_like(ids)
    for row, e in enumerate(found):
        n = len(e.ids)
        ids[row, :n] = e.ids
        mask[row, :n] = 1
        types[row, :n] = e.type_ids
    return ids, mask, types


def _softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


class Model:
    """The ONNX reader on this machine: logits per (task, first, second), cached."""

    def __init__(self, path: Path = MODEL_FILE, sha256: str | None = None,
                 threads: int = 2) -> None:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        import onnxruntime as ort

        from .embedder import _verified, one_blas_thread

        one_blas_thread()
        if sha256:
            _verified(path, sha256)
        elif not path.is_file():
            raise JudgeError(f"the local judge's reader {path} is missing: reinstall jeval "
                             "(pip install -e .)")
        options = ort.SessionOptions()
        options.intra_op_num_threads = 1  # `threads` pairs at once instead (see _run)
        options.inter_op_num_threads = 1
        options.log_severity_level = 3
        self._session = ort.InferenceSession(str(path), options,
                                             providers=["CPUExecutionProvider"])
        self._outputs = [o.name for o in self._session.get_outputs()
                         if o.name in ("logits", POOLED)]
        self._width = 4 + (HIDDEN if POOLED in self._outputs else 0)
        self._tok = tokenizer()
        self._counter = tokenizer()
        self._counter.no_truncation()
        self._lengths: dict[bytes, int] = {}
        self._cache: Lru[np.ndarray] = Lru(CACHE_SIZE)
        self._lock = threading.Lock()
        self._pool = ThreadPoolExecutor(threads, thread_name_prefix="jeval-reader")
        self.reads = 0  # pairs actually run through the model (the cache's misses)

    @staticmethod
    def _key(first: str, second: str) -> bytes:
        data = f"{first}\x1f{second}".encode("utf-8", "surrogatepass")
        return hashlib.blake2b(data, digest_size=16).digest()

    def logits(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        """(n, 4) logits for (first, second) pairs whose first text carries its marker."""
        return self._rows(pairs)[:, :4]

    def _rows(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        """Per pair, its 4 logits and then the pooled vector the head read (when the model
        file names it), from the cache or read now."""
        keys = [self._key(a, b) for a, b in pairs]
        with self._lock:
            todo = dict.fromkeys(self._cache.missing(keys))
            if len(todo) > MAX_READS:
                raise CaseError(f"the local judge reads at most {MAX_READS:,} passages of up "
                                f"to {MAX_TOKENS} tokens per case on this machine, and this "
                                f"case needs {len(todo):,} (long chunks are read in windows, "
                                "each claim against them again): send shorter chunks or a "
                                "shorter answer, or select fewer evaluators")
            wanted = {k: p for k, p in zip(keys, pairs, strict=True) if k in todo}
            if wanted:
                self._run(wanted)
            rows = self._cache.take(keys)
        return np.stack(rows) if rows else np.zeros((0, self._width), dtype=np.float32)

    def _run(self, wanted: dict[bytes, tuple[str, str]]) -> None:
        """Read each pair alone: the int8 model quantizes its activations with one scale per
        tensor, so the rows of a batch (and their padding) would move each other's logits.
        Alone, a pair's logits are its own whatever is read beside it, and the cache per pair
        is exact. Pairs of ~50 tokens give a second intra-op thread little to do (8 pairs:
        57 ms with two, 53 with one), so the session runs on one thread and `threads` pairs
        are read at once (30 ms for the 8; the logits are bit-identical)."""
        keys = list(wanted)
        found = self._tok.encode_batch([wanted[k] for k in keys])
        for key, row in zip(keys, self._pool.map(self._read_one, found), strict=True):
            self._cache.put(key, row)
            self.reads += 1

    def _read_one(self, found: Any) -> np.ndarray:
        ids, mask, types = padded([found])
        out = np.hstack(self._session.run(self._outputs, {
            "input_ids": ids, "attention_mask": mask, "token_type_ids": types}))
        return out[0].astype(np.float32)

    def length(self, text: str) -> int:
        """Tokens in a text read alone (no [CLS]/[SEP]), kept per text."""
        key = self._key(text, "")
        found = self._lengths.get(key)
        if found is None:
            found = self._lengths[key] = len(self._counter.encode(
                text, add_special_tokens=False).ids)
            if len(self._lengths) > CACHE_SIZE:
                self._lengths.pop(next(iter(self._lengths)))
        return found

    def windows(self, first: str, passage: str) -> list[str]:
        """The passage as the reader reads it beside `first`: whole, or in runs of whole
        sentences that each fit one read (a sentence longer than a read is cut by it)."""
        budget = max(16, MAX_TOKENS - 3 - self.length(first))
        if self.length(passage) <= budget:
            return [passage]
        out: list[str] = []
        current: list[str] = []
        used = 0
        for sentence in sentences.split(passage):
            n = self.length(sentence)
            if current and used + n > budget:
                out.append(" ".join(current))
                current, used = [], 0
            current.append(sentence)
            used += n
        if current:
            out.append(" ".join(current))
        return out or [passage]

    def read(self, relevance: Sequence[tuple[str, str]] = (),
             nli: Sequence[tuple[str, str]] = ()) -> tuple[np.ndarray, np.ndarray]:
        """Both tasks' reads at once (one cache lookup for the case): `relevance` as
        Model.relevance, `nli` as Model.nli."""
        windows = self._windows({"relevance": relevance, "nli": nli})
        z = np.array([float(w[:, 0].max()) for w in windows["relevance"]])
        rows = [_softmax(w[:, 1:4]) for w in windows["nli"]]
        p = (np.array([[r[:, 0].max(), r[:, 1].min(), r[:, 2].max()] for r in rows])
             if rows else np.zeros((0, 3)))
        return z, p

    def pooled(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        """(n, HIDDEN) per (question, passage): the vector the head read in the passage's
        best window (what a profile's head refit reads). Cached like every read."""
        if self._width == 4:
            raise JudgeError(f"the reader {MODEL_FILE.name} has no pooled output: reinstall "
                             "jeval (pip install -e .)")
        best = [w[int(np.argmax(w[:, 0])), 4:] for w in self._windows({"relevance": pairs})[
            "relevance"]]
        return np.stack(best) if best else np.zeros((0, HIDDEN), dtype=np.float32)

    def _windows(self, asked: dict[str, Sequence[tuple[str, str]]]
                 ) -> dict[str, list[np.ndarray]]:
        """Per task, per pair, the rows of each of its windows (read in one pass)."""
        spread = {task: [[(a, w) for w in self.windows(a, b)]
                         for a, b in ((query(task, a), b) for a, b in pairs)]
                  for task, pairs in asked.items()}
        flat = self._rows([p for groups in spread.values() for g in groups for p in g])
        out: dict[str, list[np.ndarray]] = {}
        at = 0
        for task, groups in spread.items():
            out[task] = []
            for g in groups:
                out[task].append(flat[at:at + len(g)])
                at += len(g)
        return out

    def relevance(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        """Log-odds that the passage helps answer the question, per (question, passage): the
        best window's."""
        return self.read(relevance=pairs)[0]

    def nli(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        """(n, 3) p(entailed, neutral, refuted) per (claim, passage); over windows, the most
        entailing and the most refuting window's p and the least neutral."""
        return self.read(nli=pairs)[1]


_loading = threading.Lock()


@lru_cache(maxsize=1)
def _load() -> Model:
    return Model(MODEL_FILE, MODEL_SHA256 or None)


def model() -> Model:
    """The process-wide reader, loaded on first use (threads that ask at once wait for one)."""
    with _loading:
        return _load()

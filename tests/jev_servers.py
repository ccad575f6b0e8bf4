"""Real servers for the jev judge's tests: the jevcompat peer, and a loopback fault injector.

The jevcompat mock is a spec-exact Jev stand-in shipped by a peer project. It has no 429,
5xx or timeout modes, so `FaultyServer` answers a scripted list of failures first and then
forwards to the real mock, the way a flaky network path would.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class MockProcess:
    """`jevcompat mock` as its own process on a free loopback port, stopped by its pid."""

    def __init__(self, *args: str) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        command = Path(sys.executable).with_name("jevcompat")  # the peer's console script
        self.proc = subprocess.Popen(
            [str(command), "mock", "--host", "127.0.0.1", "--port", str(self.port), *args],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"jevcompat mock exited: {self.proc.stderr.read().decode()}")
            try:
                httpx.get(f"{self.url}/v1/models", timeout=1)
                return
            except httpx.TransportError:
                time.sleep(0.1)
        self.stop()
        raise RuntimeError("jevcompat mock did not start within 20 s")

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=10)


class FaultyServer:
    """Serves each scripted fault once, in order, then forwards requests to `upstream`.

    A fault is (status, headers, body) or ("sleep", seconds) to stall past the client's
    timeout. `seen` records every request: method, path, headers, body.
    """

    def __init__(self, upstream: str, faults: list[tuple]) -> None:
        self.faults = list(faults)
        self.seen: list[dict] = []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # keep test output clean
                pass

            def _handle(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                owner.seen.append({"method": self.command, "path": self.path,
                                   "headers": dict(self.headers), "body": body})
                fault = owner.faults.pop(0) if owner.faults else None
                if fault and fault[0] == "sleep":
                    time.sleep(fault[1])
                    fault = (503, {}, "too late")
                if fault:
                    status, headers, text = fault
                    payload = text if isinstance(text, str) else json.dumps(text)
                    self.send_response(status)
                    for k, v in headers.items():
                        self.send_header(k, v)
                    self.send_header("Content-Length", str(len(payload.encode())))
                    self.end_headers()
                    self.wfile.write(payload.encode())
                    return
                forwarded = httpx.request(
                    self.command, upstream + self.path, content=body, timeout=10,
                    headers={k: v for k, v in self.headers.items()
                             if k.lower() in ("authorization", "content-type")})
                self.send_response(forwarded.status_code)
                for k, v in forwarded.headers.items():
                    if k.lower() in ("content-type", "x-typesafe-request-id"):
                        self.send_header(k, v)
                self.send_header("Content-Length", str(len(forwarded.content)))
                self.end_headers()
                self.wfile.write(forwarded.content)

            do_GET = do_POST = _handle

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> FaultyServer:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()

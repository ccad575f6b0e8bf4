"""Real servers for the jev judge's tests: the jevcompat peer, and a loopback fault injector.

The jevcompat mock is a spec-exact Jev stand-in shipped by a peer project. It has no 429,
5xx or timeout modes, so `FaultyServer` answers a scripted list of faults first and then
forwards to the real mock, the way a flaky network path would.

A fault is one of:
  (status, headers, body)  a reply; body is a str, or any other value sent as JSON
  ("sleep", seconds)       stall past the client's timeout, then a 503
  a callable(handler)      writes the raw response itself (status line, headers, bytes,
                           or nothing at all), for replies no well-behaved server sends
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx

FORWARDED_REQUEST_HEADERS = ("authorization", "content-type")
FORWARDED_REPLY_HEADERS = ("content-type", "x-typesafe-request-id")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def down_url() -> str:
    """A loopback address nothing listens on."""
    return f"http://127.0.0.1:{free_port()}"


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


def reply(handler: BaseHTTPRequestHandler, status: int, headers: Mapping[str, str],
          body: Any) -> None:
    """Send one complete reply: status, headers, Content-Length, body."""
    payload = body if isinstance(body, bytes) else (
        body if isinstance(body, str) else json.dumps(body)).encode()
    handler.send_response(status)
    for name, value in headers.items():
        handler.send_header(name, value)
    handler.send_header("Content-Length", str(len(payload)))
    handler.end_headers()
    handler.wfile.write(payload)


def hang_up(handler: BaseHTTPRequestHandler) -> None:
    """A fault: close the connection without a single byte of reply."""
    handler.close_connection = True


Fault = tuple | Callable[[BaseHTTPRequestHandler], None]


class FaultyServer:
    """Serves each scripted fault once, in order, then forwards requests to `upstream`.

    `seen` records every request that reached it: method, path, headers, body.
    """

    def __init__(self, upstream: str, faults: list[Fault]) -> None:
        self.upstream = upstream
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
                if fault is None:
                    owner.forward(self, body)
                elif callable(fault):
                    fault(self)
                elif fault[0] == "sleep":
                    time.sleep(fault[1])
                    reply(self, 503, {}, "too late")
                else:
                    reply(self, *fault)

            do_GET = do_POST = _handle

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def forward(self, handler: BaseHTTPRequestHandler, body: bytes) -> None:
        """Pass the request to the upstream server and its reply back, like a proxy."""
        forwarded = httpx.request(
            handler.command, self.upstream + handler.path, content=body, timeout=10,
            headers={k: v for k, v in handler.headers.items()
                     if k.lower() in FORWARDED_REQUEST_HEADERS})
        reply(handler, forwarded.status_code,
              {k: v for k, v in forwarded.headers.items()
               if k.lower() in FORWARDED_REPLY_HEADERS}, forwarded.content)

    def __enter__(self) -> FaultyServer:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()

"""A loopback server that misbehaves on purpose, for the hostile suite (tests/test_hostile.py).

It listens on 127.0.0.1 (port 0: the OS picks a free one) in a thread, is started and stopped
by the tests, and answers POST /v1/systemone and GET /v1/models from a script. A scripted
response is one of:

  Reply(status, headers, body)   a complete reply; body is bytes, str, any JSON value, or a
                                 callable(Recorded) -> bytes (to echo the request, e.g. the key)
  a callable(handler, request)   writes raw bytes to the socket itself: drip, hang, garbage,
                                 truncation, a gzip bomb... (`send` writes a Reply from there)

Responses for a path are served in order; the last one repeats. Every request received is
recorded (method, path, headers, body) in `server.requests`.
"""

from __future__ import annotations

import functools
import json
import threading
import zlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class Recorded:
    """One request as the server received it."""

    method: str
    path: str
    headers: dict[str, str]  # lower-cased names
    body: bytes

    @property
    def key(self) -> str:
        """The bearer token the client sent ("" if none)."""
        auth = self.headers.get("authorization", "")
        return auth[len("Bearer "):] if auth.startswith("Bearer ") else ""

    def json(self) -> Any:
        return json.loads(self.body.decode("utf-8"))


@dataclass(frozen=True)
class Reply:
    status: int
    headers: Mapping[str, str] = field(default_factory=dict)
    body: Any = b""


Raw = Callable[[BaseHTTPRequestHandler, Recorded], None]
Response = Reply | Raw


def payload(body: Any, request: Recorded) -> bytes:
    """The bytes of a Reply body."""
    if callable(body):
        body = body(request)
    if isinstance(body, bytes):
        return body
    if isinstance(body, str):
        return body.encode("utf-8", "surrogatepass")
    return json.dumps(body).encode("utf-8")


def send(handler: BaseHTTPRequestHandler, reply: Reply, request: Recorded) -> None:
    """Write one complete reply (Content-Length set unless the script set it)."""
    data = payload(reply.body, request)
    handler.send_response(reply.status)
    names = {k.lower() for k in reply.headers}
    for name, value in reply.headers.items():
        handler.send_header(name, value)
    if "content-type" not in names:
        handler.send_header("Content-Type", "application/json")
    if "content-length" not in names:
        handler.send_header("Content-Length", str(len(data)))
    handler.send_header("Connection", "close")
    handler.end_headers()
    handler.wfile.write(data)


class HostileServer:
    """The fault server. Use as a context manager, or call start() and stop()."""

    def __init__(self) -> None:
        self.requests: list[Recorded] = []
        self.stopping = threading.Event()
        self._scripts: dict[tuple[str, str], list[Response]] = {}
        self._lock = threading.Lock()
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:  # keep test output clean
                pass

            def _handle(self) -> None:
                self.close_connection = True
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                request = Recorded(self.command, self.path,
                                   {k.lower(): v for k, v in self.headers.items()}, body)
                response = owner._next(request)
                try:
                    if isinstance(response, Reply):
                        send(self, response, request)
                    else:
                        response(self, request)
                except OSError:  # the client gave up on us: that is its right
                    pass

            do_GET = do_POST = do_PUT = do_DELETE = _handle

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._server.stopping = self.stopping  # type: ignore[attr-defined]
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever,
                                        name="hostile-server", daemon=True)

    def script(self, method: str, path: str, *responses: Response) -> HostileServer:
        """What to answer `method path` with: in order, the last one repeating."""
        with self._lock:
            self._scripts[(method.upper(), path)] = list(responses)
        return self

    def _next(self, request: Recorded) -> Response:
        with self._lock:
            self.requests.append(request)
            queue = self._scripts.get((request.method, request.path.split("?")[0]))
            if not queue:
                return Reply(404, {}, {"detail": "not found"})
            return queue.pop(0) if len(queue) > 1 else queue[0]

    def received(self, method: str | None = None, path: str | None = None) -> list[Recorded]:
        with self._lock:
            return [r for r in self.requests
                    if (method is None or r.method == method) and (path is None or r.path == path)]

    def start(self) -> HostileServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and release every handler that is stalling on purpose."""
        self.stopping.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> HostileServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


# ---- bodies built from the request -------------------------------------------------------

def answers_for(request: Recorded, p: float = 0.9, **extra: Any) -> dict[str, Any]:
    """A valid System One reply: every asked question answered with noul=p."""
    asked = request.json()["questions"]
    reply = {"answers": {qid: {"type": "noul", "noul": p} for qid in asked},
             "usage": {"input_tokens": 123}, "model": "jev-latest"}
    reply.update(extra)
    return reply


def answer_all(request: Recorded) -> bytes:
    return json.dumps(answers_for(request)).encode()


def with_answer(field_name: str, raw_value: str) -> Callable[[Recorded], bytes]:
    """A reply answering every question with the raw JSON text `raw_value` put in
    `field_name` ("noul" of the first answer, or "input_tokens" of usage)."""
    def build(request: Recorded) -> bytes:
        asked = list(request.json()["questions"])
        answers = {qid: {"type": "noul", "noul": 0.5} for qid in asked}
        marker = "__HOSTILE_VALUE__"
        usage: dict[str, Any] = {"input_tokens": 10}
        if field_name == "noul":
            answers[asked[0]]["noul"] = marker
        else:
            usage["input_tokens"] = marker
        text = json.dumps({"answers": answers, "usage": usage})
        return text.replace(f'"{marker}"', raw_value).encode()
    return build


# ---- raw writers ------------------------------------------------------------------------

def stopping(handler: BaseHTTPRequestHandler) -> threading.Event:
    """Set when the server is stopping: stalling writers wait on it, never on a bare sleep."""
    return handler.server.stopping  # type: ignore[attr-defined]


def drip(body: Callable[[Recorded], bytes], interval: float = 1.0) -> Raw:
    """A valid reply, sent one byte every `interval` seconds (headers at once)."""
    def write(handler: BaseHTTPRequestHandler, request: Recorded) -> None:
        data = body(request)
        handler.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                            b"Content-Length: %d\r\nConnection: close\r\n\r\n" % len(data))
        handler.wfile.flush()
        for i in range(len(data)):
            if stopping(handler).wait(interval):
                return
            handler.wfile.write(data[i:i + 1])
            handler.wfile.flush()
    return write


def hang() -> Raw:
    """Read the request, then never answer (until the server stops)."""
    def write(handler: BaseHTTPRequestHandler, request: Recorded) -> None:
        stopping(handler).wait(300)
    return write


def raw_bytes(data: bytes) -> Raw:
    """Write `data` as the whole response (no HTTP framing unless it has its own)."""
    def write(handler: BaseHTTPRequestHandler, request: Recorded) -> None:
        handler.wfile.write(data)
        handler.wfile.flush()
    return write


def hang_up() -> Raw:
    """Close the connection without a single byte."""
    def write(handler: BaseHTTPRequestHandler, request: Recorded) -> None:
        handler.close_connection = True
    return write


def truncated(declared: int, data: bytes) -> Raw:
    """Promise `declared` bytes, send `data` (fewer), close."""
    head = (b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n"
            b"Connection: close\r\n\r\n" % declared)
    return raw_bytes(head + data)


@functools.cache
def gzip_bomb(megabytes: int = 300) -> bytes:
    """A gzip body of a few hundred KB that inflates to `megabytes` MB of zeros.

    Built in 1 MB steps, so making it never holds the inflated size in memory.
    """
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)
    zeros = bytes(1024 * 1024)
    parts = [packer.compress(zeros) for _ in range(megabytes)]
    parts.append(packer.flush())
    return b"".join(parts)


def gzip_body(data: bytes) -> bytes:
    packer = zlib.compressobj(6, zlib.DEFLATED, 31)
    return packer.compress(data) + packer.flush()

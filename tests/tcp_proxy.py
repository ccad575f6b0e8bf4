"""A loopback TCP proxy in front of a real server, for store outages and silent servers.

`TcpProxy(port)` forwards 127.0.0.1:<its port> to 127.0.0.1:<port> byte for byte.
`cut(seconds)` drops every open connection and refuses new ones for that long (the server
went away and came back), `cut()` with no time keeps it away. `TcpProxy(None)` forwards to
nothing: it accepts connections and never answers (a server that hangs).
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time


class TcpProxy:
    def __init__(self, target_port: int | None) -> None:
        self.target = target_port
        self._listener = socket.socket()
        self._listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._listener.bind(("127.0.0.1", 0))
        self._listener.listen(64)
        self.port = self._listener.getsockname()[1]
        self._open: list[socket.socket] = []
        self._lock = threading.Lock()
        self._down_until = 0.0
        self._stopped = False
        threading.Thread(target=self._accept, daemon=True).start()

    def url_for(self, server_url: str) -> str:
        """`server_url` (a SQLAlchemy URL on 127.0.0.1) pointed at the proxy instead."""
        import sqlalchemy as sa

        return sa.make_url(server_url).set(port=self.port).render_as_string(
            hide_password=False)

    def cut(self, seconds: float | None = None) -> None:
        """Drop every connection; refuse new ones for `seconds` (None: until `restore`)."""
        with self._lock:
            self._down_until = float("inf") if seconds is None else time.monotonic() + seconds
            for conn in self._open:
                with contextlib.suppress(OSError):
                    conn.shutdown(socket.SHUT_RDWR)
                conn.close()
            self._open.clear()

    def restore(self) -> None:
        with self._lock:
            self._down_until = 0.0

    def stop(self) -> None:
        self._stopped = True
        self.cut()
        self._listener.close()

    def _accept(self) -> None:
        while not self._stopped:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            with self._lock:
                down = time.monotonic() < self._down_until
            if down:
                client.close()  # refused, as a server that is not there
                continue
            if self.target is None:  # accept and never answer
                with self._lock:
                    self._open.append(client)
                continue
            try:
                upstream = socket.create_connection(("127.0.0.1", self.target), timeout=5)
            except OSError:
                client.close()
                continue
            with self._lock:
                self._open += [client, upstream]
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    @staticmethod
    def _pipe(src: socket.socket, dst: socket.socket) -> None:
        try:
            while data := src.recv(65536):
                dst.sendall(data)
        except OSError:
            pass
        finally:
            for s in (src, dst):
                with contextlib.suppress(OSError):
                    s.shutdown(socket.SHUT_RDWR)

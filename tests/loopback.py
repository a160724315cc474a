"""A loopback HTTP server for the collectors' tests: real sockets, recorded responses, no internet.

``with serving() as server:`` starts a :class:`http.server.ThreadingHTTPServer` on
``127.0.0.1`` (a free port) in a thread; ``server.url`` is its base URL. ``server.route(path,
*answers)`` serves the answers to GETs of ``path`` one after the other (the last one again
once they run out). An :class:`Answer` is a status, a body and a content type; ``delay``
seconds are waited before answering (a timeout), ``cut`` sends the headers of the whole body
and then only the first ``cut`` bytes before closing the connection (a body cut short).
``server.seen`` lists every request (path with query, headers), in order.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

FIXTURES = Path(__file__).parent / "fixtures" / "collectors"


@dataclass(frozen=True)
class Answer:
    """One recorded response."""

    body: bytes = b""
    status: int = 200
    content_type: str = "application/json"
    delay: float = 0.0
    cut: int | None = None

    @classmethod
    def file(cls, name: str, **kw: object) -> Answer:
        """The fixture file ``name`` (tests/fixtures/collectors), as JSON or CSV by its suffix."""
        kind = "text/csv; charset=utf-8" if name.endswith(".csv") else "application/json"
        return cls((FIXTURES / name).read_bytes(), content_type=kind, **kw)  # type: ignore[arg-type]


@dataclass
class Server:
    """The running server: its base URL, its routes and the requests it has seen."""

    url: str = ""
    routes: dict[str, list[Answer]] = field(default_factory=dict)
    seen: list[tuple[str, dict[str, str]]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def route(self, path: str, *answers: Answer) -> None:
        """Serve ``answers`` to GETs of ``path`` (without the query), in order, the last one repeated."""
        self.routes[path] = list(answers)

    def next(self, path: str) -> Answer:
        with self.lock:
            answers = self.routes.get(urlsplit(path).path)
            if not answers:
                return Answer(b"not found", 404, "text/plain")
            return answers.pop(0) if len(answers) > 1 else answers[0]

    def hits(self, path: str) -> int:
        """How many requests asked for ``path`` (without the query)."""
        return sum(1 for p, _ in self.seen if urlsplit(p).path == path)


@contextmanager
def serving() -> Iterator[Server]:
    """A started server (stopped, its thread joined, on exit)."""
    server = Server()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self) -> None:
            with server.lock:
                server.seen.append((self.path, dict(self.headers.items())))
            answer = server.next(self.path)
            if answer.delay:
                time.sleep(answer.delay)
            self.send_response(answer.status)
            self.send_header("Content-Type", answer.content_type)
            self.send_header("Content-Length", str(len(answer.body)))
            if answer.cut is not None:
                self.send_header("Connection", "close")
            self.end_headers()
            try:
                self.wfile.write(answer.body if answer.cut is None else answer.body[: answer.cut])
                self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError):  # the client gave up first (a timeout)
                pass
            if answer.cut is not None:
                self.close_connection = True

        def log_message(self, format: str, *args: object) -> None:  # quiet
            return

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    server.url = f"http://127.0.0.1:{httpd.server_address[1]}"
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(5)

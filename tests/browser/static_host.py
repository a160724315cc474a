"""A plain file server for a static build, as a static host serves it: files from a folder,
and a missing file answered with the build's ``atlas/404.html`` and status 404."""

from __future__ import annotations

import functools
import threading
from collections.abc import Iterator
from http import HTTPStatus
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path


class _Host(SimpleHTTPRequestHandler):
    """Files from a folder; a missing one is answered with ``atlas/404.html`` and status 404."""

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        page = Path(self.directory) / "atlas" / "404.html"
        if code != HTTPStatus.NOT_FOUND or not page.is_file():
            super().send_error(code, message, explain)
            return
        body = page.read_bytes()
        self.send_response(404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        """Say nothing: the test reads the pages, not the log."""


def serve_folder(root: Path) -> Iterator[str]:
    """Serve ``root`` on a free loopback port for as long as the generator runs; yields the
    address of its ``atlas/`` folder (``http://127.0.0.1:PORT/atlas``)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Host, directory=str(root)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/atlas"
    finally:
        server.shutdown()
        server.server_close()

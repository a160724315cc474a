"""``computeatlas serve`` with uvicorn's multi-worker listening socket marked as TCP — a what-if.

Used only by the HTTP benchmark (server ``ours-2w-nodelay``); the product is not changed.

With ``--workers N`` uvicorn binds the listening socket itself (``Config.bind_socket``)
with ``proto`` left at 0 and hands it to the workers. Accepted connections inherit that
``proto``, and asyncio sets ``TCP_NODELAY`` only on sockets whose ``proto`` is
``IPPROTO_TCP``, so with more than one worker every response on a keep-alive connection
waits for the client's delayed ACK (about 40 ms on Linux): uvicorn issue #3149. This
launcher re-wraps the bound socket with ``proto=IPPROTO_TCP`` (same file descriptor, same
options) and then runs the CLI unchanged, so the benchmark can show what the two workers
give once that stall is gone.

    .venv/bin/python benchmarks/serve_nodelay.py serve --port 8000 --workers 2
"""

from __future__ import annotations

import socket
import sys

import uvicorn.config

_bind_socket = uvicorn.config.Config.bind_socket


def bind_socket(self: uvicorn.config.Config) -> socket.socket:
    sock = _bind_socket(self)
    if sock.family in (socket.AF_INET, socket.AF_INET6) and sock.proto == 0:
        sock = socket.socket(sock.family, sock.type, socket.IPPROTO_TCP, sock.detach())
    return sock


uvicorn.config.Config.bind_socket = bind_socket  # type: ignore[method-assign]

if __name__ == "__main__":
    from computeatlas import cli

    sys.argv[0] = "computeatlas"
    (getattr(cli, "main", None) or cli.app)()  # the console script's entry point

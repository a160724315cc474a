"""Start-up checks of ``computeatlas serve``: said before it claims to serve, never after.

- :func:`port_problem`: the address and port cannot be listened on (another server holds
  the port, the address is not this machine's, a port below 1024 without privilege);
- :func:`trusted_proxies_warning`: ``COMPUTEATLAS_TRUSTED_PROXIES`` trusts every address,
  so any client can set the address the rate limit and the request ledger see.
"""

from __future__ import annotations

import errno
import ipaddress
import socket


def port_problem(host: str, port: int) -> str | None:
    """Why ``host``:``port`` cannot be listened on, as one sentence, or None when it can.

    Binds a socket there the way uvicorn does (``SO_REUSEADDR``) and closes it at once: a
    port another process listens on is "already in use". Another server may still take the
    port in the instant before uvicorn binds it; uvicorn then exits with its own message.
    """
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        return f"cannot listen on {host}:{port}: the address {host!r} cannot be resolved ({exc.strerror})"
    family, kind, proto, _, address = infos[0]
    try:
        with socket.socket(family, kind, proto) as sock:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind(address)
            sock.listen(1)
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            return f"port {port} on {host} is already in use (another server is listening there); choose another with --port"
        return f"cannot listen on {host}:{port}: {exc.strerror or exc}"
    return None


def trusted_proxies_warning(entries: tuple[str, ...]) -> str | None:
    """A warning when ``entries`` (``settings.trusted_proxies``, already validated) include a
    network of every address (``0.0.0.0/0``, ``::/0``), else None."""
    everyone = [e for e in entries if ipaddress.ip_network(e.strip(), strict=False).prefixlen == 0]
    if not everyone:
        return None
    return (
        f"Warning: COMPUTEATLAS_TRUSTED_PROXIES includes {', '.join(everyone)}, which trusts every client: anyone "
        "can then set X-Forwarded-For and choose the address the rate limit counts. List only your reverse "
        "proxies' addresses, e.g. 127.0.0.1 or 10.0.0.0/8."
    )


__all__ = ["port_problem", "trusted_proxies_warning"]

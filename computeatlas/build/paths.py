"""Where a static build's files go and the addresses it is served at.

:func:`file_for` names the file a URL is written to and :func:`public_url` the URL a static
host serves a file at (see :mod:`computeatlas.build.static` for the table);
:func:`normalise_base_path`, :func:`site_origin` and :func:`normalise_live_url` check the
addresses a build is given. Shared by the build and its link check
(:mod:`computeatlas.build.links`).
"""

from __future__ import annotations

import re
from urllib.parse import unquote, urlsplit

EXTENSIONS = {
    "application/json": ".json",
    "application/xml": ".xml",
    "application/atom+xml": ".xml",
    "image/svg+xml": ".svg",
    "text/csv": ".csv",
    "text/plain": ".txt",
    "application/vnd.apache.parquet": ".parquet",
    "application/x-sqlite3": ".sqlite",
    "application/zip": ".zip",
}


def normalise_base_path(base_path: str) -> str:
    """``""`` for the root, else ``/a/b`` (leading slash, no trailing one); raises ValueError on a bad path."""
    text = (base_path or "").strip()
    if text in ("", "/"):
        return ""
    if "://" in text or not re.fullmatch(r"/?[A-Za-z0-9._~\-/]+", text) or ".." in text.split("/"):
        raise ValueError(f"base path {base_path!r}: write a URL path such as /atlas/")
    return "/" + text.strip("/")


def site_origin(site_url: str) -> str:
    """The origin (``scheme://host[:port]``) of ``site_url``; raises ValueError unless it is an absolute http(s) URL."""
    parts = urlsplit(site_url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ValueError(f"site URL {site_url!r}: write an absolute http(s) address such as https://atlas.example.org")
    return f"{parts.scheme}://{parts.netloc}"


def normalise_live_url(live_url: str | None) -> str | None:
    """``None`` when no live server is given, else ``live_url`` without a trailing slash.

    A live URL is an absolute ``http`` or ``https`` address (a path is allowed, as in
    ``https://host/atlas``; a query string or fragment is not), because forms post to it
    and links lead to it. Raises ``ValueError`` naming it otherwise (``javascript:…``,
    ``//host``, ``host`` alone, quotes or spaces).
    """
    if live_url is None or not live_url.strip():
        return None
    text = live_url.strip()
    parts = urlsplit(text)
    if (
        parts.scheme.lower() not in ("http", "https")
        or not parts.hostname
        or parts.query
        or parts.fragment
        or not re.fullmatch(r"[^\s\"'<>\\^`{|}]+", text)
    ):
        raise ValueError(f"live URL {live_url!r}: write an absolute http(s) address such as https://live.atlas.example.org")
    return text.rstrip("/")


def file_for(path: str, content_type: str) -> str:
    """The output file (relative, POSIX) for URL ``path`` served with ``content_type``. See the module doc."""
    kind = content_type.split(";", 1)[0].strip().lower()
    clean = unquote(path.split("?", 1)[0])
    if clean.endswith("/"):
        return clean.lstrip("/") + ("index.html" if kind == "text/html" else "index" + EXTENSIONS.get(kind, ""))
    last = clean.rsplit("/", 1)[-1]
    if "." in last:
        return clean.lstrip("/")
    if kind == "text/html":
        return clean.lstrip("/") + "/index.html"
    return clean.lstrip("/") + EXTENSIONS.get(kind, ".bin")


def public_url(file: str) -> str:
    """The URL path (without base) at which a static host serves ``file``: ``a/index.html`` → ``/a/``."""
    if file == "index.html":
        return "/"
    if file.endswith("/index.html"):
        return "/" + file[: -len("index.html")]
    return "/" + file


__all__ = ["EXTENSIONS", "file_for", "normalise_base_path", "normalise_live_url", "public_url", "site_origin"]

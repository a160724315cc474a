"""The static build: the whole site as files for any static host or CDN.

:func:`build` renders the app's own routes in-process (Starlette's test client over the
ASGI app: the same handlers, templates and cache as the live site, no second renderer)
and writes each response to a file. The URLs rendered are exactly every layer's
``static_paths(catalog)`` (see :mod:`computeatlas.web.routes`), plus ``/404.html``.

Where a URL goes (relative to the output folder)
    ==========================================  ====================================
    ``/`` and ``/silicon/``                     ``index.html``, ``silicon/index.html``
    ``/silicon/aws-trainium-3`` (HTML, no ext.)  ``silicon/aws-trainium-3/index.html``
    ``/api/accelerators/aws-trainium-3`` (JSON)  ``api/accelerators/aws-trainium-3.json``
    ``/charts/memory-bandwidth.svg`` (has ext.)  ``charts/memory-bandwidth.svg``
    a redirect                                   an HTML page with a meta refresh
    ``/static/...``                              copied from ``computeatlas/web/static``
    ==========================================  ====================================

A page is published at its directory URL (``/silicon/aws-trainium-3/``) and a JSON
document at its ``.json`` file, because ``/api/accelerators`` is both a document and
the folder of every accelerator's document.

Links and a sub-path
    Templates write root-absolute links (``href="/silicon/"``). The build rewrites every
    root-absolute ``href``/``src``/``action`` and every absolute URL on the site's own
    origin (canonical links, the sitemap, the feed, robots.txt) to ``base_path`` + the
    file's URL above; string values in JSON that are built URLs are rewritten the same
    way. So ``--base-path /atlas/`` gives a site that works from ``https://host/atlas/``,
    and a link to a page that was not built stays visible to :func:`dead_links`.
    Query strings are kept (a static host ignores them: ``/silicon/?sort=memory`` shows
    the unsorted table).

What a static host cannot do
    Some pages exist only on a live server: the dataset request form (``/data/``, whose
    token is bound to a cookie the server sets), on-demand comparisons, search. Give
    ``live_url`` (a running ``computeatlas serve``, e.g. ``https://live.atlas.example.org``)
    and every link or form action to a path that was not built goes there instead, and
    every form that posts is sent there. The build asks the app for each such path and
    lists any it does not serve in :attr:`BuildResult.live_dead`. Without ``live_url``
    those links stay on the static site, where :func:`dead_links` reports them.

``site_url`` is the public origin (``https://atlas.example.org``): canonical URLs, the
sitemap and the feed need absolute addresses.
"""

from __future__ import annotations

import html
import json
import re
import shutil
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from computeatlas.core.catalog import Catalog
from computeatlas.core.settings import Settings

MARKER = ".computeatlas-build"
"""File left in every output folder; the build only clears a non-empty folder that has it."""
NOT_FOUND = "/404.html"
DEFAULT_SITE_URL = "http://localhost:8000"
STATIC_DIR = Path(__file__).resolve().parent.parent / "web" / "static"

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
TEXT_TYPES = ("text/html", "application/json", "application/xml", "application/atom+xml", "text/plain")
_ATTR = re.compile(r"""(\s(?:href|src|action|poster)\s*=\s*)(["'])(.*?)\2""", re.I | re.S)
_FORM = re.compile(r"<form\b[^>]*>", re.I | re.S)
_SCRIPT = re.compile(r"<script\b[^>]*>.*?</script>", re.I | re.S)
_QUOTED = re.compile(r"""(['"])(/[^'"\s]*)\1""")


class BuildError(Exception):
    """The build could not finish: ``problems`` lists each URL that failed and why."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__(f"{len(problems)} problem(s) building the site:\n" + "\n".join(f"  - {p}" for p in problems))


@dataclass
class BuildResult:
    """What a build wrote: ``files`` maps each rendered URL to its file (relative to ``out_dir``)."""

    out_dir: Path
    base_path: str
    site_url: str
    files: dict[str, str] = field(default_factory=dict)
    redirects: dict[str, str] = field(default_factory=dict)
    live: list[str] = field(default_factory=list)
    live_dead: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def pages(self) -> int:
        """Files rendered from routes (redirect pages included; copied static assets not)."""
        return len(self.files) + len(self.redirects)


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


class Relinker:
    """Rewrites a response's links for the output: root-absolute and own-origin URLs → base path + file URL."""

    def __init__(self, urls: dict[str, str], base: str, origin: str, live_url: str | None = None) -> None:
        self.urls = urls
        self.base = base
        self.origin = origin
        self.live = live_url.rstrip("/") if live_url else None
        self.sent_live: set[str] = set()
        """Root-absolute paths (with query) that were pointed at the live server."""
        # An own-origin URL in text: up to a space, quote, bracket or brace, without trailing punctuation.
        self._absolute = re.compile(re.escape(origin) + r"""(/(?:[^\s"'<>(){}\[\]]*[^\s"'<>(){}\[\].,;:!?])?)?""")

    def path(self, link: str, strict: bool = False) -> str | None:
        """``link`` (``/x?q#f``) mapped to ``base + url(x) + ?q#f``.

        A path that was not built goes to the live server when there is one (the result is
        then absolute); else it keeps its path under the base, or is None when ``strict``.
        """
        split = urlsplit(link)
        tail = (f"?{split.query}" if split.query else "") + (f"#{split.fragment}" if split.fragment else "")
        target = self.urls.get(split.path)
        if target is None and split.path.startswith("/static/"):
            target = split.path
        if target is None:
            if self.live:
                self.sent_live.add(split.path + (f"?{split.query}" if split.query else ""))
                return self.live + split.path + tail
            if strict:
                return None
            target = split.path
        return self.base + target + tail

    def _attr(self, match: re.Match[str]) -> str:
        value = html.unescape(match.group(3))
        if value.startswith("/") and not value.startswith("//"):
            value = self.path(value) or value
        return match.group(1) + match.group(2) + html.escape(value, quote=True) + match.group(2)

    def _own(self, match: re.Match[str]) -> str:
        if not match.group(1):
            return self.origin + self.base + "/"
        mapped = self.path(match.group(1)) or match.group(1)
        return mapped if mapped.startswith(("http://", "https://")) else self.origin + mapped

    def _form(self, match: re.Match[str]) -> str:
        tag = match.group(0)
        if self.live and re.search(r"""method\s*=\s*["']?post""", tag, re.I):
            found = re.search(r"""\saction\s*=\s*(["'])(.*?)\1""", tag, re.I | re.S)
            path = urlsplit(html.unescape(found.group(2))).path if found else ""
            if path.startswith(self.base + "/"):
                path = path[len(self.base) :]  # the attribute pass already mapped it under the base
            action = html.escape(self.live + (path if path.startswith("/") else "/"), quote=True)
            if found:
                return tag[: found.start()] + f' action="{action}"' + tag[found.end() :]
            return tag[:-1] + f' action="{action}">'
        return tag

    def _script(self, match: re.Match[str]) -> str:
        """Inside a ``<script>`` (FastAPI's API explorer), a quoted string that is exactly a built URL."""

        def one(m: re.Match[str]) -> str:
            path = m.group(2)
            return m.group(1) + (self.base + self.urls[path]) + m.group(1) if path in self.urls else m.group(0)

        return _QUOTED.sub(one, match.group(0))

    def text(self, body: str, kind: str) -> str:
        """Rewrite an HTML, XML or plain-text body."""
        if kind == "text/html":
            body = _ATTR.sub(self._attr, body)
            body = _FORM.sub(self._form, body)
            body = _SCRIPT.sub(self._script, body)
        elif kind in ("application/xml", "application/atom+xml"):
            body = _ATTR.sub(self._attr, body)
        return self._absolute.sub(self._own, body)

    def json(self, value: Any) -> Any:
        """Rewrite string values of parsed JSON that are built URLs (root-absolute or on the origin)."""
        if isinstance(value, dict):
            return {k: self.json(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self.json(v) for v in value]
        if isinstance(value, str):
            if value.startswith("/") and not value.startswith("//") and urlsplit(value).path in self.urls:
                return self.path(value) or value
            if value.startswith(self.origin + "/") and urlsplit(value[len(self.origin) :]).path in self.urls:
                return self.origin + (self.path(value[len(self.origin) :]) or "")
        return value


def _prepare(out_dir: Path) -> None:
    if out_dir.exists():
        if not out_dir.is_dir():
            raise BuildError([f"{out_dir} exists and is not a folder"])
        if any(out_dir.iterdir()):
            if not (out_dir / MARKER).exists():
                raise BuildError([f"{out_dir} is not empty and was not made by a build; choose an empty or new folder"])
            for child in out_dir.iterdir():
                shutil.rmtree(child) if child.is_dir() else child.unlink()
    out_dir.mkdir(parents=True, exist_ok=True)


def _redirect_page(target: str) -> str:
    safe = html.escape(target, quote=True)
    return (
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>Moved</title>'
        f'<meta http-equiv="refresh" content="0; url={safe}"><link rel="canonical" href="{safe}">'
        f'</head><body><p>This page moved to <a href="{safe}">{safe}</a>.</p></body></html>\n'
    )


def build(
    catalog: Catalog,
    out_dir: Path | str,
    base_path: str = "",
    *,
    site_url: str = DEFAULT_SITE_URL,
    live_url: str | None = None,
    paths: Iterable[str] | None = None,
    on_progress: Callable[[int, int, str], None] | None = None,
    settings: Settings | None = None,
) -> BuildResult:
    """Render the site for ``catalog`` into ``out_dir``, to be served from ``base_path`` on ``site_url``.

    ``live_url`` is a running server for what a static host cannot do (see the module doc).
    ``settings`` (default :meth:`Settings.from_env`) configure the app that renders the
    pages; its public origin is ``site_url``.
    ``paths`` defaults to every layer's ``static_paths``; ``on_progress(done, total, url)``
    is called after each URL (the CLI draws a rich progress bar with it). ``out_dir`` is
    created, or emptied if an earlier build made it; any other non-empty folder is refused.

    Raises :class:`BuildError` listing every URL that did not answer 200 (or a redirect),
    and ``ValueError`` for a bad ``base_path``, ``site_url`` or ``live_url`` (see
    :func:`normalise_live_url`).
    """
    from fastapi.testclient import TestClient

    from computeatlas.web.app import create_app
    from computeatlas.web.routes import all_paths

    started = time.perf_counter()
    base = normalise_base_path(base_path)
    origin = site_origin(site_url)
    live_url = normalise_live_url(live_url)
    out = Path(out_dir)
    wanted = list(dict.fromkeys(paths if paths is not None else all_paths(catalog)))
    _prepare(out)

    responses: dict[str, tuple[str, bytes]] = {}
    redirects: dict[str, str] = {}
    problems: list[str] = []
    total = len(wanted) + 1
    settings = (settings if settings is not None else Settings.from_env()).model_copy(update={"public_origin": origin})
    with TestClient(create_app(catalog, settings), base_url=origin, follow_redirects=False) as client:
        for done, path in enumerate([*wanted, NOT_FOUND], start=1):
            response = client.get(path)
            expected = 404 if path == NOT_FOUND else 200
            if response.status_code == expected:
                responses[path] = (response.headers.get("content-type", "application/octet-stream"), response.content)
            elif response.is_redirect and path != NOT_FOUND:
                redirects[path] = response.headers["location"]
            else:
                problems.append(f"{path}: HTTP {response.status_code}")
            if on_progress is not None:
                on_progress(done, total, path)
        if problems:
            raise BuildError(problems)
        relink = _write(out, responses, redirects, Relinker({}, base, origin, live_url))
        # Paths sent to the live server must be ones it serves (a redirect or a 405 for a
        # form's GET counts as served; a 404 does not).
        live = sorted(relink.sent_live)
        live_dead = [p for p in live if client.get(p).status_code == 404]
    shutil.copytree(STATIC_DIR, out / "static", dirs_exist_ok=True)
    (out / MARKER).write_text(f"data version {catalog.version}\n", encoding="utf-8")
    return BuildResult(
        out_dir=out,
        base_path=base,
        site_url=origin + base + "/",
        files={path: file_for(path, kind) for path, (kind, _) in responses.items()},
        redirects={p: file_for(p, "text/html") for p in redirects},
        live=live,
        live_dead=live_dead,
        seconds=time.perf_counter() - started,
    )


def _write(out: Path, responses: dict[str, tuple[str, bytes]], redirects: dict[str, str], relink: Relinker) -> Relinker:
    """Write every response (links rewritten by ``relink``, whose URL map is filled here) and redirect page."""
    files = {path: file_for(path, kind) for path, (kind, _) in responses.items()}
    relink.urls.update({path: public_url(file) for path, file in files.items()})
    relink.urls.update({path: public_url(file_for(path, "text/html")) for path in redirects})
    for path, (content_type, body) in responses.items():
        kind = content_type.split(";", 1)[0].strip().lower()
        target = out / files[path]
        target.parent.mkdir(parents=True, exist_ok=True)
        if kind == "application/json":
            data = relink.json(json.loads(body))
            target.write_text(json.dumps(data, ensure_ascii=False, separators=(",", ":")), encoding="utf-8")
        elif kind in TEXT_TYPES and not (path.startswith("/records/") and kind != "text/html"):  # data files verbatim
            target.write_text(relink.text(body.decode("utf-8"), kind), encoding="utf-8")
        else:
            target.write_bytes(body)
    for path, location in redirects.items():
        target = out / file_for(path, "text/html")
        target.parent.mkdir(parents=True, exist_ok=True)
        mapped = relink.path(location) if location.startswith("/") else location
        target.write_text(_redirect_page(mapped or location), encoding="utf-8")
    return relink


# --- checking a build ----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DeadLink:
    """A link in a built file that leads nowhere: the file it is in, the link, and why."""

    page: str
    link: str
    reason: str

    def __str__(self) -> str:
        return f"{self.page}: {self.link} ({self.reason})"


class _Links(HTMLParser):
    TAGS = {"a": "href", "link": "href", "img": "src", "script": "src", "form": "action", "area": "href", "source": "src"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.links: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if found.get("id"):
            self.ids.add(found["id"] or "")
        if tag == "a" and found.get("name"):
            self.ids.add(found["name"] or "")
        attr = self.TAGS.get(tag)
        if attr and found.get(attr) is not None:
            self.links.append(found[attr] or "")


def _parse(file: Path) -> _Links:
    parser = _Links()
    parser.feed(file.read_text(encoding="utf-8"))
    return parser


def _resolve(out: Path, url_path: str) -> Path | None:
    """The file a static host serves for ``url_path`` (already without the base path), or None."""
    rel = unquote(url_path).lstrip("/")
    candidates = [out / rel / "index.html"] if rel == "" or url_path.endswith("/") else [out / rel, out / rel / "index.html"]
    for candidate in candidates:
        if candidate.is_file() and out.resolve() in candidate.resolve().parents:
            return candidate
    return None


def dead_links(out_dir: Path | str, base_path: str = "", site_url: str | None = None) -> list[DeadLink]:
    """Every internal link in the HTML files of a build that leads to no file, or to a missing ``#anchor``.

    Root-absolute links must start with ``base_path``; links on ``site_url``'s origin
    (canonical links) are checked too; relative links are resolved against the page's URL.
    Links to other sites, ``mailto:`` and ``data:`` are not followed. The sitemap's
    locations are checked when ``site_url`` is given.
    """
    out = Path(out_dir)
    base = normalise_base_path(base_path)
    origin = site_origin(site_url) if site_url else None
    parsed: dict[Path, _Links] = {}
    dead: list[DeadLink] = []

    def get(file: Path) -> _Links:
        if file not in parsed:
            parsed[file] = _parse(file)
        return parsed[file]

    def check(page: str, page_url: str, link: str, file: Path | None = None) -> None:
        link = link.strip()
        if not link or link.startswith(("mailto:", "data:", "tel:", "javascript:")):
            return
        own = link[len(origin) :] if origin and link.startswith(origin + "/") else link
        split = urlsplit(own)
        if split.scheme or split.netloc:
            return  # another site
        if not split.path:
            target: Path | None = file
        else:
            absolute = split.path if split.path.startswith("/") else _join(page_url, split.path)
            if base and not (absolute == base or absolute.startswith(base + "/")):
                dead.append(DeadLink(page, link, f"outside the base path {base}/"))
                return
            target = _resolve(out, absolute[len(base) :] or "/")
            if target is None:
                dead.append(DeadLink(page, link, "no such file"))
                return
        if split.fragment and target is not None and target.suffix == ".html":
            if split.fragment not in get(target).ids:
                dead.append(DeadLink(page, link, f"no element with id '{split.fragment}'"))

    for file in sorted(out.rglob("*.html")):
        rel = file.relative_to(out).as_posix()
        page_url = base + public_url(rel)
        if rel == "404.html":
            page_url = base + "/404.html"
        for link in get(file).links:
            check(rel, page_url, link, file)
    sitemap = out / "sitemap.xml"
    if origin and sitemap.is_file():
        for loc in re.findall(r"<loc>(.*?)</loc>", sitemap.read_text(encoding="utf-8")):
            check("sitemap.xml", base + "/", html.unescape(loc))
    return dead


def _join(page_url: str, relative: str) -> str:
    """Resolve ``relative`` against the directory of ``page_url`` (a URL path), normalising ``..``."""
    folder = page_url if page_url.endswith("/") else page_url.rsplit("/", 1)[0] + "/"
    parts: list[str] = []
    for part in (folder + relative).split("/"):
        if part == "..":
            if parts:
                parts.pop()
        elif part != ".":
            parts.append(part)
    joined = "/".join(parts)
    return joined if joined.startswith("/") else "/" + joined


__all__ = [
    "BuildError", "BuildResult", "DeadLink", "Relinker", "build", "dead_links", "file_for", "normalise_base_path",
    "normalise_live_url", "public_url", "site_origin",
]

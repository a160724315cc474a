"""Checking a static build: every internal link leads to a file, and no page would be blank.

:func:`dead_links` walks every HTML file of a build (:mod:`computeatlas.build.static`) and
reports, as :class:`DeadLink`:

- a link (``href``, ``src``, a form's ``action``, a sitemap location) to a file that was not
  built, outside the base path, or to a missing ``#anchor``;
- a GET form whose action is a built page that cannot answer it: a static host ignores
  the query string, so the answer would be the page without a result. A form into the
  build must say what the static page does with its query: ``data-static="script"`` (the
  page's own script reads it: the target page must load a script) or
  ``data-static="unfiltered"`` (the query only narrows a table the page shows in full);
- a form that posts to a built file (a static host cannot take a post);
- a page whose ``<main>`` holds nothing but its heading (a blank page).
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar
from urllib.parse import unquote, urlsplit

from lxml import etree

from computeatlas.build.paths import normalise_base_path, public_url, site_origin

STATIC_ANSWERS = ("script", "unfiltered")
"""What a GET form into a static build may declare in ``data-static`` (see the module doc)."""


@dataclass(frozen=True, slots=True)
class DeadLink:
    """A link in a built file that leads nowhere: the file it is in, the link, and why."""

    page: str
    link: str
    reason: str

    def __str__(self) -> str:
        return f"{self.page}: {self.link} ({self.reason})"


class _Links:
    """What the walk needs from one HTML file, gathered as lxml's HTML parser reads it (a
    parser target: start and end tags and text, no tree is built)."""

    TAGS: ClassVar[dict[str, str]] = {
        "a": "href",
        "link": "href",
        "img": "src",
        "script": "src",
        "form": "action",
        "area": "href",
        "source": "src",
    }

    def __init__(self) -> None:
        self.links: list[str] = []
        self.ids: set[str] = set()
        self.get_forms: list[tuple[str, str | None]] = []  # (action, data-static) of each GET form
        self.post_forms: list[str] = []  # the action of each form that posts
        self.scripts = 0
        self.main_text: list[str] = []  # text inside <main>, outside its <h1>
        self.has_main = False
        self._in_main = 0
        self._in_h1 = 0

    def start(self, tag: str, found: dict[str, str]) -> None:
        if tag == "main":
            self._in_main += 1
            self.has_main = True
        elif tag == "h1":
            self._in_h1 += 1
        elif tag == "script" and found.get("src"):
            self.scripts += 1
        elif tag == "form" and (found.get("method") or "get").lower() == "get":
            self.get_forms.append((found.get("action") or "", found.get("data-static")))
        elif tag == "form":
            self.post_forms.append(found.get("action") or "")
        if found.get("id"):
            self.ids.add(found["id"])
        if tag == "a" and found.get("name"):
            self.ids.add(found["name"])
        attr = self.TAGS.get(tag)
        if attr and found.get(attr) is not None:
            self.links.append(found[attr])

    def end(self, tag: str) -> None:
        if tag == "main":
            self._in_main = max(0, self._in_main - 1)
        elif tag == "h1":
            self._in_h1 = max(0, self._in_h1 - 1)

    def data(self, text: str) -> None:
        if self._in_main and not self._in_h1 and text.strip():
            self.main_text.append(text.strip())

    def close(self) -> _Links:
        return self


def _parse(file: Path) -> _Links:
    found = _Links()
    return etree.parse(str(file), etree.HTMLParser(target=found, encoding="utf-8"))


def _resolve(out: Path, url_path: str) -> Path | None:
    """The file a static host serves for ``url_path`` (already without the base path), or
    None; ``out`` is the build folder, resolved."""
    rel = unquote(url_path).lstrip("/")
    candidates = [out / rel / "index.html"] if rel == "" or url_path.endswith("/") else [out / rel, out / rel / "index.html"]
    for candidate in candidates:
        if candidate.is_file() and out in candidate.resolve().parents:
            return candidate
    return None


def dead_links(out_dir: Path | str, base_path: str = "", site_url: str | None = None) -> list[DeadLink]:
    """Every internal link in the HTML files of a build that leads to no file, or to a missing
    ``#anchor``; every GET form into the build that its target page cannot answer; every
    blank page (see the module doc).

    Root-absolute links must start with ``base_path``; links on ``site_url``'s origin
    (canonical links) are checked too; relative links are resolved against the page's URL.
    Links to other sites, ``mailto:`` and ``data:`` are not followed. The sitemap's
    locations are checked when ``site_url`` is given.
    """
    out = Path(out_dir).resolve()
    base = normalise_base_path(base_path)
    origin = site_origin(site_url) if site_url else None
    parsed: dict[Path, _Links] = {}
    resolved: dict[str, Path | None] = {}  # URL path -> built file: most pages link the same files
    dead: list[DeadLink] = []

    def get(file: Path) -> _Links:
        if file not in parsed:
            parsed[file] = _parse(file)
        return parsed[file]

    def check(page: str, page_url: str, link: str, file: Path | None = None) -> Path | None:
        """Record ``link`` if dead; return the built file it leads to (None for another site or a dead link)."""
        link = link.strip()
        if not link or link.startswith(("mailto:", "data:", "tel:", "javascript:")):
            return None
        own = link[len(origin) :] if origin and link.startswith(origin + "/") else link
        split = urlsplit(own)
        if split.scheme or split.netloc:
            return None  # another site
        if not split.path:
            target: Path | None = file
        else:
            absolute = split.path if split.path.startswith("/") else _join(page_url, split.path)
            if base and not (absolute == base or absolute.startswith(base + "/")):
                dead.append(DeadLink(page, link, f"outside the base path {base}/"))
                return None
            path = absolute[len(base) :] or "/"
            if path not in resolved:
                resolved[path] = _resolve(out, path)
            target = resolved[path]
            if target is None:
                dead.append(DeadLink(page, link, "no such file"))
                return None
        if split.fragment and target is not None and target.suffix == ".html":
            if split.fragment not in get(target).ids:
                dead.append(DeadLink(page, link, f"no element with id '{split.fragment}'"))
        return target

    def check_form(page: str, page_url: str, action: str, answer: str | None) -> None:
        target = check(page, page_url, action)
        if target is None or target.suffix != ".html":
            return
        if answer not in STATIC_ANSWERS:
            dead.append(
                DeadLink(
                    page,
                    action,
                    "a form to a static page, which ignores what is typed: the answer would show "
                    "no result (send it to the live server, or mark what the page does with data-static)",
                )
            )
        elif answer == "script" and not get(target).scripts:
            dead.append(DeadLink(page, action, "a form for a page's script, but that page loads no script"))

    for file in sorted(out.rglob("*.html")):
        rel = file.relative_to(out).as_posix()
        page_url = base + public_url(rel)
        if rel == "404.html":
            page_url = base + "/404.html"
        parsed_file = get(file)
        forms = {action for action, _ in parsed_file.get_forms} | set(parsed_file.post_forms)
        for link in parsed_file.links:
            if link not in forms:
                check(rel, page_url, link, file)
        for action, answer in parsed_file.get_forms:
            check_form(rel, page_url, action, answer)
        for action in parsed_file.post_forms:
            if check(rel, page_url, action) is not None:
                dead.append(DeadLink(rel, action, "a form that posts to a static file, which a static host cannot take"))
        if parsed_file.has_main and not parsed_file.main_text:
            dead.append(DeadLink(rel, "", "a blank page: its <main> holds nothing but its heading"))
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


__all__ = ["STATIC_ANSWERS", "DeadLink", "dead_links"]

"""The site's own files: ``/sitemap.xml``, ``/feed.xml`` (Atom), ``/robots.txt``, the 404 page,
and the data files every page is built from (``/records/...``).

Absolute URLs (sitemap locations, feed links) are made from the public origin and base
path of the settings (never from a request's Host header), so the live site names its
configured address and the static build (:mod:`computeatlas.build.static`) names the
``--site-url`` it was given. The page list comes from every layer's
``static_paths(catalog)`` (see :mod:`computeatlas.web.routes`), so a new layer's pages
appear in the sitemap without touching this module.
"""

from __future__ import annotations

import datetime as dt
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from fastapi import Path, Request
from fastapi.responses import HTMLResponse, PlainTextResponse, Response

from computeatlas.catalog import Catalog
from computeatlas.core.errors import NotFound
from computeatlas.core.urls import Urls, site_path
from computeatlas.silicon.related import title_of
from computeatlas.web.page import Route, catalog_of, render, urls_of

ATOM = "http://www.w3.org/2005/Atom"
SITEMAP = "http://www.sitemaps.org/schemas/sitemap/0.9"
RECORDS = site_path("records")

RECORD_PAGES: dict[str, tuple[str, str | None]] = {
    "accelerators": ("silicon_page", "ident"),
    "providers": ("cloud_provider", "ident"),
    "systems": ("system_page", "ident"),
    "energy": ("energy_topic", "ident"),
    "comparisons": ("compare_pair", "pair"),
    "claims": ("economics", None),
    "models": ("economics_model", "ident"),
}
"""Where each kind of record has its page (route name and the parameter naming the record);
used when that page is among the built paths, else the record's data file stands in (a
layer not yet built never gives a dead link)."""


def record_page(folder: str, ident: str) -> str:
    """The site path of the page of record ``ident`` in ``folder``, or ``""`` when it has none."""
    if folder not in RECORD_PAGES:
        return ""
    name, param = RECORD_PAGES[folder]
    return site_path(name, **({param: ident} if param else {}))


def paths_of(layers: Iterable[Any], catalog: Catalog, settings: Any = None) -> list[str]:
    """Every concrete URL of ``layers`` (route modules): each one's ``static_paths``, in order, once.
    A layer whose ``static_paths`` takes a second argument (it reads the price store) gets ``settings``.

    The route table (:func:`computeatlas.web.routes.all_paths`) calls this with every layer;
    handlers here reach it through ``request.app.state.all_paths`` so that this module,
    itself one of the layers, does not import the table.
    """
    seen: dict[str, None] = {}
    for layer in layers:
        paths = getattr(layer, "static_paths", None)
        if paths is not None:
            for path in paths(catalog, settings) if paths.__code__.co_argcount == 2 else paths(catalog):
                seen.setdefault(path, None)
    return list(seen)


def is_page(path: str) -> bool:
    """True for a URL that is an HTML page: not under ``/api/`` or ``/records/``, no file extension."""
    last = path.rstrip("/").rsplit("/", 1)[-1]
    return not path.startswith(("/api/", RECORDS, site_path("static", file=""))) and "." not in last


def data_file_url(rel: str) -> str:
    """The URL of a data file given as ``catalog.files`` holds it (``data/accelerators/x.toml`` → ``/records/accelerators/x.toml``)."""
    return RECORDS + rel.split("/", 1)[1]


@dataclass(frozen=True, slots=True)
class Change:
    """One record as last checked: what it is, when (``verified``), and where it lives."""

    folder: str
    ident: str
    title: str
    summary: str
    verified: dt.date
    url: str


def _title(folder: str, record: Any, catalog: Catalog) -> str:
    if hasattr(record, "name"):
        return record.name
    if hasattr(record, "title"):
        return record.title
    if folder == "comparisons":
        names = [catalog.accelerators[p].name if p in catalog.accelerators else p for p in record.parts]
        return " vs ".join(names)
    if folder == "claims":
        return f"{record.claimant}: {record.metric.replace('_', ' ')}" + (f" ({record.model})" if getattr(record, "model", None) else "")
    return record.id


def _summary(record: Any) -> str:
    for attr in ("summary", "framing", "conditions"):
        text = getattr(record, attr, None)
        if text:
            return str(text)
    return ""


def changes(catalog: Catalog, paths: Iterable[str]) -> list[Change]:
    """Every record with a verified date, newest first (ties by title), linked to its page.

    A record links to its page when that page is among ``paths`` ,
    else to its data file under ``/records/``.
    """
    built = set(paths)
    out: list[Change] = []
    for folder, records in catalog.collections.items():
        for ident, record in records.items():
            verified = getattr(record, "verified", None)
            if verified is None:
                continue
            page = record_page(folder, ident)
            url = page if page in built else data_file_url(catalog.files[f"{folder}/{ident}"])
            out.append(Change(folder, ident, _title(folder, record, catalog), _summary(record), verified, url))
    out.sort(key=lambda c: (-c.verified.toordinal(), c.title.lower(), c.ident))
    return out


def _stamp(day: dt.date) -> str:
    return dt.datetime.combine(day, dt.time(), tzinfo=dt.UTC).isoformat().replace("+00:00", "Z")


def _xml(root: ET.Element, namespace: str) -> bytes:
    """Serialise ``root`` (built with plain tag names) as a UTF-8 document in ``namespace``."""
    root.set("xmlns", namespace)
    return ET.tostring(root, encoding="utf-8", xml_declaration=True)


def feed_xml(catalog: Catalog, urls: Urls, paths: Iterable[str]) -> bytes:
    """The Atom feed: one entry per record change, keyed by its verified date, newest first.

    An entry's id is its page URL with ``#verified-{date}``, so re-checking a record makes
    a new entry. Addresses are ``urls.absolute`` of site paths (the public origin, never a
    request's Host).
    """
    items = changes(catalog, paths)
    ns = ""
    feed = ET.Element(ns + "feed")
    ET.SubElement(feed, ns + "title").text = "Compute Atlas: records checked against their sources"
    ET.SubElement(feed, ns + "subtitle").text = (
        "Each entry is a record (an accelerator, provider, system, energy topic, comparison or claim) "
        "as of the date someone last verified it against its sources."
    )
    ET.SubElement(feed, ns + "id").text = urls.absolute("/")
    ET.SubElement(feed, ns + "updated").text = _stamp(items[0].verified if items else dt.date(2000, 1, 1))
    ET.SubElement(feed, ns + "link", rel="self", type="application/atom+xml", href=urls.absolute(site_path("feed")))
    ET.SubElement(feed, ns + "link", rel="alternate", type="text/html", href=urls.absolute("/"))
    author = ET.SubElement(feed, ns + "author")
    ET.SubElement(author, ns + "name").text = "Compute Atlas"
    ET.SubElement(feed, ns + "generator").text = "Compute Atlas"
    for item in items:
        entry = ET.SubElement(feed, ns + "entry")
        ET.SubElement(entry, ns + "title").text = f"{item.title} — verified {item.verified.isoformat()}"
        ET.SubElement(entry, ns + "id").text = f"{urls.absolute(item.url)}#verified-{item.verified.isoformat()}"
        ET.SubElement(entry, ns + "updated").text = _stamp(item.verified)
        ET.SubElement(entry, ns + "link", rel="alternate", href=urls.absolute(item.url))
        ET.SubElement(entry, ns + "category", term=item.folder)
        summary = ET.SubElement(entry, ns + "summary", type="text")
        summary.text = (item.summary + " " if item.summary else "") + (
            f"Checked against its sources on {item.verified.isoformat()} (data version {catalog.version})."
        )
    return _xml(feed, ATOM)


def sitemap_xml(catalog: Catalog, urls: Urls, paths: Iterable[str]) -> bytes:
    """The sitemap: every HTML page among ``paths`` , with a last-modified date.

    A record's page carries its verified date; other pages carry the catalog's newest one.
    """
    paths = list(paths)
    verified = {c.url: c.verified for c in changes(catalog, paths)}
    newest = catalog.last_verified
    ns = ""
    urlset = ET.Element(ns + "urlset")
    for path in paths:
        if not is_page(path):
            continue
        url = ET.SubElement(urlset, ns + "url")
        ET.SubElement(url, ns + "loc").text = urls.absolute(path)
        day = verified.get(path, newest)
        if day is not None:
            ET.SubElement(url, ns + "lastmod").text = day.isoformat()
    return _xml(urlset, SITEMAP)


def robots_txt(urls: Urls) -> str:
    """robots.txt: everything may be crawled except query-string variants; points at the sitemap."""
    return (
        "# Compute Atlas. Canonical pages carry no query string; sorted, filtered and on-demand\n"
        "# variants (?sort=, ?ids=) are the same records and are not for indexing.\n"
        "User-agent: *\n"
        "Allow: /\n"
        "Disallow: /*?\n"
        f"Sitemap: {urls.absolute(site_path('sitemap'))}\n"
    )


# --- handlers ------------------------------------------------------------------------


def _all_paths(request: Request) -> list[str]:
    """Every page URL of the app serving ``request`` (set by :func:`computeatlas.web.app.create_app`)."""
    return request.app.state.all_paths(catalog_of(request), request.app.state.settings)


def sitemap(request: Request) -> Response:
    """The sitemap (sitemaps.org protocol) of every page."""
    return Response(sitemap_xml(catalog_of(request), urls_of(request), _all_paths(request)), media_type="application/xml")


def feed(request: Request) -> Response:
    """The Atom feed of record changes by verified date."""
    return Response(feed_xml(catalog_of(request), urls_of(request), _all_paths(request)), media_type="application/atom+xml")


def robots(request: Request) -> PlainTextResponse:
    """robots.txt with the sitemap's address."""
    return PlainTextResponse(robots_txt(urls_of(request)))


def not_found_page(request: Request) -> HTMLResponse:
    """The page shown for an address that does not exist (status 404); the static build's
    404.html. In a static build it also lists the curated comparisons (the only ones built,
    title and link, by title), which its script (``static/notfound.js``) shows when the
    address asked for is a comparison (``/compare/a-vs-b``), with the live server's page of
    that pair when the build has one. When the build holds the parts' comparison columns
    (``/api/compare/parts/{ident}``), the page lists their files too, and its second script
    (``static/compare.js``) shows any uncurated pair of them from those files, or, for a pair
    named by aliases, sends the browser to the pair's one address (names read from the
    search index, when it was built)."""
    catalog = catalog_of(request)
    urls = urls_of(request)
    built = urls.files or {}
    columns = {i: urls.link(path) for i in sorted(catalog.accelerators) if (path := site_path("api_compare_part", ident=i)) in built}
    index = site_path("api_search_index")
    curated = sorted(
        ((title_of(catalog, c), site_path("compare_pair", pair=c.id)) for c in catalog.comparisons.values()), key=lambda tu: tu[0].lower()
    )
    html = request.app.state.templates.get_template("error.html").render(
        request=request,
        status=404,
        title="No such page",
        detail="Nothing lives at this address. The links below lead back into the atlas.",
        suggestions=[],
        page_title="No such page",
        data_version=catalog.version,
        prebuilt=curated,
        columns=columns,
        search_index=urls.link(index) if columns and index in built else None,
    )
    return HTMLResponse(html, status_code=404)


def _data_files(catalog: Catalog) -> list[str]:
    return sorted(set(catalog.files.values()))


def records_index(request: Request) -> HTMLResponse:
    """Every data file the site is built from, with the data version."""
    catalog = catalog_of(request)
    files = [(rel, data_file_url(rel)) for rel in _data_files(catalog)]
    return render(request, "records.html", page_title="Data files", files=files)


def record_file(
    request: Request,
    folder: str = Path(description="data sub-folder, e.g. 'accelerators'", max_length=40),
    name: str = Path(description="file name, e.g. 'aws-trainium-3.toml'", max_length=120),
) -> Response:
    """One data file, byte for byte as the catalog was loaded from it (TOML or CSV)."""
    catalog = catalog_of(request)
    rel = f"{catalog.root.name}/{folder}/{name}"
    if rel not in set(catalog.files.values()):
        raise NotFound(
            "No such data file", f"There is no data file '{folder}/{name}'.", [("All data files", urls_of(request).path("records"))]
        )
    kind = "text/csv" if name.endswith(".csv") else "text/plain"
    return Response((catalog.root / folder / name).read_bytes(), media_type=f"{kind}; charset=utf-8")


def static_paths(catalog: Catalog) -> Iterator[str]:
    """The site's own files and every data file, for the static build (the 404 page is built apart)."""
    yield from (site_path(n) for n in ("sitemap", "feed", "robots", "openapi", "api_docs", "records"))
    for rel in _data_files(catalog):
        yield data_file_url(rel)


ROUTES: tuple[Route, ...] = (
    Route(sitemap, "sitemap", Response),
    Route(feed, "feed", Response),
    Route(robots, "robots", PlainTextResponse),
    Route(not_found_page, "not_found"),
    Route(records_index, "records"),
    Route(record_file, "record_file", Response),
)

"""The site's URLs, from one registry: every route's pattern by name, and the base path.

:data:`PATTERNS` names every page and endpoint (``"silicon_page"`` → ``/silicon/{ident}``).
The route table registers each route at its pattern (:func:`pattern`), and every link is
made from the same name: :meth:`Urls.path` (``/atlas/silicon/aws-trainium-3`` under the
base path ``/atlas``) and :meth:`Urls.absolute` (on the public origin, never the Host a
request came with) for canonical links, citations, the sitemap, the feed and robots.txt.
Templates call it as the Jinja global ``url('silicon_page', ident=…)`` and put the site
paths view objects hold under the base path with the filter ``|link``. The static build
renders with a registry that also knows where each built page's file is served
(``files``) and a live server for the rest, so pages are written as rendered.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from urllib.parse import quote, urlsplit

PATTERNS: Mapping[str, str] = MappingProxyType(
    {
        # silicon
        "home": "/",
        "silicon_redirect": "/silicon",
        "silicon_index": "/silicon/",
        "coverage": "/silicon/coverage",
        "silicon_page": "/silicon/{ident}",
        "api_accelerators": "/api/accelerators",
        "api_accelerator": "/api/accelerators/{ident}",
        "api_coverage": "/api/coverage",
        "health": "/healthz",
        # comparisons and search
        "compare_redirect": "/compare",
        "compare_index": "/compare/",
        "compare_pair": "/compare/{pair}",
        "search": "/search",
        "api_compare": "/api/compare",
        "api_compare_pair": "/api/compare/{pair}",
        "api_compare_part": "/api/compare/parts/{ident}",
        "api_search": "/api/search",
        "api_search_index": "/api/search-index",
        # energy, systems, economics
        "energy_redirect": "/energy",
        "energy_index": "/energy/",
        "energy_topic": "/energy/{ident}",
        "systems_redirect": "/systems",
        "systems_index": "/systems/",
        "system_page": "/systems/{ident}",
        "economics_redirect": "/economics",
        "economics": "/economics/",
        "estimate_page": "/economics/estimate",
        "economics_model": "/economics/models/{ident}",
        "economics_model_prices_svg": "/economics/models/{ident}/token-prices.svg",
        "api_energy": "/api/energy",
        "api_energy_topic": "/api/energy/{ident}",
        "api_systems": "/api/systems",
        "api_system": "/api/systems/{ident}",
        "api_economics": "/api/economics",
        "api_estimate": "/api/estimate",
        "api_economics_models": "/api/economics/models",
        "api_economics_model": "/api/economics/models/{ident}",
        # cloud
        "cloud_redirect": "/cloud",
        "cloud_index": "/cloud/",
        "cloud_prices_bare_redirect": "/cloud/prices",
        "cloud_prices_redirect": "/cloud/prices/",
        "cloud_prices": "/cloud/prices/{ident}",
        "cloud_price_history": "/cloud/prices/{ident}/history",
        "cloud_price_feed": "/cloud/prices/{ident}/feed.xml",
        "cloud_status": "/cloud/status",
        "cloud_provider": "/cloud/{ident}",
        "api_offers": "/api/offers",
        "api_prices": "/api/prices/{ident}",
        "api_price_history": "/api/prices/{ident}/history",
        "api_price_current": "/api/prices/{ident}/current",
        "api_providers": "/api/providers",
        "api_provider": "/api/providers/{ident}",
        "api_status_collectors": "/api/status/collectors",
        # charts
        "chart_memory_svg": "/charts/memory-bandwidth.svg",
        "chart_memory": "/charts/memory-bandwidth",
        "chart_compute_svg": "/charts/compute-power/{fmt}.svg",
        "chart_compute": "/charts/compute-power/{fmt}",
        "chart_prices_svg": "/charts/prices/{ident}.svg",
        "chart_prices": "/charts/prices/{ident}",
        "chart_rack_svg": "/charts/rack-power.svg",
        "chart_rack": "/charts/rack-power",
        "api_chart_prices": "/api/charts/prices/{ident}",
        "api_chart_rack": "/api/charts/rack-power",
        "api_chart_memory": "/api/charts/memory-bandwidth",
        "api_chart_compute": "/api/charts/compute-power/{fmt}",
        # charts over time (price history, spread, price-performance); each with a narrow SVG and its data as JSON and CSV
        "chart_price_history_narrow_svg": "/charts/price-history/{ident}.narrow.svg",
        "chart_price_history_svg": "/charts/price-history/{ident}.svg",
        "chart_price_history": "/charts/price-history/{ident}",
        "api_chart_price_history_csv": "/api/charts/price-history/{ident}.csv",
        "api_chart_price_history": "/api/charts/price-history/{ident}",
        "chart_price_spread_narrow_svg": "/charts/price-spread/{ident}.narrow.svg",
        "chart_price_spread_svg": "/charts/price-spread/{ident}.svg",
        "chart_price_spread": "/charts/price-spread/{ident}",
        "api_chart_price_spread_csv": "/api/charts/price-spread/{ident}.csv",
        "api_chart_price_spread": "/api/charts/price-spread/{ident}",
        "chart_price_performance_narrow_svg": "/charts/price-performance.narrow.svg",
        "chart_price_performance_svg": "/charts/price-performance.svg",
        "chart_price_performance": "/charts/price-performance",
        "api_chart_price_performance_csv": "/api/charts/price-performance.csv",
        "api_chart_price_performance": "/api/charts/price-performance",
        "chart_price_performance_format_narrow_svg": "/charts/price-performance/{fmt}.narrow.svg",
        "chart_price_performance_format_svg": "/charts/price-performance/{fmt}.svg",
        "chart_price_performance_format": "/charts/price-performance/{fmt}",
        "api_chart_price_performance_format_csv": "/api/charts/price-performance/{fmt}.csv",
        "api_chart_price_performance_format": "/api/charts/price-performance/{fmt}",
        # the site's own files
        "sitemap": "/sitemap.xml",
        "feed": "/feed.xml",
        "robots": "/robots.txt",
        "not_found": "/404.html",
        "records": "/records/",
        "record_file": "/records/{folder}/{name}",
        "api_docs": "/api/docs",
        "openapi": "/openapi.json",
        "static": "/static/{file}",
        # the dataset
        "data_redirect": "/data",
        "data_page": "/data/",
        "data_submit": "/data/",
        "api_dataset": "/api/dataset",
        "prices_dataset": "/data/prices/observations.{fmt}",
        "prices_notice": "/data/prices/NOTICE.txt",
    }
)
"""Every route's path pattern by route name; ``{ident}`` and the like are path parameters."""


def pattern(name: str) -> str:
    """The path pattern of route ``name`` (without the base path); ``KeyError`` for an unknown name."""
    return PATTERNS[name]


def site_path(name: str, **params: object) -> str:
    """The path of route ``name`` with ``params`` filled in (each percent-encoded), without the base path:
    ``site_path("silicon_page", ident="aws-trainium-3")`` → ``/silicon/aws-trainium-3``.

    Raises ``KeyError`` for an unknown route or a missing parameter."""
    return PATTERNS[name].format(**{k: quote(str(v), safe="") if k != "file" else quote(str(v)) for k, v in params.items()})


@dataclass(frozen=True, slots=True)
class Urls:
    """The URLs of one deployment: ``base_path`` (``""`` or ``/atlas``) under ``origin`` (scheme and host).

    For the static build, ``files`` maps each built site path to the URL a static host serves
    its file at (``/silicon/x`` → ``/silicon/x/``, ``/api/accelerators/x`` →
    ``/api/accelerators/x.json``) and ``live`` names a running server for everything not
    built (links to it are collected in :attr:`sent_live`); pages are then rendered with
    their final links, with no rewriting afterwards.
    """

    base_path: str = ""
    origin: str = "http://127.0.0.1:8000"
    files: Mapping[str, str] | None = None
    live: str | None = None
    sent_live: set[str] = field(default_factory=set, compare=False)
    """Site paths (with query) that links were sent to :attr:`live` for."""
    _public: frozenset[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_public", frozenset(self.files.values()) if self.files is not None else frozenset())

    def path(self, name: str, **params: object) -> str:
        """The URL of route ``name`` for links: under the base path (see :func:`site_path`), or
        its file's URL or the live server in a static build (see :meth:`link`)."""
        return self.link(site_path(name, **params))

    def post(self, name: str, **params: object) -> str | None:
        """The action of a form that posts to route ``name``: :meth:`path` on a server; in a
        static build the live server (a static host cannot take a post), or ``None`` without
        one (the page then says where the form is answered instead of showing it)."""
        if self.files is not None:
            return self.live + site_path(name, **params) if self.live else None
        return self.path(name, **params)

    @property
    def static(self) -> bool:
        """True in a static build (the registry knows which files were built)."""
        return self.files is not None

    def form(self, name: str, **params: object) -> str | None:
        """The action of a GET form whose answer depends on what is typed (a comparison of any
        parts, the estimate): :meth:`path` on a server; in a static build the live server, or
        ``None`` without one (a static host cannot answer it: the page shows what was built
        and says so instead of a form that would lead to a blank page)."""
        if self.files is None:
            return self.path(name, **params)
        if self.live:
            path = site_path(name, **params)
            self.sent_live.add(path)
            return self.live + path
        return None

    def served(self, name: str, **params: object) -> str | None:
        """The link to route ``name`` when something serves it: always on a server; in a static
        build when it was built or a live server takes it; else ``None`` (leave the link out)."""
        path = site_path(name, **params)
        if self.files is not None and path not in self.files and not self.live:
            return None
        return self.link(path)

    def site(self, path: str) -> str:
        """``path`` as the app sees it (``/atlas/silicon/``) without the base path (``/silicon/``)."""
        if self.base_path and (path == self.base_path or path.startswith(self.base_path + "/")):
            return path[len(self.base_path) :] or "/"
        return path

    def template(self, name: str) -> str:
        """The URL of route ``name`` (one ``{ident}`` parameter) as a ``str.format`` template
        with ``{}`` for the id: ``template("silicon_page")`` → ``/silicon/{}``."""
        return self.base_path + PATTERNS[name].replace("{ident}", "{}")

    def prefixed(self, path: str) -> str:
        """A site path (``/silicon/``, as the route table writes it) under the base path."""
        return self.base_path + path

    def link(self, href: str) -> str:
        """``href`` as a link on this deployment: a root-absolute site path (``/silicon/x``, as
        view objects hold them) gets the base path (and, in a static build, its file's URL, or
        the live server when it was not built); a link already made by this registry, an
        absolute URL (``https://…``), a fragment or a relative link is returned as it is."""
        if not href.startswith("/") or href.startswith("//"):
            return href
        if self.base_path and (href == self.base_path or href.startswith(self.base_path + "/")):
            return href
        if self.files is None:
            return self.base_path + href
        split = urlsplit(href)
        tail = (f"?{split.query}" if split.query else "") + (f"#{split.fragment}" if split.fragment else "")
        target = self.files.get(split.path)
        if target is None and (split.path.startswith("/static/") or split.path in self._public):
            target = split.path
        if target is None:
            if self.live:
                self.sent_live.add(split.path + (f"?{split.query}" if split.query else ""))
                return self.live + split.path + tail
            target = split.path
        return self.base_path + target + tail

    def absolute(self, path: str) -> str:
        """The absolute URL (on :attr:`origin`, never a request's Host) of a site path such as
        ``/silicon/x`` (its file's URL in a static build; the live server's when not built)."""
        link = self.link(path)
        return link if not link.startswith("/") else self.origin + link

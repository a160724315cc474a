"""Search and name lookup as the pages and the API show them: the resolver's and the
search's answers (:mod:`computeatlas.silicon.resolve`, :mod:`computeatlas.silicon.search`)
with each hit's page path, and the prebuilt index the static site's search script reads.

The site's search covers every record with a page, in this order (the order word matches
rank in): accelerators (newest first), rack-scale systems, economics models (their names,
ids and the names providers publish them by, ``Llama 3.3 70B``, ``gpt-oss-120b``), cloud
providers (recorded ones, then those shown only by their prices: see
:func:`~computeatlas.pages.providers.shown_providers`), energy topics and curated comparisons.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from computeatlas.catalog import Catalog
from computeatlas.core.cache import active
from computeatlas.core.urls import site_path
from computeatlas.silicon import resolve
from computeatlas.silicon import search as searching
from computeatlas.silicon.search import Entry, Kind, MatchKind

INDEXES = "search index"
"""The cache namespace of the site-wide search index (key: data version, providers shown) and of the providers shown (:mod:`computeatlas.web.compare`)."""

_ROUTES: dict[str, str] = {
    "accelerator": "silicon_page",
    "model": "economics_model",
    "provider": "cloud_provider",
    "energy topic": "energy_topic",
    "system": "system_page",
}


class Candidate(resolve.Candidate):
    """A hit a name may mean: kind, id, display name and page URL."""

    kind: Kind = "accelerator"
    url: str


class Resolution(resolve.Resolution):
    __doc__ = resolve.Resolution.__doc__  # the API describes it in the domain's words

    match: Candidate | None = None
    candidates: list[Candidate] = Field(default_factory=list)  # type: ignore[assignment]
    suggestions: list[Candidate] = Field(default_factory=list)  # type: ignore[assignment]


class Match(Candidate):
    __doc__ = searching.Match.__doc__

    matched_by: MatchKind


class SearchResult(Resolution):
    __doc__ = searching.SearchResult.__doc__

    status: Literal["found", "ambiguous", "partial", "unknown"]  # type: ignore[assignment]
    matches: list[Match] = Field(default_factory=list, description=searching.SearchResult.model_fields["matches"].description)


class IndexPart(BaseModel):
    """One hit in the search index: kind, id, display name, page URL, its searchable words and
    the normal names a prefix match reads."""

    kind: Kind
    id: str
    name: str
    url: str
    words: list[str] = Field(description=searching.IndexPart.model_fields["words"].description)
    names: list[str] = Field(default_factory=list, description=searching.IndexPart.model_fields["names"].description)


class SearchIndex(searching.SearchIndex):
    __doc__ = searching.SearchIndex.__doc__

    parts: list[IndexPart]  # type: ignore[assignment]


def page_of(ident: str, kind: Kind = "accelerator") -> str:
    """The site path of the page of hit ``ident`` of ``kind`` (an accelerator: ``/silicon/{ident}``;
    a comparison: ``/compare/{ident}``)."""
    if kind == "comparison":
        return site_path("compare_pair", pair=ident)
    return site_path(_ROUTES[kind], ident=ident)


def candidate_view(found: resolve.Candidate) -> Candidate:
    """A hit a name may mean, with its page path (an accelerator unless ``found`` says its kind)."""
    kind: Kind = getattr(found, "kind", "accelerator")
    return Candidate(kind=kind, id=found.id, name=found.name, url=page_of(found.id, kind))


def entries(catalog: Catalog, providers: dict[str, str] | None = None) -> list[Entry]:
    """Every record of ``catalog`` with a page, to search, in the module docstring's order.
    ``providers`` maps the id of every provider shown
    (:func:`~computeatlas.pages.providers.shown_providers`) to its display name; None: the recorded ones."""
    models = [
        Entry(
            kind="model",
            id=m.id,
            name=m.name,
            aliases=list(dict.fromkeys(a for names in m.aliases.values() for a in names)),
            texts=[m.developer],
        )
        for m in catalog.models.values()
    ]
    shown = {i: p.name for i, p in catalog.providers.items()} if providers is None else providers
    clouds = [Entry(kind="provider", id=i, name=name) for i, name in shown.items()]
    topics = [Entry(kind="energy topic", id=t.id, name=t.title) for t in catalog.energy.values()]
    return [
        *searching.accelerator_entries(catalog),
        *searching.system_entries(catalog),
        *models,
        *clouds,
        *topics,
        *searching.comparison_entries(catalog),
    ]


def site_index(catalog: Catalog, providers: dict[str, str] | None = None) -> searching.SearchIndex:
    """The site-wide search index (:func:`~computeatlas.silicon.search.index_of` of :func:`entries`),
    kept in the active cache per data version and list of providers."""
    key = (catalog.version, None if providers is None else tuple(providers.items()))
    return active().get_or_build(INDEXES, key, lambda: searching.index_of(entries(catalog, providers), catalog.version))


def search_result(catalog: Catalog, text: str, providers: dict[str, str] | None = None) -> SearchResult:
    """The site-wide search of ``text`` (:func:`~computeatlas.silicon.search.search_in` of
    :func:`site_index`), each hit with its kind and page path (the body of ``/api/search``).
    Raises :class:`~computeatlas.silicon.resolve.InvalidName` for empty text or text over
    :data:`~computeatlas.silicon.resolve.MAX_NAME` characters."""
    found = searching.search_in(site_index(catalog, providers), text)
    return SearchResult(
        query=found.query,
        status=found.status,
        match=candidate_view(found.match) if found.match is not None else None,
        matched_by=found.matched_by,
        candidates=[candidate_view(c) for c in found.candidates],
        suggestions=[candidate_view(c) for c in found.suggestions],
        matches=[Match(kind=m.kind, id=m.id, name=m.name, url=page_of(m.id, m.kind), matched_by=m.matched_by) for m in found.matches],
    )


def search_index(catalog: Catalog, providers: dict[str, str] | None = None) -> SearchIndex:
    """The site-wide search index (:func:`site_index`) with each hit's page path."""
    index = site_index(catalog, providers)
    parts = [IndexPart(kind=p.kind, id=p.id, name=p.name, url=page_of(p.id, p.kind), words=p.words, names=p.names) for p in index.parts]
    return SearchIndex(data_version=index.data_version, parts=parts, exact=index.exact)


__all__ = [
    "Candidate",
    "IndexPart",
    "Match",
    "Resolution",
    "SearchIndex",
    "SearchResult",
    "candidate_view",
    "entries",
    "page_of",
    "search_index",
    "search_result",
    "site_index",
]

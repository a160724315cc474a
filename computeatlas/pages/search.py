"""Search and name lookup as the pages and the API show them: the resolver's and the
search's answers (:mod:`computeatlas.silicon.resolve`, :mod:`computeatlas.silicon.search`)
with each part's page path, and the prebuilt index the static site's search script reads.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from computeatlas.core.urls import site_path
from computeatlas.silicon import resolve
from computeatlas.silicon import search as searching
from computeatlas.silicon.catalog import SiliconCatalog
from computeatlas.silicon.resolve import Tier
from computeatlas.silicon.search import MatchKind


class Candidate(BaseModel):
    """A part a name may mean: id, display name and page URL."""

    id: str
    name: str
    url: str


class Resolution(BaseModel):
    """What a name resolves to; the body of ``/api/search``.

    ``status`` is ``found`` (``match`` set, ``matched_by`` the tier), ``ambiguous``
    (``candidates`` lists every part the name is shared by) or ``unknown``
    (``suggestions`` lists the closest ids, best first, possibly none).
    """

    query: str
    status: Literal["found", "ambiguous", "unknown"]
    match: Candidate | None = None
    matched_by: Tier | None = Field(None, description="id, alias or name")
    candidates: list[Candidate] = Field(default_factory=list)
    suggestions: list[Candidate] = Field(default_factory=list)


class Match(Candidate):
    """A part the query may mean and how it matched: an exact ``id``, ``alias`` or ``name``, or ``words``."""

    matched_by: MatchKind


class SearchResult(Resolution):
    """The body of ``/api/search``: the resolver's answer plus every matching part, ranked.

    ``status`` is ``found`` (one exact match, in ``match``), ``ambiguous`` (an exact name
    shared by several parts, in ``candidates``), ``partial`` (no exact match, but parts whose
    words begin with the query's words, in ``matches``) or ``unknown`` (nothing matches;
    ``suggestions`` lists the closest ids). ``matches`` always lists every matching part,
    exact matches first.
    """

    status: Literal["found", "ambiguous", "partial", "unknown"]  # type: ignore[assignment]
    matches: list[Match] = Field(default_factory=list, description="every matching part, ranked: exact matches first, then word matches")


class IndexPart(BaseModel):
    """One part in the search index: id, display name, page URL and its searchable words."""

    id: str
    name: str
    url: str
    words: list[str] = Field(
        description="every word of the part's id, name, aliases, family aliases, part numbers, family and vendor id, once"
    )


class SearchIndex(BaseModel):
    """The prebuilt search index (``/api/search-index``), read by the static site's search script.

    ``parts`` are in rank order for word matches (newest announcement first, then name).
    ``exact`` maps each normal id, alias and name (:func:`~computeatlas.silicon.resolve.normal`)
    to ``[part position, tier]`` pairs, tier 0 id, 1 alias, 2 name, as the resolver reads them.
    """

    data_version: str
    parts: list[IndexPart]
    exact: dict[str, list[tuple[int, int]]]


def page_of(ident: str) -> str:
    """The site path of accelerator ``ident``'s page (``/silicon/{ident}``)."""
    return site_path("silicon_page", ident=ident)


def candidate_view(found: resolve.Candidate) -> Candidate:
    """A part a name may mean, with its page path."""
    return Candidate(id=found.id, name=found.name, url=page_of(found.id))


def search_result(catalog: SiliconCatalog, text: str) -> SearchResult:
    """:func:`~computeatlas.silicon.search.search` of ``text``, each part with its page path (the body
    of ``/api/search``). Raises :class:`~computeatlas.silicon.resolve.InvalidName` as it does."""
    found = searching.search(catalog, text)
    return SearchResult(
        query=found.query,
        status=found.status,
        match=candidate_view(found.match) if found.match is not None else None,
        matched_by=found.matched_by,
        candidates=[candidate_view(c) for c in found.candidates],
        suggestions=[candidate_view(c) for c in found.suggestions],
        matches=[Match(id=m.id, name=m.name, url=page_of(m.id), matched_by=m.matched_by) for m in found.matches],
    )


def search_index(catalog: SiliconCatalog) -> SearchIndex:
    """The prebuilt search index (:func:`~computeatlas.silicon.search.build_index`) with each part's page path."""
    index = searching.build_index(catalog)
    parts = [IndexPart(id=p.id, name=p.name, url=page_of(p.id), words=p.words) for p in index.parts]
    return SearchIndex(data_version=index.data_version, parts=parts, exact=index.exact)


__all__ = [
    "Candidate",
    "IndexPart",
    "Match",
    "Resolution",
    "SearchIndex",
    "SearchResult",
    "candidate_view",
    "page_of",
    "search_index",
    "search_result",
]

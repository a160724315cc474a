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
from computeatlas.silicon.search import MatchKind


class Candidate(resolve.Candidate):
    """A part a name may mean: id, display name and page URL."""

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
    """One part in the search index: id, display name, page URL and its searchable words."""

    id: str
    name: str
    url: str
    words: list[str] = Field(description=searching.IndexPart.model_fields["words"].description)


class SearchIndex(searching.SearchIndex):
    __doc__ = searching.SearchIndex.__doc__

    parts: list[IndexPart]  # type: ignore[assignment]


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

"""Related silicon and curated comparisons on an accelerator page, with their links.

Which parts are related and which curated comparisons include a part is decided in
:mod:`computeatlas.silicon.related` (ids and relations); this adds the names, summaries and
page paths the page and ``/api/accelerators/{id}`` show.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from computeatlas.core.urls import site_path
from computeatlas.silicon.catalog import SiliconCatalog
from computeatlas.silicon.curated import pair_id
from computeatlas.silicon.records import Accelerator
from computeatlas.silicon.related import curated_with, related_ids, summary_line, title_of


class CuratedLink(BaseModel):
    """A curated comparison that includes the part, as its page lists it."""

    id: str = Field(description="canonical pair id")
    title: str = Field(description="'<name> vs <name>' in the order the comparison reads")
    url: str
    framing: str
    other_id: str
    other_name: str


class RelatedPart(BaseModel):
    """A related accelerator: why it is related and a one-line summary."""

    id: str
    name: str
    url: str
    relation: str = Field(description="predecessor, successor, same family, or close in workload and memory")
    summary: str = Field(description="'<memory> per <chip|package>, <availability>' or 'memory: <state>, <availability>'")
    pair: str = Field(description="the id of this part's comparison with the page's part, as in /compare/{pair}")


def compared_against(catalog: SiliconCatalog, acc: Accelerator) -> list[CuratedLink]:
    """The curated comparisons that include ``acc``, by the other part's name, each linking to its page."""
    return [
        CuratedLink(
            id=comparison.id,
            title=title_of(catalog, comparison),
            url=site_path("compare_pair", pair=comparison.id),
            framing=comparison.framing,
            other_id=other,
            other_name=catalog.accelerators[other].name,
        )
        for comparison, other in curated_with(catalog, acc)
    ]


def related(catalog: SiliconCatalog, acc: Accelerator) -> list[RelatedPart]:
    """Related parts of ``acc`` (:func:`~computeatlas.silicon.related.related_ids`, in its order), each linking to its page."""
    return [
        RelatedPart(
            id=ident,
            name=catalog.accelerators[ident].name,
            url=site_path("silicon_page", ident=ident),
            relation=relation,
            summary=summary_line(catalog.accelerators[ident]),
            pair=pair_id(acc.id, ident),
        )
        for ident, relation in related_ids(catalog, acc).items()
    ]


__all__ = ["CuratedLink", "RelatedPart", "compared_against", "related"]

"""Related silicon and curated comparisons of one accelerator, for its page.

"Related silicon" is picked from the records, never hand-listed: the predecessor, the
successors (parts naming this one as predecessor), other parts of the same family
(nearest generation first), then the parts closest by workload and memory capacity.
Each comes with a one-line summary of its memory per accelerator and how it can be had,
or, when its memory is not a per-accelerator number, the memory's state in the words of
:mod:`computeatlas.core.presentation` ("memory: not published").
"""

from __future__ import annotations

import math

from pydantic import BaseModel, Field

from computeatlas.core.presentation import present
from computeatlas.core.urls import site_path
from computeatlas.silicon.catalog import SiliconCatalog
from computeatlas.silicon.curated import Comparison, pair_id
from computeatlas.silicon.records import Accelerator, Workload

SAME_FAMILY = 3
"""Most parts of the same family listed (besides predecessor and successors)."""

CLOSEST = 3
"""Parts listed as closest by workload and memory."""


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


def title_of(catalog: SiliconCatalog, comparison: Comparison) -> str:
    """``"<name> vs <name>"`` in the order the curated comparison lists its parts."""
    return " vs ".join(catalog.accelerators[p].name for p in comparison.parts)


def compared_against(catalog: SiliconCatalog, acc: Accelerator) -> list[CuratedLink]:
    """The curated comparisons that include ``acc``, by the other part's name."""
    out = []
    for comparison in catalog.comparisons.values():
        if acc.id not in comparison.parts:
            continue
        other = next(p for p in comparison.parts if p != acc.id)
        out.append(
            CuratedLink(
                id=comparison.id,
                title=title_of(catalog, comparison),
                url=site_path("compare_pair", pair=comparison.id),
                framing=comparison.framing,
                other_id=other,
                other_name=catalog.accelerators[other].name,
            )
        )
    return sorted(out, key=lambda link: link.other_name.lower())


def availability_words(acc: Accelerator) -> str:
    """How the part can be had, as words: ``buy``, ``rent`` or ``cloud only``."""
    return acc.availability.value.replace("-", " ")


def summary_line(acc: Accelerator) -> str:
    """One line: ``"192 GB HBM3 per package, rent"``, or ``"memory: not published, cloud only"``
    when memory is not a per-accelerator number (its state as the presentation rule words it)."""
    memory = acc.specs.memory
    shown = present(memory, what="memory", figure=True)
    if not shown.comparable:
        return f"{shown.reason}, {availability_words(acc)}"
    kind = f" {memory.memory_type}" if memory.memory_type else ""
    return f"{memory.value}{kind} per {memory.basis.value}, {availability_words(acc)}"  # type: ignore[union-attr]


def _workload_gap(a: Workload, b: Workload) -> int:
    if a is b:
        return 0
    return 1 if Workload.BOTH in (a, b) else 2


def related(catalog: SiliconCatalog, acc: Accelerator) -> list[RelatedPart]:
    """Related parts of ``acc`` in this order: predecessor, successors, same family (up to
    :data:`SAME_FAMILY`, nearest generation first), closest by workload then memory
    capacity (up to :data:`CLOSEST`, by the log of the capacity ratio; only when ``acc``'s
    memory is comparable). Scans the catalog once (O(number of accelerators))."""
    picked: dict[str, str] = {}
    if acc.predecessor and acc.predecessor in catalog.accelerators:
        picked[acc.predecessor] = "predecessor"
    others = [a for a in catalog.accelerators.values() if a.id != acc.id]
    for other in others:
        if other.predecessor == acc.id:
            picked.setdefault(other.id, "successor")
    family = [a for a in others if a.family == acc.family and a.id not in picked]
    family.sort(key=lambda a: (abs((a.generation or 0) - (acc.generation or 0)), a.name.lower()))
    for other in family[:SAME_FAMILY]:
        picked[other.id] = "same family"
    memory = acc.specs.memory
    if memory.comparable:
        size = memory.figure.amount  # type: ignore[union-attr]
        near = [a for a in others if a.id not in picked and a.family != acc.family and a.specs.memory.comparable]
        near.sort(
            key=lambda a: (
                _workload_gap(a.workload, acc.workload),
                abs(math.log(a.specs.memory.figure.amount / size)),  # type: ignore[union-attr]
                a.name.lower(),
            )
        )
        for other in near[:CLOSEST]:
            picked[other.id] = "close in workload and memory"
    return [
        RelatedPart(
            id=ident,
            name=catalog.accelerators[ident].name,
            url=site_path("silicon_page", ident=ident),
            relation=relation,
            summary=summary_line(catalog.accelerators[ident]),
            pair=pair_id(acc.id, ident),
        )
        for ident, relation in picked.items()
    ]


__all__ = [
    "CLOSEST",
    "SAME_FAMILY",
    "CuratedLink",
    "RelatedPart",
    "availability_words",
    "compared_against",
    "related",
    "summary_line",
    "title_of",
]

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

from computeatlas.core.presentation import present
from computeatlas.silicon.catalog import SiliconCatalog
from computeatlas.silicon.curated import Comparison
from computeatlas.silicon.records import Accelerator, Workload

SAME_FAMILY = 3
"""Most parts of the same family listed (besides predecessor and successors)."""

CLOSEST = 3
"""Parts listed as closest by workload and memory."""


def title_of(catalog: SiliconCatalog, comparison: Comparison) -> str:
    """``"<name> vs <name>"`` in the order the curated comparison lists its parts."""
    return " vs ".join(catalog.accelerators[p].name for p in comparison.parts)


def curated_with(catalog: SiliconCatalog, acc: Accelerator) -> list[tuple[Comparison, str]]:
    """The curated comparisons that include ``acc``, each with the other part's id, by the other part's name."""
    found = [(c, next(p for p in c.parts if p != acc.id)) for c in catalog.comparisons.values() if acc.id in c.parts]
    return sorted(found, key=lambda pair: catalog.accelerators[pair[1]].name.lower())


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


def related_ids(catalog: SiliconCatalog, acc: Accelerator) -> dict[str, str]:
    """Related parts of ``acc`` in this order: predecessor, successors, same family (up to
    :data:`SAME_FAMILY`, nearest generation first), closest by workload then memory
    capacity (up to :data:`CLOSEST`, by the log of the capacity ratio; only when ``acc``'s
    memory is comparable). Returns each related part's id with its relation ("predecessor",
    "successor", "same family", "close in workload and memory"). Scans the catalog once
    (O(number of accelerators))."""
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
    return picked


__all__ = [
    "CLOSEST",
    "SAME_FAMILY",
    "availability_words",
    "curated_with",
    "related_ids",
    "summary_line",
    "title_of",
]

"""How much of the silicon table is sourced: one view for the CLI, the page and the API.

For every accelerator and every core field (memory, memory bandwidth, FP8 and BF16 compute,
power, interconnect, software) it records the state every output shows
(:func:`computeatlas.core.presentation.present`, the one presentation rule), whether the
figure's primary source is the maker's document (kind ``vendor``), where that document was
read (:class:`~computeatlas.core.provenance.ReadAt`: on the maker's own hosts, from a copy,
or another party's document) and whether it is disputed. It then counts, per field, in
total and per maker: published figures that are maker-hosted, the maker's document read
via a copy, and everything else.

Against the goals of ``data/coverage/goals.toml`` (:mod:`computeatlas.silicon.targets`) it says,
overall and per maker, whether the maker-hosted share meets its goal and, when it does not,
how many figures short it is and which parts hold figures read elsewhere (a count per part).
It also lists the parts researched and not added (``data/coverage/unsourced.toml``) with
where we looked.

"Published" here means the record states the spec (a figure, or the maker's words:
*published* or *published as text*); every other state is counted under its own words.
"""

from __future__ import annotations

import datetime as dt
import math
import weakref
from collections.abc import Iterable

from pydantic import BaseModel, Field

from computeatlas.core.claims import (
    Claim,
    NumberFormat,
    SourceKind,
)
from computeatlas.core.presentation import present
from computeatlas.core.provenance import ReadAt
from computeatlas.core.states import State
from computeatlas.silicon.catalog import SiliconCatalog
from computeatlas.silicon.records import Accelerator, Vendor
from computeatlas.silicon.targets import UnsourcedPart, goals_of, unsourced_of

CORE_FIELDS: tuple[tuple[str, str], ...] = (
    ("memory", "Memory"),
    ("memory_bandwidth", "Memory bandwidth"),
    ("compute.FP8", "FP8 compute"),
    ("compute.BF16", "BF16 compute"),
    ("power", "Power"),
    ("interconnect", "Interconnect"),
    ("software", "Software"),
)
"""The core fields coverage is counted over, with their headings."""

PUBLISHED = (State.PUBLISHED, State.PUBLISHED_AS_TEXT)
"""States counted as published: the record states the spec, as a figure or in words."""


def _share(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None


def percent(share: float | None) -> str:
    """A share as a page shows it: ``0.8125`` → ``"81%"``; no base → ``"—"``."""
    return "—" if share is None else f"{share * 100:.0f}%"


class Cell(BaseModel):
    """One core field of one accelerator."""

    key: str = Field(description="field path, e.g. 'compute.FP8'")
    state: State = Field(description="the state every output shows")
    label: str = Field(description="the state in words")
    by_maker: bool = Field(description="published, citing the maker's document (a source of kind 'vendor'), wherever it was read")
    read_at: ReadAt | None = Field(description="where the published figure's source was read; None when not published")
    disputed: bool = Field(description="another source makes a different claim")


class Part(BaseModel):
    """One accelerator's core fields."""

    id: str
    name: str
    vendor: str
    vendor_name: str
    cells: list[Cell]
    published: int
    by_maker: int
    maker_hosted: int


class Tally(BaseModel):
    """Counts over a set of cells; shares are fractions (0–1), None without a base."""

    figures: int = Field(description="cells counted")
    published: int = Field(description="published, as a figure or as text")
    published_share: float | None = Field(description="published ÷ figures")
    by_maker: int = Field(description="published, citing the maker's document (source kind 'vendor'), wherever read")
    by_maker_share: float | None = Field(description="by_maker ÷ published")
    maker_hosted: int = Field(description="published, read on the maker's own hosts (data/vendors/: domains, GitHub, MLPerf)")
    maker_hosted_share: float | None = Field(description="maker_hosted ÷ published")
    via_copy: int = Field(description="published, the maker's document read from a third party's copy (verbatim or a conversion)")
    via_copy_share: float | None = Field(description="via_copy ÷ published")
    elsewhere: int = Field(description="published, from another party's document (press, independent, paper)")
    elsewhere_share: float | None = Field(description="elsewhere ÷ published")
    disputed: int
    not_sourced: int = Field(description="researched, no source we could read states it")
    not_collected: int = Field(description="nobody has looked yet")
    states: dict[str, int] = Field(description="cells per shown state (every state, zeros included)")


class FieldTally(BaseModel):
    """The tally of one core field over every accelerator."""

    key: str
    label: str
    tally: Tally


class MakerTally(BaseModel):
    """One maker's parts: how many of their published figures cite the maker itself."""

    vendor: str
    name: str
    parts: int
    tally: Tally


class PartShortfall(BaseModel):
    """One part's published core figures that were not read on its maker's own hosts."""

    id: str
    name: str
    not_maker_hosted: int = Field(description="published figures read from a copy or from another party")
    via_copy: int = Field(description="of those, the maker's document read from a copy")
    elsewhere: int = Field(description="of those, another party's document (press, independent, paper)")
    fields: list[str] = Field(description="the core fields concerned, e.g. ['memory', 'power']")


class GoalCheck(BaseModel):
    """A maker-hosted goal (data/coverage/goals.toml) against the figures."""

    scope: str = Field(description="'overall', or the maker's vendor id")
    name: str = Field(description="'All makers', or the maker's name")
    goal: float = Field(description="the goal: a share (0–1) of published figures read on the maker's own hosts")
    share: float | None = Field(description="the maker-hosted share reached; None without published figures")
    met: bool = Field(description="share ≥ goal")
    shortfall: int = Field(description="maker-hosted figures still needed to meet the goal (0 when met)")
    parts: list[PartShortfall] = Field(description="when not met: parts with figures not read on the maker's hosts, most first")


class UnsourcedRow(BaseModel):
    """A part researched and not added (data/coverage/unsourced.toml), with its maker's name."""

    name: str
    vendor: str
    vendor_name: str
    epoch_listed: bool = Field(description="listed by Epoch AI among data-centre accelerators released since 2020")
    searched: list[str] = Field(description="hosts and URLs searched, and searches run")
    date: dt.date = Field(description="when the search was made")
    note: str


class Coverage(BaseModel):
    """The coverage report: per part, per field, per maker and in total; the goals; the unsourced parts."""

    fields: list[FieldTally]
    parts: list[Part]
    makers: list[MakerTally]
    total: Tally
    goals: list[GoalCheck] = Field(description="the overall goal first, then each maker's, by maker name")
    unsourced: list[UnsourcedRow] = Field(description="parts researched and not added, with where we looked")
    data_version: str


def _cell(acc: Accelerator, maker: Vendor, key: str, label: str) -> Cell:
    claim: Claim | None
    if key.startswith("compute."):
        claim = acc.compute(NumberFormat(key.split(".", 1)[1]))
    else:
        claim = getattr(acc.specs, key)
    shown = present(claim, what=label.lower())
    published = shown.state in PUBLISHED
    source = acc.sources[claim.source] if published and claim is not None and claim.source else None
    read_at = maker.read_at(source) if source is not None else None
    by_maker = source is not None and source.kind is SourceKind.VENDOR
    return Cell(key=key, state=shown.state, label=shown.state.label, by_maker=by_maker, read_at=read_at, disputed=shown.disputed)


def tally(cells: Iterable[Cell]) -> Tally:
    """Count ``cells``."""
    given = list(cells)
    published = sum(c.state in PUBLISHED for c in given)
    by_maker = sum(c.by_maker for c in given)
    where = {r: sum(c.read_at is r for c in given) for r in ReadAt}
    return Tally(
        figures=len(given),
        published=published,
        published_share=_share(published, len(given)),
        by_maker=by_maker,
        by_maker_share=_share(by_maker, published),
        maker_hosted=where[ReadAt.MAKER_HOSTED],
        maker_hosted_share=_share(where[ReadAt.MAKER_HOSTED], published),
        via_copy=where[ReadAt.MAKER_COPY],
        via_copy_share=_share(where[ReadAt.MAKER_COPY], published),
        elsewhere=where[ReadAt.ELSEWHERE],
        elsewhere_share=_share(where[ReadAt.ELSEWHERE], published),
        disputed=sum(c.disputed for c in given),
        not_sourced=sum(c.state is State.NOT_SOURCED for c in given),
        not_collected=sum(c.state is State.NOT_COLLECTED for c in given),
        states={s.value: sum(c.state is s for c in given) for s in State},
    )


_CACHE: dict[int, tuple[weakref.ref[SiliconCatalog], Coverage]] = {}


def coverage_view(catalog: SiliconCatalog) -> Coverage:
    """The coverage report of ``catalog`` (parts in the catalog's order, makers by name),
    built once per catalog (the catalog is immutable)."""
    cached = _CACHE.get(id(catalog))
    if cached is not None and cached[0]() is catalog:
        return cached[1]
    view = _build(catalog)
    _CACHE[id(catalog)] = (weakref.ref(catalog), view)
    for key in [k for k, (ref, _) in _CACHE.items() if ref() is None]:
        _CACHE.pop(key, None)
    return view


def _build(catalog: SiliconCatalog) -> Coverage:
    parts = []
    for acc in catalog.accelerators.values():
        maker = catalog.vendor_of(acc)
        cells = [_cell(acc, maker, key, label) for key, label in CORE_FIELDS]
        parts.append(
            Part(
                id=acc.id,
                name=acc.name,
                vendor=acc.vendor,
                vendor_name=catalog.vendor_of(acc).name,
                cells=cells,
                published=sum(c.state in PUBLISHED for c in cells),
                by_maker=sum(c.by_maker for c in cells),
                maker_hosted=sum(c.read_at is ReadAt.MAKER_HOSTED for c in cells),
            )
        )
    fields = [FieldTally(key=key, label=label, tally=tally(p.cells[i] for p in parts)) for i, (key, label) in enumerate(CORE_FIELDS)]
    makers = []
    for vendor in sorted({p.vendor for p in parts}, key=lambda v: catalog.vendors[v].name.lower()):
        own = [p for p in parts if p.vendor == vendor]
        makers.append(
            MakerTally(vendor=vendor, name=catalog.vendors[vendor].name, parts=len(own), tally=tally(c for p in own for c in p.cells))
        )
    total = tally(c for p in parts for c in p.cells)
    goals = goals_of(catalog.coverage_files)
    checks = []
    if goals.overall is not None:
        checks.append(_check("overall", "All makers", goals.overall, total, parts))
    for m in makers:
        if m.vendor in goals.makers:
            checks.append(_check(m.vendor, m.name, goals.makers[m.vendor], m.tally, [p for p in parts if p.vendor == m.vendor]))
    return Coverage(
        fields=fields,
        parts=parts,
        makers=makers,
        total=total,
        goals=checks,
        unsourced=[_row(u, catalog) for u in unsourced_of(catalog.coverage_files)],
        data_version=catalog.version,
    )


def _row(part: UnsourcedPart, catalog: SiliconCatalog) -> UnsourcedRow:
    maker = catalog.vendors.get(part.vendor)
    return UnsourcedRow(**part.model_dump(), vendor_name=maker.name if maker is not None else part.vendor)


def _check(scope: str, name: str, goal: float, t: Tally, parts: list[Part]) -> GoalCheck:
    """``goal`` against tally ``t`` of ``parts``; the shortfall is counted in whole figures."""
    share = _share(t.maker_hosted, t.published)
    needed = math.ceil(round(goal * t.published, 9))
    met = share is not None and t.maker_hosted >= needed
    short = [] if met else [s for s in map(_shortfall, parts) if s is not None]
    short.sort(key=lambda s: (-s.not_maker_hosted, s.id))
    return GoalCheck(scope=scope, name=name, goal=goal, share=share, met=met, shortfall=max(needed - t.maker_hosted, 0), parts=short)


def _shortfall(part: Part) -> PartShortfall | None:
    """The part's published figures read off the maker's hosts, or None when there are none."""
    off = [c for c in part.cells if c.read_at in (ReadAt.MAKER_COPY, ReadAt.ELSEWHERE)]
    if not off:
        return None
    copy = sum(c.read_at is ReadAt.MAKER_COPY for c in off)
    return PartShortfall(
        id=part.id, name=part.name, not_maker_hosted=len(off), via_copy=copy, elsewhere=len(off) - copy, fields=[c.key for c in off]
    )


__all__ = [
    "CORE_FIELDS",
    "PUBLISHED",
    "Cell",
    "Coverage",
    "FieldTally",
    "GoalCheck",
    "MakerTally",
    "Part",
    "PartShortfall",
    "Tally",
    "UnsourcedRow",
    "coverage_view",
    "percent",
    "tally",
]

"""Chart data: what each chart plots, and what it leaves out and why.

A chart is built in two steps so that the page, the API and the picture cannot disagree:

1. a :class:`ChartView` (pydantic) holds the points, the parts left out with the reason
   (a figure not published, not applicable or not comparable per accelerator is never
   plotted, and never plotted at zero), a title and a text alternative. Pages render it
   as a figure with its data table; ``/api/charts/...`` returns it as JSON.
2. :func:`computeatlas.charts.svg.svg` turns a view into SVG with Altair (a Vega-Lite spec) and vl-convert
   (no browser, no network), adds ``<title>`` and ``<desc>`` for screen readers, and
   caches the result keyed by the data version and the chart's key.

Only published per-accelerator figures (:attr:`Claim.comparable`) are plotted; compute is
the dense figure at one number format, so no chart mixes formats or sparsity.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, Field

from computeatlas.catalog import Catalog
from computeatlas.charts.links import ChartLinks
from computeatlas.core.claims import Claim, NumberFormat
from computeatlas.core.numbers import tera_unit
from computeatlas.core.presentation import present
from computeatlas.core.states import State
from computeatlas.silicon.records import Accelerator

if TYPE_CHECKING:
    from computeatlas.cloud.offers import OfferPrice

FONT = "system-ui, -apple-system, Segoe UI, Roboto, sans-serif"


class ChartPoint(BaseModel):
    """One plotted part: ``x`` and ``y`` in the chart's display units (see :class:`ChartView`)."""

    id: str
    name: str
    label: str = Field(description="the text written beside the mark ('' for none)")
    x: float
    y: float | None = Field(None, description="the y figure (scatter charts); strip charts use ``category``")
    x_text: str = Field(description="the x figure as the source wrote it")
    y_text: str = Field("", description="the y figure as the source wrote it")
    category: str | None = Field(None, description="the row of a strip chart (a provider, a system)")
    marker: str | None = Field(None, description="what kind of figure the mark is, as the legend names it")
    disputed: bool = Field(False, description="another source makes a different claim for x or y (the primary claim is plotted)")
    url: str


class ChartExclusion(BaseModel):
    """A part that is not plotted, and why (e.g. "power: not published")."""

    id: str
    name: str
    reason: str
    url: str


class ChartReference(BaseModel):
    """A reference line across a strip chart (e.g. the average rack), with who states it."""

    x: float
    label: str


class ChartView(BaseModel):
    """A chart's data, title and text alternative; the same object feeds the SVG, the page and the API."""

    key: str = Field(description="stable chart id, part of the SVG's URL")
    title: str
    description: str = Field(description="text alternative: what the chart shows, in one paragraph")
    x_label: str = Field(description="x axis title with its display unit, e.g. 'Memory (GB)'")
    y_label: str = Field(description="y axis title with its display unit")
    x_unit: str
    y_unit: str
    log_scale: bool = Field(description="both axes logarithmic (figures span orders of magnitude)")
    points: list[ChartPoint]
    excluded: list[ChartExclusion]
    svg_url: str
    page_url: str
    api_url: str
    data_version: str
    kind: Literal["scatter", "strip"] = "scatter"
    markers: list[str] = Field(default_factory=list, description="legend entries of a strip chart, in order")
    reference: ChartReference | None = None
    outliers: list[ChartPoint] = Field(
        default_factory=list,
        description="parts drawn in a panel of their own: a figure "
        "more than OUTLIER_FACTOR× away from the others' median would squash the chart",
    )


MEMORY_SCALE, BANDWIDTH_SCALE, POWER_SCALE, COMPUTE_SCALE = 1e9, 1e12, 1.0, 1e12
"""Canonical units per display unit: GB, TB/s, W, TFLOPS (or TOPS for integer formats)."""


def short_name(catalog: Catalog, acc: Accelerator) -> str:
    """The part's name without its vendor's name in front ("NVIDIA H100 SXM" → "H100 SXM")."""
    vendor = catalog.vendor_of(acc).name
    name = acc.name
    if name.lower().startswith(vendor.lower() + " ") and len(name) > len(vendor) + 1:
        return name[len(vendor) + 1 :]
    return name


def _why_not(label: str, claim: Claim | None) -> str | None:
    """None when ``claim`` is a per-accelerator number, else the reason in words (from the presentation rule)."""
    shown = present(claim, what=label, figure=True)
    return None if shown.comparable else shown.reason


def _scatter(
    catalog: Catalog,
    *,
    x: tuple[str, Callable[[Accelerator], Claim | None], float],
    y: tuple[str, Callable[[Accelerator], Claim | None], float],
    page: Callable[[str], str],
) -> tuple[list[ChartPoint], list[ChartExclusion]]:
    """Split the catalog's parts into plotted points and exclusions with reasons, each linked to ``page(part id)``."""
    points: list[ChartPoint] = []
    excluded: list[ChartExclusion] = []
    for acc in catalog.accelerators.values():
        xc, yc = x[1](acc), y[1](acc)
        reasons = [r for r in (_why_not(x[0], xc), _why_not(y[0], yc)) if r]
        url = page(acc.id)
        if reasons or xc is None or yc is None or xc.figure is None or yc.figure is None:
            excluded.append(ChartExclusion(id=acc.id, name=acc.name, reason="; ".join(reasons), url=url))
            continue
        points.append(
            ChartPoint(
                id=acc.id,
                name=acc.name,
                label=short_name(catalog, acc),
                x=xc.figure.amount / x[2],
                y=yc.figure.amount / y[2],
                x_text=xc.value or "",
                y_text=yc.value or "",
                disputed=xc.disputed or yc.disputed,
                url=url,
            )
        )
    return points, excluded


OUTLIER_FACTOR = 100.0
"""A scatter point whose x or y is more than this many times above or below the median of
all points goes to its own panel (a wafer-scale engine's on-wafer SRAM bandwidth beside HBM parts)."""


def split_outliers(points: list[ChartPoint], factor: float = OUTLIER_FACTOR) -> tuple[list[ChartPoint], list[ChartPoint]]:
    """``(main, outliers)``: the points within ``factor`` × of the median on both axes, and the rest."""
    if len(points) < 5:
        return points, []

    def median(values: list[float]) -> float:
        ordered = sorted(values)
        mid = len(ordered) // 2
        return ordered[mid] if len(ordered) % 2 else (ordered[mid - 1] * ordered[mid]) ** 0.5

    mx = median([p.x for p in points])
    my = median([p.y for p in points if p.y is not None])

    def far(value: float | None, middle: float) -> bool:
        return value is not None and value > 0 and not (middle / factor <= value <= middle * factor)

    outliers = [p for p in points if far(p.x, mx) or far(p.y, my)]
    return [p for p in points if p not in outliers], outliers


def _outlier_words(outliers: list[ChartPoint], x_unit: str, y_unit: str) -> str:
    if not outliers:
        return ""
    listed = "; ".join(f"{p.name} ({p.x_text}, {p.y_text})" for p in outliers)
    return (
        f" {len(outliers)} part(s) sit more than {OUTLIER_FACTOR:g}× from the others on an axis and are drawn in a "
        f"panel of their own so they do not squash the rest: {listed}."
    )


def _extremes(points: list[ChartPoint], axis: str, unit: str) -> str:
    if not points:
        return ""
    top = max(points, key=lambda p: getattr(p, axis))
    low = min(points, key=lambda p: getattr(p, axis))
    return f"highest {top.name} ({getattr(top, axis):.4g} {unit}), lowest {low.name} ({getattr(low, axis):.4g} {unit})"


def memory_bandwidth(catalog: Catalog, *, links: ChartLinks) -> ChartView:
    """Memory capacity (GB) against memory bandwidth (TB/s), one labelled mark per part,
    served at ``links`` (each part linked to ``links.item(part id)``).

    Figures are the primary published per-accelerator claims (per chip or per package);
    parts whose memory or bandwidth is not published per accelerator are listed in
    ``excluded`` with the reason. Both axes are logarithmic: on-chip SRAM parts sit orders
    of magnitude away from HBM parts.
    """
    points, excluded = _scatter(
        catalog,
        x=("memory", lambda a: a.specs.memory, MEMORY_SCALE),
        y=("memory bandwidth", lambda a: a.specs.memory_bandwidth, BANDWIDTH_SCALE),
        page=links.item,
    )
    points, outliers = split_outliers(points)
    description = (
        f"Scatter plot of {len(points)} accelerators: memory capacity in gigabytes across, memory bandwidth "
        f"in terabytes per second up, both on logarithmic scales. Memory: {_extremes(points, 'x', 'GB')}. "
        f"Bandwidth: {_extremes(points, 'y', 'TB/s')}.{_outlier_words(outliers, 'GB', 'TB/s')} "
        f"{len(excluded)} part(s) are not plotted because a figure is not published per accelerator; they are listed beside the chart."
    )
    return ChartView(
        key="memory-bandwidth",
        title="Memory capacity against memory bandwidth, per accelerator",
        description=description,
        x_label="Memory (GB)",
        y_label="Memory bandwidth (TB/s)",
        x_unit="GB",
        y_unit="TB/s",
        log_scale=True,
        points=points,
        excluded=excluded,
        outliers=outliers,
        svg_url=links.svg,
        page_url=links.page,
        api_url=links.api,
        data_version=catalog.version,
    )


def compute_formats(catalog: Catalog, minimum: int = 2) -> list[NumberFormat]:
    """Number formats at which at least ``minimum`` parts publish both dense compute and power."""
    out = []
    for fmt in NumberFormat:
        count = sum(
            1 for a in catalog.accelerators.values() if (c := a.compute(fmt)) is not None and c.comparable and a.specs.power.comparable
        )
        if count >= minimum:
            out.append(fmt)
    return out


def compute_power(catalog: Catalog, fmt: NumberFormat, *, links: ChartLinks) -> ChartView:
    """Dense compute at ``fmt`` (TFLOPS, or TOPS for integer formats) against power (W),
    served at ``links`` (each part linked to ``links.item(part id)``).

    Power is the vendor's TDP or board power per accelerator. Parts whose compute at
    ``fmt`` or power is not published per accelerator (including formats nobody
    collected) are listed in ``excluded``; no other number format stands in for ``fmt``.
    """
    unit = tera_unit(fmt)
    points, excluded = _scatter(
        catalog,
        x=("power", lambda a: a.specs.power, POWER_SCALE),
        y=(f"{fmt.value} compute", lambda a: a.compute(fmt), COMPUTE_SCALE),
        page=links.item,
    )
    description = (
        f"Scatter plot of {len(points)} accelerators: power in watts across, dense {fmt.value} compute in {unit} up, "
        f"both on logarithmic scales. Power: {_extremes(points, 'x', 'W')}. Compute: {_extremes(points, 'y', unit)}. "
        f"{len(excluded)} part(s) are not plotted because power or {fmt.value} compute is not published per "
        "accelerator; they are listed beside the chart."
    )
    return ChartView(
        key=f"compute-power-{fmt.value}",
        title=f"Dense {fmt.value} compute against power, per accelerator",
        description=description,
        x_label="Power (W)",
        y_label=f"Dense {fmt.value} compute ({unit})",
        x_unit="W",
        y_unit=unit,
        log_scale=True,
        points=points,
        excluded=excluded,
        svg_url=links.svg,
        page_url=links.page,
        api_url=links.api,
        data_version=catalog.version,
    )


def prices(
    catalog: Catalog, acc: Accelerator, offers: list[OfferPrice], on: dt.date, freshness_days: int = 90, *, links: ChartLinks
) -> ChartView:
    """Every current offer of ``acc`` (``offers``, read from the observation store by
    :func:`computeatlas.cloud.offers.current_offers`) with a USD price per accelerator-hour,
    by provider, as of ``on``; the spread's ends marked; served at ``links``, marks link to offers' ``url``.

    Built from :func:`computeatlas.cloud.pricing.price_view` with the default query (on-demand,
    the default variant, no stale offers), so the marks agree with the price page's
    spread. Offers with no USD price per accelerator-hour (a bundle that cannot be split,
    another currency) are listed in ``excluded``, never plotted at zero.
    """
    from computeatlas.cloud import pricing, queries

    view = pricing.price_view(acc, offers, queries.PriceQuery(), on, freshness_days)
    spread = view.spread
    ends = {spread.cheapest.offer_id: "cheapest end of the spread"} if spread.cheapest else {}
    if spread.dearest and spread.state is State.DERIVED:
        ends[spread.dearest.offer_id] = "dearest end of the spread"
    points, excluded = [], []
    for row in view.rows:
        o = row.offer
        if o.per_accelerator_hour is None or not o.usd_comparable:
            excluded.append(
                ChartExclusion(id=o.id, name=f"{o.provider_name} {o.instance_type}", reason=o.currency_note or o.display, url=o.url)
            )
            continue
        marker = ends.get(o.id) or ("in the spread" if row.in_spread else "not in the spread")
        label = f"{'cheapest' if 'cheapest' in marker else 'dearest'}: {o.display}" if o.id in ends else ""
        points.append(ChartPoint(
            id=o.id, name=f"{o.provider_name} {o.instance_type} ({o.pricing.value}, {o.variant.label})", label=label,
            x=o.per_accelerator_hour, x_text=o.display, category=o.provider_name, marker=marker, url=o.url,
        ))  # fmt: skip
    used = {p.marker for p in points}
    markers = [m for m in ("cheapest end of the spread", "dearest end of the spread", "in the spread", "not in the spread") if m in used]
    summary = (
        f"the spread ({spread.counted_text}) runs from {spread.cheapest.display} at {spread.cheapest.provider_name} "
        f"to {spread.dearest.display} at {spread.dearest.provider_name}, {spread.ratio_text}"
        if spread.state is State.DERIVED and spread.cheapest and spread.dearest
        else f"spread: {spread.state_label}"
    )
    return ChartView(
        key=f"prices-{acc.id}", title=f"{acc.name}: price per {view.unit}-hour by provider (USD)",
        description=(
            f"Strip chart of {len(points)} published offer(s) from {len({p.category for p in points})} provider(s): "
            f"price per {view.unit}-hour in US dollars across, one row per provider. On-demand, {summary}. "
            f"{len(excluded)} offer(s) are not plotted because they have no USD price per {view.unit}-hour."
        ),
        x_label=f"USD per {view.unit}-hour", y_label="Provider", x_unit="USD", y_unit="", log_scale=False,
        points=points, excluded=excluded, svg_url=links.svg, page_url=links.page,
        api_url=links.api, data_version=catalog.version, kind="strip", markers=markers,
    )  # fmt: skip


AVERAGE_RACK_TOPIC = "rack-power-density"
"""The energy topic whose figures labelled "Average rack ..." give the reference line."""


def rack_power(catalog: Catalog, *, links: ChartLinks) -> ChartView:
    """Power per system (kW): the vendor's published figure, or other parties' reported ones,
    against the newest "average rack" figure of the rack-power-density topic, served at
    ``links`` (each system linked to ``links.item(system id)``).

    A vendor's figure keeps its basis (a node is not a rack: the label says "per node");
    a reported figure is marked with who reports it and what they sell. A system with
    neither is listed in ``excluded`` ("not published by the vendor").
    """
    from computeatlas.energy import views as energy

    points, excluded = [], []
    for system in catalog.systems.values():
        view = energy.system_figures(catalog, system)
        url = links.item(system.id)
        power = view.power
        if power.state is State.PUBLISHED and power.amount is not None:
            points.append(ChartPoint(
                id=system.id, name=system.name, label=f"{power.value} per {power.basis} ({view.vendor}, vendor)",
                x=power.amount / 1e3, x_text=power.display, category=system.name, marker="published by the vendor", url=url,
            ))  # fmt: skip
        for fig in view.reported_power:
            if fig.watts is None:
                continue
            points.append(ChartPoint(
                id=f"{system.id}-{fig.key}", name=system.name, label=f"{fig.value} ({fig.claimant}, {fig.claimant_interest.value})",
                x=fig.watts / 1e3, x_text=fig.value, category=system.name, marker="reported by another party", url=url,
            ))  # fmt: skip
        if not any(p.category == system.name for p in points):
            excluded.append(
                ChartExclusion(
                    id=system.id, name=system.name, reason=f"power: {power.state_label}; no other party's figure recorded", url=url
                )
            )
    average = None
    topic = catalog.energy.get(AVERAGE_RACK_TOPIC)
    if topic is not None:
        candidates = [f for f in topic.figures if f.label.lower().startswith("average rack") and f.power is not None]
        if candidates:
            newest = max(candidates, key=lambda f: f.as_of)
            assert newest.power is not None  # every candidate has one
            average = ChartReference(
                x=newest.power.amount / 1e3, label=f"average rack: {newest.value} ({newest.claimant}, {newest.as_of.year})"
            )
    used = {p.marker for p in points}
    return ChartView(
        key="rack-power", title="Power per system against the average data-centre rack (kW)",
        description=(
            f"Strip chart of {len(points)} power figure(s) for {len({p.category for p in points})} system(s), in kilowatts across, "
            "one row per system; blue circles are the vendor's own published figure, red squares are figures other parties report, each naming who reports it. "
            + (f"A dashed line marks the {average.label}. " if average else "")
            + f"{len(excluded)} system(s) have no power figure and are listed beside the chart."
        ),
        x_label="Power (kW)", y_label="System", x_unit="kW", y_unit="", log_scale=False, points=points, excluded=excluded,
        svg_url=links.svg, page_url=links.page, api_url=links.api,
        data_version=catalog.version, kind="strip", reference=average,
        markers=[m for m in ("published by the vendor", "reported by another party") if m in used],
    )  # fmt: skip

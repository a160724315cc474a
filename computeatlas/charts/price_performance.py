"""USD per dense PFLOP-hour across the rented parts over time: per part and calendar month, a
like-for-like index of its lowest on-demand price per accelerator-hour
(:func:`computeatlas.cloud.trends.chained_lows`) ÷ the record's dense per-accelerator compute at
one number format, in USD per PFLOP-hour (per POP-hour for an integer format). The format is
the headline format of the comparisons (:func:`computeatlas.silicon.comparison.headline_format`)
over the rented parts that publish any dense figure. A part whose dense figure at that format
is not a published per-accelerator number is left out and listed with the reason; a sparse
figure is never used.
"""

from __future__ import annotations

import datetime as dt

from computeatlas.catalog import Catalog
from computeatlas.charts.links import ChartLinks
from computeatlas.charts.price_trends import freshness_dates, provider_name, short_label, variant_words
from computeatlas.charts.timeline import TimeChart, TimeExclusion, TimePoint, TimeSeries, gap_rule_words, segments
from computeatlas.cloud import trends
from computeatlas.cloud.store import Store
from computeatlas.core.claims import NumberFormat
from computeatlas.core.presentation import present
from computeatlas.silicon.comparison import headline_format
from computeatlas.silicon.records import Accelerator

PETA = 1e15
"""FLOP/s (or OP/s) per PFLOPS (POPS)."""


def performance_format(parts: list[Accelerator]) -> NumberFormat | None:
    """The number format of the price-performance chart: the comparisons' headline format
    (lowest-precision floating-point format every part publishes dense) over the ``parts``
    that publish any dense per-accelerator figure; else the format most of them publish
    (lowest precision first on ties, floating-point before integer); None when none does."""
    publishing = [a for a in parts if any(c.comparable for c in a.specs.compute.values())]
    fmt = headline_format(publishing)
    if fmt is not None or not publishing:
        return fmt
    counts = {f: sum(1 for a in publishing if (c := a.compute(f)) is not None and c.comparable) for f in NumberFormat}
    return min((f for f in counts if counts[f]), key=lambda f: (-counts[f], f.is_integer, f.rank), default=None)


def _index_note(catalog: Catalog, i: trends.IndexPoint, dense: str) -> str:
    """What set one point of the price-performance index, in words."""
    if i.ratio is None:
        start = f"the month's lowest, {i.level:.4g} USD/h ({provider_name(catalog, i.anchor)}), starts the chain"
    else:
        names = ", ".join(provider_name(catalog, p) for p in i.common)
        start = f"{i.level:.4g} USD/h: × {i.ratio:.4g}, the median change of {len(i.common)} provider(s) seen in both months ({names})"
    return f"{start}; ÷ {dense}"


def price_performance(
    catalog: Catalog, store: Store, now: dt.datetime, freshness_days: int = 90, fmt: NumberFormat | None = None, *, links: ChartLinks
) -> TimeChart:
    """Per rented part and calendar month: a like-for-like index of its on-demand USD price per
    accelerator-hour (chart variant; :func:`computeatlas.cloud.trends.chained_lows`) ÷ its dense
    per-accelerator compute at ``fmt`` (default: :func:`performance_format`) in PFLOPS (POPS for
    an integer format) = USD per dense PFLOP-hour. Parts without a published dense figure at
    ``fmt`` are listed in ``excluded``. Served at ``links`` (the page layer's links of the
    headline chart when ``fmt`` is None, else of the chart at ``fmt``); each part is linked to
    ``links.item(part id)``."""
    observed = [catalog.accelerators[i] for i in sorted(store.observed_accelerators()) if i in catalog.accelerators]
    chosen = fmt or performance_format(observed)
    variants = trends.chart_variants(store, now, freshness_days)
    unit = "POP" if chosen is not None and chosen.is_integer else "PFLOP"
    months = trends.provider_month_lows(store)
    series, excluded = [], []
    for acc in sorted(observed, key=lambda a: a.name.lower()):
        url = links.item(acc.id)
        claim = acc.compute(chosen) if chosen is not None else None
        shown = present(claim, what=f"dense {chosen.value if chosen else ''} compute".replace("  ", " "), figure=True)
        if chosen is None or not shown.comparable or claim is None or claim.figure is None:
            excluded.append(TimeExclusion(name=acc.name, reason=shown.reason or "no dense per-accelerator figure", url=url))
            continue
        index = trends.chained_lows(months.get((acc.id, variants.get(acc.id, "")), {})) if acc.id in variants else []
        if not index:
            excluded.append(
                TimeExclusion(name=acc.name, reason=f"no on-demand USD price observed ({variant_words(variants.get(acc.id, ''))})", url=url)
            )
            continue
        peta = claim.figure.amount / PETA
        gaps, interval = segments([i.period for i in index])
        joined = list(dict.fromkeys(zip((i.chain for i in index), gaps, strict=True)))  # a chain break or a gap starts a segment
        dense = f"{peta:.4g} P{unit[1:]}S dense {chosen.value} ({claim.value})"
        series.append(
            TimeSeries(
                id=acc.id,
                label=acc.name,
                group=short_label(catalog, acc),
                kind="on-demand",
                interval_days=interval,
                url=url,
                points=[
                    TimePoint(
                        date=i.period,
                        value=i.level / peta,
                        segment=joined.index((i.chain, g)),
                        period=i.period,
                        observations=i.providers,
                        note=_index_note(catalog, i, dense),
                    )
                    for i, g in zip(index, gaps, strict=True)
                ],
            )
        )
    start, end = freshness_dates(now, freshness_days)
    fmt_words = chosen.value if chosen else "no shared format"
    values = [p.value for s in series for p in s.points]
    log = bool(values) and max(values) / min(values) > 20
    return TimeChart(
        key=f"price-performance-{fmt_words}",
        title=f"USD per dense {fmt_words} {unit}-hour, rented parts over time",
        description=(
            f"Line chart of {len(series)} part(s): a like-for-like index of each part's on-demand USD price per "
            f"accelerator-hour, month by month, ÷ the part's dense {fmt_words} compute, in USD per {unit}-hour (lower buys more). "
            f"{len(excluded)} part(s) are not plotted; they are listed beside the chart with the reason."
        ),
        method=(
            f"For each part, a chained like-for-like index of its accepted on-demand USD prices per accelerator-hour (the part's "
            f"chart variant, the one its price page's spread uses): a chain starts at its first month's lowest price; each "
            f"following month moves it by the median of each provider's lowest price that month ÷ its lowest the month before, "
            f"over the providers observed in both months only, so a provider appearing or disappearing never moves the line; "
            f"where no provider was observed in both months the chain breaks (a gap) and starts again at that month's lowest. "
            f"The level ÷ the part's dense per-accelerator {fmt_words} compute as its record publishes it, in P{unit[1:]}S. "
            f"{fmt_words} is the headline format of the comparisons: the lowest-precision floating-point format every rented part "
            "that publishes a dense figure publishes. A sparse figure is never used; a part whose dense figure is not published is "
            "left out and listed. Every point names the providers it compares."
        ),
        gap_rule=gap_rule_words("month"),
        y_label=f"USD per dense {fmt_words} {unit}-hour" + (" (log scale)" if log else ""),
        y_unit=f"USD/{unit}-h",
        log_scale=log,
        series=series,
        kinds=[],
        dashes=[],
        excluded=excluded,
        window_start=start,
        window_end=end,
        freshness_days=freshness_days,
        **links.time_chart_fields(),
        data_version=f"{catalog.version}|{store.version()}",
    )


__all__ = ["PETA", "performance_format", "price_performance"]

"""The price-history charts: one part's prices per provider over time, its like-for-like
spread over time, and USD per dense PFLOP-hour across parts over time.

Every series is computed by DuckDB from the observation store (:mod:`computeatlas.cloud.trends`):
accepted observations only, USD only (no exchange rate is applied to a history), the part's
chart variant (:func:`~computeatlas.cloud.trends.chart_variant`: the variant its price page's
spread uses). No line is a median or a minimum over "all providers": a set of providers
that changes from one date to the next would move such a line by itself.

- :func:`price_history`: one line per provider and pricing kind (and term); each point is
  the lowest price of that provider, kind and term in one ISO week, at the date it was seen.
- :func:`price_spread`: per calendar month, the dearest provider's lowest on-demand price ÷
  the cheapest provider's, among the providers observed that month (at least two).
- :func:`computeatlas.charts.price_performance.price_performance`: per part and calendar month, the lowest on-demand price per
  accelerator-hour ÷ the record's dense per-accelerator compute at one number format, in
  USD per PFLOP-hour (per POP-hour for an integer format). The format is the headline
  format of the comparisons (:func:`computeatlas.silicon.comparison.headline_format`) over
  the rented parts that publish any dense figure. A part whose dense figure at that format
  is not a published per-accelerator number is left out and listed with the reason; a
  sparse figure is never used.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict

from computeatlas.catalog import Catalog
from computeatlas.charts.chart import short_name
from computeatlas.charts.labels import label_text
from computeatlas.charts.links import ChartLinks
from computeatlas.charts.timeline import (
    TimeChart,
    TimeExclusion,
    TimePoint,
    TimeSeries,
    dash_patterns,
    gap_rule_words,
    kind_words,
    segments,
)
from computeatlas.cloud import trends
from computeatlas.cloud.observations import PricingKind
from computeatlas.cloud.store import Store
from computeatlas.silicon.records import Accelerator

_KIND_ORDER = {k.value: i for i, k in enumerate(PricingKind)}


def provider_name(catalog: Catalog, ident: str) -> str:
    """The provider's name as the catalog records it, or its id when it has none."""
    provider = catalog.providers.get(ident)
    return provider.name if provider else ident


def short_label(catalog: Catalog, acc: Accelerator) -> str:
    """The part's name without its vendor's, as a chart label (:func:`computeatlas.charts.labels.label_text`)."""
    return label_text(short_name(catalog, acc))


def variant_words(variant: str) -> str:
    """``variant sxm-80gb``, or words saying no offer states a variant ('')."""
    return f"variant {variant}" if variant else "no variant stated by any offer"


def _read_words(since: dt.date | None, until: dt.date | None) -> str:
    """The collection dates a chart read, in words ('' for all of the history)."""
    if since is None and until is None:
        return ""
    return f" Only observations collected from {since or 'the first'} to {until or 'the newest'} are read."


def freshness_dates(now: dt.datetime, freshness_days: int) -> tuple[dt.date, dt.date]:
    """The freshness window's first and last dates as of ``now`` (the shaded band of a chart)."""
    return (now - dt.timedelta(days=freshness_days)).date(), now.date()


def price_history(
    catalog: Catalog,
    store: Store,
    acc: Accelerator,
    now: dt.datetime,
    freshness_days: int = 90,
    since: dt.date | None = None,
    until: dt.date | None = None,
    *,
    links: ChartLinks,
) -> TimeChart:
    """One line per provider, pricing kind and term of ``acc`` in its chart variant: the lowest
    USD price per accelerator-hour of each ISO week, plotted at the date it was observed;
    observations of other variants, of no stated variant or in other currencies are counted
    in ``excluded`` per provider. ``now`` (UTC) ends the chart and its freshness window;
    ``since``/``until`` (collection dates, inclusive; None = unbounded) bound what is read
    (the price page's window). Served at ``links``; a provider of the catalog is linked to
    ``links.item(provider id)``."""
    variant = trends.chart_variant(store, acc.id, now, freshness_days, since, until)
    rows = trends.lows(store, acc.id, variant, "week", since=since, until=until)
    grouped: dict[tuple[str, str, str], list[trends.PeriodLow]] = defaultdict(list)
    for row in rows:
        grouped[(row.provider, row.pricing, row.term)].append(row)
    keys = sorted(grouped, key=lambda k: (provider_name(catalog, k[0]).lower(), _KIND_ORDER.get(k[1], 99), k[2]))
    kinds = list(dict.fromkeys(kind_words(p, t) for _, p, t in sorted(keys, key=lambda k: (_KIND_ORDER.get(k[1], 99), k[2]))))
    pairs = list(dict.fromkeys((p, t) for _, p, t in sorted(keys, key=lambda k: (_KIND_ORDER.get(k[1], 99), k[2]))))
    dashes = dash_patterns(pairs)
    by_words = dict(zip([kind_words(p, t) for p, t in pairs], dashes, strict=True))
    series = []
    for provider, pricing, term in keys:
        lows = sorted(grouped[(provider, pricing, term)], key=lambda r: r.seen)
        segs, interval = segments([r.seen for r in lows])
        name, words = provider_name(catalog, provider), kind_words(pricing, term)
        series.append(
            TimeSeries(
                id=f"{provider}/{pricing}/{term}",
                label=f"{name}, {words}",
                group=name,
                kind=words,
                interval_days=interval,
                url=links.item(provider) if provider in catalog.providers else "",
                points=[
                    TimePoint(
                        date=r.seen,
                        value=r.low,
                        segment=s,
                        period=r.period,
                        observations=r.observations,
                        note=f"{r.instance_type}{', ' + r.region if r.region else ''}",
                    )
                    for r, s in zip(lows, segs, strict=True)
                ],
            )
        )
    excluded = [
        TimeExclusion(
            name=provider_name(catalog, o.provider),
            reason=f"{o.observations} observation(s): {o.reason}",
            url=links.item(o.provider) if o.provider in catalog.providers else "",
        )
        for o in trends.left_out(store, acc.id, variant, since=since, until=until)
    ]
    start, end = freshness_dates(now, freshness_days)
    providers = sorted({s.group for s in series})
    on_demand = [s for s in series if s.kind == "on-demand"]
    newest = max((p.date for s in series for p in s.points), default=None)
    first = min((p.date for s in series for p in s.points), default=None)
    summary = (
        f"Line chart of {len(series)} series from {len(providers)} provider(s) ({', '.join(providers)}), {first} to {newest}: "
        f"the lowest USD price per accelerator-hour of each provider, pricing kind and week, {variant_words(variant)}. "
        f"{len(on_demand)} on-demand line(s) are solid; spot, committed, reserved and capacity-block lines are dashed, "
        f"each pattern named in the legend. The shaded band is the freshness window ({freshness_days} days to {end}). "
        if series
        else f"No USD price per accelerator-hour of {acc.name} in {variant_words(variant)} is stored. "
    )
    return TimeChart(
        key=f"price-history-{acc.id}",
        title=f"{short_label(catalog, acc)}: USD per accelerator-hour by provider over time",
        description=summary
        + f"{len(excluded)} provider/reason group(s) of observations are not plotted; they are listed beside the chart."
        + _read_words(since, until),
        method=(
            f"Each point is the lowest accepted USD price per accelerator-hour that one provider published for {acc.name} "
            f"({variant_words(variant)}, the variant the price page's spread uses) at one pricing kind and term in one ISO week "
            "(Monday to Sunday), placed at the date it was observed. Prices are per accelerator-hour (an instance price ÷ its "
            "accelerators). No line mixes providers: a median over the providers seen on each date would move only because "
            "different providers were seen."
        ),
        gap_rule=gap_rule_words("week"),
        y_label="USD per accelerator-hour",
        y_unit="USD/h",
        series=series,
        kinds=kinds,
        dashes=[by_words[k] for k in kinds],
        excluded=excluded,
        window_start=start,
        window_end=end,
        freshness_days=freshness_days,
        **links.time_chart_fields(),
        data_version=f"{catalog.version}|{store.version()}",
        variant=variant,
    )


def price_spread(
    catalog: Catalog,
    store: Store,
    acc: Accelerator,
    now: dt.datetime,
    freshness_days: int = 90,
    since: dt.date | None = None,
    until: dt.date | None = None,
    *,
    links: ChartLinks,
) -> TimeChart:
    """Per calendar month, dearest ÷ cheapest among the providers with an on-demand USD
    observation of ``acc`` (chart variant) that month, each provider counted at its lowest
    price of the month; a month with one provider has no spread and is listed in ``excluded``.
    ``since``/``until`` (collection dates, inclusive; None = unbounded) bound what is read;
    a month cut by them counts only its days inside. Served at ``links``."""
    variant = trends.chart_variant(store, acc.id, now, freshness_days, since, until)
    months: dict[dt.date, list[trends.PeriodLow]] = defaultdict(list)
    for row in trends.lows(store, acc.id, variant, "month", pricing=PricingKind.ON_DEMAND.value, since=since, until=until):
        months[row.period].append(row)
    lowest: dict[dt.date, dict[str, float]] = {}
    for month, rows in months.items():
        per: dict[str, float] = {}
        for r in rows:  # one provider may have several terms' rows; on-demand has none, but keep its lowest
            per[r.provider] = min(per.get(r.provider, r.low), r.low)
        lowest[month] = per
    spread_months = sorted(m for m, per in lowest.items() if len(per) >= 2)
    segs, interval = segments(spread_months)
    points = []
    for month, seg in zip(spread_months, segs, strict=True):
        per = lowest[month]
        cheap = min(per, key=lambda p: (per[p], p))
        dear = max(per, key=lambda p: (per[p], p))
        points.append(
            TimePoint(
                date=month,
                value=per[dear] / per[cheap],
                segment=seg,
                period=month,
                observations=len(per),
                note=(
                    f"{provider_name(catalog, dear)} {per[dear]:.4g} ÷ {provider_name(catalog, cheap)} {per[cheap]:.4g} USD/h; "
                    f"{len(per)} providers: {', '.join(sorted(provider_name(catalog, p) for p in per))}"
                ),
            )
        )
    lone = sorted(m for m, per in lowest.items() if len(per) < 2)
    excluded = []
    if lone:
        shown = ", ".join(m.strftime("%Y-%m") for m in lone) if len(lone) <= 6 else f"{lone[0]:%Y-%m} … {lone[-1]:%Y-%m}"
        excluded.append(TimeExclusion(name=f"{len(lone)} month(s)", reason=f"one provider observed, so no spread ({shown})"))
    excluded += [
        TimeExclusion(name=provider_name(catalog, o.provider), reason=f"{o.observations} on-demand observation(s): {o.reason}")
        for o in trends.left_out(store, acc.id, variant, pricing=PricingKind.ON_DEMAND.value, since=since, until=until)
    ]
    series = (
        [
            TimeSeries(
                id="spread", label="dearest ÷ cheapest provider", group="spread", kind="on-demand", interval_days=interval, points=points
            )
        ]
        if points
        else []
    )  # one line: labelled at its end, no legend
    start, end = freshness_dates(now, freshness_days)
    top = max(points, key=lambda p: p.value, default=None)
    return TimeChart(
        key=f"price-spread-{acc.id}",
        title=f"{short_label(catalog, acc)}: spread between providers over time (dearest ÷ cheapest)",
        description=(
            f"Line chart of the on-demand spread of {acc.name} ({variant_words(variant)}) in {len(points)} month(s): "
            "dearest ÷ cheapest among the providers observed in the same month."
            + (f" Widest {top.value:.2f}× in {top.date:%Y-%m} ({top.note})." if top else "")
            + f" {len(excluded)} group(s) are not plotted; they are listed beside the chart."
            + _read_words(since, until)
        ),
        method=(
            f"For each calendar month, every provider with an accepted on-demand USD observation of {acc.name} "
            f"({variant_words(variant)}) that month counts once, at its lowest price per accelerator-hour of the month; the "
            "spread is the dearest of these ÷ the cheapest. Only providers observed in that same month enter it (never a "
            "provider's older price), and a month needs two of them. The number of providers is on every point."
        ),
        gap_rule=gap_rule_words("month"),
        y_label="Dearest ÷ cheapest (×)",
        y_unit="×",
        series=series,
        kinds=[],
        dashes=[],
        excluded=excluded,
        window_start=start,
        window_end=end,
        freshness_days=freshness_days,
        **links.time_chart_fields(),
        data_version=f"{catalog.version}|{store.version()}",
        variant=variant,
    )


__all__ = ["freshness_dates", "price_history", "price_spread", "provider_name", "short_label", "variant_words"]

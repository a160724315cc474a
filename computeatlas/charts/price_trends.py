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
- :func:`price_performance`: per part and calendar month, the lowest on-demand price per
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
from computeatlas.core.claims import NumberFormat
from computeatlas.core.presentation import present
from computeatlas.core.urls import site_path
from computeatlas.silicon.comparison import headline_format
from computeatlas.silicon.records import Accelerator

_KIND_ORDER = {k.value: i for i, k in enumerate(PricingKind)}
PETA = 1e15
"""FLOP/s (or OP/s) per PFLOPS (POPS)."""


def _provider_name(catalog: Catalog, ident: str) -> str:
    provider = catalog.providers.get(ident)
    return provider.name if provider else ident


def _short(catalog: Catalog, acc: Accelerator) -> str:
    return label_text(short_name(catalog, acc))


def _variant_words(variant: str) -> str:
    return f"variant {variant}" if variant else "no variant stated by any offer"


def _links(acc: Accelerator) -> list[tuple[str, str]]:
    return [
        ("Price history by provider", site_path("chart_price_history", ident=acc.id)),
        ("Like-for-like spread over time", site_path("chart_price_spread", ident=acc.id)),
        ("USD per dense PFLOP-hour across parts", site_path("chart_price_performance")),
        (f"{acc.name}: observed prices and the tables", site_path("cloud_prices", ident=acc.id)),
    ]


def _read_words(since: dt.date | None, until: dt.date | None) -> str:
    """The collection dates a chart read, in words ('' for all of the history)."""
    if since is None and until is None:
        return ""
    return f" Only observations collected from {since or 'the first'} to {until or 'the newest'} are read."


def _window(now: dt.datetime, freshness_days: int) -> tuple[dt.date, dt.date]:
    return (now - dt.timedelta(days=freshness_days)).date(), now.date()


def price_history(
    catalog: Catalog,
    store: Store,
    acc: Accelerator,
    now: dt.datetime,
    freshness_days: int = 90,
    since: dt.date | None = None,
    until: dt.date | None = None,
) -> TimeChart:
    """One line per provider, pricing kind and term of ``acc`` in its chart variant: the lowest
    USD price per accelerator-hour of each ISO week, plotted at the date it was observed;
    observations of other variants, of no stated variant or in other currencies are counted
    in ``excluded`` per provider. ``now`` (UTC) ends the chart and its freshness window;
    ``since``/``until`` (collection dates, inclusive; None = unbounded) bound what is read
    (the price page's window)."""
    variant = trends.chart_variant(store, acc.id, now, freshness_days, since, until)
    rows = trends.lows(store, acc.id, variant, "week", since=since, until=until)
    grouped: dict[tuple[str, str, str], list[trends.PeriodLow]] = defaultdict(list)
    for row in rows:
        grouped[(row.provider, row.pricing, row.term)].append(row)
    keys = sorted(grouped, key=lambda k: (_provider_name(catalog, k[0]).lower(), _KIND_ORDER.get(k[1], 99), k[2]))
    kinds = list(dict.fromkeys(kind_words(p, t) for _, p, t in sorted(keys, key=lambda k: (_KIND_ORDER.get(k[1], 99), k[2]))))
    pairs = list(dict.fromkeys((p, t) for _, p, t in sorted(keys, key=lambda k: (_KIND_ORDER.get(k[1], 99), k[2]))))
    dashes = dash_patterns(pairs)
    by_words = dict(zip([kind_words(p, t) for p, t in pairs], dashes, strict=True))
    series = []
    for provider, pricing, term in keys:
        lows = sorted(grouped[(provider, pricing, term)], key=lambda r: r.seen)
        segs, interval = segments([r.seen for r in lows])
        name, words = _provider_name(catalog, provider), kind_words(pricing, term)
        series.append(
            TimeSeries(
                id=f"{provider}/{pricing}/{term}",
                label=f"{name}, {words}",
                group=name,
                kind=words,
                interval_days=interval,
                url=site_path("cloud_provider", ident=provider) if provider in catalog.providers else "",
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
            name=_provider_name(catalog, o.provider),
            reason=f"{o.observations} observation(s): {o.reason}",
            url=site_path("cloud_provider", ident=o.provider) if o.provider in catalog.providers else "",
        )
        for o in trends.left_out(store, acc.id, variant, since=since, until=until)
    ]
    start, end = _window(now, freshness_days)
    providers = sorted({s.group for s in series})
    on_demand = [s for s in series if s.kind == "on-demand"]
    newest = max((p.date for s in series for p in s.points), default=None)
    first = min((p.date for s in series for p in s.points), default=None)
    summary = (
        f"Line chart of {len(series)} series from {len(providers)} provider(s) ({', '.join(providers)}), {first} to {newest}: "
        f"the lowest USD price per accelerator-hour of each provider, pricing kind and week, {_variant_words(variant)}. "
        f"{len(on_demand)} on-demand line(s) are solid; spot, committed, reserved and capacity-block lines are dashed, "
        f"each pattern named in the legend. The shaded band is the freshness window ({freshness_days} days to {end}). "
        if series
        else f"No USD price per accelerator-hour of {acc.name} in {_variant_words(variant)} is stored. "
    )
    return TimeChart(
        key=f"price-history-{acc.id}",
        title=f"{_short(catalog, acc)}: USD per accelerator-hour by provider over time",
        description=summary
        + f"{len(excluded)} provider/reason group(s) of observations are not plotted; they are listed beside the chart."
        + _read_words(since, until),
        method=(
            f"Each point is the lowest accepted USD price per accelerator-hour that one provider published for {acc.name} "
            f"({_variant_words(variant)}, the variant the price page's spread uses) at one pricing kind and term in one ISO week "
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
        svg_url=site_path("chart_price_history_svg", ident=acc.id),
        narrow_svg_url=site_path("chart_price_history_narrow_svg", ident=acc.id),
        page_url=site_path("chart_price_history", ident=acc.id),
        api_url=site_path("api_chart_price_history", ident=acc.id),
        csv_url=site_path("api_chart_price_history_csv", ident=acc.id),
        data_version=f"{catalog.version}|{store.version()}",
        links=_links(acc),
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
) -> TimeChart:
    """Per calendar month, dearest ÷ cheapest among the providers with an on-demand USD
    observation of ``acc`` (chart variant) that month, each provider counted at its lowest
    price of the month; a month with one provider has no spread and is listed in ``excluded``.
    ``since``/``until`` (collection dates, inclusive; None = unbounded) bound what is read;
    a month cut by them counts only its days inside."""
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
                    f"{_provider_name(catalog, dear)} {per[dear]:.4g} ÷ {_provider_name(catalog, cheap)} {per[cheap]:.4g} USD/h; "
                    f"{len(per)} providers: {', '.join(sorted(_provider_name(catalog, p) for p in per))}"
                ),
            )
        )
    lone = sorted(m for m, per in lowest.items() if len(per) < 2)
    excluded = []
    if lone:
        shown = ", ".join(m.strftime("%Y-%m") for m in lone) if len(lone) <= 6 else f"{lone[0]:%Y-%m} … {lone[-1]:%Y-%m}"
        excluded.append(TimeExclusion(name=f"{len(lone)} month(s)", reason=f"one provider observed, so no spread ({shown})"))
    excluded += [
        TimeExclusion(name=_provider_name(catalog, o.provider), reason=f"{o.observations} on-demand observation(s): {o.reason}")
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
    start, end = _window(now, freshness_days)
    top = max(points, key=lambda p: p.value, default=None)
    return TimeChart(
        key=f"price-spread-{acc.id}",
        title=f"{_short(catalog, acc)}: spread between providers over time (dearest ÷ cheapest)",
        description=(
            f"Line chart of the on-demand spread of {acc.name} ({_variant_words(variant)}) in {len(points)} month(s): "
            "dearest ÷ cheapest among the providers observed in the same month."
            + (f" Widest {top.value:.2f}× in {top.date:%Y-%m} ({top.note})." if top else "")
            + f" {len(excluded)} group(s) are not plotted; they are listed beside the chart."
            + _read_words(since, until)
        ),
        method=(
            f"For each calendar month, every provider with an accepted on-demand USD observation of {acc.name} "
            f"({_variant_words(variant)}) that month counts once, at its lowest price per accelerator-hour of the month; the "
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
        svg_url=site_path("chart_price_spread_svg", ident=acc.id),
        narrow_svg_url=site_path("chart_price_spread_narrow_svg", ident=acc.id),
        page_url=site_path("chart_price_spread", ident=acc.id),
        api_url=site_path("api_chart_price_spread", ident=acc.id),
        csv_url=site_path("api_chart_price_spread_csv", ident=acc.id),
        data_version=f"{catalog.version}|{store.version()}",
        links=_links(acc),
        variant=variant,
    )


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
        start = f"the month's lowest, {i.level:.4g} USD/h ({_provider_name(catalog, i.anchor)}), starts the chain"
    else:
        names = ", ".join(_provider_name(catalog, p) for p in i.common)
        start = f"{i.level:.4g} USD/h: × {i.ratio:.4g}, the median change of {len(i.common)} provider(s) seen in both months ({names})"
    return f"{start}; ÷ {dense}"


def price_performance(
    catalog: Catalog, store: Store, now: dt.datetime, freshness_days: int = 90, fmt: NumberFormat | None = None
) -> TimeChart:
    """Per rented part and calendar month: a like-for-like index of its on-demand USD price per
    accelerator-hour (chart variant; :func:`computeatlas.cloud.trends.chained_lows`) ÷ its dense
    per-accelerator compute at ``fmt`` (default: :func:`performance_format`) in PFLOPS (POPS for
    an integer format) = USD per dense PFLOP-hour. Parts without a published dense figure at
    ``fmt`` are listed in ``excluded``."""
    observed = [catalog.accelerators[i] for i in sorted(store.observed_accelerators()) if i in catalog.accelerators]
    chosen = fmt or performance_format(observed)
    variants = trends.chart_variants(store, now, freshness_days)
    unit = "POP" if chosen is not None and chosen.is_integer else "PFLOP"
    months = trends.provider_month_lows(store)
    series, excluded = [], []
    for acc in sorted(observed, key=lambda a: a.name.lower()):
        url = site_path("silicon_page", ident=acc.id)
        claim = acc.compute(chosen) if chosen is not None else None
        shown = present(claim, what=f"dense {chosen.value if chosen else ''} compute".replace("  ", " "), figure=True)
        if chosen is None or not shown.comparable or claim is None or claim.figure is None:
            excluded.append(TimeExclusion(name=acc.name, reason=shown.reason or "no dense per-accelerator figure", url=url))
            continue
        index = trends.chained_lows(months.get((acc.id, variants.get(acc.id, "")), {})) if acc.id in variants else []
        if not index:
            excluded.append(
                TimeExclusion(
                    name=acc.name, reason=f"no on-demand USD price observed ({_variant_words(variants.get(acc.id, ''))})", url=url
                )
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
                group=_short(catalog, acc),
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
    start, end = _window(now, freshness_days)
    fmt_words = chosen.value if chosen else "no shared format"
    values = [p.value for s in series for p in s.points]
    log = bool(values) and max(values) / min(values) > 20
    key_params = {"fmt": chosen.value} if fmt is not None and chosen is not None else {}
    names = (
        (
            "chart_price_performance_format",
            "chart_price_performance_format_svg",
            "chart_price_performance_format_narrow_svg",
            "api_chart_price_performance_format",
            "api_chart_price_performance_format_csv",
        )
        if key_params
        else (
            "chart_price_performance",
            "chart_price_performance_svg",
            "chart_price_performance_narrow_svg",
            "api_chart_price_performance",
            "api_chart_price_performance_csv",
        )
    )
    page, svg, narrow, api, csv = (site_path(n, **key_params) for n in names)
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
        svg_url=svg,
        narrow_svg_url=narrow,
        page_url=page,
        api_url=api,
        csv_url=csv,
        data_version=f"{catalog.version}|{store.version()}",
        links=[("Observed prices of every part", site_path("cloud_index"))],
    )


__all__ = ["PETA", "performance_format", "price_history", "price_performance", "price_spread"]

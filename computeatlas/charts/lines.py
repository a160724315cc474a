"""Time charts as static SVG: a :class:`~computeatlas.charts.timeline.TimeChart` turned into
a Vega-Lite spec (Altair) and rendered by vl-convert (no browser, no network), with
``<title>`` and ``<desc>`` for screen readers, cached per chart, data and width.

Two widths: ``wide`` (a 600-pixel plot, for screens wider than about 640 px) and
``narrow`` (a 300-pixel plot, about 370 px in all, for phones: at 390 px it is shown at its
own size, so its 11-pixel text stays 11 pixels). Lines are broken where the series'
``segment`` changes (the gap rule of :mod:`computeatlas.charts.timeline`); every point is
also a mark, shaped by its pricing kind, so a point alone still shows its kind (on a series
of more than :data:`MARKED_POINTS` points only the lone ones are, so the dashes show). A chart
without kinds (one per part) labels each line at its right end instead.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import math
import textwrap
from typing import Any, Literal

from computeatlas.charts.chart import FONT
from computeatlas.charts.svg import BACKGROUND, INK, LINE, MUTED
from computeatlas.charts.timeline import TimeChart
from computeatlas.core.cache import active

Width = Literal["wide", "narrow"]
SIZES = {"wide": (600, 320), "narrow": (300, 230)}
"""Plot area (width, height) in pixels per width."""
SHAPES = ("circle", "triangle-up", "square", "diamond", "triangle-down", "cross", "triangle-left", "triangle-right")
"""Point shapes of the pricing kinds, in the order of :attr:`TimeChart.kinds`."""
WINDOW_FILL = "#e3eefa"
PALETTE = (
    "#0b5cad",
    "#a3340f",
    "#1b7f3b",
    "#6a3d9a",
    "#b15928",
    "#c2185b",
    "#00796b",
    "#5b6570",
    "#8a6d00",
    "#283593",
    "#d84315",
    "#4e342e",
    "#00838f",
    "#7b1fa2",
    "#558b2f",
    "#ad1457",
    "#1565c0",
    "#e65100",
    "#37474f",
    "#827717",
)
"""Line colours, each at least 4.5:1 against white so an end label in it reads as text (lines are
told apart by their legend or end label too, never by colour alone)."""
LABEL_STEP = 13.0
"""Pixels between two end labels (an 11-pixel line)."""


GLYPHS = ("●", "▲", "■", "◆", "▼", "✚", "◀", "▶")
"""The legend's picture of each of :data:`SHAPES`."""


def _dash_words(dash: list[int]) -> str:
    if not dash:
        return "solid line"
    return "dotted line" if max(dash) <= 3 else ("dash-dot line" if len(dash) > 2 else "dashed line")


def legend_words(chart: TimeChart) -> list[str]:
    """The pricing legend's entries: each kind with its line and mark in words ("spot: dotted line, ▲")."""
    return [f"{k}: {_dash_words(d)}, {GLYPHS[i % len(GLYPHS)]}" for i, (k, d) in enumerate(zip(chart.kinds, chart.dashes, strict=True))]


MARKED_POINTS = 60
"""A series of at most this many points shows a mark at each; a longer one only where a point
is alone in its segment (marks every week would hide the dash patterns)."""


def _rows(chart: TimeChart) -> list[dict[str, Any]]:
    words = dict(zip(chart.kinds, legend_words(chart), strict=True))
    rows = []
    for s in chart.series:
        sizes: dict[int, int] = {}
        for p in s.points:
            sizes[p.segment] = sizes.get(p.segment, 0) + 1
        for p in s.points:
            rows.append(
                {
                    "series": s.id,
                    "label": s.label,
                    "group": s.group,
                    "kind": words.get(s.kind, s.kind),
                    "date": p.date.isoformat(),
                    "mark": words.get(s.kind, s.kind),
                    "value": p.value,
                    "line": f"{s.id}#{p.segment}",
                    "note": p.note,
                    "marked": len(s.points) <= MARKED_POINTS or sizes[p.segment] == 1,
                }
            )
    return rows


def _y_domain(chart: TimeChart) -> tuple[float, float]:
    values = [p.value for s in chart.series for p in s.points] or [1.0]
    low, high = min(values), max(values)
    if chart.log_scale:
        return low / 1.4, high * 1.4
    return 0.0, high * 1.12 or 1.0


def _end_labels(chart: TimeChart, height: float, domain: tuple[float, float]) -> list[dict[str, Any]]:
    """One label per series at the height of its last point, pushed apart so none overlap."""
    lo, hi = domain

    def px(v: float) -> float:
        frac = (math.log10(v) - math.log10(lo)) / (math.log10(hi) - math.log10(lo)) if chart.log_scale else (v - lo) / (hi - lo)
        return height - frac * height

    def value(y: float) -> float:
        frac = (height - y) / height
        return 10 ** (math.log10(lo) + frac * (math.log10(hi) - math.log10(lo))) if chart.log_scale else lo + frac * (hi - lo)

    ends = sorted(((px(s.points[-1].value), s.group) for s in chart.series if s.points), key=lambda e: e[0])
    placed: list[float] = []
    for y, _ in ends:  # top to bottom, each at least LABEL_STEP below the one above
        placed.append(max(y, placed[-1] + LABEL_STEP) if placed else y)
    for i in range(len(placed) - 1, -1, -1):  # then bottom to top, none below the plot
        limit = height if i == len(placed) - 1 else placed[i + 1] - LABEL_STEP
        placed[i] = min(placed[i], limit)
    return [{"text": name, "ly": value(y)} for y, (_, name) in zip(placed, ends, strict=True)]


def _title(chart: TimeChart, width: Width) -> list[str]:
    return textwrap.wrap(chart.title, 38 if width == "narrow" else 76)


def spec(chart: TimeChart, width: Width = "wide") -> dict[str, Any]:
    """The Vega-Lite spec (a dict) of ``chart`` at ``width``: broken lines, marks shaped by
    pricing kind, the freshness window shaded and named, legends in words."""
    import altair as alt

    w, h = SIZES[width]
    rows = _rows(chart)
    yd = _y_domain(chart)
    first = min((p.date for s in chart.series for p in s.points), default=chart.window_end)
    start = min(first, chart.window_start) if chart.window_start else first
    start -= dt.timedelta(days=max(3, (chart.window_end - start).days // 30))  # room for the first marks
    xs = alt.Scale(domain=[start.isoformat(), chart.window_end.isoformat()], nice=False)
    ys = alt.Scale(type="log" if chart.log_scale else "linear", domain=list(yd), nice=False, zero=not chart.log_scale)
    x = alt.X("date:T", title=None, scale=xs, axis=alt.Axis(format="%b %Y", tickCount=3 if width == "narrow" else 6, labelFlush=True))
    y = alt.Y("value:Q", title=chart.y_label, scale=ys, axis=alt.Axis(tickCount=4 if width == "narrow" else 6))
    groups = list(dict.fromkeys(s.group for s in chart.series))
    palette = alt.Scale(domain=groups, range=[PALETTE[i % len(PALETTE)] for i in range(len(groups))])
    # Lines are named by a colour legend, or (a chart without pricing kinds, wide) by a label at each line's right end.
    end_labels = not chart.kinds and (width == "wide" or len(groups) == 1)
    legend = (
        None
        if end_labels
        else alt.Legend(
            orient="bottom",
            columns=2 if width == "narrow" else 4,
            labelLimit=160,
            symbolType="stroke",
            symbolStrokeWidth=3,
            title="Provider" if chart.kinds else None,
        )
    )
    colour = alt.Color("group:N", scale=palette, legend=legend)
    layers: list[Any] = []
    if chart.window_start is not None:
        band = alt.Chart(
            alt.Data(
                values=[
                    {
                        "start": chart.window_start.isoformat(),
                        "end": chart.window_end.isoformat(),
                        "text": f"current: last {chart.freshness_days} days",
                    }
                ]
            )
        )
        layers.append(band.mark_rect(color=WINDOW_FILL).encode(x=alt.X("start:T", scale=xs), x2="end:T"))
        layers.append(
            band.mark_text(align="right", baseline="top", dx=-3, dy=3, y=0, fontSize=10, color=MUTED).encode(
                x=alt.X("end:T", scale=xs), text="text:N"
            )
        )
    base = alt.Chart(alt.Data(values=rows))
    if chart.kinds:
        kinds = legend_words(chart)
        dash = alt.StrokeDash(
            "kind:N",
            scale=alt.Scale(domain=kinds, range=chart.dashes),
            title="Pricing",
            legend=alt.Legend(
                orient="top",
                columns=1 if width == "narrow" else 2,
                symbolType="stroke",
                symbolStrokeWidth=2,
                symbolSize=250,
                symbolStrokeColor=INK,
                labelLimit=320,
            ),
        )
        # The marks' shape reads a copy of the kind (field "mark"), so the two legends are not merged into one of shapes.
        shape = alt.Shape("mark:N", scale=alt.Scale(domain=kinds, range=[SHAPES[i % len(SHAPES)] for i in range(len(kinds))]), legend=None)
        layers.append(base.mark_line(strokeWidth=2, clip=True).encode(x=x, y=y, color=colour, strokeDash=dash, detail="line:N"))
        layers.append(
            base.transform_filter("datum.marked")
            .mark_point(filled=True, size=40, opacity=1, clip=True)
            .encode(x=x, y=y, color=colour, shape=shape)
        )
    else:
        layers.append(base.mark_line(strokeWidth=2, clip=True).encode(x=x, y=y, color=colour, detail="line:N"))
        layers.append(
            base.transform_filter("datum.marked").mark_point(filled=True, size=40, opacity=1, clip=True).encode(x=x, y=y, color=colour)
        )
    if end_labels:
        labels = alt.Chart(alt.Data(values=_end_labels(chart, h, yd)))
        layers.append(
            labels.mark_text(align="left", baseline="middle", fontSize=11, x=w + 6).encode(
                y=alt.Y("ly:Q", scale=ys), text="text:N", color=alt.Color("text:N", scale=palette, legend=None)
            )
        )
    layered = (
        alt.layer(*layers)
        .resolve_scale(color="shared")
        .properties(
            width=w,
            height=h,
            description=chart.description,
            title=alt.Title(_title(chart, width), anchor="start", fontSize=13 if width == "narrow" else 15, color=INK, font=FONT),
        )
    )
    longest = max((len(g) for g in groups), default=0) if end_labels else 0
    padding = {"left": 6, "right": 8 + round(longest * 6.6), "top": 6, "bottom": 6}
    layered = (
        layered.configure(font=FONT, background=BACKGROUND, padding=padding)
        .configure_axis(
            labelColor=MUTED, titleColor=INK, gridColor=LINE, domainColor=MUTED, tickColor=MUTED, labelFontSize=11, titleFontSize=11
        )
        .configure_legend(labelFontSize=11, titleFontSize=11, labelColor=INK, titleColor=INK)
        .configure_view(stroke=LINE)
    )
    return layered.to_dict(validate=False)


def svg(chart: TimeChart, width: Width = "wide") -> str:
    """``chart`` as standalone SVG text at ``width``, with ``role="img"``, ``<title>`` and
    ``<desc>`` (the text alternative); cached (namespace ``charts`` of the active cache) by the
    chart's key, a hash of its data and the width."""
    from computeatlas.charts.svg import CHARTS, _accessible  # reads only the key, the title and the description

    def render() -> str:
        import vl_convert

        return _accessible(vl_convert.vegalite_to_svg(spec(chart, width)), chart)  # type: ignore[arg-type]

    key = ("time chart", chart.key, hashlib.sha256(chart.model_dump_json().encode()).hexdigest(), width)
    return active().get_or_build(CHARTS, key, render, size=len)


__all__ = ["GLYPHS", "SHAPES", "SIZES", "Width", "legend_words", "spec", "svg"]

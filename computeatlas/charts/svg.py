"""Charts as static SVG: a :class:`~computeatlas.charts.chart.ChartView` turned into a
Vega-Lite spec (Altair) and rendered by vl-convert (no browser, no network), with
``<title>`` and ``<desc>`` for screen readers, cached per data version and chart.
"""

from __future__ import annotations

import hashlib
from typing import Literal
from xml.sax.saxutils import escape

from computeatlas.charts import labels as labels_mod
from computeatlas.charts.chart import FONT, ChartView
from computeatlas.core.cache import active

# The site's palette (computeatlas/web/static/site.css :root).
INK, MUTED, LINE, ACCENT, BACKGROUND = "#1d2228", "#5b6570", "#d9dee3", "#0b5cad", "#ffffff"


def spec(view: ChartView) -> dict:
    """The Vega-Lite spec (a dict) of ``view``: marks, labels, site colours and fonts."""
    import altair as alt

    if view.kind == "strip":
        return _strip_spec(view)

    chart = _scatter_panel(view, view.points, labels_mod.WIDTH, view.title)
    if view.outliers:
        side = _scatter_panel(view, view.outliers, OUTLIER_WIDTH, "Off the main scale")
        chart = alt.hconcat(chart, side, spacing=28).properties(description=view.description)
    chart = (
        chart.configure(font=FONT, background=BACKGROUND, padding={"left": 8, "right": 24, "top": 8, "bottom": 8})
        .configure_axis(
            labelColor=MUTED, titleColor=INK, gridColor=LINE, domainColor=MUTED, tickColor=MUTED, labelFontSize=11, titleFontSize=12
        )
        .configure_view(stroke=LINE)
    )
    return chart.to_dict(validate=False)  # schema validation costs more than the render; vl-convert rejects a bad spec anyway


def _decades(domain: tuple[float, float]) -> list[float]:
    """Powers of ten inside ``domain``: the only ticks a narrow log axis has room for."""
    import math

    low, high = math.ceil(math.log10(domain[0])), math.floor(math.log10(domain[1]))
    return [10.0**e for e in range(low, high + 1)] or [domain[0], domain[1]]


OUTLIER_WIDTH = 170
"""Width in pixels of the side panel holding the parts far off the main chart's scale."""


def _scatter_panel(view: ChartView, shown: list, width: float, title: str):
    """One scatter panel of ``shown`` points with its own domains, labels placed without overlaps."""
    import altair as alt

    xd = labels_mod.domain([p.x for p in shown], view.log_scale)
    yd = labels_mod.domain([p.y for p in shown], view.log_scale)
    kind: Literal["log", "linear"] = "log" if view.log_scale else "linear"
    suffix = ", log scale" if view.log_scale else ""
    xs = alt.Scale(type=kind, domain=list(xd), nice=False)
    ys = alt.Scale(type=kind, domain=list(yd), nice=False)
    points = [p.model_dump(include={"name", "x", "y"}) for p in shown]
    labels = labels_mod.place([(p.x, p.y, p.label) for p in shown], xd, yd, view.log_scale, width=width)
    narrow = width < labels_mod.WIDTH
    x_axis = alt.Axis(values=_decades(xd), format="~s") if narrow and view.log_scale else alt.Axis()
    marks = (
        alt.Chart(alt.Data(values=points))
        .mark_circle(size=60, color=ACCENT, opacity=0.9)
        .encode(x=alt.X("x:Q", title=view.x_label + suffix, scale=xs, axis=x_axis), y=alt.Y("y:Q", title=view.y_label + suffix, scale=ys))
    )
    leaders = (
        alt.Chart(alt.Data(values=[r for r in labels if r["leader"]]))
        .mark_rule(color=MUTED, strokeWidth=0.7)
        .encode(x=alt.X("x:Q", scale=xs), y=alt.Y("y:Q", scale=ys), x2="ex:Q", y2="ey:Q")
    )
    texts = (
        alt.Chart(alt.Data(values=labels))
        .mark_text(align="left", baseline="middle", fontSize=11, color=INK)
        .encode(x=alt.X("lx:Q", scale=xs), y=alt.Y("ly:Q", scale=ys), text="text:N")
    )
    layers = [marks, texts] if not any(r["leader"] for r in labels) else [leaders, marks, texts]
    return alt.layer(*layers).properties(
        width=width,
        height=labels_mod.HEIGHT,
        title=alt.Title(title, anchor="start", fontSize=15 if width == labels_mod.WIDTH else 12, color=INK, font=FONT),
        description=view.description,
    )


MARKER_COLOURS = {
    "cheapest end of the spread": "#1b7f3b",
    "dearest end of the spread": "#a3340f",
    "in the spread": ACCENT,
    "not in the spread": "#9aa3ab",
    "published by the vendor": ACCENT,
    "reported by another party": "#a3340f",
}


def _strip_spec(view: ChartView) -> dict:
    """A strip chart: one row per category, marks along a linear x axis from zero, a legend
    for the marker kinds, labels where a point has one, and the reference line if any."""
    import altair as alt

    rows = [p.model_dump(include={"x", "category", "marker", "label", "x_text"}) for p in view.points]
    categories = list(dict.fromkeys(p.category for p in view.points if p.category is not None))
    top = max([p.x for p in view.points] + ([view.reference.x] if view.reference else []), default=1.0)
    xs = alt.Scale(domain=[0, top * 1.3], nice=False, zero=True)
    ys = alt.Y("category:N", title=None, sort=categories, axis=alt.Axis(labelLimit=220))
    colours = alt.Scale(domain=view.markers, range=[MARKER_COLOURS.get(m, ACCENT) for m in view.markers])
    base = alt.Chart(alt.Data(values=rows))
    marks = base.mark_point(filled=True, size=90, opacity=0.95).encode(
        x=alt.X("x:Q", title=view.x_label, scale=xs),
        y=ys,
        color=alt.Color(
            "marker:N",
            scale=colours,
            legend=alt.Legend(title=None, orient="bottom", labelFontSize=11, columns=2, columnPadding=28, labelLimit=260, symbolSize=80),
        ),
        shape=alt.Shape("marker:N", scale=alt.Scale(domain=view.markers), legend=None),
    )
    # A label reads away from the nearer edge, so it is never cut off at the right.
    split = top * 1.3 * 0.55
    texts_right = (
        base.transform_filter(f"datum.label != '' && datum.x <= {split!r}")
        .mark_text(align="left", baseline="middle", dx=9, dy=-9, fontSize=11, color=INK)
        .encode(x=alt.X("x:Q", scale=xs), y=ys, text="label:N")
    )
    texts_left = (
        base.transform_filter(f"datum.label != '' && datum.x > {split!r}")
        .mark_text(align="right", baseline="middle", dx=-9, dy=-9, fontSize=11, color=INK)
        .encode(x=alt.X("x:Q", scale=xs), y=ys, text="label:N")
    )
    layers: list = [marks, texts_right, texts_left]
    height = max(120, 34 * len(categories) + (18 if view.reference else 0))
    if view.reference is not None:
        ref = alt.Chart(alt.Data(values=[view.reference.model_dump()]))
        layers.insert(0, ref.mark_rule(color=MUTED, strokeDash=[5, 4], strokeWidth=1.2).encode(x=alt.X("x:Q", scale=xs)))
        layers.append(
            ref.mark_text(align="left", baseline="bottom", dx=4, y=height - 3, fontSize=11, color=MUTED).encode(
                x=alt.X("x:Q", scale=xs), text="label:N"
            )
        )
    chart = alt.layer(*layers).properties(
        width=labels_mod.WIDTH,
        height=height,
        description=view.description,
        title=alt.Title(view.title, anchor="start", fontSize=15, color=INK, font=FONT),
    )
    # vl-convert measures text without the browser's fonts: room on both sides keeps long
    # provider names and end labels whole.
    chart = (
        chart.configure(font=FONT, background=BACKGROUND, padding={"left": 40, "right": 40, "top": 8, "bottom": 8})
        .configure_axis(
            labelColor=MUTED, titleColor=INK, gridColor=LINE, domainColor=MUTED, tickColor=MUTED, labelFontSize=11, titleFontSize=12
        )
        .configure_view(stroke=LINE)
    )
    return chart.to_dict(validate=False)


CHARTS = "charts"
"""The namespace of rendered charts (SVG text) in the active cache (:func:`computeatlas.core.cache.active`)."""


def svg(view: ChartView) -> str:
    """The chart as standalone SVG text with ``<title>`` and ``<desc>``; cached per data version.

    The cache key (namespace :data:`CHARTS` of the active cache) is the data version, the
    chart's key and a hash of the view (a price chart also depends on the date, through stale
    offers): a chart is rendered once per data version (the first call pays vl-convert's
    start-up, about half a second).
    """
    key = ("chart", view.data_version, view.key, hashlib.sha256(view.model_dump_json().encode()).hexdigest())
    return active().get_or_build(CHARTS, key, lambda: _accessible(_render(view), view), size=len)


def _render(view: ChartView) -> str:
    import vl_convert

    return vl_convert.vegalite_to_svg(spec(view))


def _accessible(text: str, view: ChartView) -> str:
    """Give the root ``<svg>`` role="img", a ``<title>`` and a ``<desc>`` (the text alternative)."""
    head, sep, rest = text.partition(">")
    if not sep or not head.startswith("<svg"):
        raise ValueError("vl-convert did not return an <svg> document")
    ident = f"chart-{view.key}"
    head += f' role="img" aria-labelledby="{ident}-title {ident}-desc"'
    extra = f'<title id="{ident}-title">{escape(view.title)}</title><desc id="{ident}-desc">{escape(view.description)}</desc>'
    return head + sep + extra + rest

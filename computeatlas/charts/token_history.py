"""One model's token prices over time, per provider: input and output, USD per million tokens.

A :class:`TokenHistoryView` holds every accepted market observation placed on the model
(:func:`computeatlas.economics.token_market.market`), as points dated by their collection
time, one series per provider's product, input and output apart (two panels; never one
number for both). A price older than the freshness window is **stale**: drawn hollow, left of
the shaded "fresh" band, and listed as stale with its date and age; it is history, never a
current price. :func:`svg` renders the view with Altair and vl-convert like the site's
other charts (:mod:`computeatlas.charts.svg`: its palette, fonts and ``<title>``/``<desc>``).
"""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Sequence
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, Field

from computeatlas.charts import labels as labels_mod
from computeatlas.charts import svg as svg_mod
from computeatlas.charts.chart import FONT
from computeatlas.core.cache import active

if TYPE_CHECKING:
    from computeatlas.economics.models import ModelRecord
    from computeatlas.economics.token_market import MarketPrice

LOG_SPREAD = 20.0
"""Above this ratio of the dearest to the cheapest price plotted, the price axis is logarithmic."""

FRESH = "#e3f1e6"


class TokenPoint(BaseModel):
    """One plotted price: a provider's product, one side, on its collection date."""

    provider: str
    provider_name: str
    product: str
    side: Literal["input", "output"]
    collected: dt.date
    usd_per_million: float = Field(description="USD per million tokens of that side")
    published: str = Field(description="the price as published, with its unit")
    stale: bool = Field(description="collected more than the freshness window before the chart's date")
    age_days: int
    source_url: str
    via: str


class TokenHistoryView(BaseModel):
    """The chart's data, title and text alternative; the same object feeds the SVG and the page."""

    key: str
    title: str
    description: str
    model: str
    points: list[TokenPoint]
    providers: list[str] = Field(description="provider names in legend order")
    as_of: dt.date
    fresh_from: dt.date = Field(description="the first day of the freshness window; older prices are stale")
    freshness_days: int
    stale_points: int
    log_scale: bool
    svg_url: str
    data_version: str


def history_view(
    model: ModelRecord, rows: Sequence[MarketPrice], now: dt.datetime, freshness_days: int, data_version: str, *, svg_url: str
) -> TokenHistoryView:
    """The price history of ``model`` from its market ``rows`` (every accepted observation), as of
    ``now``; its picture is served at ``svg_url`` (a site path the page layer gives)."""
    points = [TokenPoint(provider=r.provider, provider_name=r.provider_name, product=r.product, side=side,
                         collected=r.collected.date(), usd_per_million=getattr(r, f"{side}_per_million"), published=r.published,
                         stale=r.stale, age_days=r.age_days, source_url=r.source_url, via=r.via)
              for r in rows for side in ("input", "output")]  # fmt: skip
    providers = sorted({p.provider_name for p in points})
    prices = [p.usd_per_million for p in points if p.usd_per_million > 0]
    log = bool(prices) and max(prices) / min(prices) > LOG_SPREAD
    fresh_from = (now - dt.timedelta(days=freshness_days)).date()
    stale = sum(1 for r in rows if r.stale)
    first = min((p.collected for p in points), default=now.date())
    last = max((p.collected for p in points), default=now.date())

    def extreme(side: str) -> str:
        shown = [p for p in points if p.side == side]
        if not shown:
            return ""
        low, high = min(shown, key=lambda p: p.usd_per_million), max(shown, key=lambda p: p.usd_per_million)
        return (
            f"{side} from {low.usd_per_million:.4g} USD ({low.provider_name}, {low.collected}) to "
            f"{high.usd_per_million:.4g} USD ({high.provider_name}, {high.collected})"
        )

    description = (
        f"Line chart of {len(rows)} dated prices of {model.name} from {len(providers)} provider(s), {first} to {last}: USD per million "
        f"input tokens (top) and output tokens (bottom) against the collection date, one line per provider's product"
        f"{', on a logarithmic price scale' if log else ''}. Prices ran {extreme('input')}; {extreme('output')}. "
        f"{stale} of the {len(rows)} prices were collected before {fresh_from}, more than {freshness_days} days before {now.date()}: "
        "they are stale (hollow marks, left of the shaded fresh band), history and not current prices."
    )
    return TokenHistoryView(
        key=f"token-prices-{model.id}", title=f"{model.name}: price per million tokens by provider over time (USD)", description=description,
        model=model.id, points=points, providers=providers, as_of=now.date(), fresh_from=fresh_from, freshness_days=freshness_days,
        stale_points=stale, log_scale=log, svg_url=svg_url, data_version=data_version,
    )  # fmt: skip


def _panel(view: TokenHistoryView, side: str, height: int):
    """One side's panel: the fresh band, a line per provider's product, filled fresh and hollow stale marks."""
    import altair as alt

    rows = [
        p.model_dump(mode="json", include={"provider_name", "product", "collected", "usd_per_million", "stale"})
        for p in view.points
        if p.side == side
    ]
    first = min((p.collected for p in view.points), default=view.fresh_from)
    domain = [min(first, view.fresh_from).isoformat(), (view.as_of + dt.timedelta(days=7)).isoformat()]
    x = alt.X("collected:T", title="Collected" if side == "output" else None, scale=alt.Scale(domain=domain))
    prices = [p.usd_per_million for p in view.points if p.usd_per_million > 0] or [1.0]
    ys = alt.Scale(type="log", domain=list(labels_mod.domain(prices, True)), nice=False) if view.log_scale else alt.Scale(zero=True)
    y = alt.Y("usd_per_million:Q", title=f"USD per million {side} tokens" + (", log scale" if view.log_scale else ""), scale=ys)
    colour = alt.Color(
        "provider_name:N",
        scale=alt.Scale(domain=view.providers, scheme="tableau20"),
        legend=alt.Legend(title="Provider (hollow: stale)", orient="bottom", columns=3, labelLimit=220, symbolType="circle"),
    )
    base = alt.Chart(alt.Data(values=rows))
    band = alt.Chart(
        alt.Data(
            values=[
                {
                    "start": view.fresh_from.isoformat(),
                    "end": view.as_of.isoformat(),
                    "label": f"fresh: the last {view.freshness_days} days",
                }
            ]
        )
    )
    layers = [
        band.mark_rect(color=FRESH).encode(x=alt.X("start:T", scale=alt.Scale(domain=domain)), x2="end:T"),
        band.mark_text(align="left", baseline="top", dx=3, y=3, fontSize=10, color=svg_mod.MUTED).encode(
            x=alt.X("start:T", scale=alt.Scale(domain=domain)), text="label:N"
        ),
        base.mark_line(strokeWidth=1.4, opacity=0.8).encode(x=x, y=y, color=colour, detail="product:N"),
        base.transform_filter("!datum.stale").mark_point(filled=True, size=36).encode(x=x, y=y, color=colour),
        base.transform_filter("datum.stale").mark_point(filled=False, size=36, strokeWidth=1.3).encode(x=x, y=y, color=colour),
    ]
    return alt.layer(*layers).properties(
        width=labels_mod.WIDTH,
        height=height,
        title=alt.Title(f"{side.capitalize()} price", anchor="start", fontSize=13, color=svg_mod.INK, font=FONT),
    )


def spec(view: TokenHistoryView) -> dict:
    """The Vega-Lite spec (a dict) of ``view``: input above output, sharing the date axis and the provider colours."""
    import altair as alt

    chart = alt.vconcat(_panel(view, "input", 200), _panel(view, "output", 200), spacing=18).properties(
        title=alt.Title(view.title, anchor="start", fontSize=15, color=svg_mod.INK, font=FONT), description=view.description
    )
    chart = (
        chart.configure(font=FONT, background=svg_mod.BACKGROUND, padding={"left": 8, "right": 24, "top": 8, "bottom": 8})
        .configure_axis(
            labelColor=svg_mod.MUTED,
            titleColor=svg_mod.INK,
            gridColor=svg_mod.LINE,
            domainColor=svg_mod.MUTED,
            tickColor=svg_mod.MUTED,
            labelFontSize=11,
            titleFontSize=12,
        )
        .configure_view(stroke=svg_mod.LINE)
    )
    return chart.to_dict(validate=False)


def svg(view: TokenHistoryView) -> str:
    """The chart as standalone SVG text with ``<title>`` and ``<desc>``, cached by the view's content
    (it depends on the date, through the stale marks, as well as the data version); kept in
    namespace ``charts`` of the active cache."""

    def render() -> str:
        import vl_convert

        return svg_mod._accessible(vl_convert.vegalite_to_svg(spec(view)), view)  # type: ignore[arg-type]  # key, title, description

    key = ("token history", hashlib.sha256(view.model_dump_json().encode()).hexdigest())
    return active().get_or_build(svg_mod.CHARTS, key, render, size=len)


__all__ = ["TokenHistoryView", "TokenPoint", "history_view", "spec", "svg"]

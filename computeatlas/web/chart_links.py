"""The links of every chart, from the URL registry (:func:`computeatlas.core.urls.site_path`):
where each chart is served (page, pictures, JSON, CSV) and what its marks link to. Charts
build no URL; the web layer passes these in (:class:`~computeatlas.charts.links.ChartLinks`).
"""

from __future__ import annotations

from collections.abc import Callable

from computeatlas.charts.links import ChartLinks
from computeatlas.core.claims import NumberFormat
from computeatlas.core.urls import site_path
from computeatlas.silicon.records import Accelerator


def part_page(ident: str) -> str:
    """The site path of accelerator ``ident``'s page (``/silicon/{ident}``)."""
    return site_path("silicon_page", ident=ident)


def system_page(ident: str) -> str:
    """The site path of system ``ident``'s page (``/systems/{ident}``)."""
    return site_path("system_page", ident=ident)


def provider_page(ident: str) -> str:
    """The site path of provider ``ident``'s page (``/cloud/{ident}``)."""
    return site_path("cloud_provider", ident=ident)


def memory_links() -> ChartLinks:
    """Memory against bandwidth (``/charts/memory-bandwidth``), each part linked to its page."""
    return ChartLinks(site_path("chart_memory"), site_path("chart_memory_svg"), site_path("api_chart_memory"), item=part_page)


def compute_links(fmt: NumberFormat) -> ChartLinks:
    """Dense compute at ``fmt`` against power (``/charts/compute-power/{fmt}``), each part linked to its page."""
    return ChartLinks(
        site_path("chart_compute", fmt=fmt.value),
        site_path("chart_compute_svg", fmt=fmt.value),
        site_path("api_chart_compute", fmt=fmt.value),
        item=part_page,
    )


def price_links(ident: str) -> ChartLinks:
    """Accelerator ``ident``'s prices by provider (``/charts/prices/{ident}``); offers carry their own links."""
    return ChartLinks(
        site_path("chart_prices", ident=ident), site_path("chart_prices_svg", ident=ident), site_path("api_chart_prices", ident=ident)
    )


def rack_links() -> ChartLinks:
    """Power per system (``/charts/rack-power``), each system linked to its page."""
    return ChartLinks(site_path("chart_rack"), site_path("chart_rack_svg"), site_path("api_chart_rack"), item=system_page)


def _related(acc: Accelerator) -> tuple[tuple[str, str], ...]:
    """The related charts and pages of one part's price charts, (words, site path) each."""
    return (
        ("Price history by provider", site_path("chart_price_history", ident=acc.id)),
        ("Like-for-like spread over time", site_path("chart_price_spread", ident=acc.id)),
        ("USD per dense PFLOP-hour across parts", site_path("chart_price_performance")),
        (f"{acc.name}: observed prices and the tables", site_path("cloud_prices", ident=acc.id)),
    )


def _time_links(prefix: str, related: tuple[tuple[str, str], ...], item: Callable[[str], str], **params: str) -> ChartLinks:
    """The links of time chart ``chart_{prefix}`` (page, pictures, JSON and CSV), each series linked to ``item(id)``."""
    return ChartLinks(
        page=site_path(f"chart_{prefix}", **params),
        svg=site_path(f"chart_{prefix}_svg", **params),
        api=site_path(f"api_chart_{prefix}", **params),
        narrow_svg=site_path(f"chart_{prefix}_narrow_svg", **params),
        csv=site_path(f"api_chart_{prefix}_csv", **params),
        item=item,
        related=related,
    )


def history_links(acc: Accelerator) -> ChartLinks:
    """``acc``'s price history by provider (``/charts/price-history/{ident}``)."""
    return _time_links("price_history", _related(acc), provider_page, ident=acc.id)


def spread_links(acc: Accelerator) -> ChartLinks:
    """``acc``'s like-for-like spread over time (``/charts/price-spread/{ident}``)."""
    return _time_links("price_spread", _related(acc), provider_page, ident=acc.id)


def performance_links(fmt: NumberFormat | None) -> ChartLinks:
    """USD per dense PFLOP-hour across parts: at the headline format (``/charts/price-performance``)
    when ``fmt`` is None, else at ``fmt`` (``/charts/price-performance/{fmt}``); parts linked to their pages."""
    related = (("Observed prices of every part", site_path("cloud_index")),)
    if fmt is None:
        return _time_links("price_performance", related, part_page)
    return _time_links("price_performance_format", related, part_page, fmt=fmt.value)


def token_prices_svg(model: str) -> str:
    """The site path of model ``model``'s token-price history picture."""
    return site_path("economics_model_prices_svg", ident=model)


__all__ = [
    "compute_links",
    "history_links",
    "memory_links",
    "part_page",
    "performance_links",
    "price_links",
    "provider_page",
    "rack_links",
    "spread_links",
    "system_page",
    "token_prices_svg",
]

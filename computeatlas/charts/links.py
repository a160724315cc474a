"""Where a chart is served and what its marks link to, given by the page layer.

Charts build no URL: the web layer (:mod:`computeatlas.web.chart_links`) makes a
:class:`ChartLinks` from the URL registry and passes it in, and the chart copies its site
paths into the view (:class:`~computeatlas.charts.chart.ChartView`,
:class:`~computeatlas.charts.timeline.TimeChart`) as they are.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


def no_page(ident: str) -> str:
    """The page of nothing: ``''`` for every id (a chart whose marks link nowhere)."""
    return ""


@dataclass(frozen=True, slots=True)
class ChartLinks:
    """One chart's links, as site paths (``/charts/memory-bandwidth``; no base path).

    ``page``, ``svg`` and ``api`` are the chart's page, picture and JSON; ``narrow_svg`` and
    ``csv`` a time chart's picture for narrow screens and its points as CSV (``''`` for a chart
    without). ``item`` gives the page of a plotted or left-out thing (a part, a system, a
    provider) from its id; ``related`` lists (words, site path) of related pages.
    """

    page: str
    svg: str
    api: str
    narrow_svg: str = ""
    csv: str = ""
    item: Callable[[str], str] = no_page
    related: tuple[tuple[str, str], ...] = field(default=())

    def time_chart_fields(self) -> dict[str, Any]:
        """These links as the fields of a :class:`~computeatlas.charts.timeline.TimeChart`
        (``svg_url``, ``narrow_svg_url``, ``page_url``, ``api_url``, ``csv_url``, ``links``)."""
        return {
            "svg_url": self.svg,
            "narrow_svg_url": self.narrow_svg,
            "page_url": self.page,
            "api_url": self.api,
            "csv_url": self.csv,
            "links": list(self.related),
        }


__all__ = ["ChartLinks", "no_page"]

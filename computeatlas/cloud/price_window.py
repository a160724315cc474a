"""The window of collection dates a price page reads: :func:`page_window` (one year ending today
unless dates are given or all of the history is asked), and :func:`year_before`."""

from __future__ import annotations

import datetime as dt
from typing import Literal

from computeatlas.core.errors import ParamError

WindowKind = Literal["year", "all", "dates"]
"""How a price page's window was chosen: the default year ending today, all of the history
(``window=all``), or the dates given (``since``/``until``)."""


def year_before(day: dt.date, years: int = 1) -> dt.date:
    """The same calendar date ``years`` years before ``day`` (28 February for 29 February)."""
    try:
        return day.replace(year=day.year - years)
    except ValueError:
        return day.replace(year=day.year - years, day=28)


def page_window(
    today: dt.date, since: dt.date | None = None, until: dt.date | None = None, window: WindowKind | None = None
) -> tuple[dt.date | None, dt.date | None, WindowKind]:
    """The collection dates (inclusive; None = unbounded) a price page reads and how they were
    chosen: the dates given; else all of the history for ``window="all"``; else one year
    ending ``today`` (``year_before(today)`` to ``today``). Raises :class:`ParamError` (a 400
    naming ``window``) when ``window`` is given with ``since`` or ``until``, or is neither
    ``year`` nor ``all``."""
    if window not in (None, "year", "all"):
        raise ParamError("window", f"{window!r} is not a window; give window=all for all of the history, or since/until dates")
    if window is not None and (since or until):
        raise ParamError("window", f"window={window} is given with since/until; give one or the other")
    if since or until:
        return since, until, "dates"
    if window == "all":
        return None, None, "all"
    return year_before(today), today, "year"


__all__ = ["WindowKind", "page_window", "year_before"]

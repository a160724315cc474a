"""The collectors' status: ``/cloud/status`` (HTML) and ``/api/status/collectors`` (JSON).

Both render one :class:`~computeatlas.cloud.collection_status.CollectorsStatus`, built per
request by :func:`~computeatlas.cloud.collection_status.collectors_status` from the store's
collection log, the configured collectors (:data:`computeatlas.cloud.collection.SOURCES`) and
the current table (``computeatlas prices status`` prints the same object).
Neither is cached: an attempt is recorded without a new run, so the store's version does not
change with it. ``source=`` (comma-separated collector names) narrows the list; a configured collector with
no attempt yet (a store without a collection log) is listed as never collected; a name that
is not a collector name, or names no source, is a 400 listing the known ones. This module sits
before :mod:`computeatlas.web.cloud` in the route table so that ``/cloud/status`` is not read
as a provider id. Not part of the static build: a status is only true when it is asked.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Query, Request
from fastapi.responses import HTMLResponse, JSONResponse

from computeatlas.cloud import collection_log, history
from computeatlas.cloud.collection import SOURCES
from computeatlas.cloud.collection_status import CollectorsStatus, collectors_status, hours_words, source_names
from computeatlas.cloud.store import Store
from computeatlas.core.errors import ParamError, closest
from computeatlas.web.page import Route, refuse_repeats, render, settings_of

SOURCE_QUERY = Query(
    max_length=500, description="only these sources: collector names separated by commas (lower-case letters, digits, hyphens)"
)


def _status(request: Request, source: str | None) -> CollectorsStatus:
    """The status of the app's store as of now; a 400 naming a ``source`` that is no known one."""
    refuse_repeats(request, ("source",))
    settings = settings_of(request)
    store = Store(settings.prices_dir)
    only = None
    if source is not None:
        only = [s.strip() for s in source.split(",") if s.strip()]
        try:
            known = sorted(set(source_names(store.root, SOURCES)) | set(SOURCES))
        except OSError:  # the page lists the log's problem; the configured collectors are still known
            known = sorted(SOURCES)
        for name in only:
            if not collection_log.SOURCE_NAME.match(name):
                raise ParamError("source", "a collector name is lower-case letters, digits and hyphens (e.g. azure, skypilot-lambda)")
            if name not in known:
                near = closest(name, known)
                hint = f"; did you mean {', '.join(near)}?" if near else ""
                raise ParamError("source", f"no source {name!r}{hint} (known: {', '.join(known) or 'none yet'})")
    return collectors_status(
        store, history.utcnow(), settings.collection_schedule_hours, settings.freshness_days, expected=SOURCES, only=only
    )


def status_page(request: Request, source: Annotated[str | None, SOURCE_QUERY] = None) -> HTMLResponse:
    """Per source: the last attempt and the last success, the newest current price and its age,
    failures newest first, and whether it is overdue against the schedule."""
    view = _status(request, source)
    return render(request, "cloud_status.html", page_title="Collector status", view=view, hours_words=hours_words)


def api_status(request: Request, source: Annotated[str | None, SOURCE_QUERY] = None) -> CollectorsStatus:
    """The collectors' status (the same data as ``/cloud/status``): per source the last attempt and
    the last success (time, rows read, accepted, held), the newest current price and its age,
    failures newest first with the error, overdue against the schedule; unreadable records as problems."""
    return _status(request, source)


ROUTES: tuple[Route, ...] = (
    Route(status_page, "cloud_status"),
    Route(api_status, "api_status_collectors", JSONResponse, CollectorsStatus, in_schema=True, summary="The collectors' status"),
)

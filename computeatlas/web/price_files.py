"""The price files of the cloud layer (routes of :mod:`computeatlas.web.cloud`): one
accelerator's price history as JSON or CSV (``/api/prices/{accelerator}/history``), and the
whole price dataset (``/data/prices.{csv,parquet}``) with its licence notices. Every
converted price in them carries its USD figure, the rate used and its date
(:func:`computeatlas.cloud.rates.conversion_words`)."""

from __future__ import annotations

import datetime as dt
import io
from typing import Annotated, Literal

from fastapi import Path, Query, Request
from fastapi.responses import FileResponse, JSONResponse, Response

from computeatlas.cloud import history
from computeatlas.cloud.history import history_view
from computeatlas.cloud.runs import rates_of
from computeatlas.cloud.store import Store
from computeatlas.core.urls import site_path
from computeatlas.publish.exports import prices as prices_export
from computeatlas.publish.exports.csv import MEDIA_TYPE as CSV_MEDIA_TYPE
from computeatlas.publish.exports.csv import file_bytes, write_rows
from computeatlas.web.cloud_params import ACCELERATOR_PATH, HistoryParams, checked
from computeatlas.web.page import find_accelerator, settings_of, urls_of


def _store(request: Request) -> Store:
    """The observation store of the app's settings (read on every request: a new import shows at once)."""
    return Store(settings_of(request).prices_dir)


HISTORY_COLUMNS = (
    "collected",
    "provider",
    "instance_type",
    "region",
    "pricing",
    "term",
    "amount",
    "currency",
    "unit",
    "accelerators",
    "per_accelerator_hour",
    "usd_per_accelerator_hour",
    "rate",
    "rate_date",
    "usd_per_unit",
    "currency_note",
    "variant",
    "qualifiers",
    "source_url",
    "via",
)
"""The CSV columns of a price history, in order."""


def api_price_history(request: Request, params: Annotated[HistoryParams, Query()], ident: str = ACCELERATOR_PATH) -> Response:
    """Every accepted price observation of one accelerator in a date window (held rows are
    never included), and per date the median on-demand USD price per accelerator-hour per
    provider and over all, with observation counts. ``format=csv`` gives the observations as CSV."""
    params = checked(request, params)  # a provider in any case; an unknown one is a 400 with the known ids
    acc = find_accelerator(request, ident)
    since, until, window = params.dates(history.utcnow().astimezone(dt.UTC).date())
    view = history_view(
        _store(request), acc.id, since, until, params.limit, rates=rates_of(settings_of(request)), window=window, **params.filters()
    )
    if params.format == "csv":
        buffer = io.StringIO(newline="")
        write_rows(
            buffer,
            HISTORY_COLUMNS,
            ([" ".join(v) if isinstance(v := getattr(o, c), list) else v for c in HISTORY_COLUMNS] for o in view.observations),
        )
        return Response(
            file_bytes(buffer.getvalue()),
            media_type=CSV_MEDIA_TYPE,
            headers={"Content-Disposition": f'attachment; filename="{acc.id}-price-history.csv"'},
        )
    # Serialised by pydantic in one step (the same JSON as JSONResponse of model_dump, without the dict in between).
    return Response(view.model_dump_json(), media_type=JSONResponse.media_type)


def prices_dataset(request: Request, fmt: Literal["csv", "parquet"] = Path(description="csv or parquet")) -> Response:
    """Every accepted price observation in the store, as CSV or Parquet, with the licence
    notices (in the Parquet metadata; beside the CSV, linked from its ``Link`` header). The file
    is written once per version of the store (``<var>/datasets/``) and sent from disk."""
    settings = settings_of(request)
    path = prices_export.export_file(_store(request), fmt, rates_of(settings), settings.var / "datasets")
    notice = urls_of(request).link(site_path("prices_notice"))
    return FileResponse(
        path,
        media_type=prices_export.MEDIA_TYPES[fmt],
        headers={
            "Content-Disposition": f'attachment; filename="compute-atlas-price-observations.{fmt}"',
            "Link": f'<{notice}>; rel="license"',
        },
    )


def prices_notice(request: Request) -> Response:
    """The licence notices of the price dataset (ours and OpenComputePrices's MIT licence)."""
    return Response(prices_export.notice(_store(request)), media_type="text/plain; charset=utf-8")


__all__ = ["HISTORY_COLUMNS", "api_price_history", "prices_dataset", "prices_notice"]

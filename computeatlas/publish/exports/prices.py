"""The price history as a dataset: every accepted observation of the store as CSV or Parquet,
with the licence notices.

Held observations are never in it (they are kept for the operator, ``computeatlas prices
held``). The rows are the newest decision per observation (``latest``: a re-import that
re-placed a row shows the new placement), oldest first. The notices: the OpenComputePrices
rows are MIT-licensed (the licence text travels with them, from ``LICENSE-OpenComputePrices``
beside the store, or the notice below when a store has no copy); everything else in the
file — our placement through the instance table, the hand-checked offers, the late-2026
observations we typed — is Compute Atlas data under the dataset licence
(:data:`~computeatlas.publish.exports.silicon_table.LICENCE`). The Parquet file carries the
notice in its key-value metadata (``licence``, ``notice``); a CSV has no place for it, so
the web serves it beside the file and links it from the ``Link`` header. No text cell of
the CSV starts a spreadsheet formula (:func:`~computeatlas.publish.exports.csv.sql_neutralise`),
and its prices are written with the digits they were published with, never with the float
noise of the arithmetic behind a derived one (:func:`~computeatlas.publish.exports.csv.sql_published`).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
import threading
from pathlib import Path
from typing import Literal

import duckdb

from computeatlas.cloud.dataset import StoreDamaged
from computeatlas.cloud.rates import RateTable
from computeatlas.cloud.store import Store
from computeatlas.publish.exports.csv import BOM, TIMESTAMP_FORMAT, sql_neutralise, sql_published
from computeatlas.publish.exports.silicon_table import (
    LICENCE,
    LICENCE_TITLE,
    LICENCE_URL,
)

Format = Literal["csv", "parquet"]

COLUMNS = (
    "collected",
    "provider",
    "instance_type",
    "region",
    "pricing",
    "term",
    "amount",
    "currency",
    "unit",
    "price_basis",
    "accelerators",
    "accelerator",
    "variant",
    "per_accelerator_hour",
    "usd_per_accelerator_hour",
    "rate_usd_per_unit",
    "rate_date",
    "rate_source_url",
    "qualifiers",
    "availability",
    "source_url",
    "source_title",
    "via",
    "note",
    "run",
)
"""The dataset's columns, in order (``per_accelerator_hour`` is derived, in ``currency``; a
non-USD price's ``usd_per_accelerator_hour`` is converted through the newest rate dated on or
before its collection, whose US dollars per unit, date and source are the ``rate_`` columns,
blank for USD and for a currency without such a rate: :meth:`~computeatlas.cloud.rates.RateTable.to_usd`)."""

CONVERTED = {
    "usd_per_accelerator_hour": "CASE WHEN currency = 'USD' THEN per_accelerator_hour ELSE per_accelerator_hour * r_usd END",
    "rate_usd_per_unit": "r_usd",
    "rate_date": "r_date",
    "rate_source_url": "r_source",
}
"""The conversion columns, from the rate table joined to each row (``rates``: ``r_currency``,
``r_date``, ``r_usd``, ``r_source``)."""

NUMBERS = frozenset(
    {"collected", "amount", "accelerators", "per_accelerator_hour", "usd_per_accelerator_hour", "rate_usd_per_unit", "rate_date"}
)
"""The columns that are not text (never neutralised; ``collected`` is written as the one CSV time format)."""

PRICES = frozenset({"amount", "per_accelerator_hour"})
"""The price columns, written to the CSV at the digits they were published with (:func:`~computeatlas.publish.exports.csv.sql_published`)."""

MEDIA_TYPES: dict[str, str] = {"csv": "text/csv; charset=utf-8", "parquet": "application/vnd.apache.parquet"}

OCP_NOTICE = (
    "MIT License\n\nCopyright (c) 2026 OpenComputePrices Contributors\n\n"
    "(The full licence text is in data/prices/LICENSE-OpenComputePrices of the Compute Atlas repository.)\n"
)


KNOWN_LICENCES = (
    ("Apache License", "Apache-2.0"),
    ("Mozilla Public License, version 2.0", "MPL-2.0"),
    ("MIT License", "MIT"),
)
"""The licence headings the upstream copies beside the bundled store open with, and their SPDX ids."""


def _upstream_texts(store: Store) -> dict[str, str]:
    """Each upstream source's licence text kept beside ``store`` as ``LICENSE-<Name>``, by name."""
    copies = sorted(store.root.glob("LICENSE-*")) if store.root.is_dir() else []
    texts = {p.name.removeprefix("LICENSE-"): p.read_text(encoding="utf-8") for p in copies if p.is_file()}
    texts.setdefault("OpenComputePrices", OCP_NOTICE)
    return dict(sorted(texts.items(), key=lambda kv: kv[0].casefold()))


def upstream_licences(store: Store) -> dict[str, str]:
    """The licence of each upstream source whose rows are in ``store``: its name (as its rows'
    ``via`` names it) → the SPDX id of the licence heading its text opens with (in its first
    300 characters), or ``"see the notice"`` when the heading is not one of :data:`KNOWN_LICENCES`."""
    found = {}
    for name, text in _upstream_texts(store).items():
        head = text[:300]
        found[name] = next((spdx for heading, spdx in KNOWN_LICENCES if heading in head), "see the notice")
    return found


def licence_summary(store: Store) -> str:
    """One line naming every licence of the price dataset: ours, then each upstream source's
    (``CC-BY-NC-4.0 (Compute Atlas data); Apache-2.0 (Cyclenerd rows); …``)."""
    upstream = "; ".join(f"{spdx} ({name} rows)" for name, spdx in upstream_licences(store).items())
    return f"{LICENCE} (Compute Atlas data); {upstream}"


def notice(store: Store) -> str:
    """The licence notices of the price dataset, as plain text: ours, then every upstream
    source's licence kept beside the store as ``LICENSE-<Name>`` (its rows name ``<Name>`` in
    ``via``); the OpenComputePrices notice above when a store has no copy of it."""
    upstream = "".join(
        f"Rows whose 'via' names {name} are used under this licence:\n\n{text.rstrip()}\n\n"
        for name, text in _upstream_texts(store).items()
    )
    return (
        "Compute Atlas price observations\n"
        "================================\n\n"
        f"Compute Atlas's own data in this file (the placement of each price on an accelerator through our\n"
        f"sourced instance table, the hand-checked offers and the observations we typed) is licensed\n"
        f"{LICENCE} ({LICENCE_TITLE}, {LICENCE_URL}).\n"
        "Every price keeps the page or API it was read from (source_url, source_title) and the file or\n"
        "collector it came through (via).\n\n" + upstream
    )


def export(store: Store, fmt: Format, rates: RateTable | None = None) -> bytes:
    """Every accepted observation of ``store`` (the newest decision per observation), oldest
    first, as ``fmt``, each non-USD price with its USD figure through ``rates`` and the rate's
    figure, date and source beside it; a header-only CSV or an empty Parquet table when the store is empty.
    Raises :class:`~computeatlas.cloud.dataset.StoreDamaged` when a file of the store cannot
    be read (truncated, not Parquet), as every other question of the store does."""
    with tempfile.TemporaryDirectory() as folder:
        target = Path(folder) / f"observations.{fmt}"
        _written(store, fmt, rates or RateTable([]), target)
        return target.read_bytes()


def export_file(store: Store, fmt: Format, rates: RateTable, folder: Path) -> Path:
    """:func:`export` as a file in ``folder`` (created when missing), written once per version
    of the store's runs, format and rate table, and kept: a download is then a file sent from
    disk, never the dataset built again in memory per request. Requests that arrive together
    wait for the one build. The same store's files of older versions are removed once a new
    one is written. Raises :class:`~computeatlas.cloud.dataset.StoreDamaged` as :func:`export`,
    and ``OSError`` when ``folder`` cannot be written."""
    rate_key = repr([(r.currency, r.date, r.usd_per_unit, r.source_url) for r in rates.all()])
    root = hashlib.sha1(str(store.root.resolve()).encode(), usedforsecurity=False).hexdigest()[:12]
    version = hashlib.sha1(f"{store.version()} {rate_key}".encode(), usedforsecurity=False).hexdigest()[:16]
    target = folder / f"observations-{root}-{version}.{fmt}"
    if target.is_file():
        return target
    with _BUILDING:
        if target.is_file():
            return target
        folder.mkdir(parents=True, exist_ok=True)
        partial = target.with_name(target.name + ".partial")
        _written(store, fmt, rates, partial)
        os.replace(partial, target)  # a reader sees the whole file or none
        for old in folder.glob(f"observations-{root}-*.{fmt}"):
            if old != target:
                old.unlink(missing_ok=True)
    return target


_BUILDING = threading.Lock()
"""Held while a dataset file is written (:func:`export_file`): one build at a time."""


def _written(store: Store, fmt: Format, rates: RateTable, target: Path) -> None:
    """Write :func:`export`'s content to ``target`` (CSV with its BOM)."""
    try:
        _export(store, fmt, rates, target)
    except (duckdb.IOException, duckdb.InvalidInputException) as exc:
        raise StoreDamaged(store.root, exc) from None


def _export(store: Store, fmt: Format, rates: RateTable, target: Path) -> None:

    def column(name: str) -> str:
        text = "array_to_string(qualifiers, ' ')" if name == "qualifiers" else CONVERTED.get(name, name)
        if name == "collected" and fmt == "csv":  # the one CSV time format, as the JSON API writes it
            return f"strftime(collected AT TIME ZONE 'UTC', '{TIMESTAMP_FORMAT}') AS collected"
        if name in PRICES and fmt == "csv":  # as published, without the float noise of a derived figure
            return f"{sql_published(name)} AS {name}"
        # no text cell of the CSV starts a spreadsheet formula (the guard of the silicon CSV)
        return f"{sql_neutralise(text)} AS {name}" if fmt == "csv" and name not in NUMBERS else f"{text} AS {name}"

    cols = ", ".join(column(c) for c in COLUMNS)
    with duckdb.connect() as con:
        bare = target.with_name(target.name + ".copy")
        con.execute("SET TimeZone = 'UTC'")
        con.execute("CREATE TEMP TABLE rates (r_currency VARCHAR, r_date DATE, r_usd DOUBLE, r_source VARCHAR)")
        if rates.all():
            con.executemany(
                "INSERT INTO rates VALUES (?, ?, ?, ?)", [(r.currency, r.date, r.usd_per_unit, r.source_url) for r in rates.all()]
            )
        if store.define_views(con):
            select = (
                f"SELECT {cols} FROM (SELECT * FROM latest WHERE status = 'accepted') AS o "
                "ASOF LEFT JOIN rates ON o.currency = rates.r_currency AND CAST(o.collected AT TIME ZONE 'UTC' AS DATE) >= rates.r_date "
                "ORDER BY collected, provider, instance_type, region, pricing, term"
            )
        else:
            select = "SELECT " + ", ".join(f"NULL::VARCHAR AS {c}" for c in COLUMNS) + " WHERE false"
        path = "'" + str(bare).replace("'", "''") + "'"
        if fmt == "csv":
            con.execute(f"COPY ({select}) TO {path} (FORMAT CSV, HEADER true, NEW_LINE '\\r\\n')")
        else:
            meta = (
                "{licence: "
                + "'"
                + licence_summary(store).replace("'", "''")
                + "'"
                + ", notice: "
                + "'"
                + notice(store).replace("'", "''")
                + "'"
                + "}"
            )
            con.execute(f"COPY ({select}) TO {path} (FORMAT PARQUET, KV_METADATA {meta})")
    with target.open("wb") as out, bare.open("rb") as copied:
        if fmt == "csv":
            out.write(BOM.encode("utf-8"))
        shutil.copyfileobj(copied, out, 1 << 20)  # streamed: the file is never whole in memory
    bare.unlink()


__all__ = ["COLUMNS", "MEDIA_TYPES", "Format", "export", "export_file", "notice"]

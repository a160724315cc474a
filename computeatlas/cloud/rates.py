"""Dated exchange rates from a sourced table, for USD figures of non-USD prices.

``data/prices/rates.csv`` has the columns ``date,currency,usd_per_unit,source_url,
source_title``: on ``date``, one unit of ``currency`` was worth ``usd_per_unit`` US dollars
according to the cited source. No rate is ever fetched at run time.

A price enters a USD figure only through :meth:`RateTable.to_usd`, which uses the newest
rate dated on or before the price's collection date and returns the rate beside the
result so that every output can show it. A currency without such a rate has no USD figure
(the price is still kept and shown in its own currency).

What a person reads of a converted price is made by one function, :func:`conversion_words`
(and the rate itself by :func:`rate_words`), for every output: the market and provider
tables, the price page, ``/api/offers`` and ``/api/prices/…``, the CLI and the CSV files.

Errors: :func:`load_rates` raises :class:`~computeatlas.cloud.observations.InputFailed`
naming the file, line and column of a bad cell.
"""

from __future__ import annotations

import bisect
import datetime as dt
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from computeatlas.cloud.observations import ISO_4217, InputFailed
from computeatlas.core.tabular import TableError, read_table

COLUMNS = ("date", "currency", "usd_per_unit", "source_url", "source_title")


@dataclass(frozen=True, slots=True)
class Rate:
    """One dated rate: ``usd_per_unit`` US dollars for one unit of ``currency`` on ``date``."""

    date: dt.date
    currency: str
    usd_per_unit: float
    source_url: str
    source_title: str


class RateTable:
    """Rates by currency, ordered by date. USD converts to itself at 1 (no rate row needed)."""

    def __init__(self, rates: list[Rate]) -> None:
        self._by: dict[str, list[Rate]] = {}
        for rate in sorted(rates, key=lambda r: (r.currency, r.date)):
            self._by.setdefault(rate.currency, []).append(rate)

    def all(self) -> list[Rate]:
        """Every rate, by currency then date."""
        return [rate for rows in self._by.values() for rate in rows]

    def rate(self, currency: str, on: dt.date) -> Rate | None:
        """The newest rate for ``currency`` dated on or before ``on``, or None."""
        rows = self._by.get(currency, [])
        at = bisect.bisect_right([r.date for r in rows], on)
        return rows[at - 1] if at else None

    def to_usd(self, amount: float, currency: str, on: dt.date) -> tuple[float | None, Rate | None]:
        """``amount`` of ``currency`` in USD as of ``on`` and the rate used (None, None when
        there is no rate; the amount itself and None for USD)."""
        if currency == "USD":
            return amount, None
        rate = self.rate(currency, on)
        return (amount * rate.usd_per_unit, rate) if rate else (None, None)


def rate_words(rate: Rate) -> str:
    """The rate as text, with its date and source: ``"1 EUR = 1.05 USD on 2026-11-27 (ECB
    euro reference rates, https://www.ecb.europa.eu/stats/)"``."""
    return f"1 {rate.currency} = {rate.usd_per_unit:g} USD on {rate.date} ({rate.source_title}, {rate.source_url})"


def conversion_words(currency: str, usd: float | None, rate: Rate | None, on: dt.date, per: str) -> str | None:
    """What a price in ``currency`` collected ``on`` says of its USD figure ``usd`` (per
    ``per``, e.g. ``"GPU-hour"``), made through ``rate`` (:meth:`RateTable.to_usd`): None for a
    USD price; ``"≈ 0.315 USD per GPU-hour at 1 EUR = 1.05 USD on 2026-11-27 (ECB euro
    reference rates, https://…)"`` (four significant figures) for a converted one; for a price
    without a USD figure (no rate dated on or before ``on``, or no price per accelerator),
    that it is shown as published and left out of USD figures."""
    if currency == "USD":
        return None
    if usd is None or rate is None:
        return f"Priced in {currency}: no exchange rate dated on or before {on} is held, so it is shown as published and left out of USD figures."
    return f"≈ {usd:.4g} USD per {per} at {rate_words(rate)}"


def load_rates(path: Path) -> RateTable:
    """Read the rate table at ``path`` (a missing file is an empty table)."""
    if not path.is_file():
        return RateTable([])
    errors: list[TableError] = []
    rates: list[Rate] = []
    try:
        table = read_table(path, COLUMNS, exact=True)
        for line, raw in table:
            if isinstance(raw, TableError):
                errors.append(raw)
                continue
            try:
                date = dt.date.fromisoformat(raw["date"])
            except ValueError:
                errors.append(TableError(str(path), line, "date", "not a date (write YYYY-MM-DD)", raw["date"]))
                continue
            if raw["currency"] not in ISO_4217:
                errors.append(TableError(str(path), line, "currency", "not an ISO 4217 currency code", raw["currency"]))
                continue
            try:
                value = float(raw["usd_per_unit"])
            except ValueError:
                value = -1.0
            if not value > 0 or value == float("inf"):
                errors.append(TableError(str(path), line, "usd_per_unit", "not a positive number", raw["usd_per_unit"]))
                continue
            if not raw["source_url"].startswith(("http://", "https://")):
                errors.append(TableError(str(path), line, "source_url", "every rate needs the URL of its source", raw["source_url"]))
                continue
            rates.append(Rate(date, raw["currency"], value, raw["source_url"], raw["source_title"]))
    except TableError as exc:
        errors.extend(exc.errors)
    if errors:
        raise InputFailed(errors)
    return RateTable(rates)


class Converted(BaseModel):
    """A price per accelerator-hour's USD figure and the dated rate that made it, as every
    output carries it (offers, observed prices); filled by :func:`usd_fields`."""

    usd_per_accelerator_hour: float | None = Field(
        None, description="in USD: the price itself for USD, else through the dated rate in 'rate'; None without a rate"
    )
    rate: str | None = Field(None, description="the dated exchange rate used, with its source (non-USD prices only)")
    rate_date: dt.date | None = Field(None, description="the date of the exchange rate used (non-USD prices only)")
    usd_per_unit: float | None = Field(None, description="the exchange rate used: US dollars per unit of 'currency' (non-USD prices only)")
    currency_note: str | None = Field(
        None,
        description="for a non-USD price: its USD figure with the rate and its date, or why it has none (computeatlas.cloud.rates.conversion_words)",
    )


CONVERTED_FIELDS = tuple(Converted.model_fields)
"""The fields of :class:`Converted`: worked out from a price, never stored."""


def usd_fields(value: float | None, currency: str, day: dt.date, rates: RateTable, per: str = "accelerator-hour") -> dict[str, Any]:
    """The :class:`Converted` fields of ``value`` (a price in ``currency`` per ``per``, collected
    on ``day``): its USD figure through ``rates``, the rate's words, date and figure, and the
    note a person reads (:func:`conversion_words`); no figure and no rate when ``value`` is None."""
    usd, rate = rates.to_usd(value, currency, day) if value is not None else (None, None)
    fields: dict[str, Any] = {"usd_per_accelerator_hour": usd, "currency_note": conversion_words(currency, usd, rate, day, per)}
    if rate is not None:
        fields.update(rate=rate_words(rate), rate_date=rate.date, usd_per_unit=rate.usd_per_unit)
    return fields


__all__ = ["COLUMNS", "CONVERTED_FIELDS", "Converted", "Rate", "RateTable", "conversion_words", "load_rates", "rate_words", "usd_fields"]

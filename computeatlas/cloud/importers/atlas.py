"""The project's own observation format (CSV), for hand-collected and researched prices.

Columns: ``provider,instance_type,region,pricing,term,amount,currency,unit,accelerators,
price_basis,collected,source_url,source_title,via,availability,note``.

- ``pricing``: on_demand | spot | committed | reserved | capacity_block | marketplace | monthly |
  weekly (a committed or reserved price needs its ``term``);
- ``amount``: the price as published, a plain non-negative number, in ``currency``
  (ISO 4217) per ``unit`` (hour | second | month | week) for ``price_basis`` (instance |
  accelerator); a month or week priced as on_demand is read as the monthly or weekly term
  it is;
- ``accelerators``: the count per instance the source states (may be blank; our instance
  table decides the count, and a stated count that differs from it holds the row as
  ``count_mismatch``);
- ``collected``: a full ISO 8601 time with its offset (``2026-11-30T09:00:00Z``), not in the
  future; a date alone, a week or ordinal date and the basic form (``20261130``) are refused
  (:func:`~computeatlas.cloud.importers.cells.timestamp`), and a time before 2015-01-01 is held
  as ``implausible_date``;
- ``source_url``: the provider's page or API the price was read on; ``via``: the file or
  collector it came through (default: this file's name).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from pathlib import Path

from computeatlas.cloud.importers.cells import (
    CellError,
    Reading,
    count,
    currency,
    price,
    provider_id,
    rows,
    timestamp,
)
from computeatlas.cloud.observations import (
    Observation,
    PriceBasis,
    PriceUnit,
    PricingKind,
)

COLUMNS = ("provider", "instance_type", "region", "pricing", "term", "amount", "currency", "unit", "accelerators",
           "price_basis", "collected", "source_url", "source_title", "via", "availability", "note")


def choice(raw: dict[str, str], column: str, kind: type[PricingKind] | type[PriceUnit] | type[PriceBasis]) -> str:
    """The value of ``column`` if it is one of ``kind``'s words."""
    text = (raw.get(column) or "").strip()
    if text not in {k.value for k in kind}:
        raise CellError(column, "must be one of " + " | ".join(k.value for k in kind), text)
    return text


def term_kind(pricing: str, unit: str) -> str:
    """Monthly and weekly terms are never on-demand: a month or week unit priced as
    on_demand is the monthly or weekly term."""
    if pricing == PricingKind.ON_DEMAND and unit in (PriceUnit.MONTH, PriceUnit.WEEK):
        return PricingKind.MONTHLY.value if unit == PriceUnit.MONTH else PricingKind.WEEKLY.value
    return pricing


def read(path: Path, now: dt.datetime | None = None, **_: object) -> Iterator[Reading]:
    """Observations of an atlas-format CSV (see the module docstring for the columns)."""
    now = now or dt.datetime.now(dt.UTC)

    def parse(raw: dict[str, str]) -> Observation:
        pricing, unit = choice(raw, "pricing", PricingKind), choice(raw, "unit", PriceUnit)
        if pricing in (PricingKind.RESERVED, PricingKind.COMMITTED) and not raw["term"].strip():
            raise CellError("term", f"a {pricing.value} price needs its term (e.g. '1 year')", raw["term"])
        if not raw["instance_type"].strip():
            raise CellError("instance_type", "the provider's instance or product name is required", "")
        if not raw["source_url"].startswith(("http://", "https://")):
            raise CellError("source_url", "the page or API the price was read on (http… URL)", raw["source_url"])
        return Observation(
            provider=provider_id(raw["provider"]), instance_type=raw["instance_type"].strip(), region=raw["region"].strip(),
            pricing=term_kind(pricing, unit), term=raw["term"].strip(), amount=price(raw, "amount"), currency=currency(raw, "currency"),
            unit=unit, price_basis=choice(raw, "price_basis", PriceBasis), stated_accelerators=count(raw, "accelerators"),
            collected=timestamp(raw, "collected", now, allow_date_alone=False), source_url=raw["source_url"].strip(), source_title=raw["source_title"].strip(),
            via=raw["via"].strip() or path.name, availability=raw["availability"].strip(), note=raw["note"].strip())

    yield from rows(path, COLUMNS, parse)

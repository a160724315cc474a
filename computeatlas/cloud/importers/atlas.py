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
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import cast

from computeatlas.cloud.importers.cells import Reading, count, currency, price, provider_id, rows, timestamp
from computeatlas.cloud.observations import (
    Observation,
    PriceBasis,
    PriceUnit,
    PricingKind,
)
from computeatlas.core.tabular import CellError

COLUMNS = (
    "provider",
    "instance_type",
    "region",
    "pricing",
    "term",
    "amount",
    "currency",
    "unit",
    "accelerators",
    "price_basis",
    "collected",
    "source_url",
    "source_title",
    "via",
    "availability",
    "note",
)


_WORDS: dict[type, dict[str, object]] = {kind: {k.value: k for k in kind} for kind in (PricingKind, PriceUnit, PriceBasis)}
"""Each kind's words and their members, made once (not per cell)."""


def choice(raw: dict[str, str], column: str, kind: type[PricingKind] | type[PriceUnit] | type[PriceBasis]) -> str:
    """The value of ``column`` if it is one of ``kind``'s words."""
    text = (raw.get(column) or "").strip()
    if text not in _WORDS[kind]:
        raise CellError(column, "must be one of " + " | ".join(k.value for k in kind), text)
    return text


def term_kind(pricing: str, unit: str) -> str:
    """Monthly and weekly terms are never on-demand: a month or week unit priced as
    on_demand is the monthly or weekly term."""
    if pricing == PricingKind.ON_DEMAND and unit in (PriceUnit.MONTH, PriceUnit.WEEK):
        return PricingKind.MONTHLY.value if unit == PriceUnit.MONTH else PricingKind.WEEKLY.value
    return pricing


MEMO_CELLS = 65_536
"""How many distinct cells of one column :func:`read` keeps parsed (then it starts again):
a column's values repeat (providers, instances, prices, collection times), so each distinct
cell is parsed once."""

_SET = {
    "provider",
    "instance_type",
    "region",
    "pricing",
    "term",
    "amount",
    "currency",
    "unit",
    "price_basis",
    "stated_accelerators",
    "collected",
    "source_url",
    "source_title",
    "via",
    "availability",
    "note",
}


def read(path: Path, now: dt.datetime | None = None, **_: object) -> Iterator[Reading]:
    """Observations of an atlas-format CSV (see the module docstring for the columns).

    Every cell is checked by the cell parsers of :mod:`~computeatlas.cloud.importers.cells`
    (each distinct cell once, :data:`MEMO_CELLS`), so the observation is made from checked
    values (:meth:`~computeatlas.cloud.observations.Observation.trusted`)."""
    yield from rows(path, COLUMNS, parser(path, now or dt.datetime.now(dt.UTC)))


def parser(path: Path, now: dt.datetime) -> Callable[[dict[str, str]], Observation]:
    """The parse of one row of ``path`` (its cells by column name) into an observation,
    raising :class:`CellError` for the first bad cell in the order the columns are named."""
    memo: dict[str, dict[str, object]] = {column: {} for column in COLUMNS}
    via = path.name

    def cell(column: str, text: str, parser: Callable[[dict[str, str], str], object]) -> object:
        found = parser({column: text}, column)  # a CellError is raised again for every row that has it
        known = memo[column]
        if len(known) >= MEMO_CELLS:
            known.clear()
        known[text] = found
        return found

    parsers = cell_parsers(now)
    when = parsers["collected"]

    pricings, units, providers, amounts = memo["pricing"], memo["unit"], memo["provider"], memo["amount"]
    codes, bases, counts, times = memo["currency"], memo["price_basis"], memo["accelerators"], memo["collected"]

    def parse(raw: dict[str, str]) -> Observation:
        # The cells are checked in the order the columns are named, so a row with two bad cells
        # is rejected for the first, as it always was. Each distinct cell is parsed once (its
        # column's memo read inline: a call per cell costs more than the read).
        text = raw["pricing"]
        pricing = pricings[text] if text in pricings else cell("pricing", text, parsers["pricing"])
        text = raw["unit"]
        unit = units[text] if text in units else cell("unit", text, parsers["unit"])
        term = raw["term"].strip()
        if not term and pricing in NEED_TERM:
            raise CellError("term", f"a {pricing} price needs its term (e.g. '1 year')", raw["term"])
        instance = raw["instance_type"].strip()
        if not instance:
            raise CellError("instance_type", "the provider's instance or product name is required", "")
        source_url = raw["source_url"]
        if not source_url.startswith(("http://", "https://")):
            raise CellError("source_url", "the page or API the price was read on (http… URL)", source_url)
        text = raw["provider"]
        provider = providers[text] if text in providers else cell("provider", text, parsers["provider"])
        text = raw["amount"]
        amount = amounts[text] if text in amounts else cell("amount", text, parsers["amount"])
        text = raw["currency"]
        code = codes[text] if text in codes else cell("currency", text, parsers["currency"])
        text = raw["price_basis"]
        basis = bases[text] if text in bases else cell("price_basis", text, parsers["price_basis"])
        text = raw["accelerators"]
        stated = counts[text] if text in counts else cell("accelerators", text, parsers["accelerators"])
        text = raw["collected"]
        collected = times[text] if text in times else cell("collected", text, when)
        return Observation.trusted(
            {
                "provider": provider,
                "instance_type": instance,
                "region": raw["region"].strip(),
                "pricing": _TERM_KIND[cast("tuple[PricingKind, PriceUnit]", (pricing, unit))],
                "term": term,
                "amount": amount,
                "currency": code,
                "unit": unit,
                "price_basis": basis,
                "stated_accelerators": stated,
                "collected": collected,
                "source_url": source_url.strip(),
                "source_title": raw["source_title"].strip(),
                "via": raw["via"].strip() or via,
                "availability": raw["availability"].strip(),
                "note": raw["note"].strip(),
            },
            _SET,
        )

    return parse


def cell_parsers(now: dt.datetime) -> dict[str, Callable[[dict[str, str], str], object]]:
    """The parser of each column that has one (called as ``parser({column: text}, column)``;
    :class:`CellError` for a bad cell): what :func:`parser` checks each distinct cell with, and
    the columnar reader (:mod:`~computeatlas.cloud.importers.atlas_columns`) too."""

    def when(raw: dict[str, str], column: str) -> dt.datetime:
        return timestamp(raw, column, now, allow_date_alone=False)

    return {
        "pricing": _pricing,
        "unit": _unit,
        "provider": _provider,
        "amount": price,
        "currency": currency,
        "price_basis": _basis,
        "accelerators": count,
        "collected": when,
    }


NEED_TERM = frozenset((PricingKind.RESERVED, PricingKind.COMMITTED))


def _pricing(raw: dict[str, str], column: str) -> PricingKind:
    return PricingKind(choice(raw, column, PricingKind))


def _unit(raw: dict[str, str], column: str) -> PriceUnit:
    return PriceUnit(choice(raw, column, PriceUnit))


def _basis(raw: dict[str, str], column: str) -> PriceBasis:
    return PriceBasis(choice(raw, column, PriceBasis))


def _provider(raw: dict[str, str], column: str) -> str:
    return provider_id(raw[column])


_TERM_KIND = {(p, u): PricingKind(term_kind(p, u)) for p in PricingKind for u in PriceUnit}

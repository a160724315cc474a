"""One price observation as outputs show it (:class:`ObservedPrice`): the stored fields, its age,
and its USD figure with the dated exchange rate (:func:`shown_price`).

Units: prices per accelerator-hour in the observation's currency, and in USD where a rate is known.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from pydantic import BaseModel, Field

from computeatlas.cloud.rates import RateTable, conversion_words, rate_words


class ObservedOffer(BaseModel):
    """Which offer (provider, instance, region, pricing, term) was observed, and when (UTC)."""

    collected: dt.datetime
    provider: str
    instance_type: str
    region: str
    pricing: str
    term: str


class ObservedPrice(ObservedOffer):
    """One observation as outputs show it."""

    amount: float = Field(description="as published, in currency per unit")
    currency: str
    unit: str
    accelerators: int | None
    per_accelerator_hour: float | None = Field(description="in currency; derived")
    variant: str = Field(description="variant key; '' = variant not stated")
    qualifiers: list[str]
    source_url: str
    via: str
    age_days: int | None = None
    stale: bool | None = None
    discount: float | None = Field(None, description="1 - this price ÷ the same instance's on-demand price (spot, reserved, terms)")
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
    provider_name: str = Field("", description="the provider's name as the catalog records it (its id when it has no record)")


STORED_FIELDS = frozenset(ObservedPrice.model_fields) - {
    "age_days",
    "stale",
    "rate",
    "rate_date",
    "usd_per_unit",
    "currency_note",
    "provider_name",
    "discount",
    "usd_per_accelerator_hour",
}
"""The fields of :class:`ObservedPrice` read from a stored row (the others are worked out)."""

SHOWN_COLUMNS = (*sorted(STORED_FIELDS), "date")
"""The stored columns a history lists (:data:`STORED_FIELDS` as stored, and the collection date)."""

CURRENT_COLUMNS = (*sorted(STORED_FIELDS), "accelerator", "status")
"""The stored columns one part's current offers are read with (``Store.current``): what a price
page shows of each (:data:`STORED_FIELDS`) and what the spread, the cheapest-price rule
(``cheapest_price.PICKED``) and the charts' variant read. Every reader of a part's current
offers on a page asks for these, so the page reads them once (the store keeps the answer)."""


def _in_usd(per_accelerator_hour: float, currency: str, day: dt.date, rates: RateTable) -> dict[str, Any]:
    """The USD figure of a price per accelerator-hour collected on ``day`` and the dated rate used, as fields."""
    usd, rate = rates.to_usd(per_accelerator_hour, currency, day)
    fields: dict[str, Any] = {
        "usd_per_accelerator_hour": usd,
        "currency_note": conversion_words(currency, usd, rate, day, "accelerator-hour"),
    }
    if rate is not None:
        fields.update(rate=rate_words(rate), rate_date=rate.date, usd_per_unit=rate.usd_per_unit)
    return fields


def shown_price(row: dict[str, Any], rates: RateTable, now: dt.datetime | None = None) -> ObservedPrice:
    """A stored row (:data:`SHOWN_COLUMNS` or more) as outputs show it: its age at ``now``
    (days; None without ``now``) and, for a price per accelerator-hour, its USD figure through
    ``rates`` with the dated rate named beside it (None without a rate). Validated once: what is
    worked out from the row goes in with it."""
    data = {k: v for k, v in row.items() if k in STORED_FIELDS}
    data["qualifiers"] = list(row.get("qualifiers") or [])
    collected, per = row["collected"], row.get("per_accelerator_hour")
    if now is not None:
        data["age_days"] = (now - collected).days
    if per is not None and isinstance(collected, dt.datetime):  # a row as the store gives it
        return ObservedPrice.model_validate(data | _in_usd(float(per), row["currency"], collected.date(), rates))
    shown = ObservedPrice.model_validate(data)
    if shown.per_accelerator_hour is not None:
        for name, value in _in_usd(shown.per_accelerator_hour, shown.currency, shown.collected.date(), rates).items():
            setattr(shown, name, value)
    return shown


__all__ = ["CURRENT_COLUMNS", "SHOWN_COLUMNS", "STORED_FIELDS", "ObservedOffer", "ObservedPrice", "shown_price"]

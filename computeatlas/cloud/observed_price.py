"""One price observation as outputs show it (:class:`ObservedPrice`): the stored fields, its age,
and its USD figure with the dated exchange rate (:func:`shown_price`).

Units: prices per accelerator-hour in the observation's currency, and in USD where a rate is known.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from pydantic import BaseModel, Field

from computeatlas.cloud.rates import CONVERTED_FIELDS, Converted, RateTable, usd_fields


class ObservedOffer(BaseModel):
    """Which offer (provider, instance, region, pricing, term) was observed, and when (UTC)."""

    collected: dt.datetime
    provider: str
    instance_type: str
    region: str
    pricing: str
    term: str


class ObservedPrice(ObservedOffer, Converted):
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
    provider_name: str = Field("", description="the provider's name as the catalog records it (its id when it has no record)")


STORED_FIELDS = frozenset(ObservedPrice.model_fields) - {"age_days", "stale", "provider_name", "discount", *CONVERTED_FIELDS}
"""The fields of :class:`ObservedPrice` read from a stored row (the others are worked out)."""

SHOWN_COLUMNS = (*sorted(STORED_FIELDS), "date")
"""The stored columns a history lists (:data:`STORED_FIELDS` as stored, and the collection date)."""

CURRENT_COLUMNS = (*sorted(STORED_FIELDS), "accelerator", "status")
"""The stored columns one part's current offers are read with (``Store.current``): what a price
page shows of each (:data:`STORED_FIELDS`) and what the spread, the cheapest-price rule
(``cheapest_price.PICKED``) and the charts' variant read. Every reader of a part's current
offers on a page asks for these, so the page reads them once (the store keeps the answer)."""


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
        return ObservedPrice.model_validate(data | usd_fields(float(per), row["currency"], collected.date(), rates))
    shown = ObservedPrice.model_validate(data)
    if shown.per_accelerator_hour is not None:
        for name, value in usd_fields(shown.per_accelerator_hour, shown.currency, shown.collected.date(), rates).items():
            setattr(shown, name, value)
    return shown


__all__ = ["CURRENT_COLUMNS", "SHOWN_COLUMNS", "STORED_FIELDS", "ObservedOffer", "ObservedPrice", "shown_price"]

"""Cloud records: providers (with sourced lock-in facts) and offers (published prices).

An :class:`Offer` is one published price for renting accelerators. Its price per
accelerator-hour is derived, never written: see :mod:`computeatlas.cloud.pricing`.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from collections.abc import Iterator, Mapping
from enum import StrEnum
from typing import Any

from pydantic import Field, ValidationInfo, field_validator, model_validator

from computeatlas.cloud.instances import InstanceType, memory_problem
from computeatlas.core.catalog import Layout, Problem, RecordKind, missing
from computeatlas.core.claims import Id, Record, Source, today_from


class ProviderKind(StrEnum):
    """What kind of business rents the accelerators."""

    HYPERSCALER = "hyperscaler"
    NEOCLOUD = "neocloud"
    MARKETPLACE = "marketplace"


class LockInTopic(StrEnum):
    """What makes leaving a provider hard."""

    EXCLUSIVE_PARTS = "exclusive_parts"
    SOFTWARE_STACK = "software_stack"
    EGRESS = "egress"
    COMMITMENT = "commitment"

    @property
    def label(self) -> str:
        """Words for the topic as pages show it."""
        return {
            "exclusive_parts": "Parts only this cloud has",
            "software_stack": "Its own software stack",
            "egress": "Egress fees",
            "commitment": "Commitment terms",
        }[self.value]


class LockInFact(Record):
    """One sourced fact that makes leaving hard, in our own words."""

    topic: LockInTopic
    text: str = Field(min_length=1)
    source: str


class Provider(Record):
    """A company that rents AI accelerators. ``regions`` are coarse and as it names them."""

    id: Id
    name: str = Field(min_length=1)
    kind: ProviderKind
    url: str = Field(pattern=r"^https?://\S+$")
    regions: list[str] = Field(default_factory=list)
    summary: str = Field(min_length=1)
    verified: dt.date
    sources: dict[Id, Source] = Field(min_length=1)
    lock_in: list[LockInFact] = Field(default_factory=list)

    @model_validator(mode="after")
    def _check(self, info: ValidationInfo) -> Provider:
        today = today_from(info)
        if self.verified > today:
            raise ValueError(f"verified date {self.verified} is in the future (today is {today})")
        undefined = sorted({f.source for f in self.lock_in} - set(self.sources))
        if undefined:
            raise ValueError(f"source id(s) {', '.join(map(repr, undefined))} not defined in [sources]")
        return self


class PriceBasis(StrEnum):
    """What a published price covers."""

    INSTANCE = "instance"
    ACCELERATOR = "accelerator"
    BUNDLE = "bundle"


class Pricing(StrEnum):
    """How the capacity is bought."""

    ON_DEMAND = "on-demand"
    SPOT = "spot"
    RESERVED = "reserved"


MAX_PRICE_PER_HOUR = 1e7
"""The largest price per hour the loader accepts, in the offer's currency."""


def _blank_to_none(value: object) -> object:
    return None if isinstance(value, str) and not value.strip() else value


class Offer(Record):
    """One published price, as one CSV row of ``data/offers/*.csv``.

    ``price_per_hour`` is exactly as published, in ``currency``, for what ``price_basis``
    says (the whole instance, one accelerator, or a bundle that cannot be split).
    ``row`` is the CSV line number, for error messages and stable ids.
    """

    file: str = Field(description="the CSV file the row came from (set by the loader)")
    row: int = Field(ge=2, description="the CSV line number (set by the loader)")
    provider: Id
    accelerator: Id
    variant: str = Field(min_length=1)
    instance_type: str = Field(min_length=1)
    accelerators_per_instance: int = Field(ge=1)
    price_basis: PriceBasis
    pricing: Pricing
    term: str | None = None
    price_per_hour: float = Field(gt=0, description="as published; finite, at most 10 million per hour")
    currency: str = Field(pattern=r"^[A-Z]{3}$")
    region: str | None = None
    seen: dt.date
    source_url: str = Field(pattern=r"^https?://\S+$")
    note: str | None = None

    _blanks = field_validator("term", "region", "note", mode="before")(_blank_to_none)

    @field_validator("price_per_hour")
    @classmethod
    def _plausible_price(cls, value: float) -> float:
        if not math.isfinite(value):
            raise ValueError("a price must be a finite number")
        if value > MAX_PRICE_PER_HOUR:
            raise ValueError(f"a price above {MAX_PRICE_PER_HOUR:,.0f} per hour is not a plausible published price")
        return value

    @property
    def id(self) -> str:
        """A stable id from what identifies the price, not from its line number:
        provider, instance type, pricing, term, region and the date seen, as a slug
        (``lambda-1x-nvidia-h100-sxm-on-demand-2026-09-20``). Inserting rows never
        changes another offer's id; two rows with the same id are a duplicate listing."""
        parts = (self.provider, self.instance_type, self.pricing.value, self.term or "", self.region or "", self.seen.isoformat())
        return re.sub(r"[^a-z0-9]+", "-", " ".join(parts).lower()).strip("-")

    @model_validator(mode="after")
    def _check(self, info: ValidationInfo) -> Offer:
        today = today_from(info)
        if self.seen > today:
            raise ValueError(f"seen date {self.seen} is in the future (today is {today})")
        if self.pricing is Pricing.RESERVED and not self.term:
            raise ValueError("a reserved price needs its term (e.g. '1 year', 'Capacity Block')")
        return self


__all__ = ["LockInFact", "LockInTopic", "Offer", "PriceBasis", "Pricing", "Provider", "ProviderKind"]


PROVIDERS = RecordKind("providers", Provider, by_name=True)
"""Cloud providers: ``data/providers/<id>.toml``, one per file, ordered by name."""

OFFERS = RecordKind("offers", Offer, Layout.CSV_ROWS, duplicate="offer: same provider, instance type, pricing, term, region and date")
"""Hand-typed offers: ``data/offers/*.csv``, one per row (an offer's id is made of those six)."""

INSTANCES = RecordKind("instances", InstanceType, Layout.CSV_ROWS)
"""The instance table: ``data/instances/*.csv``, one instance type per row."""


def cross_check(records: Mapping[str, Mapping[str, Any]], files: Mapping[str, str]) -> Iterator[Problem | None]:
    """Offers naming a provider or accelerator that does not exist, non-finite prices, and
    instance rows whose memory per accelerator is none of their accelerator record's sizes."""
    for ident, offer in records["offers"].items():
        for name, target, where in (
            ("provider", records["providers"], "provider in data/providers/"),
            ("accelerator", records["accelerators"], "accelerator in data/accelerators/"),
        ):
            yield missing(files, "offers", ident, f"row {offer.row}: {name}", getattr(offer, name), target, where)
        if not math.isfinite(offer.price_per_hour):  # pydantic's float accepts "inf"
            yield Problem(
                files[f"offers/{ident}"], f"row {offer.row}: price_per_hour", "a price must be a finite number", str(offer.price_per_hour)
            )
    for ident, row in records.get("instances", {}).items():
        yield missing(
            files,
            "instances",
            ident,
            f"row {row.row}: accelerator",
            row.accelerator,
            records["accelerators"],
            "accelerator in data/accelerators/",
        )
        accelerator = records["accelerators"].get(row.accelerator)
        problem = memory_problem(row, accelerator.specs.memory) if accelerator is not None else None
        if problem:
            yield Problem(files[f"instances/{ident}"], f"row {row.row}: accelerator_memory_gb", problem, f"{row.accelerator_memory_gb:g}")

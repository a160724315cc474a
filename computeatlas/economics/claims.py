"""Economics claims: published cost-per-token and tokens-per-watt figures, each with what
its claimant sells (:class:`~computeatlas.core.claimants.Interest`).
"""

from __future__ import annotations

import datetime as dt
import math
import re
from collections.abc import Iterator, Mapping
from enum import StrEnum
from typing import Any

from pydantic import Field, ValidationInfo, field_validator, model_validator

from computeatlas.core.catalog import Problem, RecordKind, missing
from computeatlas.core.claimants import Interest
from computeatlas.core.claims import Id, NumberFormat, Record, Source, today_from


class Metric(StrEnum):
    """What an economics claim measures."""

    COST_PER_MILLION_TOKENS = "cost_per_million_tokens"
    TOKENS_PER_WATT = "tokens_per_watt"


CLAIM_BANDS: tuple[tuple[re.Pattern[str], str, float, float], ...] = (
    (re.compile(r"^[A-Z]{3} per million tokens\b"), "{currency} per million tokens", 0.0001, 1000.0),
    (re.compile(r"^times\b"), "times", 1.0, 1000.0),
    (re.compile(r"^percent\b"), "percent", 0.01, 10000.0),
    (re.compile(r"^tokens per second per (provisioned )?megawatt\b"), "tokens per second per megawatt", 1.0, 1e10),
)
"""The plausible band of an economics claim's ``value``, chosen by how its ``unit`` begins:
``(pattern, unit words, lowest, highest)``, both ends included.

- an absolute cost, ``USD per million tokens`` (any three-letter currency): 0.0001 to 1,000
  (a hundredth of a cent to well above the dearest list price of any model, a few hundred USD);
- a ratio, ``times lower/higher …``: 1 to 1,000 (a ratio under 1 is stated the other way round);
- a ``percent …`` difference: 0.01 to 10,000;
- a throughput, ``tokens per second per (provisioned) megawatt``: 1 to 10 billion.

A unit that matches none (a claimant's own words) is only checked to be finite and positive."""


def claim_band(unit: str) -> tuple[str, float, float] | None:
    """``(unit words, lowest, highest)`` of :data:`CLAIM_BANDS` for ``unit``, or None when none applies."""
    for pattern, words, low, high in CLAIM_BANDS:
        if pattern.match(unit):
            return words.format(currency=unit[:3]), low, high
    return None


class HardwareBasis(StrEnum):
    """Whether a cost claim prices rented hardware (per accelerator-hour) or owned hardware (capital and power)."""

    RENTAL = "rental"
    OWNED = "owned"


class EconomicsClaim(Record):
    """A published cost-per-token or tokens-per-watt claim, shown with the claimant's interest.

    ``value`` and ``unit`` are the claimant's own number and words; relative claims stay
    relative (the unit says against what) and are never converted to absolute figures.
    ``value`` must be finite, positive and inside the plausible band of its unit
    (:data:`CLAIM_BANDS`); otherwise loading fails naming the file and the field ``value``.
    """

    id: Id
    metric: Metric
    unit: str = Field(min_length=1)
    value: float = Field(description="finite and positive, within the plausible band of the unit (see CLAIM_BANDS)")
    claimant: str = Field(min_length=1)
    claimant_sells: Interest
    accelerators: list[Id] = Field(default_factory=list)
    model: str = Field(min_length=1)
    conditions: str = Field(min_length=1)
    date: dt.date
    source: str
    verified: dt.date
    sources: dict[Id, Source] = Field(min_length=1)
    model_id: Id | None = Field(None, description="the model record (data/models/) the claim concerns, when it names one")
    basis_hardware: HardwareBasis | None = Field(None, description="whether the claimant prices rented or owned hardware, when stated")
    basis_precision: NumberFormat | None = Field(None, description="the number format the claim was measured at, when stated")
    basis_batch: int | None = Field(None, ge=1, description="the batch (concurrent sequences) behind the claim, when stated")

    @field_validator("value")
    @classmethod
    def _plausible(cls, value: float, info: ValidationInfo) -> float:
        if not math.isfinite(value):
            raise ValueError("must be a finite number")
        if value <= 0:
            raise ValueError(f"{value:g} must be a positive number (state a reduction in the unit's words, e.g. 'times lower')")
        band = claim_band(str(info.data.get("unit", "")))
        if band is not None:
            words, low, high = band
            if not low <= value <= high:
                raise ValueError(f"{value:,g} is not a plausible claim: at least {low:,g} and at most {high:,.0f} {words}")
        return value

    @model_validator(mode="after")
    def _check(self, info: ValidationInfo) -> EconomicsClaim:
        today = today_from(info)
        if self.date > today or self.verified > today:
            raise ValueError(f"date in the future (today is {today})")
        if self.source not in self.sources:
            raise ValueError(f"source id {self.source!r} not defined in [sources]")
        return self


__all__ = ["CLAIM_BANDS", "EconomicsClaim", "HardwareBasis", "Metric", "claim_band"]


CLAIMS = RecordKind("claims", EconomicsClaim)
"""Economics claims: ``data/claims/<id>.toml``, one per file."""


def cross_check(records: Mapping[str, Mapping[str, Any]], files: Mapping[str, str]) -> Iterator[Problem | None]:
    """Claimed accelerators that do not exist."""
    accelerators = records["accelerators"]
    for ident, claim in records["claims"].items():
        for n, part in enumerate(claim.accelerators):
            yield missing(files, "claims", ident, f"accelerators.{n}", part, accelerators, "accelerator in data/accelerators/")

"""Energy-layer records: rack-scale systems, energy topics with dated figures, and
economics claims (cost per million tokens, tokens per watt) with the claimant's interest.

System figures are totals for the whole node, rack or pod and are never shown as
per-accelerator figures; pages link from the accelerator to the system instead.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from collections.abc import Iterator, Mapping
from enum import StrEnum
from typing import Any, ClassVar

from pydantic import (
    Field,
    PrivateAttr,
    ValidationInfo,
    field_validator,
    model_validator,
)

from computeatlas.core.catalog import Problem, missing
from computeatlas.core.claims import (
    BandwidthSpec,
    Basis,
    Claim,
    ComputeSpec,
    Id,
    MemorySpec,
    NumberFormat,
    PowerSpec,
    Record,
    Source,
    State,
    today_from,
)
from computeatlas.core.units import Dimension, Figure, UnitError, parse

SYSTEM_BASES = (Basis.SUPERCHIP, Basis.NODE, Basis.RACK, Basis.POD)


class _SystemClaim(Claim):
    """A claim about a whole system: published figures must be on a system basis."""

    per_accelerator_only: ClassVar[bool] = False

    @model_validator(mode="after")
    def _system_basis(self) -> _SystemClaim:
        if self.state is State.PUBLISHED and self.value is not None and self.basis not in SYSTEM_BASES:
            raise ValueError(f"a system figure is a total: basis must be one of {', '.join(b.value for b in SYSTEM_BASES)}")
        return self


class SystemMemory(_SystemClaim, MemorySpec):
    """Total accelerator memory of the system, in bytes."""


class SystemBandwidth(_SystemClaim, BandwidthSpec):
    """Total memory bandwidth of the system, in bytes/s."""


class SystemPower(_SystemClaim, PowerSpec):
    """Power of the whole node, rack or pod, in W: published or not published, never estimated."""


class SystemCompute(_SystemClaim, ComputeSpec):
    """Peak throughput of the whole system at one number format (dense), in FLOP/s."""


class SystemSpecs(Record):
    """A system's totals; memory and power must be researched, the rest is optional."""

    memory: SystemMemory
    power: SystemPower
    memory_bandwidth: SystemBandwidth | None = None
    compute: dict[NumberFormat, SystemCompute] = Field(default_factory=dict)


class SystemKind(StrEnum):
    """The scale of a system."""

    NODE = "node"
    RACK = "rack"
    ULTRASERVER = "ultraserver"
    POD = "pod"


class Member(Record):
    """``count`` accelerators of one kind in a system."""

    accelerator: Id
    count: int = Field(ge=1)


class System(Record):
    """A node, rack, UltraServer or pod built from accelerators."""

    id: Id
    name: str = Field(min_length=1)
    vendor: Id
    kind: SystemKind
    summary: str = Field(min_length=1)
    cooling: str = Field(min_length=1)
    verified: dt.date
    members: list[Member] = Field(min_length=1)
    sources: dict[Id, Source] = Field(min_length=1)
    specs: SystemSpecs

    @model_validator(mode="after")
    def _check(self, info: ValidationInfo) -> System:
        today = today_from(info)
        if self.verified > today:
            raise ValueError(f"verified date {self.verified} is in the future (today is {today})")
        claims = self.claims()
        undefined = sorted({key for _, c in claims for key in c.sources_used()} - set(self.sources))
        if undefined:
            raise ValueError(f"source id(s) {', '.join(map(repr, undefined))} not defined in [sources]")
        return self

    def claims(self) -> list[tuple[str, Claim]]:
        """Every spec as ``(field path, claim)``."""
        s = self.specs
        out: list[tuple[str, Claim]] = [("memory", s.memory)]
        if s.memory_bandwidth is not None:
            out.append(("memory_bandwidth", s.memory_bandwidth))
        out += [(f"compute.{f.value}", c) for f, c in sorted(s.compute.items(), key=lambda kv: kv[0].rank)]
        out.append(("power", s.power))
        return out

    @property
    def accelerator_count(self) -> int:
        """Accelerators in the system, all kinds together."""
        return sum(m.count for m in self.members)


class Interest(StrEnum):
    """What the party making a claim sells: the reason to read its figure as a claim."""

    CHIP_VENDOR = "chip vendor"
    CLOUD = "cloud"
    INDEPENDENT = "independent"
    MODEL_PROVIDER = "model provider"
    UTILITY = "utility"
    GOVERNMENT = "government"
    INDUSTRY_GROUP = "industry group"


class EnergyFigure(Record):
    """A dated figure with who claims it. ``value`` keeps its unit; power figures parse to W."""

    key: Id
    label: str = Field(min_length=1)
    value: str = Field(min_length=1)
    as_of: dt.date
    claimant: str = Field(min_length=1)
    claimant_interest: Interest
    source: str
    note: str | None = None
    _power: Figure | None = PrivateAttr(None)

    @property
    def power(self) -> Figure | None:
        """The figure in watts when it is a power (``"120 kW"``), else None (``"10x"``)."""
        return self._power

    @model_validator(mode="after")
    def _parse(self) -> EnergyFigure:
        try:
            self._power = parse(self.value, Dimension.POWER)
        except UnitError:
            self._power = None
        return self


class EnergyTopic(Record):
    """A page under ``/energy/``: short text and dated, sourced figures."""

    id: Id
    title: str = Field(min_length=1)
    summary: str = Field(min_length=1)
    verified: dt.date
    sources: dict[Id, Source] = Field(min_length=1)
    figures: list[EnergyFigure] = Field(min_length=1)

    @model_validator(mode="after")
    def _check(self, info: ValidationInfo) -> EnergyTopic:
        today = today_from(info)
        late = [f.key for f in self.figures if f.as_of > today]
        if self.verified > today or late:
            raise ValueError(f"date in the future (today is {today}): {', '.join(late) or 'verified'}")
        undefined = sorted({f.source for f in self.figures} - set(self.sources))
        if undefined:
            raise ValueError(f"source id(s) {', '.join(map(repr, undefined))} not defined in [sources]")
        keys = [f.key for f in self.figures]
        if len(keys) != len(set(keys)):
            raise ValueError("figure keys must be unique within a topic")
        return self


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


__all__ = [
    "SYSTEM_BASES", "EconomicsClaim", "EnergyFigure", "EnergyTopic", "HardwareBasis", "Interest", "Member", "Metric", "System",
    "SystemBandwidth", "SystemCompute", "SystemKind", "SystemMemory", "SystemPower", "SystemSpecs",
]  # fmt: skip


FOLDERS = {"systems": System, "energy": EnergyTopic, "claims": EconomicsClaim}
"""The data sub-folders of this domain (one TOML record per file) and their record types."""


def cross_check(records: Mapping[str, Mapping[str, Any]], files: Mapping[str, str]) -> Iterator[Problem | None]:
    """System vendors and members, and claimed accelerators, that do not exist."""
    accelerators = records["accelerators"]
    for ident, system in records["systems"].items():
        yield missing(files, "systems", ident, "vendor", system.vendor, records["vendors"], "vendor in data/vendors/")
        for n, member in enumerate(system.members):
            yield missing(files, "systems", ident, f"members.{n}.accelerator", member.accelerator, accelerators, "accelerator in data/accelerators/")
    for ident, claim in records["claims"].items():
        for n, part in enumerate(claim.accelerators):
            yield missing(files, "claims", ident, f"accelerators.{n}", part, accelerators, "accelerator in data/accelerators/")

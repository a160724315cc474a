"""Price observations: one price as one source published it at one moment.

An :class:`Observation` is never edited. It records what was read (provider, the
provider's own instance or product name, region, pricing kind and term, the amount in its
published currency and unit, the collection time, where it was read and through which file
or collector) and what *we* decided about it (the accelerator and variant placed through
our instance table, :mod:`computeatlas.cloud.instances`; the integrity rules it failed,
:mod:`computeatlas.cloud.rules`; the import run that brought it).

Units: ``amount`` is in ``currency`` (ISO 4217, kept as published) per ``unit`` (hour,
second, month or week) for what ``price_basis`` covers (the whole instance, or one
accelerator). :func:`hourly` turns it into an amount per instance-hour; a monthly term
uses :attr:`~computeatlas.core.settings.Settings.hours_per_month` (730) and is labelled
derived.

Two rows are the same observation when :meth:`Observation.key` agrees: provider,
instance type, region, pricing kind, term and collection time.

Errors: a :class:`~computeatlas.core.tabular.TableError` names the file, the line and the
column of a bad input cell; :class:`InputFailed` carries every such error of one file
(nothing is stored).
"""

from __future__ import annotations

import datetime as dt
import math
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field, field_validator

from computeatlas.core.states import State
from computeatlas.core.tabular import TableError


class PricingKind(StrEnum):
    """How the capacity is bought. Monthly and weekly terms are never on-demand.

    ``committed`` is a committed-use price (Google Cloud's 1- and 3-year commitments, Azure's
    savings plans) and ``reserved`` a reservation (AWS and Azure reserved instances): both
    carry their ``term`` ("1 year", "3 years"). ``capacity_block`` is capacity booked ahead
    for a fixed period (AWS EC2 Capacity Blocks for ML): neither on-demand nor a reservation.
    """

    ON_DEMAND = "on_demand"
    SPOT = "spot"
    COMMITTED = "committed"
    RESERVED = "reserved"
    CAPACITY_BLOCK = "capacity_block"
    MARKETPLACE = "marketplace"
    MONTHLY = "monthly"
    WEEKLY = "weekly"


class PriceUnit(StrEnum):
    """The time a published amount pays for."""

    HOUR = "hour"
    SECOND = "second"
    MONTH = "month"
    WEEK = "week"


class PriceBasis(StrEnum):
    """What a published amount covers: the whole instance, or one accelerator."""

    INSTANCE = "instance"
    ACCELERATOR = "accelerator"


class Status(StrEnum):
    """What became of a row: ``accepted`` (a price visitors see) or ``held`` (for the operator)."""

    ACCEPTED = "accepted"
    HELD = "held"


LICENSED_SUFFIX = " (Windows)"
"""Added by importers to the instance name of a price that includes a Windows licence, so
that it is a distinct observation from the same instance's plain price."""

ISO_4217 = frozenset(
    """AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BHD BIF BMD BND BOB BRL BSD BTN BWP BYN BZD
    CAD CDF CHF CLP CNY COP CRC CUP CVE CZK DJF DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP GEL GHS GIP GMD GNF
    GTQ GYD HKD HNL HTG HUF IDR ILS INR IQD IRR ISK JMD JOD JPY KES KGS KHR KMF KPW KRW KWD KYD KZT LAK LBP
    LKR LRD LSL LYD MAD MDL MGA MKD MMK MNT MOP MRU MUR MVR MWK MXN MYR MZN NAD NGN NIO NOK NPR NZD OMR PAB
    PEN PGK PHP PKR PLN PYG QAR RON RSD RUB RWF SAR SBD SCR SDG SEK SGD SHP SLE SOS SRD SSP STN SVC SYP SZL
    THB TJS TMT TND TOP TRY TTD TWD TZS UAH UGX USD UYU UZS VES VND VUV WST XAF XCD XCG XOF XPF YER ZAR ZMW
    ZWG""".split()
)
"""Active ISO 4217 currency codes (2026). A price in any other code is rejected."""


class InputFailed(Exception):
    """A file could not be imported at all (bad format, missing columns, bad cells).

    ``errors`` lists every :class:`~computeatlas.core.tabular.TableError`; nothing from the
    file is stored.
    """

    def __init__(self, errors: list[TableError]) -> None:
        self.errors = errors
        shown = "\n".join(f"  - {e}" for e in errors[:50])
        more = f"\n  … and {len(errors) - 50} more" if len(errors) > 50 else ""
        super().__init__(f"{len(errors)} input error(s):\n{shown}{more}")


class Observation(BaseModel):
    """One published price at one moment, with what we decided about it.

    Published: ``provider`` (our provider id), ``instance_type`` (the provider's own name),
    ``region`` ('' when not stated), ``pricing`` and ``term``, ``amount`` in ``currency``
    per ``unit`` for ``price_basis``, ``stated_accelerators`` and ``stated_memory_gb``
    (total per instance, GB) and ``stated_per_accelerator`` (a per-accelerator figure
    published beside an instance price) when the source gives them, ``collected`` (UTC),
    ``source_url``/``source_title`` (the provider's page or API), ``via`` (the file or
    collector it came through), ``availability`` and ``raw_extra`` (source fields kept as
    text).

    Decided: ``accelerator``, ``variant`` ('' = not stated) and ``accelerators`` (count
    per instance) from our instance table; ``billing`` of the instance; ``status``,
    ``rules`` (names of the integrity rules that held it) and ``reasons`` (their words);
    ``qualifiers`` (:data:`~computeatlas.core.states.PRICE_MARKS` values);
    ``per_accelerator_hour`` (in ``currency``, derived) and ``run`` (the import run id).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    provider: str = Field(min_length=1)
    instance_type: str = Field(min_length=1)
    region: str = ""
    pricing: PricingKind
    term: str = ""
    amount: float = Field(ge=0)
    currency: str = Field(pattern=r"^[A-Z]{3}$")
    unit: PriceUnit
    price_basis: PriceBasis = PriceBasis.INSTANCE
    stated_accelerators: int | None = Field(None, ge=1)
    stated_memory_gb: float | None = Field(None, ge=0)
    stated_per_accelerator: float | None = Field(None, ge=0)
    collected: dt.datetime
    source_url: str = ""
    source_title: str = ""
    via: str = ""
    availability: str = ""
    note: str = ""
    raw_extra: str = ""
    accelerator: str = ""
    variant: str = ""
    accelerators: int | None = Field(None, ge=1)
    billing: str = ""
    status: Status = Status.ACCEPTED
    rules: tuple[str, ...] = ()
    reasons: tuple[str, ...] = ()
    qualifiers: tuple[str, ...] = ()
    per_accelerator_hour: float | None = None
    run: str = ""

    @field_validator("amount")
    @classmethod
    def _finite(cls, value: float) -> float:
        if not math.isfinite(value):
            raise ValueError("a price must be a finite number")
        return value

    @field_validator("collected")
    @classmethod
    def _utc(cls, value: dt.datetime) -> dt.datetime:
        if value.tzinfo is None:
            raise ValueError("a collection time must say its time zone (write it in UTC, e.g. 2026-03-21T06:19:35Z)")
        return value.astimezone(dt.UTC)

    @property
    def base_instance(self) -> str:
        """The instance name without the :data:`LICENSED_SUFFIX` an importer adds to a
        licence-included price (what the instance table is searched for)."""
        return self.instance_type.removesuffix(LICENSED_SUFFIX)

    def key(self) -> tuple[str, str, str, str, str, str]:
        """What identifies the observation: provider, instance, region, pricing, term, collection time."""
        collected = self.collected
        iso = _ISO.get(collected)
        if iso is None:
            if len(_ISO) >= _ISO_KEPT:
                _ISO.clear()
            iso = _ISO[collected] = collected.isoformat()
        return (self.provider, self.instance_type, self.region, _VALUES[self.pricing], self.term, iso)

    def same_price(self, other: Observation) -> bool:
        """True when ``other`` publishes the same amount, currency, unit and basis."""
        return (self.amount, self.currency, self.unit, self.price_basis) == (other.amount, other.currency, other.unit, other.price_basis)

    @classmethod
    def trusted(cls, values: dict[str, object], fields_set: set[str] | None = None) -> Observation:
        """An observation of ``values`` (field name → value) that are already checked, without
        validating them again: an importer's cell parsers have checked each one (a non-empty
        provider and instance, an amount ≥ 0 and finite, an ISO 4217 code, the enum members,
        a count ≥ 1, an aware UTC time), or they are a validated observation's own with decided
        fields changed. Fields not given take their defaults. A wrong value here is a bug of
        the caller, never of an input file: input goes through the validating constructor or
        the cell parsers. ``fields_set`` (default: the keys of ``values``) is shared, not copied."""
        full = dict(_DEFAULTS)
        full.update(values)
        made = _new(cls)
        _set(made, "__dict__", full)
        _set(made, "__pydantic_fields_set__", set(values) if fields_set is None else fields_set)
        _set(made, "__pydantic_extra__", None)
        _set(made, "__pydantic_private__", None)
        return made

    def replaced(self, **changes: object) -> Observation:
        """A copy with ``changes`` (already-checked values of decided fields: status, rules,
        reasons, qualifiers, placement, ``per_accelerator_hour``, ``run``), not validated again:
        :meth:`model_copy` without its per-copy overhead."""
        full = self.__dict__.copy()
        full.update(changes)
        made = _new(Observation)
        _set(made, "__dict__", full)
        _set(made, "__pydantic_fields_set__", self.__pydantic_fields_set__ | changes.keys())
        _set(made, "__pydantic_extra__", None)
        _set(made, "__pydantic_private__", None)
        return made

    def held(self, rule: str, reason: str) -> Observation:
        """A copy held by ``rule`` with ``reason`` added (rules accumulate; none is lost)."""
        return self.replaced(status=Status.HELD, rules=(*self.rules, rule), reasons=(*self.reasons, reason))

    def qualified(self, qualifier: State) -> Observation:
        """A copy carrying ``qualifier`` (once)."""
        if qualifier.value in self.qualifiers:
            return self
        return self.replaced(qualifiers=(*self.qualifiers, qualifier.value))


_new, _set = object.__new__, object.__setattr__
_VALUES = {kind: kind.value for kind in PricingKind}
_ISO: dict[dt.datetime, str] = {}  # collection times written out (rows collected together share one)
_ISO_KEPT = 65_536
_DEFAULTS = {
    name: field.get_default(call_default_factory=True) if not field.is_required() else None
    for name, field in Observation.model_fields.items()
}
"""Every field in declaration order with its default (None for a required one, which
:meth:`Observation.trusted` is always given): the serialised column order is the fields' order."""


def hourly(obs: Observation, hours_per_month: float = 730.0) -> tuple[float, bool]:
    """The amount per hour for what ``price_basis`` covers, and whether it is derived from a
    longer term (month: ÷ ``hours_per_month``; week: ÷ 168) or shorter unit (second: × 3600).

    >>> hourly(Observation(provider="x", instance_type="y", pricing="monthly", amount=1500, currency="USD",
    ...        unit="month", collected="2026-03-21T00:00:00Z"))
    (2.0547945205479454, True)
    """
    if obs.unit is PriceUnit.HOUR:
        return obs.amount, False
    if obs.unit is PriceUnit.SECOND:
        return obs.amount * 3600, False
    if obs.unit is PriceUnit.WEEK:
        return obs.amount / 168, True
    return obs.amount / hours_per_month, True


def per_accelerator_hour(obs: Observation, hours_per_month: float = 730.0) -> float | None:
    """Price per accelerator-hour in the observation's currency, or None when the row is not
    placed (no accelerator count). Instance prices are divided by ``accelerators``."""
    amount, _ = hourly(obs, hours_per_month)
    if obs.price_basis is PriceBasis.ACCELERATOR:
        return amount
    if not obs.accelerators:
        return None
    return amount / obs.accelerators


__all__ = [
    "ISO_4217",
    "LICENSED_SUFFIX",
    "InputFailed",
    "Observation",
    "PriceBasis",
    "PriceUnit",
    "PricingKind",
    "Status",
    "hourly",
    "per_accelerator_hour",
]

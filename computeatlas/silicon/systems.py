"""Rack-scale systems: nodes, racks, UltraServers and pods built from accelerators.

System figures are totals for the whole node, rack or pod and are never shown as
per-accelerator figures; pages link from the accelerator to the system instead.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator, Mapping
from enum import StrEnum
from typing import Any, ClassVar

from pydantic import Field, ValidationInfo, model_validator

from computeatlas.core.catalog import Problem, RecordKind, missing
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
    today_from,
)
from computeatlas.core.states import State

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


__all__ = [
    "SYSTEM_BASES", "Member", "System", "SystemBandwidth", "SystemCompute", "SystemKind", "SystemMemory", "SystemPower",
    "SystemSpecs",
]  # fmt: skip


SYSTEMS = RecordKind("systems", System, by_name=True)
"""Rack-scale systems: ``data/systems/<id>.toml``, one per file, ordered by name."""


def cross_check(records: Mapping[str, Mapping[str, Any]], files: Mapping[str, str]) -> Iterator[Problem | None]:
    """System vendors and members that do not exist."""
    accelerators = records["accelerators"]
    for ident, system in records["systems"].items():
        yield missing(files, "systems", ident, "vendor", system.vendor, records["vendors"], "vendor in data/vendors/")
        for n, member in enumerate(system.members):
            yield missing(
                files, "systems", ident, f"members.{n}.accelerator", member.accelerator, accelerators, "accelerator in data/accelerators/"
            )

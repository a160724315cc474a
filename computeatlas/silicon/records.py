"""Silicon records: vendors and accelerators with their core specifications."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator, Mapping
from enum import StrEnum
from typing import Any

from pydantic import Field, ValidationInfo, model_validator

from computeatlas.core.catalog import Problem, RecordKind, missing
from computeatlas.core.claims import (
    AreaDetail,
    BandwidthSpec,
    Claim,
    ComputeSpec,
    CountDetail,
    Id,
    LinkSpec,
    MemorySpec,
    NumberFormat,
    PowerSpec,
    Record,
    Source,
    SourceKind,
    TextDetail,
    TextSpec,
    today_from,
)
from computeatlas.core.provenance import CopyForm, MakerHosts, ReadAt, owns, read_at, read_from
from computeatlas.core.states import State

REQUIRED_FORMATS = (NumberFormat.FP8, NumberFormat.BF16)
"""Compute formats every accelerator must give a state for."""


class Workload(StrEnum):
    """What a part is built for."""

    TRAINING = "training"
    INFERENCE = "inference"
    BOTH = "both"


class Availability(StrEnum):
    """How a buyer can get the part."""

    BUY = "buy"
    RENT = "rent"
    CLOUD_ONLY = "cloud-only"


class Specs(Record):
    """The core specifications; each must be present in some state."""

    memory: MemorySpec
    memory_bandwidth: BandwidthSpec
    compute: dict[NumberFormat, ComputeSpec]
    power: PowerSpec
    interconnect: LinkSpec
    software: TextSpec

    @model_validator(mode="after")
    def _required_formats(self) -> Specs:
        missing = [f.value for f in REQUIRED_FORMATS if f not in self.compute]
        if missing:
            raise ValueError(
                f"compute.{'/'.join(missing)} not researched: give every core format a state "
                "(published, not_published, not_applicable, not_comparable)"
            )
        return self


class Details(Record):
    """Optional details; absent ones read "not yet collected"."""

    process: TextDetail | None = None
    transistors: CountDetail | None = None
    die_size: AreaDetail | None = None


class Devices(Record):
    """The devices software sees in one package, where that is more than one.

    An AMD Instinct MI250X is one OAM module holding two graphics compute dies (GCDs);
    ROCm lists each GCD as its own GPU, so a job sees 64 GB, not 128 GB. Per-package
    figures stay as published; :mod:`computeatlas.silicon.derive` divides them by
    ``count`` into labelled per-device figures. ``source`` is the source key stating it.
    """

    count: int = Field(ge=2, description="devices (GPUs) software lists per package")
    name: str = Field(min_length=1, description="what the maker calls each device, e.g. 'GCD'")
    source: Id
    note: str | None = None


class Vendor(Record):
    """A company that designs accelerators, with the hosts it publishes on.

    ``hosts`` lists where the maker publishes beyond the domain of ``url`` (which always
    counts): the one list a source's URL is checked against to call it *maker-hosted*.
    """

    id: Id
    name: str
    url: str = Field(pattern=r"^https?://\S+$")
    hosts: MakerHosts = Field(default_factory=MakerHosts)

    def owns(self, url: str) -> bool:
        """True when ``url`` is on this maker's own hosts (:func:`computeatlas.core.provenance.owns`)."""
        return owns(self.hosts, self.url, url)

    def read_at(self, source: Source) -> ReadAt:
        """Where ``source`` (cited on one of this maker's parts) was read."""
        return read_at(source.kind.value, source.url, source.copy_form, self.hosts, self.url)


class Accelerator(Record):
    """One accelerator as sold or rented: a chip, or a package of several dies.

    Cross-references (``vendor``, ``predecessor``) are checked by the catalog; source keys
    used by specs are checked here against ``sources``.
    """

    id: Id
    name: str = Field(min_length=1)
    vendor: Id
    family: str = Field(min_length=1)
    aliases: list[str] = Field(default_factory=list)
    family_aliases: list[str] = Field(
        default_factory=list,
        description="names that cover several parts (e.g. 'H100' for the SXM and PCIe parts): search lists every part that has one",
    )
    part_numbers: list[str] = Field(default_factory=list, description="the vendor's part or ordering numbers, as printed")
    generation: int | None = Field(None, ge=1)
    predecessor: Id | None = None
    announced: dt.date | None = None
    summary: str = Field(min_length=1)
    workload: Workload
    form_factor: str = Field(min_length=1)
    availability: Availability
    availability_note: str = Field(min_length=1)
    audience: str = Field(min_length=1)
    catch: str = Field(min_length=1)
    economics: str = Field(min_length=1)
    verified: dt.date
    sources: dict[Id, Source] = Field(min_length=1)
    specs: Specs
    details: Details = Field(default_factory=Details)
    devices: Devices | None = Field(None, description="set when software sees one package as several devices (e.g. MI250X: 2 GCDs)")

    @model_validator(mode="after")
    def _check(self, info: ValidationInfo) -> Accelerator:
        today = today_from(info)
        if self.verified > today:
            raise ValueError(f"verified date {self.verified} is in the future (today is {today})")
        if self.announced is not None and self.announced > today:
            raise ValueError(f"announced date {self.announced} is in the future (today is {today})")
        used = {key for _, claim in self.claims() for key in claim.sources_used()}
        if self.devices is not None:
            used.add(self.devices.source)
        undefined = sorted(used - set(self.sources))
        if undefined:
            raise ValueError(f"source id(s) {', '.join(map(repr, undefined))} not defined in [sources]")
        for path, claim in self.claims():
            if isinstance(claim, ComputeSpec) and claim.independent_dense:
                cited = self.sources[claim.source or ""]
                if cited.kind is SourceKind.VENDOR:
                    raise ValueError(
                        f"specs.{path}: independent_dense marks a figure from an independent source, not the maker's ({cited.title})"
                    )
                claim.credit(cited.publisher, self.vendor)  # the maker's name replaces its id once the catalog is cross-checked
            if claim.state is State.NOT_PUBLISHED:
                kind = self.sources[claim.source].kind if claim.source else None
                if kind is not SourceKind.VENDOR:
                    raise ValueError(
                        f"{path}: 'not_published' means the maker's own document lists the part's specifications and omits this one: "
                        f"cite it (source = a 'vendor' source on the maker's site){'' if kind is None else f', not a {kind.value} source'}; "
                        "when no such document was found or read, the state is 'not_sourced'"
                    )
        return self

    def claims(self) -> list[tuple[str, Claim]]:
        """Every spec and detail as ``(field path, claim)``, e.g. ``("compute.FP8", spec)``."""
        s = self.specs
        out: list[tuple[str, Claim]] = [
            ("memory", s.memory),
            ("memory_bandwidth", s.memory_bandwidth),
            *((f"compute.{fmt.value}", c) for fmt, c in sorted(s.compute.items(), key=lambda kv: kv[0].rank)),
            ("power", s.power),
            ("interconnect", s.interconnect),
            ("software", s.software),
        ]
        for name in ("process", "transistors", "die_size"):
            detail = getattr(self.details, name)
            if detail is not None:
                out.append((f"details.{name}", detail))
        return out

    def compute(self, fmt: NumberFormat) -> ComputeSpec | None:
        """The compute spec at ``fmt``, or None when nobody collected it."""
        return self.specs.compute.get(fmt)


_FORMAT_ORDER = {fmt: i for i, fmt in enumerate(NumberFormat)}

__all__ = ["REQUIRED_FORMATS", "Accelerator", "Availability", "Details", "Devices", "Specs", "Vendor", "Workload"]


VENDORS = RecordKind("vendors", Vendor)
"""Vendors: ``data/vendors/<id>.toml``, one per file."""

ACCELERATORS = RecordKind("accelerators", Accelerator, by_name=True, required=True)
"""Accelerators: ``data/accelerators/<id>.toml``, one per file, ordered by name; a data folder has some."""


def cross_check(records: Mapping[str, Mapping[str, Any]], files: Mapping[str, str]) -> Iterator[Problem | None]:
    """Vendors and predecessors that do not exist, aliases that are another part's id, and
    sources whose place of reading does not match the maker's hosts (:func:`_where_read`)."""
    accelerators, vendors = records["accelerators"], records["vendors"]
    ids = {i.casefold(): i for i in accelerators}
    for ident, acc in accelerators.items():
        yield missing(files, "accelerators", ident, "vendor", acc.vendor, vendors, "vendor in data/vendors/")
        if acc.predecessor is not None:
            yield missing(files, "accelerators", ident, "predecessor", acc.predecessor, accelerators, "accelerator in data/accelerators/")
            if acc.predecessor == ident:
                yield Problem(files[f"accelerators/{ident}"], "predecessor", "a part cannot be its own predecessor", ident)
        for alias in acc.aliases:
            if ids.get(alias.casefold(), ident) != ident:
                yield Problem(files[f"accelerators/{ident}"], "aliases", "alias is another accelerator's id", alias)
        maker = vendors.get(acc.vendor)
        if maker is not None:
            yield from _where_read(files[f"accelerators/{ident}"], acc, maker)
            for spec in acc.specs.compute.values():
                if spec.independent_dense:  # "from Yobitel, not from NVIDIA": the maker by its name
                    spec.credit(acc.sources[spec.source or ""].publisher, maker.name)


def _where_read(file: str, acc: Accelerator, maker: Vendor) -> Iterator[Problem]:
    """A vendor source that claims the maker's host (no ``copy_form``) on a host the maker
    does not own, a "copy" that is on the maker's own host, and a figure called not published
    on the strength of a conversion (which may drop what it does not carry)."""
    for key, source in acc.sources.items():
        on_maker_host = maker.owns(source.url)
        if source.kind.value == "vendor" and source.copy_form is None and not on_maker_host:
            yield Problem(
                file,
                f"sources.{key}.url",
                f"a vendor source read at {read_from(source.url)}, which is not one of {maker.name}'s hosts "
                f"(data/vendors/{maker.id}.toml): mark the copy (copy_form = 'verbatim' or 'conversion', copy_of = the maker's URL), "
                "or add the host to the maker's hosts if the maker owns it",
                source.url,
            )
        elif source.copy_form is not None and on_maker_host:
            yield Problem(
                file, f"sources.{key}.copy_form", f"{read_from(source.url)} is {maker.name}'s own host: this is not a copy", source.url
            )
    for path, claim in acc.claims():
        cited = acc.sources[claim.source] if claim.state is State.NOT_PUBLISHED and claim.source else None
        if cited is not None and cited.copy_form is CopyForm.CONVERSION:
            yield Problem(
                file,
                path + ".source" if path.startswith("details.") else f"specs.{path}.source",
                f"'not_published' rests on {read_from(cited.url)}'s conversion of {maker.name}'s document, which may drop what it "
                "does not carry: cite the maker's own copy (or a verbatim one), or use 'not_sourced'",
                claim.source,
            )

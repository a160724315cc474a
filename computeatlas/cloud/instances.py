"""Our own sourced table of instance types: how a provider's instance name is placed.

``data/instances/<provider>.csv`` (RFC 4180, UTF-8, a header row) has exactly the columns
``provider,instance_type,accelerator,variant,accelerators,billing,accelerator_memory_gb,
source_url,source_title,verified,note``, optionally followed by the host's shape
``vcpus,memory_gib`` (:data:`SHAPE_COLUMNS`):

- ``accelerator`` is an accelerator id of the catalog; ``variant`` a key such as
  ``sxm-80gb``, or empty when the provider's documentation does not state it (never
  filled in from the accelerator record);
- ``accelerators`` is the count per instance (TPU slices: chips, not TensorCores);
- ``billing`` is ``all_in`` (the price covers the instance), ``accelerator_component``
  (the accelerators alone, billed beside a host) or ``host_component`` (the host alone);
- ``accelerator_memory_gb`` is the memory of one accelerator (GB, 10⁹ bytes) as the
  provider states it, or empty; ``computeatlas validate`` fails a row whose figure is none
  of the memory sizes its accelerator record publishes (:func:`memory_problem`);
- every row cites the provider's documentation (``source_url``, ``source_title``) and the
  date it was last checked (``verified``);
- ``vcpus`` and ``memory_gib`` are the host's vCPUs and memory (GiB, 2³⁰ bytes) as the
  provider states them, for a provider that bills them apart from the accelerators (Google's
  machine types: vCPU and memory SKUs beside the GPU SKU), or empty; a collector that joins
  such parts into one instance price reads them (:mod:`computeatlas.cloud.collectors.gcp`).

The importer places a price only through this table (:meth:`InstanceTable.find`); a
name the table lacks is held, never guessed from a collector's normalised GPU name. An
Azure size is found under any spelling of its own name (:func:`~computeatlas.cloud.azure_meters.sku_key`:
``ND96isrH100v5`` is ``Standard_ND96isr_H100_v5``), never under another size's.

The catalog loads these files like every other table (``computeatlas validate`` names file,
row and field of a bad cell); :func:`load_instances` reads a folder on its own and raises
:class:`~computeatlas.cloud.observations.InputFailed` naming file, line and column.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping
from enum import StrEnum
from pathlib import Path

from pydantic import (
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from computeatlas.cloud.azure_meters import sku_key
from computeatlas.cloud.observations import InputFailed
from computeatlas.cloud.variants import sole_variants
from computeatlas.core.claims import Claim, Id, Record, today_from
from computeatlas.core.tabular import TableError, read_table
from computeatlas.silicon.catalog import SiliconCatalog

COLUMNS = (
    "provider",
    "instance_type",
    "accelerator",
    "variant",
    "accelerators",
    "billing",
    "accelerator_memory_gb",
    "source_url",
    "source_title",
    "verified",
    "note",
)
"""The columns of an instance-table file, in order."""

SHAPE_COLUMNS = ("vcpus", "memory_gib")
"""The optional columns after :data:`COLUMNS`: the host's shape (a file has both or neither)."""


AZURE = "azure"
"""The provider id whose size names :meth:`InstanceTable.find` also matches folded."""


class Billing(StrEnum):
    """What a price of this instance type covers."""

    ALL_IN = "all_in"
    ACCELERATOR_COMPONENT = "accelerator_component"
    HOST_COMPONENT = "host_component"


class InstanceType(Record):
    """One row of the instance table: a provider's instance name placed on an accelerator."""

    file: str = Field(description="the CSV file the row came from (set by the loader)")
    row: int = Field(ge=2, description="the CSV line number (set by the loader)")
    provider: Id
    instance_type: str = Field(min_length=1)
    accelerator: Id
    variant: str = Field("", pattern=r"^([a-z0-9]+(-[a-z0-9]+)*)?$", description="e.g. 'sxm-80gb'; empty = not stated")
    accelerators: int = Field(ge=1, description="accelerators per instance (TPU: chips)")
    billing: Billing
    accelerator_memory_gb: float | None = Field(None, gt=0, description="memory per accelerator, GB, as the provider states it")
    source_url: str = Field(pattern=r"^https?://\S+$")
    source_title: str = Field(min_length=1)
    verified: dt.date
    note: str = ""
    vcpus: int | None = Field(None, ge=1, description="the host's vCPUs, where billed apart; empty = not used")
    memory_gib: float | None = Field(None, gt=0, description="the host's memory, GiB, where billed apart; empty = not used")

    @field_validator("accelerator_memory_gb", "vcpus", "memory_gib", mode="before")
    @classmethod
    def _blank(cls, value: object) -> object:
        return None if isinstance(value, str) and not value.strip() else value

    @property
    def id(self) -> str:
        """``provider/instance_type``: two rows with the same id are a duplicate."""
        return f"{self.provider}/{self.instance_type}"

    @model_validator(mode="after")
    def _check(self, info: ValidationInfo) -> InstanceType:
        today = today_from(info)
        if self.verified > today:
            raise ValueError(f"verified date {self.verified} is in the future (today is {today})")
        return self


FOUND_KEPT = 65_536
"""How many names :meth:`InstanceTable.find` keeps that are not spelled exactly as a row."""


class InstanceTable:
    """The instance rows by provider and name; :meth:`find` is exact, then case-blind, then
    (Azure only) by the folded size name, where exactly one row folds to it.

    ``sole_variants`` maps the id of every part that exists in one variant only to that
    variant's key (:func:`computeatlas.cloud.variants.sole_variants`): a row of such a part
    needs no variant stated. Empty when the table is read without the catalog.
    """

    def __init__(self, rows: Iterable[InstanceType], sole_variants: Mapping[str, str] | None = None) -> None:
        self.rows = list(rows)
        self.sole_variants = dict(sole_variants or {})
        self._exact = {(r.provider, r.instance_type): r for r in self.rows}
        self._folded = {(r.provider, r.instance_type.casefold()): r for r in self.rows}
        azure: dict[str, list[InstanceType]] = {}
        for r in self.rows:
            if r.provider == AZURE:
                azure.setdefault(sku_key(r.instance_type), []).append(r)
        self._azure = {key: found[0] for key, found in azure.items() if len(found) == 1}
        self._found: dict[tuple[str, str], InstanceType | None] = {}  # names not found exactly, and what they found

    def find(self, provider: str, instance_type: str) -> InstanceType | None:
        """The row for ``instance_type`` at ``provider``, or None when the table lacks it
        (each name is looked up once: the answer is kept, the table never changes)."""
        key = (provider, instance_type)
        found = self._exact.get(key)
        if found is not None:
            return found
        if key in self._found:
            return self._found[key]
        found = self._folded.get((provider, instance_type.casefold()))
        if found is None and provider == AZURE:
            found = self._azure.get(sku_key(instance_type))
        if len(self._found) >= FOUND_KEPT:
            self._found.clear()
        self._found[key] = found
        return found

    def variant(self, row: InstanceType) -> str:
        """The variant key an offer of ``row`` rents: the row's own (stated from the provider's
        documentation), else the part's only variant when it has one, else '' (not stated)."""
        return row.variant or self.sole_variants.get(row.accelerator, "")

    def __len__(self) -> int:
        return len(self.rows)


MEMORY_TOLERANCE = 0.01
"""How far (as a share) a row's memory per accelerator may be from a size its accelerator
record publishes: 1%, for rounding (80 GB against 79.6 GB), never for an instance total."""


def memory_sizes(claim: Claim) -> list[tuple[str, float]]:
    """Every per-accelerator memory size the accelerator record publishes (its value and
    its other claims) as (text as written, GB): a size written in GiB is given twice,
    as its GB equivalent and as the GiB number read as GB (``32 GiB`` matches 34.36 or 32),
    since providers write one for the other. Empty when the record publishes none."""
    if not claim.comparable:
        return []
    sizes: list[tuple[str, float]] = []
    for text, figure in (
        (claim.value, claim.figure),
        *((o.value, f) for o, f in zip(claim.other_claims, claim.other_figures, strict=True)),
    ):
        if figure is None or text is None:
            continue
        sizes.append((text, figure.amount / 1e9))
        if "gib" in text.lower():
            sizes.append((text, figure.amount / 2**30))
    return sizes


def memory_problem(row: InstanceType, claim: Claim) -> str | None:
    """Why ``row``'s ``accelerator_memory_gb`` differs from every memory size of its
    accelerator record (:func:`memory_sizes`, within :data:`MEMORY_TOLERANCE`), or None when
    it matches one, is empty, or the record publishes no size to compare with."""
    sizes = memory_sizes(claim)
    if row.accelerator_memory_gb is None or not sizes:
        return None
    gb = row.accelerator_memory_gb
    if any(abs(gb - size) <= MEMORY_TOLERANCE * size for _, size in sizes):
        return None
    published = ", ".join(dict.fromkeys(text for text, _ in sizes))
    total = (
        " (is it the instance total? the column is per accelerator)"
        if row.accelerators > 1
        and any(abs(gb - row.accelerators * size) <= MEMORY_TOLERANCE * row.accelerators * size for _, size in sizes)
        else ""
    )
    return f"{gb:g} GB per accelerator is not a memory size of {row.accelerator} ({published}){total}"


def instance_table(catalog: SiliconCatalog) -> InstanceTable:
    """The instance table the catalog loaded from ``data/instances/``, with the catalog's
    single-variant parts (:func:`computeatlas.cloud.variants.sole_variants`)."""
    return InstanceTable(catalog.collections.get("instances", {}).values(), sole_variants(catalog.accelerators.values()))


def load_instances(folder: Path, today: dt.date | None = None) -> InstanceTable:
    """Read every ``*.csv`` in ``folder`` (a missing folder is an empty table).

    Raises :class:`InputFailed` listing each bad cell (file, line, column), an unknown or
    missing column, and a duplicate ``provider/instance_type``.
    """
    errors: list[TableError] = []
    rows: list[InstanceType] = []
    seen: dict[str, str] = {}
    for path in sorted(folder.glob("*.csv")) if folder.is_dir() else []:
        try:
            try:
                table = read_table(path, COLUMNS, exact=True)
            except TableError as first:
                try:
                    table = read_table(path, COLUMNS + SHAPE_COLUMNS, exact=True)
                except TableError:
                    raise first from None
            for line, raw in table:
                if isinstance(raw, TableError):
                    errors.append(raw)
                    continue
                try:
                    row = InstanceType.model_validate({**raw, "file": str(path), "row": line}, context={"today": today})
                except ValidationError as exc:
                    for err in exc.errors(include_url=False):
                        column = str(err["loc"][0]) if err["loc"] else "(row)"
                        errors.append(TableError(str(path), line, column, err["msg"].removeprefix("Value error, "), raw.get(column)))
                    continue
                if row.id in seen:
                    errors.append(
                        TableError(str(path), line, "instance_type", f"duplicate instance type, also in {seen[row.id]}", row.instance_type)
                    )
                    continue
                seen[row.id] = f"{path}:{line}"
                rows.append(row)
        except TableError as exc:
            errors.extend(exc.errors)
    if errors:
        raise InputFailed(errors)
    return InstanceTable(rows)


__all__ = [
    "COLUMNS",
    "MEMORY_TOLERANCE",
    "SHAPE_COLUMNS",
    "Billing",
    "InstanceTable",
    "InstanceType",
    "instance_table",
    "load_instances",
    "memory_problem",
    "memory_sizes",
]

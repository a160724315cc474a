"""Variants of a part as offers name them: the form (SXM, PCIe, NVL, OAM) and the memory
per accelerator, so that prices of different variants are never mixed by accident.

The provider's ``variant`` text is read first; what it leaves out is taken from the part's
own record (its form factor and its published per-accelerator memory) and listed in
:attr:`Variant.from_record`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Protocol

from pydantic import BaseModel, Field

from computeatlas.silicon.records import Accelerator

if TYPE_CHECKING:
    from computeatlas.silicon.catalog import SiliconCatalog

_FORMS = (
    ("NVL", re.compile(r"\bNVL\b", re.I)),
    ("SXM", re.compile(r"SXM\d*|\bHGX\b", re.I)),
    ("PCIe", re.compile(r"\bPCIe\b", re.I)),
    ("OAM", re.compile(r"\bOAM\b", re.I)),
)
_MEMORY = re.compile(r"(\d+(?:\.\d+)?)\s*GB\b")


class Listed(Protocol):
    """What :func:`variant_of` reads of an offer (a :class:`computeatlas.cloud.records.Offer`)."""

    variant: str
    accelerators_per_instance: int


class Variant(BaseModel):
    """One variant of a part: form and memory per accelerator (in GB, decimal).

    ``from_record`` lists what the provider did not state and was taken from the part's
    own record (``form``, ``memory``); ``key`` is the URL form of ``label``.
    """

    key: str = Field(description="e.g. 'sxm-80gb'; the value of the 'variant' query parameter")
    label: str = Field(description="e.g. 'SXM 80 GB'")
    form: str | None = None
    memory_gb: float | None = Field(None, description="memory per accelerator in GB (10^9 bytes)")
    from_record: list[str] = Field(default_factory=list)


def _make_variant(form: str | None, memory: tuple[str, float] | None, from_record: list[str]) -> Variant:
    label = " ".join(p for p in (form, memory[0] if memory else None) if p) or "as recorded"
    return Variant(key=variant_key(label), label=label, form=form, memory_gb=memory[1] if memory else None, from_record=from_record)


def variant_key(text: str) -> str:
    """The URL form of a variant label or of what a visitor typed: ``"SXM 80 GB"`` → ``sxm-80gb``."""
    return re.sub(r"[^a-z0-9]+", "-", re.sub(r" (?=[kmgt]i?b\b)", "", text.lower())).strip("-")


def _record_form(acc: Accelerator) -> str | None:
    for form, pattern in _FORMS:
        if pattern.search(acc.form_factor):
            return form
    return None


def _record_memory(acc: Accelerator) -> tuple[str, float] | None:
    """The record's published per-accelerator memory as (text as written, GB)."""
    claim = acc.specs.memory
    if not (claim.comparable and claim.figure and claim.value):
        return None
    found = re.match(r"\s*([\d.]+)\s*([A-Za-z]+)", claim.value)
    text = f"{float(found.group(1)):g} {found.group(2)}" if found else claim.value
    return text, round(claim.figure.amount / 1e9, 3)


def record_variant(acc: Accelerator) -> Variant:
    """The variant the part's own record describes (form factor and published memory)."""
    return _make_variant(_record_form(acc), _record_memory(acc), ["form", "memory"])


def siblings(acc: Accelerator, accelerators: Iterable[Accelerator]) -> list[str]:
    """Ids of the other records sold under a name that also covers ``acc`` (a shared
    ``family_aliases`` entry: "H100" covers the SXM, PCIe and NVL records): the variants a
    provider's plain "H100" could be."""
    words = {w.casefold() for w in acc.family_aliases}
    return [other.id for other in accelerators if other.id != acc.id and words & {w.casefold() for w in other.family_aliases}]


def sole_variants(accelerators: Iterable[Accelerator]) -> dict[str, str]:
    """The variant key of every part that exists in one variant only (no :func:`siblings`):
    ``{accelerator id: record_variant(acc).key}``. An offer placed on such a part needs no
    variant stated: a TPU v5e is a TPU v5e, there is no other form of it to mix it up with."""
    parts = list(accelerators)
    return {acc.id: record_variant(acc).key for acc in parts if not siblings(acc, parts)}


def variant_of(offer: Listed, acc: Accelerator) -> Variant:
    """The variant an offer rents, read from its ``variant`` text.

    The form is SXM (also written SXM5 or HGX), PCIe, NVL or OAM; the memory is the first
    ``N GB`` in the text, divided by ``accelerators_per_instance`` when the text says it
    is per instance. What the text leaves out comes from the part's record.
    """
    text = offer.variant
    form = next((name for name, pattern in _FORMS if pattern.search(text)), None)
    found = _MEMORY.search(text)
    memory: tuple[str, float] | None = None
    if found:
        gb = float(found.group(1))
        if "per instance" in text.lower():
            gb = round(gb / offer.accelerators_per_instance, 3)
        memory = (f"{gb:g} GB", gb)
    from_record: list[str] = []
    if form is None:
        form, from_record = _record_form(acc), from_record + ["form"]
    if memory is None:
        memory, from_record = _record_memory(acc), from_record + ["memory"]
    return _make_variant(form, memory, from_record)


_SOLE: dict[str, dict[str, str]] = {}
"""sole_variants by catalog data version (a catalog is immutable; its version changes with its data)."""


def sole_keys(catalog: SiliconCatalog | None) -> Mapping[str, str]:
    """:func:`~computeatlas.cloud.variants.sole_variants` of ``catalog`` (kept per data version); {} without a catalog."""
    if catalog is None:
        return {}
    found = _SOLE.get(catalog.version)
    if found is None:
        found = _SOLE[catalog.version] = sole_variants(catalog.accelerators.values())
    return found


def rule_variant(variant: str, accelerator: str, sole: Mapping[str, str]) -> str:
    """The variant key the rule reads for a stored ``variant`` ('' = not stated): the stored
    key, or the record's own when the part exists in one variant only (as placement does)."""
    return variant if variant and variant != "not-stated" else sole.get(accelerator, "")


__all__ = ["Listed", "Variant", "record_variant", "rule_variant", "siblings", "sole_keys", "sole_variants", "variant_key", "variant_of"]

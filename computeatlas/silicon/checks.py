"""Checks that catch the classic mistakes in accelerator records.

Two kinds of finding, both a :class:`~computeatlas.core.catalog.Problem` naming the file,
the field and the text:

- **errors** (:func:`cross_check`, run by every load, so ``computeatlas validate`` fails):
  a per-accelerator figure outside the plausible range of its kind (:data:`BOUNDS`, a unit
  slip such as ``"80 TB"`` for 80 GB), the same product under two ids (one name, alias or
  part number in two records), a dense figure equal to the sparse figure beside it;
- **review flags** (:func:`review`, listed by ``computeatlas validate --review``, never a
  failure): a newer generation below its ``predecessor`` on a headline figure, and another
  source's figure that equals our sparse figure (that source may have quoted the sparse
  figure as dense), and two of the maker's own documents that give one spec different
  figures (part, field, both sources and both values). A flag may be right — a cost-down part has less memory — so a person
  reads it; nothing is changed by it.

The plausible ranges are set here, in one place (:data:`BOUNDS`, with
:data:`BOUNDS_BY_FORM_FACTOR` for a kind of part whose figures are honestly outside them).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from computeatlas.core.catalog import Problem
from computeatlas.core.claims import (
    Claim,
    ComputeSpec,
    NumberFormat,
    SourceKind,
)
from computeatlas.core.numbers import same_figure_other_unit
from computeatlas.core.states import State
from computeatlas.silicon.resolve import normal

if TYPE_CHECKING:
    from computeatlas.silicon.catalog import SiliconCatalog
    from computeatlas.silicon.records import Accelerator


@dataclass(frozen=True)
class Bounds:
    """The plausible range of one kind of per-accelerator figure, in canonical units."""

    low: float
    high: float
    shown: str  # the range in words, for messages and docs

    def holds(self, amount: float) -> bool:
        """True when ``amount`` is within the range (ends included)."""
        return self.low <= amount <= self.high


BOUNDS: dict[str, Bounds] = {
    "memory": Bounds(0.1e9, 10e12, "0.1 GB – 10 TB"),
    "memory_bandwidth": Bounds(10e9, 100e12, "10 GB/s – 100 TB/s"),
    "compute": Bounds(1e12, 100e15, "1 TFLOP/s – 100 PFLOP/s (OP/s for integer formats)"),
    "power": Bounds(5, 30e3, "5 W – 30 kW"),
}
"""Plausible per-accelerator figures (per chip or per package), by spec; compute is the
dense figure at any number format. A figure outside is a load error: almost always a unit
slip (TB for GB, PFLOPS for TFLOPS) or a per-rack figure written per chip."""

BOUNDS_BY_FORM_FACTOR: dict[str, dict[str, Bounds]] = {
    "wafer-scale engine": {
        "memory_bandwidth": Bounds(10e9, 100e15, "10 GB/s – 100 PB/s (on-wafer SRAM, per wafer)"),
        "compute": Bounds(1e12, 10e18, "1 TFLOP/s – 10 EFLOP/s (per wafer)"),
        "power": Bounds(5, 100e3, "5 W – 100 kW (per wafer)"),
    },
}
"""Exceptions by ``form_factor``: a wafer-scale engine (Cerebras) is one chip the size of
a wafer, so its per-chip figures are per wafer; its SRAM bandwidth (21 PB/s for WSE-3) is
far above any HBM part's and is no unit slip."""

HEADLINE = ("memory", "memory_bandwidth", "compute.BF16", "compute.FP8")
"""Figures a newer generation is expected not to fall below (:func:`review`)."""

SAME = 0.005
"""Relative difference under which two figures count as the same figure."""


def bounds_for(accelerator: Accelerator, key: str) -> Bounds | None:
    """The plausible range for spec ``key`` (``"memory"``, ``"compute.FP8"``) of ``accelerator``."""
    kind = "compute" if key.startswith("compute.") else key
    return BOUNDS_BY_FORM_FACTOR.get(accelerator.form_factor, {}).get(kind) or BOUNDS.get(kind)


def _same(a: float, b: float) -> bool:
    return abs(a - b) <= SAME * max(abs(a), abs(b))


def _figures(claim: Claim) -> Iterator[tuple[str, str, float]]:
    """``(field suffix, text, amount)`` of every per-accelerator figure a claim states."""
    if claim.state is State.PUBLISHED and claim.figure is not None and claim.comparable:
        yield "value", claim.value or "", claim.figure.amount
    for i, (other, figure) in enumerate(zip(claim.other_claims, claim.other_figures, strict=True)):
        if figure is not None and (other.basis is None or other.basis.per_accelerator):
            yield f"other_claims.{i}.value", other.value or "", figure.amount


def _out_of_bounds(acc: Accelerator, file: str) -> Iterator[Problem]:
    for key, claim in acc.claims():
        bounds = bounds_for(acc, key)
        if bounds is None or key == "interconnect":
            continue
        for suffix, text, amount in _figures(claim):
            if not bounds.holds(amount):
                where = "per wafer" if acc.form_factor in BOUNDS_BY_FORM_FACTOR else "per accelerator"
                yield Problem(
                    file,
                    f"specs.{key}.{suffix}",
                    f"{text} is outside the plausible range {where} ({bounds.shown}): a unit slip, "
                    "or a figure for a node or rack? (ranges: computeatlas/silicon/checks.py BOUNDS)",
                    text,
                )


def _dense_equals_sparse(acc: Accelerator, file: str) -> Iterator[Problem]:
    for fmt, claim in acc.specs.compute.items():
        if claim.figure is not None and claim.sparse_figure is not None and _same(claim.figure.amount, claim.sparse_figure.amount):
            yield Problem(
                file,
                f"specs.compute.{fmt.value}.value",
                f"the dense figure {claim.value} equals the sparse figure {claim.sparse}: is a sparse figure "
                "stored as dense? (record only the sparse figure in 'sparse', with its pattern)",
                claim.value,
            )


NAME_FIELDS = ("name", "aliases", "part_numbers", "family_aliases")


def _duplicates(accelerators: Mapping[str, Accelerator], files: Mapping[str, str]) -> Iterator[Problem]:
    """One name, alias or part number (case and separators ignored) in two records.

    A ``family_aliases`` entry (a word such as "H100" that covers several parts) may be
    shared with other records' family aliases, never with a name, alias or part number.
    """
    seen: dict[str, tuple[str, str, str]] = {}  # normal form → (id, field, text), first holder
    for ident in sorted(accelerators):
        acc = accelerators[ident]
        own: set[str] = set()
        for field in NAME_FIELDS:
            texts = [acc.name] if field == "name" else getattr(acc, field)
            for text in texts:
                key = normal(text)
                if key in own:
                    continue
                own.add(key)
                first = seen.get(key)
                if first is None:
                    seen[key] = (ident, field, text)
                    continue
                if first[1] == "family_aliases" and field == "family_aliases":
                    continue
                yield Problem(
                    files[f"accelerators/{ident}"],
                    field,
                    f"'{text}' also names {first[0]} ({first[1]} '{first[2]}'): the same product under two ids? "
                    "A word that covers several parts goes in family_aliases of each",
                    text,
                )


def cross_check(records: Mapping[str, Mapping[str, Any]], files: Mapping[str, str]) -> Iterator[Problem]:
    """Errors: figures outside :data:`BOUNDS`, one product under two ids, dense equal to sparse."""
    accelerators = records["accelerators"]
    for ident, acc in accelerators.items():
        file = files[f"accelerators/{ident}"]
        yield from _out_of_bounds(acc, file)
        yield from _dense_equals_sparse(acc, file)
    yield from _duplicates(accelerators, files)


def _claim_at(acc: Accelerator, key: str) -> Claim | None:
    if key.startswith("compute."):
        return acc.compute(NumberFormat(key.split(".", 1)[1]))
    return getattr(acc.specs, key)


def _below_predecessor(catalog: SiliconCatalog, acc: Accelerator) -> Iterator[Problem]:
    before = catalog.accelerators.get(acc.predecessor or "")
    if before is None:
        return
    for key in HEADLINE:
        new, old = _claim_at(acc, key), _claim_at(before, key)
        if new is None or old is None or not (new.comparable and old.comparable):
            continue
        assert new.figure is not None and old.figure is not None
        if new.figure.amount < old.figure.amount and not _same(new.figure.amount, old.figure.amount):
            yield Problem(
                catalog.file_of("accelerators", acc.id),
                f"specs.{key}",
                f"{new.value} is below its predecessor {before.id} ({old.value}): right for this part, or a unit, basis or sparsity slip?",
                new.value,
            )


def _other_claim_is_sparse(catalog: SiliconCatalog, acc: Accelerator) -> Iterator[Problem]:
    for fmt, claim in acc.specs.compute.items():
        if not isinstance(claim, ComputeSpec) or claim.sparse_figure is None:
            continue
        for i, (other, figure) in enumerate(zip(claim.other_claims, claim.other_figures, strict=True)):
            explained = "sparse" in (other.note or "").lower()
            if figure is not None and not explained and _same(figure.amount, claim.sparse_figure.amount):
                yield Problem(
                    catalog.file_of("accelerators", acc.id),
                    f"specs.compute.{fmt.value}.other_claims.{i}.value",
                    f"another source's figure {other.value} equals our sparse figure {claim.sparse}: did it quote "
                    "the sparse figure as dense? (say so in its note)",
                    other.value,
                )


def _makers_disagree(catalog: SiliconCatalog, acc: Accelerator) -> Iterator[Problem]:
    """Two of the maker's own documents (both ``kind = "vendor"``) giving one spec different
    figures: the part, the field, both sources and both values, for a person to settle.
    One figure written two ways (equal once parsed, or ``same_figure_other_unit``) is not a disagreement."""
    for path, claim in acc.claims():
        primary = acc.sources.get(claim.source or "")
        if primary is None or primary.kind is not SourceKind.VENDOR:
            continue
        for i, (other, figure) in enumerate(zip(claim.other_claims, claim.other_figures or [None] * len(claim.other_claims), strict=True)):
            cited = acc.sources[other.source]
            said = other.value or other.text
            if cited.kind is not SourceKind.VENDOR or said is None or said == (claim.value or claim.text):
                continue
            if figure is not None and claim.figure is not None and _same(figure.amount, claim.figure.amount):
                continue  # one figure written two ways ("80GB", "80 GB"; "400 GB/s", "3200 Gb/s")
            if other.value is not None and same_figure_other_unit(claim.value, other.value):
                continue
            field = path if path.startswith("details.") else f"specs.{path}"
            yield Problem(
                catalog.file_of("accelerators", acc.id),
                f"{field}.other_claims.{i}",
                f"two {catalog.vendor_of(acc).name} documents disagree on {acc.name} {path}: “{primary.title}” ({claim.source}) "
                f"says {claim.value or claim.text}, “{cited.title}” ({other.source}) says {said}: which one holds?",
                said,
            )


def review(catalog: SiliconCatalog) -> list[Problem]:
    """Review flags for a person to read (not errors): a newer generation below its
    predecessor on a headline figure, another source's figure equal to our sparse one, two of
    the maker's own documents disagreeing on a figure."""
    flags: list[Problem] = []
    for acc in catalog.accelerators.values():
        flags += _below_predecessor(catalog, acc)
        flags += _other_claim_is_sparse(catalog, acc)
        flags += _makers_disagree(catalog, acc)
    return flags


__all__ = ["BOUNDS", "BOUNDS_BY_FORM_FACTOR", "HEADLINE", "Bounds", "bounds_for", "cross_check", "review"]

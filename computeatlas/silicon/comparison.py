"""Aligned comparisons of 2 to 6 accelerators, built from the records on request.

A comparison is never stored: :func:`build` assembles it from the records each time (a
curated record in ``data/comparisons/`` only adds a framing line and a verdict). Rows are
aligned by spec; every cell keeps its state, basis, source and the record's verified date.

Honesty rules, enforced here and nowhere else:

- compute is compared only within one number format and only dense (sparse figures are
  shown beside the dense one, never compared);
- the headline compute row is the lowest-precision floating-point format that *every*
  part publishes as a dense per-accelerator figure (an integer format only when no
  floating-point one is shared); where there is none the comparison says so;
- a ratio appears only where both cells are comparable (published, a number, per chip or
  per package); "not published", "not applicable", "not comparable" and "not yet
  collected" never produce a ratio. Ratios are against the first part (the reference);
- interconnect bandwidths are shown in one unit (GB/s) and get a ratio only against a
  figure its source counts the same way (both per direction, or both bidirectional); a
  figure counted the other way, or whose direction is not stated, gets none, and says why;
- a ratio between figures on different bases (per package ÷ per chip) says so beside the
  number; a package that software sees as several devices (MI250X: 2 GCDs) against a part
  that is one device is never a bare ratio: it is a ratio of per-device figures, the
  package's derived and labelled ("64 GB per GCD"), or, where the spec has none, no ratio
  ("not comparable per device").

Bad input raises :class:`CompareError` with an HTTP-style ``status`` (400, or 404 for an
unknown name) and the closest ids or candidates in ``options``.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable, Sequence

from computeatlas.core.citation import source_view
from computeatlas.core.claims import Claim, LinkSpec, NumberFormat
from computeatlas.core.links import LinkDirection
from computeatlas.core.numbers import canonical_unit, in_row_unit, ratio_text
from computeatlas.core.presentation import dispute_to_weigh, present
from computeatlas.silicon import derive
from computeatlas.silicon.catalog import SiliconCatalog
from computeatlas.silicon.comparison_parts import display_order, resolve_parts
from computeatlas.silicon.comparison_views import (
    CellView,
    ComparisonTable,
    CuratedView,
    HeadlineView,
    PairGap,
    Part,
    RowView,
)
from computeatlas.silicon.curated import pair_id
from computeatlas.silicon.records import Accelerator
from computeatlas.silicon.related import title_of
from computeatlas.silicon.specs import SPEC_LABELS, spec_view

NO_RATIO_ROWS = ("software",)
"""Rows that never carry a ratio (see the module docstring)."""


ROW_UNITS = {"memory": (1e9, "GB"), "memory_bandwidth": (1e12, "TB/s"), "power": (1.0, "W"), "interconnect": (1e9, "GB/s")}
"""The one unit each figure row is shown in (compute: TFLOPS or TOPS), as in the silicon table."""


def _row_unit(key: str) -> tuple[float, str] | None:
    if key.startswith("compute."):
        return 1e12, "TOPS" if NumberFormat(key.split(".", 1)[1]).is_integer else "TFLOPS"
    return ROW_UNITS.get(key)


def with_ratios(row: RowView, reference_name: str | None = None) -> RowView:
    """Mark the first cell as the reference and give every other comparable positive cell its ratio to it, in words."""
    reference = row.cells[0]
    reference.is_reference = True
    if row.key in NO_RATIO_ROWS or not reference.comparable or not reference.amount:
        return row
    for cell in row.cells[1:]:
        if row.key == "interconnect" and cell.comparable and not _same_direction(cell.direction, reference.direction):
            cell.ratio_reason = (
                f"no ratio: this figure is counted {_direction_words(cell.direction)}, "
                f"{reference_name or 'the reference'}'s {_direction_words(reference.direction)}"
            )
        elif cell.comparable and (cell.device or reference.device) and cell.basis_label != reference.basis_label:
            _per_device_ratio(cell, reference, reference_name)
        elif cell.comparable and cell.amount is not None and cell.amount > 0:
            cell.ratio = cell.amount / reference.amount
            words = ratio_text(cell.ratio)
            cell.ratio_display = words + (f" than {reference_name}" if reference_name and words != "same" else "")
            if cell.basis_label and reference.basis_label and cell.basis_label != reference.basis_label:
                cell.ratio_display += f" (per {cell.basis_label} ÷ per {reference.basis_label})"
    return row


def _per_device_ratio(cell: CellView, reference: CellView, reference_name: str | None) -> None:
    """A package that software sees as several devices (MI250X: 2 GCDs) against a part that is
    one device: never a bare ratio of a per-package figure to a per-chip one. The ratio is of
    per-device figures on both sides (the package's derived, labelled one ÷ its count), or,
    where the spec has no per-device figure, there is none and the cell says so."""
    mine = cell.per_device_amount if cell.device else cell.amount
    theirs = reference.per_device_amount if reference.device else reference.amount
    ours, its = (f"per {c.device}, derived" if c.device else f"per {c.basis_label}" for c in (cell, reference))
    if not mine or not theirs:
        cell.ratio_reason = (
            f"not comparable per device: per {cell.basis_label} against per {reference.basis_label}, and no derived per-device figure"
        )
        return
    cell.ratio = mine / theirs
    words = ratio_text(cell.ratio)
    cell.ratio_display = f"{words}{f' than {reference_name}' if reference_name and words != 'same' else ''} per device ({ours} ÷ {its})"


def _same_direction(a: LinkDirection | None, b: LinkDirection | None) -> bool:
    """Two link bandwidths may be divided only when both sources count them the same, stated way."""
    return a is not None and a is b and a is not LinkDirection.NOT_STATED


def _direction_words(direction: LinkDirection | None) -> str:
    words = {LinkDirection.PER_DIRECTION: "per direction", LinkDirection.BIDIRECTIONAL: "in both directions together"}
    return words.get(direction, "without a stated direction") if direction is not None else "without a stated direction"


def _basis_label(acc: Accelerator, basis: str | None) -> str | None:
    devices = acc.devices
    if basis == "package" and devices is not None:
        return f"package of {devices.count} {devices.name}s"
    return basis


def _per_device(acc: Accelerator, key: str) -> tuple[str, float] | None:
    """The derived per-device figure of a multi-device package, in words and in the canonical unit."""
    if acc.devices is None or key not in {k for k, _, _ in derive.PER_DEVICE_KEYS}:
        return None
    fig = derive.per_device(acc, key)
    return (f"{fig.display} (derived)", fig.value) if fig is not None and fig.value is not None else None


_ORDER = {fmt: i for i, fmt in enumerate(NumberFormat)}
"""Lowest precision first (``NumberFormat.rank`` without its list scan)."""

_GROUPS = {"memory": "memory", "memory_bandwidth": "memory", "power": "power", "interconnect": "interconnect", "software": "software"}


CELLS_KEPT = 8192
"""How many spec cells :func:`_spec_cell` keeps, and derived ones :func:`_derived_cell` (a part's cell is the same in every comparison)."""

_cells: dict[tuple[str, str, str], CellView] = {}


def _spec_cell(version: str, acc: Accelerator, claims: dict[str, Claim], key: str) -> CellView:
    """The cell of spec ``key`` of ``acc``, worked out once per data ``version`` (a catalog's
    records never change) and handed out as a copy: :func:`with_ratios` marks its copy."""
    found = _cells.get((version, acc.id, key))
    if found is None:
        if len(_cells) >= CELLS_KEPT:
            _cells.clear()
        found = _cells[(version, acc.id, key)] = _new_spec_cell(acc, claims, key)
    return found.model_copy()


def _new_spec_cell(acc: Accelerator, claims: dict[str, Claim], key: str) -> CellView:
    claim = claims.get(key)
    if claim is None:
        shown = present(None)
        return CellView(
            id=acc.id, state=shown.state, state_label=shown.label, display=shown.display, comparable=False, verified=acc.verified
        )
    spec = spec_view(acc, key, claim)
    shown = present(claim, unit=canonical_unit(key))
    src = spec.primary.source
    display = shown.display
    secondary = None
    direction = claim.direction if isinstance(claim, LinkSpec) else None
    per_device = _per_device(acc, key)
    if (row_unit := _row_unit(key)) is not None and shown.amount is not None:
        display, secondary = in_row_unit(shown.amount, *row_unit, claim.value)
        if direction is not None:  # the link's name, then the figure in the row's unit and how it is counted
            display = " · ".join(x for x in (claim.text, f"{display} ({direction.label})") if x)
        if shown.attribution:  # compared with its label: "989 TFLOPS (from Yobitel, not from NVIDIA)"
            display += f" ({shown.attribution})"
    return CellView(
        id=acc.id,
        state=shown.state,
        state_label=shown.label,
        display=display,
        secondary=secondary,
        dispute_to_weigh=dispute_to_weigh(claim, {k: s.kind.value for k, s in acc.sources.items()}),
        comparable=shown.comparable,
        amount=shown.amount,
        direction=direction,
        basis=spec.primary.basis,
        basis_label=_basis_label(acc, spec.primary.basis) if shown.comparable else None,
        per_device=per_device[0] if per_device else None,
        device=acc.devices.name if acc.devices is not None and spec.primary.basis == "package" else None,
        per_device_amount=per_device[1] if per_device else None,
        source=src,
        vendor_source=bool(src and src.kind == "vendor"),
        attribution=shown.attribution,
        verified=acc.verified,
        note=spec.primary.note,
        published_text=spec.published_text,
        memory_type=spec.memory_type,
        sparse=spec.sparse.display if spec.sparse else None,
        disputed=spec.disputed,
        other_claims=[
            f"{o.display}{' per ' + o.basis if o.basis else ''} ({o.source.publisher if o.source else 'no source'})"
            for o in spec.other_claims
        ],
    )


def _spec_row(version: str, accs: list[Accelerator], claims: dict[str, dict[str, Claim]], key: str) -> RowView:
    fmt = NumberFormat(key.split(".", 1)[1]) if key.startswith("compute.") else None
    unit = canonical_unit(key)
    label = f"Compute, {fmt.value}, dense" if fmt else SPEC_LABELS[key]
    note = (
        "Vendors count link bandwidth differently (one direction or both): every figure is in GB/s and says how it is counted; "
        "a ratio only between figures counted the same way."
        if key == "interconnect"
        else None
    )
    row = RowView(
        key=key,
        label=label,
        group="compute" if fmt else _GROUPS[key],
        number_format=fmt,
        unit=unit,
        note=note,
        cells=[_spec_cell(version, a, claims[a.id], key) for a in accs],
    )
    return with_ratios(row, accs[0].name)


_figures: dict[tuple[str, str, str], tuple[derive.DerivedFigure, CellView]] = {}


def _derived_cell(
    version: str, acc: Accelerator, key: str, make: Callable[[Accelerator], derive.DerivedFigure]
) -> tuple[derive.DerivedFigure, CellView]:
    """The derived figure ``key`` of ``acc`` (``make(acc)``) and its cell, worked out once per
    data ``version`` like :func:`_spec_cell`; the cell is handed out as a copy."""
    found = _figures.get((version, acc.id, key))
    if found is None:
        if len(_figures) >= CELLS_KEPT:
            _figures.clear()
        fig = make(acc)
        cell = CellView(
            id=acc.id,
            state=fig.state,
            state_label=fig.state_label,
            display=fig.display,
            comparable=fig.value is not None,
            amount=fig.value,
            verified=acc.verified,
            worked=fig.worked,
            reason=fig.reason,
        )
        found = _figures[(version, acc.id, key)] = (fig, cell)
    return found[0], found[1].model_copy()


def _derived_row(version: str, accs: list[Accelerator], key: str, make: Callable[[Accelerator], derive.DerivedFigure]) -> RowView:
    made = [_derived_cell(version, acc, key, make) for acc in accs]
    first = made[0][0]
    return with_ratios(
        RowView(
            key=first.key,
            label=first.label,
            group="derived",
            number_format=first.number_format,
            unit=first.unit,
            formula=first.formula,
            note=first.note,
            cells=[cell for _, cell in made],
        ),
        accs[0].name,
    )


def _spec_keys(formats: Sequence[NumberFormat]) -> list[str]:
    """The spec rows of a comparison whose parts publish compute in ``formats`` (in order)."""
    return ["memory", "memory_bandwidth", *(f"compute.{f.value}" for f in formats), "power", "interconnect", "software"]


def _makers(formats: Sequence[NumberFormat]) -> list[tuple[str, Callable[[Accelerator], derive.DerivedFigure]]]:
    """The derived rows at ``formats`` (in order), each row key with the function that makes a part's figure."""
    makers: list[tuple[str, Callable[[Accelerator], derive.DerivedFigure]]] = [("bandwidth_per_capacity", derive.bandwidth_per_capacity)]
    for name, figure in (
        ("ridge_point", derive.ridge_point),
        ("compute_per_watt", derive.compute_per_watt),
        ("largest_model", derive.largest_model),
    ):
        makers += [(f"{name}.{f.value}", functools.partial(figure, fmt=f)) for f in formats]
    return makers


def own_cells(catalog: SiliconCatalog, ident: str) -> dict[str, CellView]:
    """Accelerator ``ident``'s cell in every spec and derived row any comparison can have
    (every number format), by row key: the cells :func:`build` puts in its rows, before
    :func:`with_ratios` marks them (``KeyError`` for an unknown id)."""
    acc = catalog.accelerators[ident]
    claims = dict(acc.claims())
    formats = sorted(NumberFormat, key=_ORDER.__getitem__)
    cells = {key: _spec_cell(catalog.version, acc, claims, key) for key in _spec_keys(formats)}
    return cells | {key: _derived_cell(catalog.version, acc, key, make)[1] for key, make in _makers(formats)}


def shared_formats(accs: Sequence[Accelerator]) -> list[NumberFormat]:
    """Number formats every part in ``accs`` publishes as a dense per-accelerator figure, lowest precision first."""
    common = [f for f in NumberFormat if all((c := a.compute(f)) is not None and c.comparable for a in accs)]
    return sorted(common, key=_ORDER.__getitem__)


def headline_format(accs: Sequence[Accelerator]) -> NumberFormat | None:
    """The headline format: the lowest-precision floating-point format in :func:`shared_formats`,
    else the lowest integer one, else None."""
    common = shared_formats(accs)
    floats = [f for f in common if not f.is_integer]
    return (floats or common)[0] if common else None


def _published_formats(acc: Accelerator) -> str:
    fmts = [f.value for f in sorted(acc.specs.compute, key=_ORDER.__getitem__) if acc.specs.compute[f].comparable]
    return ", ".join(fmts) if fmts else "none"


def build(catalog: SiliconCatalog, names: Sequence[str]) -> ComparisonTable:
    """Build the comparison of ``names`` (2–6 ids, aliases or names) from the records.

    Work is proportional to the number of parts, not to the catalog. Raises
    :class:`CompareError` for bad input (see :func:`resolve_parts`).
    """
    ids = display_order(catalog, resolve_parts(catalog, names))
    accs = [catalog.accelerators[i] for i in ids]
    formats = sorted({f for a in accs for f in a.specs.compute}, key=_ORDER.__getitem__)
    keys = _spec_keys(formats)
    claims = {a.id: dict(a.claims()) for a in accs}
    rows = [_spec_row(catalog.version, accs, claims, key) for key in keys]
    by_key = {row.key: row for row in rows}

    fmt = headline_format(accs)
    names_of = {a.id: a.name for a in accs}
    if fmt is not None:
        integer = " (no floating-point format is shared)" if fmt.is_integer else ""
        headline = HeadlineView(
            number_format=fmt,
            row=by_key[f"compute.{fmt.value}"],
            text=f"Compute at {fmt.value}, dense: the lowest-precision number format every part here publishes as a dense per-accelerator figure{integer}."
            + "".join(f" {names_of[c.id]}'s figure is {c.attribution}." for c in by_key[f"compute.{fmt.value}"].cells if c.attribution),
        )
    else:
        each = "; ".join(f"{a.name}: {_published_formats(a)}" for a in accs)
        headline = HeadlineView(
            number_format=None,
            text="No headline compute comparison: these parts share no number format that all publish as a dense "
            f"per-accelerator figure, and we do not set one format beside another. Dense per-accelerator formats published — {each}.",
        )
    gaps = []
    for a, b in itertools.combinations(accs, 2):
        if not shared_formats([a, b]):
            gaps.append(
                PairGap(
                    a=a.id, b=b.id, text=f"{a.name} and {b.name} share no number format both publish as a dense per-accelerator figure."
                )
            )

    derived_formats = sorted({f for f in (fmt, NumberFormat.FP8, NumberFormat.BF16) if f is not None}, key=_ORDER.__getitem__)
    derived = [_derived_row(catalog.version, accs, key, make) for key, make in _makers(derived_formats)]

    curated = None
    if len(ids) == 2 and (record := catalog.comparisons.get(pair_id(*ids))) is not None:
        curated = CuratedView(
            id=record.id,
            title=title_of(catalog, record),
            framing=record.framing,
            verdict=record.verdict,
            verified=record.verified,
            sources=[source_view(k, s) for k, s in record.sources.items()],
        )
    return ComparisonTable(
        ids=ids,
        title=" vs ".join(names_of[i] for i in ids),
        parts=[
            Part(id=a.id, name=a.name, vendor=catalog.vendor_of(a).name, availability=a.availability.value, verified=a.verified)
            for a in accs
        ],
        reference=ids[0],
        curated=curated,
        headline=headline,
        gaps=gaps,
        rows=rows,
        derived=derived,
        data_version=catalog.version,
    )


__all__ = ["build", "headline_format", "own_cells", "shared_formats", "with_ratios"]

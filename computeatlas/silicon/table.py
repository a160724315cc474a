"""The silicon table: columns, filters and sorting shared by ``/silicon/``, the API and the CLI.

Query parameters (all optional, shareable in a URL):

- ``sort``: a column key, ``-key`` for descending. Cells that are not a published
  per-accelerator number ("not published", "not applicable", "not comparable") sort
  after every number in both directions.
- ``vendor``, ``availability``, ``workload``, ``form_factor``: exact values, several
  separated by commas.
- ``{column}_min`` / ``{column}_max`` for numeric columns: a number in the column's
  display unit (``memory_min=80`` means 80 GB) or a figure with its unit
  (``memory_min=80 GB``). A part whose figure is not published does not match a range.

Bad parameters raise :class:`QueryError` naming the parameter and the reason.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from computeatlas.core.catalog import Catalog
from computeatlas.core.claims import NumberFormat
from computeatlas.core.presentation import Shown, page_text
from computeatlas.core.units import Dimension, UnitError, parse
from computeatlas.silicon import columns as model
from computeatlas.silicon.records import Accelerator


class QueryError(ValueError):
    """A bad table query: ``param`` is the parameter, ``reason`` says why."""

    def __init__(self, param: str, reason: str) -> None:
        self.param = param
        self.reason = reason
        super().__init__(f"query parameter '{param}': {reason}")


@dataclass(frozen=True, slots=True)
class Cell:
    """One table cell: a number in the column's display unit, or a state, or text.

    ``stated`` is the figure as the source wrote it where its unit is not the column's
    (``144 GiB`` beside 154.618822656 GB).
    """

    text: str
    number: float | None = None
    state: Shown | None = None
    basis: str | None = None
    disputed: bool = False
    stated: str | None = None


@dataclass(frozen=True, slots=True)
class Column:
    """A table column: text from ``get``, or a figure of the one column model (:mod:`computeatlas.silicon.columns`)."""

    key: str
    label: str
    get: Callable[[Accelerator], str] | None = None
    figure: model.Figure | None = None

    @property
    def numeric(self) -> bool:
        """True for columns holding figures (sortable by value, filterable by range)."""
        return self.figure is not None

    @property
    def unit(self) -> str | None:
        """The display unit of a figure column (``"GB"``)."""
        return self.figure.unit if self.figure else None

    @property
    def scale(self) -> float:
        """Canonical units per display unit."""
        return self.figure.scale if self.figure else 1.0

    @property
    def dimension(self) -> Dimension | None:
        """The dimension a range filter written with a unit is read as."""
        return self.figure.dimension if self.figure else None

    @property
    def heading(self) -> str:
        """The label with its display unit, e.g. ``"Memory (GB)"``."""
        return f"{self.label} ({self.unit})" if self.unit else self.label

    def cell(self, acc: Accelerator) -> Cell:
        """The cell of ``acc`` in this column: the same number (rounded once) the exports hold."""
        if self.figure is None:
            assert self.get is not None
            return Cell(text=self.get(acc))
        shown = self.figure.present(acc)
        number = shown.scaled(self.figure.scale)
        return Cell(
            text=page_text(number) if number is not None else shown.display,
            number=number,
            state=shown.state,
            basis=shown.basis if number is not None else None,
            disputed=shown.disputed,
            stated=shown.stated if shown.stated and not shown.stated.endswith(f" {self.figure.unit}") else None,
        )


COLUMNS: tuple[Column, ...] = (
    Column("name", "Accelerator", lambda a: a.name),
    Column("vendor", "Vendor", lambda a: a.vendor),
    Column("memory", "Memory", figure=model.MEMORY),
    Column("memory_bandwidth", "Memory bandwidth", figure=model.BANDWIDTH),
    Column("fp8", "FP8 dense", figure=model.DENSE[NumberFormat.FP8]),
    Column("bf16", "BF16 dense", figure=model.DENSE[NumberFormat.BF16]),
    Column("fp4", "FP4 dense", figure=model.DENSE[NumberFormat.FP4]),
    Column("power", "Power", figure=model.POWER),
    Column("availability", "Availability", lambda a: a.availability.value),
    Column("workload", "Workload", lambda a: a.workload.value),
    Column("form_factor", "Form factor", lambda a: a.form_factor),
)
BY_KEY = {c.key: c for c in COLUMNS}
CHOICE_FILTERS = ("vendor", "availability", "workload", "form_factor")
RANGE_PARAMS = {f"{c.key}_{end}": c for c in COLUMNS if c.numeric for end in ("min", "max")}


@dataclass(frozen=True)
class Query:
    """A parsed table query: sort column and direction, choice filters, numeric ranges."""

    sort: str = "name"
    descending: bool = False
    choices: Mapping[str, frozenset[str]] = field(default_factory=dict)
    ranges: Mapping[str, tuple[float | None, float | None]] = field(default_factory=dict)

    def params(self) -> dict[str, str]:
        """The query as URL parameters (round-trips through :func:`parse_query`)."""
        out = {"sort": ("-" if self.descending else "") + self.sort} if (self.sort, self.descending) != ("name", False) else {}
        for key, values in self.choices.items():
            out[key] = ",".join(sorted(values))
        for key, (low, high) in self.ranges.items():
            if low is not None:
                out[f"{key}_min"] = f"{low:g}"
            if high is not None:
                out[f"{key}_max"] = f"{high:g}"
        return out


def _number(param: str, raw: str, column: Column) -> float:
    text = raw.strip()
    try:
        number = float(text)
    except ValueError:
        pass
    else:
        if not math.isfinite(number):
            raise QueryError(param, f"{text!r} is not a finite number")
        return number
    assert column.dimension is not None
    try:
        return parse(text, column.dimension).amount / column.scale
    except UnitError as exc:
        raise QueryError(param, f"{exc}; or give a plain number in {column.unit}") from None


def parse_query(params: Mapping[str, str], catalog: Catalog | None = None) -> Query:
    """Parse URL-style parameters into a :class:`Query`; raise :class:`QueryError` on any bad one."""
    sort, descending = "name", False
    choices: dict[str, frozenset[str]] = {}
    ranges: dict[str, tuple[float | None, float | None]] = {}
    for param, raw in params.items():
        if len(raw) > 200:
            raise QueryError(param, "value is too long")
        if param == "sort":
            key = raw.strip()
            descending = key.startswith("-")
            sort = key.lstrip("-")
            if sort not in BY_KEY:
                raise QueryError("sort", f"no column '{sort}'; choose one of {', '.join(BY_KEY)}")
        elif param in CHOICE_FILTERS:
            values = frozenset(v.strip() for v in raw.split(",") if v.strip())
            if not values:
                continue
            if catalog is not None:
                known = {BY_KEY[param].cell(a).text for a in catalog.accelerators.values()}
                unknown = sorted(values - known)
                if unknown:
                    raise QueryError(param, f"no part has {param} {', '.join(map(repr, unknown))}; known: {', '.join(sorted(known))}")
            choices[param] = values
        elif param in RANGE_PARAMS:
            column = RANGE_PARAMS[param]
            if not raw.strip():
                continue
            number = _number(param, raw, column)
            if number < 0:
                raise QueryError(param, "must not be negative")
            low, high = ranges.get(column.key, (None, None))
            ranges[column.key] = (number, high) if param.endswith("_min") else (low, number)
        else:
            known = ["sort", *CHOICE_FILTERS, *RANGE_PARAMS]
            raise QueryError(param, f"unknown parameter; known: {', '.join(known)}")
    for key, (low, high) in ranges.items():
        if low is not None and high is not None and low > high:
            raise QueryError(f"{key}_min", f"is above {key}_max ({low:g} > {high:g})")
    return Query(sort=sort, descending=descending, choices=choices, ranges=ranges)


@dataclass(frozen=True)
class Row:
    """One accelerator's row: the record and its cells by column key."""

    accelerator: Accelerator
    cells: Mapping[str, Cell]


def rows(catalog: Catalog, query: Query | None = None) -> list[Row]:
    """Filter and sort the catalog's accelerators by ``query``; non-numbers sort last both ways."""
    query = query or Query()
    out: list[Row] = []
    for acc in catalog.accelerators.values():
        cells = {c.key: c.cell(acc) for c in COLUMNS}
        if any(cells[k].text not in v for k, v in query.choices.items()):
            continue
        if not all(_in_range(cells[k].number, lo, hi) for k, (lo, hi) in query.ranges.items()):
            continue
        out.append(Row(acc, cells))
    column = BY_KEY[query.sort]
    if column.numeric:
        numbered = [r for r in out if r.cells[column.key].number is not None]
        rest = [r for r in out if r.cells[column.key].number is None]
        sign = -1 if query.descending else 1  # ties stay in name order either way
        numbered.sort(key=lambda r: (sign * r.cells[column.key].number, r.accelerator.name.lower()))
        rest.sort(key=lambda r: (r.cells[column.key].text, r.accelerator.name.lower()))
        return numbered + rest
    out.sort(key=lambda r: (r.cells[column.key].text.lower(), r.accelerator.name.lower()), reverse=query.descending)
    return out


def _in_range(number: float | None, low: float | None, high: float | None) -> bool:
    if number is None:
        return False
    return (low is None or number >= low) and (high is None or number <= high)


def choices(catalog: Catalog, key: str) -> Sequence[str]:
    """The distinct values of a choice column across the catalog, sorted."""
    return sorted({BY_KEY[key].cell(a).text for a in catalog.accelerators.values()})

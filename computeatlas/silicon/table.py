"""The silicon table: columns, filters and sorting shared by ``/silicon/``, the API and the CLI.

Query parameters (all optional, shareable in a URL):

- ``columns``: the column keys shown, comma-separated (the accelerator's name is always
  shown; default :data:`DEFAULT_COLUMNS`, every column but the vendor's).
- ``sort``: a column key, ``-key`` for descending. Cells that are not a published
  per-accelerator number ("not published", "not applicable", "not comparable") sort
  after every number in both directions.
- ``vendor``, ``availability``, ``workload``, ``form_factor``: exact values, several
  separated by commas.
- ``{column}_min`` / ``{column}_max`` for numeric columns: a number in the column's
  display unit (``memory_min=80`` means 80 GB) or a figure with one of a fixed set of units
  (``memory_min=80 GB``, see :mod:`computeatlas.core.amounts`; never pint's parser). A
  part whose figure is not published does not match a range.

Unknown parameters are ignored. Bad parameters raise :class:`QueryError` naming the
parameter and the reason.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Annotated, Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PlainValidator,
    ValidationError,
    WithJsonSchema,
    create_model,
)

from computeatlas.core.amounts import MAX_LENGTH as AMOUNT_MAX_LENGTH
from computeatlas.core.amounts import UNITS, AmountError, parse_amount
from computeatlas.core.claims import (
    Claim,
    NumberFormat,
)
from computeatlas.core.errors import ParamError
from computeatlas.core.numbers import figure_text, page_text, stated_in_other_unit
from computeatlas.core.presentation import dispute_to_weigh
from computeatlas.core.states import State
from computeatlas.core.units import Dimension
from computeatlas.silicon import columns as model
from computeatlas.silicon.catalog import SiliconCatalog
from computeatlas.silicon.records import Accelerator


class QueryError(ParamError):
    """A bad table query (a 400): ``param`` is the parameter, ``reason`` says why."""


@dataclass(frozen=True, slots=True)
class Cell:
    """One table cell: a number in the column's display unit, or a state, or text.

    ``text`` is what the page shows (:func:`~computeatlas.core.presentation.page_text`):
    the figure as its source stated it where that unit is not a decimal prefix of the
    column's (``144 GiB`` in a GB column), with ``converted`` beside it (``155 GB``);
    ``stated`` is the source's own text wherever its unit is not the column's. ``disputed``
    marks a disagreement a buyer must weigh
    (:func:`~computeatlas.core.presentation.dispute_to_weigh`). ``note`` qualifies a cell
    (the date of a price).
    """

    text: str
    number: float | None = None
    state: State | None = None
    basis: str | None = None
    disputed: bool = False
    stated: str | None = None
    converted: str | None = None
    note: str | None = None
    url: str | None = None


@dataclass(frozen=True, slots=True)
class Column:
    """A table column: text from ``get``, or a figure of the one column model (:mod:`computeatlas.silicon.columns`)."""

    key: str
    label: str
    get: Callable[[Accelerator], str] | None = None
    figure: model.Figure | None = None
    claim: Callable[[Accelerator], Claim | None] | None = None
    external: bool = False

    @property
    def numeric(self) -> bool:
        """True for columns holding figures from the records (sortable by value, filterable by range)."""
        return self.figure is not None

    @property
    def sortable_by_number(self) -> bool:
        """True for columns sorted by their numbers: figures, and numbers given from outside the records (price)."""
        return self.figure is not None or self.external

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
            if self.get is None:  # a column read from outside the records: see rows(given=...)
                return Cell(text="")
            return Cell(text=self.get(acc))
        shown = self.figure.present(acc)
        number = shown.scaled(self.figure.scale)
        unit = self.figure.unit
        stated = shown.stated if shown.stated and not shown.stated.endswith(f" {unit}") else None
        other_unit = number is not None and stated is not None and stated_in_other_unit(stated, unit)
        if number is None:
            text = shown.display
        elif other_unit:
            text = figure_text(stated or "")
        else:
            text = page_text(number, stated, unit)
        kinds = {k: s.kind.value for k, s in acc.sources.items()}
        return Cell(
            text=text,
            number=number,
            state=shown.state,
            basis=shown.basis if number is not None else None,
            disputed=dispute_to_weigh(self.claim(acc), kinds) if self.claim else shown.disputed,
            stated=stated,
            converted=f"{page_text(number, stated, unit)} {unit}" if other_unit and number is not None else None,
        )


COLUMNS: tuple[Column, ...] = (
    Column("name", "Accelerator", lambda a: a.name),
    Column("vendor", "Vendor", lambda a: a.vendor),
    Column("memory", "Memory", figure=model.MEMORY, claim=lambda a: a.specs.memory),
    Column("memory_bandwidth", "Memory bandwidth", figure=model.BANDWIDTH, claim=lambda a: a.specs.memory_bandwidth),
    Column("fp8", "FP8 dense", figure=model.DENSE[NumberFormat.FP8], claim=lambda a: a.compute(NumberFormat.FP8)),
    Column("bf16", "BF16 dense", figure=model.DENSE[NumberFormat.BF16], claim=lambda a: a.compute(NumberFormat.BF16)),
    Column("fp4", "FP4 dense", figure=model.DENSE[NumberFormat.FP4], claim=lambda a: a.compute(NumberFormat.FP4)),
    Column("power", "Power", figure=model.POWER, claim=lambda a: a.specs.power),
    Column("price", "Cheapest on-demand, USD per hour", external=True),
    Column("availability", "Availability", lambda a: a.availability.value),
    Column("workload", "Workload", lambda a: a.workload.value),
    Column("form_factor", "Form factor", lambda a: a.form_factor),
)
BY_KEY = {c.key: c for c in COLUMNS}
CHOICE_FILTERS = ("vendor", "availability", "workload", "form_factor")
RANGE_PARAMS = {f"{c.key}_{end}": c for c in COLUMNS if c.numeric for end in ("min", "max")}
DEFAULT_COLUMNS = tuple(c.key for c in COLUMNS if c.key != "vendor")
"""The columns shown when ``columns`` is not given: every one but the vendor (the name says it)."""


@dataclass(frozen=True)
class Query:
    """A parsed table query: sort column and direction, choice filters, numeric ranges, and the
    keys of the columns shown (in table order, the name's always among them)."""

    sort: str = "name"
    descending: bool = False
    choices: Mapping[str, frozenset[str]] = field(default_factory=dict)
    ranges: Mapping[str, tuple[float | None, float | None]] = field(default_factory=dict)
    columns: tuple[str, ...] = DEFAULT_COLUMNS

    @property
    def filtered(self) -> bool:
        """True when a choice filter or a range leaves rows out."""
        return bool(self.choices or self.ranges)

    def params(self) -> dict[str, str]:
        """The query as URL parameters (round-trips through :func:`parse_query`)."""
        out = {"sort": ("-" if self.descending else "") + self.sort} if (self.sort, self.descending) != ("name", False) else {}
        if self.columns != DEFAULT_COLUMNS:
            out["columns"] = ",".join(self.columns)
        for key, values in self.choices.items():
            out[key] = ",".join(sorted(values))
        for key, (low, high) in self.ranges.items():
            if low is not None:
                out[f"{key}_min"] = f"{low:g}"
            if high is not None:
                out[f"{key}_max"] = f"{high:g}"
        return out


MAX_VALUE = 200
"""The longest value a table parameter may have, in characters."""


def _amount_validator(param: str, column: Column) -> Callable[[object], float | None]:
    """The validator of range parameter ``param``: a number in ``column``'s display unit, or None when blank."""
    assert column.dimension is not None and column.unit is not None
    dimension, unit = column.dimension, column.unit

    def check(value: object) -> float | None:
        if value is None:
            return None
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            text = repr(float(value))
        elif isinstance(value, str):
            text = value
        else:
            raise ValueError(f"expected text such as '80 {unit}'")
        if not text.strip():
            return None
        try:
            number = parse_amount(text, dimension, unit) / column.scale
        except AmountError as exc:
            raise ValueError(str(exc)) from None
        if number < 0:
            raise ValueError("must not be negative")
        return number

    return check


def _range_field(param: str, column: Column) -> Any:
    end = "lower" if param.endswith("_min") else "upper"
    description = (
        f"{end} bound of {column.label.lower()}: a number in {column.unit} "
        f"(e.g. {param}=80) or a number and a unit, one of {', '.join(UNITS[column.dimension])}"  # type: ignore[index]
    )
    kind = Annotated[
        float | None,
        PlainValidator(_amount_validator(param, column)),
        WithJsonSchema({"type": "string", "maxLength": AMOUNT_MAX_LENGTH, "description": description}),  # what parse_amount accepts
    ]
    return (kind, Field(None, description=description))


def _choice_field(key: str, description: str) -> Any:
    return (str | None, Field(None, max_length=MAX_VALUE, description=description))


TableParams: type[BaseModel] = create_model(
    "TableParams",
    __config__=ConfigDict(extra="ignore", frozen=True, hide_input_in_errors=True),
    __doc__="The query parameters of the silicon table (``/silicon/``, ``/api/accelerators``, ``computeatlas list``). "
    "Unknown parameters are ignored.",
    sort=(str | None, Field(None, max_length=MAX_VALUE, description="column key, '-key' for descending: " + ", ".join(BY_KEY))),
    columns=(
        str | None,
        Field(None, max_length=MAX_VALUE, description="the columns shown, comma-separated (the name always is): " + ", ".join(BY_KEY)),
    ),
    vendor=_choice_field("vendor", "vendor id(s), comma-separated"),
    availability=_choice_field("availability", "buy, rent, cloud-only (comma-separated)"),
    workload=_choice_field("workload", "training, inference, both (comma-separated)"),
    form_factor=_choice_field("form_factor", "form factor(s), comma-separated"),
    **{param: _range_field(param, column) for param, column in RANGE_PARAMS.items()},
)
"""The declared parameters of the table, as a pydantic model (so they appear in OpenAPI).

Range parameters (``memory_min`` …) are parsed strictly by :func:`computeatlas.core.amounts.parse_amount`
(a decimal number and an optional unit from a fixed table), never by pint's expression parser;
each holds a number in its column's display unit."""


def _error(exc: ValidationError) -> QueryError:
    first = exc.errors()[0]
    param = str(first["loc"][0]) if first["loc"] else "query"
    reason = first["msg"].removeprefix("Value error, ")
    return QueryError(param, reason)


def parse_query(params: Mapping[str, str] | BaseModel, catalog: SiliconCatalog | None = None) -> Query:
    """Parse the table's parameters (URL-style strings, or :data:`TableParams` already
    validated) into a :class:`Query`; raise :class:`QueryError` naming a bad one.

    Unknown parameters are ignored. Choice values must occur in ``catalog`` when one is given.
    """
    if not isinstance(params, BaseModel):
        try:
            params = TableParams.model_validate(dict(params))
        except ValidationError as exc:
            raise _error(exc) from None
    given = params.model_dump(exclude_none=True)
    sort, descending = "name", False
    choices: dict[str, frozenset[str]] = {}
    ranges: dict[str, tuple[float | None, float | None]] = {}
    if given.get("sort", "").strip():
        key = given["sort"].strip()
        descending = key.startswith("-")
        sort = key.lstrip("-")
        if sort not in BY_KEY:
            raise QueryError("sort", f"no column '{sort}'; choose one of {', '.join(BY_KEY)}")
    columns = _columns(given.get("columns", ""))
    for param in CHOICE_FILTERS:
        values = frozenset(v.strip() for v in given.get(param, "").split(",") if v.strip())
        if not values:
            continue
        if catalog is not None:
            known = {BY_KEY[param].cell(a).text for a in catalog.accelerators.values()}
            unknown = sorted(values - known)
            if unknown:
                raise QueryError(param, f"no part has {param} {', '.join(map(repr, unknown))}; known: {', '.join(sorted(known))}")
        choices[param] = values
    for param, column in RANGE_PARAMS.items():
        number = given.get(param)
        if number is None:
            continue
        low, high = ranges.get(column.key, (None, None))
        ranges[column.key] = (number, high) if param.endswith("_min") else (low, number)
    for key, (low, high) in ranges.items():
        if low is not None and high is not None and low > high:
            raise QueryError(f"{key}_min", f"is above {key}_max ({low:g} > {high:g})")
    return Query(sort=sort, descending=descending, choices=choices, ranges=ranges, columns=columns)


def _columns(text: str) -> tuple[str, ...]:
    """The column keys of a ``columns`` value in table order, the name first; the default
    when blank; a :class:`QueryError` naming each unknown key and the allowed ones."""
    asked = {v.strip() for v in text.split(",") if v.strip()}
    if not asked:
        return DEFAULT_COLUMNS
    unknown = sorted(asked - set(BY_KEY))
    if unknown:
        raise QueryError("columns", f"no column {', '.join(map(repr, unknown))}; choose from {', '.join(BY_KEY)}")
    return tuple(k for k in BY_KEY if k in asked or k == "name")


@dataclass(frozen=True)
class Row:
    """One accelerator's row: the record and its cells by column key."""

    accelerator: Accelerator
    cells: Mapping[str, Cell]


def rows(catalog: SiliconCatalog, query: Query | None = None, given: Mapping[str, Mapping[str, Cell]] | None = None) -> list[Row]:
    """Filter and sort the catalog's accelerators by ``query``; non-numbers sort last both ways.

    ``given`` holds the cells of the columns read from outside the records, by column key
    then accelerator id (the ``price`` column: the cheapest current on-demand price); an
    accelerator missing there gets an empty cell in that column, which sorts last.
    """
    query = query or Query()
    given = given or {}
    out: list[Row] = []
    for acc in catalog.accelerators.values():
        cells = {c.key: given.get(c.key, {}).get(acc.id, Cell(text="")) if c.external else c.cell(acc) for c in COLUMNS}
        if any(cells[k].text not in v for k, v in query.choices.items()):
            continue
        if not all(_in_range(cells[k].number, lo, hi) for k, (lo, hi) in query.ranges.items()):
            continue
        out.append(Row(acc, cells))
    column = BY_KEY[query.sort]
    if column.sortable_by_number:
        numbered = [r for r in out if r.cells[column.key].number is not None]
        rest = [r for r in out if r.cells[column.key].number is None]
        sign = -1 if query.descending else 1  # ties stay in name order either way
        numbered.sort(key=lambda r: (sign * (r.cells[column.key].number or 0.0), r.accelerator.name.lower()))
        rest.sort(key=lambda r: (r.cells[column.key].text, r.accelerator.name.lower()))
        return numbered + rest
    out.sort(key=lambda r: (r.cells[column.key].text.lower(), r.accelerator.name.lower()), reverse=query.descending)
    return out


PRICE_UNIT = "USD per accelerator-hour"
"""The unit of the ``price`` column's numbers (the cheapest current on-demand price)."""


def json_cell(column: Column, cell: Cell) -> object:
    """A cell as JSON (the CLI's ``list --json``): a figure or price as a number (``None``
    when the part has none) with its unit, state and the text the table shows; any other
    cell as its text."""
    if not column.sortable_by_number:
        return cell.text
    return {"number": cell.number, "unit": column.unit or PRICE_UNIT, "state": cell.state.value if cell.state else None, "text": cell.text}


def _in_range(number: float | None, low: float | None, high: float | None) -> bool:
    if number is None:
        return False
    return (low is None or number >= low) and (high is None or number <= high)


def choices(catalog: SiliconCatalog, key: str) -> Sequence[str]:
    """The distinct values of a choice column across the catalog, sorted."""
    return sorted({BY_KEY[key].cell(a).text for a in catalog.accelerators.values()})

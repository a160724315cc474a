"""What every importer shares: reading CSV rows with their line numbers (through the one
reader, :mod:`computeatlas.core.tabular`), and parsing cells into prices, counts, currencies
and times with errors naming the column (see
:mod:`computeatlas.cloud.importers` for the importer contract)."""

from __future__ import annotations

import datetime as dt
import math
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError

from computeatlas.cloud import bounds
from computeatlas.cloud.observations import ISO_4217, InputFailed, Observation
from computeatlas.core.tabular import CellError, Table, TableError, read_table

CLOCK_SKEW = bounds.CLOCK_SKEW
"""How far in the future a collection time may be before it is an error (clock skew)."""

MAX_COUNT = 1_000_000
"""The largest accelerator count a cell may give (the store keeps counts as 32-bit integers;
the largest real slice we know is a TPU pod of 8,960 chips)."""


@dataclass(frozen=True, slots=True)
class Skip:
    """A row that is not a rental price (a per-token price, an aggregate), with the reason."""

    reason: str


@dataclass(frozen=True, slots=True)
class Reading:
    """One row read: its line number and what it gave."""

    line: int
    result: Observation | TableError | Skip


def open_csv(path: Path, required: tuple[str, ...]) -> Table:
    """The :class:`~computeatlas.core.tabular.Table` of ``path``, whose header names every
    ``required`` column (:func:`~computeatlas.core.tabular.read_table`).

    Raises :class:`InputFailed` (line 1) for a file that is not UTF-8 CSV text or lacks a column.
    """
    try:
        return read_table(path, required)
    except TableError as exc:
        raise InputFailed(exc.errors) from None


def rows(
    path: Path, required: tuple[str, ...], parse: Callable[[dict[str, str]], Observation | Skip | list[Observation | Skip]]
) -> Iterator[Reading]:
    """Read ``path`` row by row through ``parse``; a :class:`CellError` becomes a
    :class:`TableError` naming file, line and column; a broken row raises :class:`InputFailed`.

    Each row is a dict of the header's names with the line it starts on (blank lines are
    skipped), as :func:`~computeatlas.core.tabular.read_table` gives it; a row with another
    number of cells than the header is a :class:`TableError` and the next row is read."""
    table = open_csv(path, required)
    name = table.file
    try:
        for line, cells in table:
            if isinstance(cells, TableError):
                yield Reading(line, cells)
                continue
            result = parsed(parse, cells, path, name, line)
            if isinstance(result, list):
                for item in result:
                    yield Reading(line, item)
            else:
                yield Reading(line, result)
    except TableError as exc:
        raise InputFailed([exc]) from None


def parsed(
    parse: Callable[[dict[str, str]], Observation | Skip | list[Observation | Skip]],
    cells: dict[str, str],
    path: Path,
    name: str,
    line: int,
) -> Observation | Skip | list[Observation | Skip] | TableError:
    """What ``parse`` makes of one row's ``cells`` (on ``line`` of ``path``, called ``name`` in
    errors): a :class:`CellError` placed there, any other exception as that row's :class:`TableError`."""
    try:
        return parse(cells)
    except CellError as exc:
        return exc.at(name, line)
    except Exception as exc:
        return _row_error(path, line, exc)


def _row_error(path: Path, line: int, exc: Exception) -> TableError:
    """A row whose values could not become an observation (a field out of range, a number
    too large for its type) as one :class:`TableError`, naming the field where known."""
    if isinstance(exc, ValidationError):
        first = exc.errors()[0]
        field = ".".join(str(p) for p in first.get("loc", ())) or "(row)"
        value = first.get("input")
        return TableError(
            str(path),
            line,
            field,
            f"not a valid {field}: {first.get('msg', 'invalid')}",
            None if isinstance(value, dict) else str(value)[:200],
        )
    return TableError(str(path), line, "(row)", f"a value of this row cannot be read: {type(exc).__name__}: {str(exc)[:200]}")


_PRICE = re.compile(
    r"(?P<sign>-?)(?P<number>(?:[0-9]{1,3}(?:,[0-9]{3})+|[0-9]+)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?"
    r"|\.[0-9]+(?:[eE][+-]?[0-9]+)?)"
)
"""A price cell: ASCII digits with an optional decimal point and exponent; a comma only as a
thousands separator (``1,234.56``: groups of exactly three digits). ``9,8`` (a decimal comma),
``1,2,3`` and full-width digits are not prices."""


def price(raw: dict[str, str], column: str, required: bool = True) -> float | None:
    """The non-negative finite number in ``column`` (None when blank and not required), as
    :data:`_PRICE` spells it; anything else is a :class:`CellError` naming the column."""
    text = (raw.get(column) or "").strip()
    if not text:
        if required:
            raise CellError(column, "a price is required", text)
        return None
    number = _PRICE.fullmatch(text)
    if number is None:
        raise CellError(
            column,
            "not a number (ASCII digits, an optional decimal point and exponent; a comma only "
            "between groups of three digits, e.g. 1,234.56)",
            text,
        )
    value = float(number.group("number").replace(",", ""))
    if not math.isfinite(value):
        raise CellError(column, "not a number", text)
    if number.group("sign") and value != 0:
        raise CellError(column, "a price cannot be negative", text)
    return value


def count(raw: dict[str, str], column: str) -> int | None:
    """A positive whole number in ``column`` (ASCII digits; ``8.0`` is 8), or None when blank."""
    text = (raw.get(column) or "").strip()
    if not text:
        return None
    number = re.fullmatch(r"([0-9]+)(?:\.([0-9]+))?", text)
    if not number:
        raise CellError(column, "not a whole number (ASCII digits)", text)
    whole, fraction = number.group(1).lstrip("0") or "0", (number.group(2) or "").rstrip("0")
    if fraction or whole == "0":
        raise CellError(column, "not a positive whole number", text)
    if len(whole) > len(str(MAX_COUNT)) or int(whole) > MAX_COUNT:
        raise CellError(column, f"not a plausible accelerator count (more than {MAX_COUNT:,})", text)
    return int(whole)


def currency(raw: dict[str, str], column: str) -> str:
    """An ISO 4217 code in ``column``, kept as published."""
    text = (raw.get(column) or "").strip()
    if text not in ISO_4217:
        raise CellError(column, "unknown currency code (ISO 4217, e.g. USD, EUR)", text)
    return text


_TIME = re.compile(
    r"(?P<date>[0-9]{4}-[0-9]{2}-[0-9]{2})(?:T(?P<clock>[0-9]{2}:[0-9]{2}(?::[0-9]{2}(?:\.[0-9]{1,6})?)?)"
    r"(?P<offset>Z|[+-][0-9]{2}:[0-9]{2}))?",
    re.ASCII,
)
"""A collection time: ``YYYY-MM-DDTHH:MM[:SS[.ffffff]]`` and an offset (``Z`` or ``±HH:MM``), or
a date alone (``YYYY-MM-DD``) where the importer allows it. Week dates (``2026-W48-1``),
ordinal dates, the basic form (``20261130``), a space for the ``T`` and non-ASCII digits are not."""

OFFSET_RANGE = (dt.timedelta(hours=-12), dt.timedelta(hours=14))
"""The UTC offsets of the world's time zones (−12:00 to +14:00); an offset outside is an error."""


def timestamp(raw: dict[str, str], column: str, now: dt.datetime, allow_date_alone: bool = True) -> dt.datetime:
    """The collection time in ``column`` as an aware UTC datetime, not in the future.

    It must be a full ISO 8601 time with an offset, as :data:`_TIME` spells it (``2026-03-21T06:19:35Z``,
    ``2026-03-21T08:19:35+02:00``), a real date and time, with an offset within
    :data:`OFFSET_RANGE`. A date alone (``2026-03-21``) is midnight UTC when ``allow_date_alone``
    (the default, for sources that publish only a date, such as the hand-typed offers' ``seen``);
    an importer whose source always gives a time passes ``allow_date_alone=False``. Anything else
    raises :class:`CellError` naming the column. Whether the time is before the source's first
    date is not checked here but by the ``implausible_date`` rule (:mod:`computeatlas.cloud.rules`),
    which every importer and collector passes through.
    """
    text = (raw.get(column) or "").strip()
    form = _TIME.fullmatch(text)
    if form is None or (form.group("clock") is None and not allow_date_alone):
        example = "e.g. 2026-03-21T06:19:35Z" + ("" if not allow_date_alone else ", or a date alone, 2026-03-21")
        raise CellError(column, f"not an ISO 8601 time with an offset ({example})", text)
    try:
        when = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
        if when.tzinfo is None:
            when = when.replace(tzinfo=dt.UTC)
        offset = when.utcoffset() or dt.timedelta()
        if not OFFSET_RANGE[0] <= offset <= OFFSET_RANGE[1]:
            raise CellError(column, "the offset is outside the world's time zones (−12:00 to +14:00)", text)
        when = when.astimezone(dt.UTC)
    except (ValueError, OverflowError) as exc:
        if isinstance(exc, CellError):
            raise
        raise CellError(column, "not a real date and time (a month, day, hour or minute out of range)", text) from None
    if when > now + CLOCK_SKEW:
        raise CellError(column, f"collection time is in the future (now is {now:%Y-%m-%dT%H:%M:%SZ})", text)
    return when


PROVIDER_IDS = {
    "gcp": "google-cloud",
    "google_cloud": "google-cloud",
    "oci": "oracle",
    "oracle_cloud": "oracle",
    "do": "digitalocean",
    "vastai": "vast-ai",
    "lambda_labs": "lambda",
    "thundercompute": "thunder-compute",
    "voltagepark": "voltage-park",
    "massedcompute": "massed-compute",
    "lightningai": "lightning-ai",
    "gmicloud": "gmi-cloud",
    "jarvislabs": "jarvislabs",
    "cudo_compute": "cudo",
    "latitude_sh": "latitude",
    "ovhcloud": "ovh",
    "oblivus_cloud": "oblivus",
}
"""Collectors' provider names that differ from our provider ids, written lower-case with
``_`` between words (``Oracle Cloud`` is looked up as ``oracle_cloud``). A provider known by
two names gets the id its first source gave it: Full Stack Deep Learning's ``Cudo Compute``,
``Latitude.sh``, ``OVHcloud`` and ``Oblivus Cloud`` are the OpenComputePrices collectors'
``cudo``, ``latitude``, ``ovh`` and ``oblivus``."""


def provider_id(name: str) -> str:
    """Our provider id for a collector's provider name (``gcp`` → ``google-cloud``,
    ``Oracle Cloud`` → ``oracle``); an unlisted name is its words joined by ``-``."""
    name = name.strip().lower()
    return (
        PROVIDER_IDS.get(name)
        or PROVIDER_IDS.get(re.sub(r"[^a-z0-9]+", "_", name).strip("_"))
        or re.sub(r"[^a-z0-9]+", "-", name).strip("-")
        or "unknown"
    )


Importer = Callable[..., Iterator[Reading]]
"""An importer: ``read(path, now=..., **options)`` yielding :class:`Reading` s."""


__all__ = [
    "CLOCK_SKEW",
    "MAX_COUNT",
    "OFFSET_RANGE",
    "PROVIDER_IDS",
    "Importer",
    "Reading",
    "Skip",
    "count",
    "currency",
    "open_csv",
    "parsed",
    "price",
    "provider_id",
    "rows",
    "timestamp",
]

"""What every importer shares: reading CSV rows with their line numbers, and parsing cells
into prices, counts, currencies and times with errors naming the column (see
:mod:`computeatlas.cloud.importers` for the importer contract)."""

from __future__ import annotations

import csv
import datetime as dt
import math
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from computeatlas.cloud.observations import (
    ISO_4217,
    InputError,
    InputFailed,
    Observation,
)

CLOCK_SKEW = dt.timedelta(minutes=5)
"""How far in the future a collection time may be before it is an error (clock skew)."""


@dataclass(frozen=True, slots=True)
class Skip:
    """A row that is not a rental price (a per-token price, an aggregate), with the reason."""

    reason: str


@dataclass(frozen=True, slots=True)
class Reading:
    """One row read: its line number and what it gave."""

    line: int
    result: Observation | InputError | Skip


class CellError(ValueError):
    """A bad cell: raised by the cell parsers, turned into an InputError by :class:`Rows`."""

    def __init__(self, column: str, message: str, text: str | None) -> None:
        super().__init__(message)
        self.column, self.message, self.text = column, message, text


def open_csv(path: Path, required: tuple[str, ...]) -> tuple[csv.DictReader[str], list[str]]:
    """A dict reader over ``path`` after checking the header has every ``required`` column.

    Raises :class:`InputFailed` (line 1) for a file that is not UTF-8 CSV text or lacks a column.
    """
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputFailed([InputError(str(path), 1, "(file)", f"not UTF-8 text: {exc.reason}")]) from None
    if "\0" in text:
        raise InputFailed([InputError(str(path), 1, "(file)", "not a CSV file (binary content)")])
    reader = csv.DictReader(text.splitlines(keepends=True), strict=True)
    try:
        header = list(reader.fieldnames or [])
    except csv.Error as exc:
        raise InputFailed([InputError(str(path), 1, "(header)", f"broken CSV: {exc}")]) from None
    missing = [c for c in required if c not in header]
    if missing:
        raise InputFailed([InputError(str(path), 1, column, "missing column (the header must name it)") for column in missing])
    return reader, header


def rows(path: Path, required: tuple[str, ...], parse: Callable[[dict[str, str]], Observation | Skip | list[Observation | Skip]]) -> Iterator[Reading]:
    """Read ``path`` row by row through ``parse``; a :class:`CellError` becomes an
    :class:`InputError` naming file, line and column; a broken row raises :class:`InputFailed`."""
    reader, header = open_csv(path, required)
    try:
        for raw in reader:
            line = reader.line_num
            if None in raw or any(v is None for v in raw.values()):
                yield Reading(line, InputError(str(path), line, "(row)", f"expected {len(header)} cells"))
                continue
            try:
                result = parse(raw)
            except CellError as exc:
                yield Reading(line, InputError(str(path), line, exc.column, exc.message, exc.text))
                continue
            for item in result if isinstance(result, list) else [result]:
                yield Reading(line, item)
    except csv.Error as exc:
        raise InputFailed([InputError(str(path), reader.line_num, "(row)", f"broken CSV: {exc}")]) from None


_PRICE = re.compile(r"(?P<sign>-?)(?P<number>(?:[0-9]{1,3}(?:,[0-9]{3})+|[0-9]+)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?"
                    r"|\.[0-9]+(?:[eE][+-]?[0-9]+)?)")
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
        raise CellError(column, "not a number (ASCII digits, an optional decimal point and exponent; a comma only "
                                "between groups of three digits, e.g. 1,234.56)", text)
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
    if not re.fullmatch(r"[0-9]+(?:\.[0-9]+)?", text):
        raise CellError(column, "not a whole number (ASCII digits)", text)
    value = float(text)
    if value != int(value) or value < 1:
        raise CellError(column, "not a positive whole number", text)
    return int(value)


def currency(raw: dict[str, str], column: str) -> str:
    """An ISO 4217 code in ``column``, kept as published."""
    text = (raw.get(column) or "").strip()
    if text not in ISO_4217:
        raise CellError(column, "unknown currency code (ISO 4217, e.g. USD, EUR)", text)
    return text


def timestamp(raw: dict[str, str], column: str, now: dt.datetime) -> dt.datetime:
    """An ISO 8601 UTC time in ``column`` (a date alone is midnight UTC), not in the future."""
    text = (raw.get(column) or "").strip()
    try:
        when = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise CellError(column, "not an ISO 8601 time (e.g. 2026-03-21T06:19:35Z)", text) from None
    if when.tzinfo is None:
        if len(text) > 10:
            raise CellError(column, "a collection time must be UTC (end it with Z)", text)
        when = when.replace(tzinfo=dt.UTC)
    if when > now + CLOCK_SKEW:
        raise CellError(column, f"collection time is in the future (now is {now:%Y-%m-%dT%H:%M:%SZ})", text)
    return when.astimezone(dt.UTC)


PROVIDER_IDS = {
    "gcp": "google-cloud", "google_cloud": "google-cloud", "oci": "oracle", "oracle_cloud": "oracle", "do": "digitalocean",
    "vastai": "vast-ai", "lambda_labs": "lambda", "thundercompute": "thunder-compute", "voltagepark": "voltage-park",
    "massedcompute": "massed-compute", "lightningai": "lightning-ai", "gmicloud": "gmi-cloud", "jarvislabs": "jarvislabs",
    "cudo_compute": "cudo", "latitude_sh": "latitude", "ovhcloud": "ovh", "oblivus_cloud": "oblivus",
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
    return (PROVIDER_IDS.get(name) or PROVIDER_IDS.get(re.sub(r"[^a-z0-9]+", "_", name).strip("_"))
            or re.sub(r"[^a-z0-9]+", "-", name).strip("-") or "unknown")


Importer = Callable[..., Iterator[Reading]]
"""An importer: ``read(path, now=..., **options)`` yielding :class:`Reading` s."""


__all__ = [
    "CLOCK_SKEW",
    "PROVIDER_IDS",
    "CellError",
    "Importer",
    "Reading",
    "Skip",
    "count",
    "currency",
    "open_csv",
    "price",
    "provider_id",
    "rows",
    "timestamp",
]

"""The silicon table as CSV, and the one CSV dialect of every CSV the project writes.

The dialect: RFC 4180 (comma, double quotes, CRLF line ends), UTF-8 **with a byte-order
mark** on every file and download (Excel on Windows opens a file without one as the
system's code page, turning "×", "≈" or "Zoë" into mojibake; with it, Excel reads UTF-8;
``pandas.read_csv`` drops the mark itself, and Python's ``csv`` reads the first header
clean when the file is opened with ``encoding="utf-8-sig"``, which reads files without a
mark too). A CSV written to a terminal or a pipe (the CLI) has no mark: it is a stream, not
a file. Times are one format, ``2026-03-21T06:19:35Z`` (UTC, to the second, as the JSON
API writes them; :func:`timestamp_text`).

No cell ever starts a spreadsheet formula: a text cell beginning with ``=``, ``+``,
``-``, ``@``, a tab or a carriage return gets a leading apostrophe (``'=1+1``), the
neutralisation spreadsheet programs recognise. Numbers are written plainly (no exponent,
no thousands separator; a float at 15 significant digits, the most a double keeps, so a
price reads as published, never ``2.1999999999999997``) and a real negative number
(``-3.5``) stays a number. A number
column holds numbers only: where there is none the cell is empty and the ``_state``
column beside it says why, so ``pandas.read_csv`` reads every number column as numbers.

The formula guard (:func:`neutralise`, :func:`cell_text`, and :func:`sql_neutralise` for
files DuckDB writes) is the one every CSV the project writes goes through: the price
history (CLI and API) and the price dataset too.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TextIO

from computeatlas.core.numbers import DIGITS, plain_text, published
from computeatlas.publish.exports.silicon_table import NAME, SiliconTable
from computeatlas.silicon.columns import Value

FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
"""First characters that make a spreadsheet treat a cell as a formula."""

_NEGATIVE_NUMBER = re.compile(r"-\d+(?:\.\d+)?")

MEDIA_TYPE = "text/csv; charset=utf-8; header=present"

BOM = "\ufeff"
"""The byte-order mark that opens every CSV file and download (see the module's note)."""

LINE_END = "\r\n"
"""The line end of every CSV the project writes (RFC 4180)."""

TIMESTAMP_FORMAT = "%Y-%m-%dT%H:%M:%SZ"
"""The one format of a time in a CSV: UTC, to the second, ``Z`` (strftime; DuckDB's strftime takes it too)."""


def timestamp_text(when: dt.datetime) -> str:
    """``when`` (aware; a naive time is taken as UTC) as :data:`TIMESTAMP_FORMAT`."""
    aware = when if when.tzinfo is not None else when.replace(tzinfo=dt.UTC)
    return aware.astimezone(dt.UTC).strftime(TIMESTAMP_FORMAT)


def file_bytes(text: str) -> bytes:
    """CSV ``text`` as the bytes of a file or a download: UTF-8 with the byte-order mark."""
    return (BOM + text).encode("utf-8")


def neutralise(text: str) -> str:
    """``text`` made safe to open in a spreadsheet: a leading apostrophe where it would
    start a formula. A plain negative number such as ``"-3.5"`` is left as it is."""
    if text.startswith(FORMULA_START) and not _NEGATIVE_NUMBER.fullmatch(text):
        return "'" + text
    return text


def sql_neutralise(expression: str) -> str:
    """:func:`neutralise` as a DuckDB SQL expression over the text ``expression``, for CSV
    files DuckDB writes itself (``COPY … (FORMAT CSV)``): the same first characters, the
    same exception for a plain negative number."""
    starts = ", ".join(f"chr({ord(c)})" for c in FORMULA_START)
    return (
        f"CASE WHEN left({expression}, 1) IN ({starts}) AND NOT regexp_full_match({expression}, "
        f"'{_NEGATIVE_NUMBER.pattern}') THEN '''' || {expression} ELSE {expression} END"
    )


def sql_published(expression: str) -> str:
    """:func:`~computeatlas.core.numbers.published` as a DuckDB SQL expression over the number
    ``expression``, for CSV files DuckDB writes itself: at most 15 significant digits, so a
    derived price has no float noise and a published one keeps its digits."""
    return f"CAST(printf('%.{DIGITS}g', {expression}) AS DOUBLE)"


def cell_text(value: Value | dt.datetime) -> str:
    """One cell as CSV text: numbers plainly (a float at the digits it was published with,
    :func:`~computeatlas.core.numbers.published`), a time as :func:`timestamp_text`, nothing as an
    empty cell, text neutralised."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return plain_text(value)
    if isinstance(value, float):
        return plain_text(published(value))
    if isinstance(value, dt.datetime):
        return timestamp_text(value)
    return neutralise(str(value))


def write_rows(stream: io.TextIOBase | TextIO, header: Sequence[str], rows: Iterable[Sequence[Value | dt.datetime]]) -> None:
    """Write ``header`` and ``rows`` to a text ``stream`` (opened with ``newline=""``), every
    cell through :func:`cell_text`, lines ended by :data:`LINE_END` (no byte-order mark: see
    :func:`file_bytes`)."""
    writer = csv.writer(stream, dialect="excel", lineterminator=LINE_END, quoting=csv.QUOTE_MINIMAL)
    writer.writerow([neutralise(h) for h in header])
    for row in rows:
        writer.writerow([cell_text(v) for v in row])


def to_text(table: SiliconTable) -> str:
    """The whole table as one CSV string."""
    buffer = io.StringIO(newline="")
    write_rows(buffer, table.names, table.rows)
    return buffer.getvalue()


def to_bytes(table: SiliconTable) -> bytes:
    """The whole table as the bytes of a CSV file (:func:`file_bytes`: UTF-8 with the byte-order mark)."""
    return file_bytes(to_text(table))


def filename(day: dt.date) -> str:
    """The dated download name, e.g. ``compute-atlas-silicon-2026-11-30.csv``."""
    return f"{NAME}-{day.isoformat()}.csv"


def write(table: SiliconTable, out: Path) -> list[Path]:
    """Write the CSV file ``out``; return ``[out]``."""
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(to_bytes(table))
    return [out]

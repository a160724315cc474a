"""The one reader of tabular text: CSV data files, import files and the price tables.

:func:`read_table` reads a CSV file (or its text) with Python's :mod:`csv` module in its
``excel`` dialect, strict about quoting (``strict=True``: a quote that does not close a
cell, or a quoted cell not closed before the end of the file, is an error, never a cell
read some other way). A UTF-8 byte-order mark is dropped; a file that is not UTF-8, or that
holds a NUL byte (a binary file), is an error. The header is checked against the columns
the caller requires, and every row comes with the 1-based line of the file on which it
*starts* (a row whose quoted cell holds a newline spans several lines; blank lines are
skipped, as :class:`csv.DictReader` skips them).

Every problem is a :class:`TableError`, naming the file, the line, the column and the text
found, so that a malformed file gives a clear message and never a traceback:
``data/x.csv: line 12: column price: not a number (found 'abc')``. A cell parser that
does not know its file and line raises a :class:`CellError` (a :class:`TableError` placed
later with :meth:`TableError.at`).

:func:`read_columns` reads a *plain* CSV file (UTF-8 without quotes, NUL bytes or blank lines,
its lines ending in LF or all in CR LF, so that every line is one row and its cells are the text between its
commas) into a DuckDB table in one pass, for an import of millions of rows; the header is
checked as :func:`read_table` checks it, and a file that is not plain is left to
:func:`read_table` (the same rows, the same errors).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import duckdb


class TableError(ValueError):
    """One bad place of an input file: ``file``, 1-based ``line``, ``column`` (a column name,
    or ``(file)``, ``(header)``, ``(row)`` for the whole file, header or row; a JSON path for
    a JSON input), ``message`` (why) and ``text`` (what was found, or None).

    Raised by :func:`read_table` and by the cell parsers; a list of them is what an import
    reports (:class:`~computeatlas.cloud.observations.InputFailed`). A header that lacks
    several columns is one error per column: the first is raised and carries the others in
    ``more`` (:attr:`errors` lists them all). Two errors are equal when their fields are.
    """

    def __init__(self, file: str, line: int, column: str, message: str, text: str | None = None, more: Sequence[TableError] = ()) -> None:
        super().__init__(message)
        self.file, self.line, self.column, self.message, self.text = file, line, column, message, text
        self.more = tuple(more)

    @property
    def errors(self) -> list[TableError]:
        """This error and the ones it carries in ``more``, in the file's order."""
        return [self, *self.more]

    def at(self, file: str, line: int) -> TableError:
        """The same error placed at ``file`` and ``line`` (for a cell parser's :class:`CellError`)."""
        return TableError(file, line, self.column, self.message, self.text)

    def _key(self) -> tuple[object, ...]:
        return (type(self), self.file, self.line, self.column, self.message, self.text, self.more)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TableError) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __reduce__(self) -> tuple[Any, ...]:
        # rebuilt from its fields, whatever a subclass's __init__ takes (errors cross process boundaries)
        return (_rebuild, (type(self), self.__dict__))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.file!r}, {self.line}, {self.column!r}, {self.message!r}, {self.text!r})"

    def __str__(self) -> str:
        found = f" (found {self.text!r})" if self.text is not None else ""
        return f"{self.file}: line {self.line}: column {self.column}: {self.message}{found}"


def _rebuild(cls: type[TableError], fields: dict[str, Any]) -> TableError:
    error = cls.__new__(cls)
    ValueError.__init__(error, fields["message"])
    error.__dict__.update(fields)
    return error


class CellError(TableError):
    """A bad cell found by a parser that knows only the ``column``: the reader's loop places
    it with :meth:`TableError.at` (its ``file`` is ``""`` and its ``line`` 0 until then)."""

    def __init__(self, column: str, message: str, text: str | None) -> None:
        super().__init__("", 0, column, message, text)


MISSING_COLUMN = "missing column (the header must name it)"
"""The message of a required column the header does not name."""


class Table:
    """A CSV file whose header has been read and checked: ``file`` (the name errors give),
    ``header`` (the column names in order). Iterating gives ``(line, cells)`` per row, where
    ``cells`` maps each header name to its text, or is a :class:`TableError` for a row with
    another number of cells than the header (column ``(row)``), so that the caller can go on
    to the next row. A break in the CSV itself (bad quoting) raises a :class:`TableError`
    naming the line where the broken row starts: nothing after it can be read reliably.
    The rows are read once, as they are iterated."""

    def __init__(self, file: str, header: tuple[str, ...], reader: Any) -> None:
        self.file, self.header, self._reader = file, header, reader

    def __iter__(self) -> Iterator[tuple[int, dict[str, str] | TableError]]:
        reader, names, width, file = self._reader, self.header, len(self.header), self.file
        line = reader.line_num + 1
        try:
            for row in reader:
                if row:
                    if len(row) == width:
                        yield line, dict(zip(names, row, strict=True))
                    else:
                        yield line, TableError(file, line, "(row)", f"expected {width} cells, found {len(row)}")
                line = reader.line_num + 1
        except csv.Error as exc:
            raise TableError(file, line, "(row)", f"broken CSV: {exc}") from None


def _text_of(path: Path, name: str) -> str:
    """The text of ``path`` without a byte-order mark; :class:`TableError` when it is not UTF-8 text."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise TableError(name, 1, "(file)", f"cannot read the file: {exc.strerror}") from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise TableError(name, line, "(file)", f"not UTF-8 text: {exc.reason}") from None


def read_table(
    path: Path | str, required: Sequence[str] = (), *, exact: bool = False, text: str | None = None, name: str | None = None
) -> Table:
    """The :class:`Table` of the CSV file at ``path`` (or of ``text`` when given, ``path``
    then only naming it), whose header names every ``required`` column (in any order, other
    columns allowed), or exactly the ``required`` columns in order when ``exact``.

    ``name`` is the file name errors give (default ``str(path)``). Raises :class:`TableError`
    for a file that cannot be read, is not UTF-8 text, holds a NUL byte, is empty while
    columns are required (column ``(header)``), has a broken header line, names a column
    twice, lacks a required column (one error per column, at line 1; see
    :attr:`TableError.errors`) or, when ``exact``, has other columns (column ``(header)``,
    the header found as its text).
    """
    name = str(path) if name is None else name
    if text is None:
        text = _text_of(Path(path), name)
    text = text.removeprefix("\ufeff")
    if "\0" in text:
        raise TableError(name, text[: text.index("\0")].count("\n") + 1, "(file)", "not a CSV file (binary content)")
    reader = csv.reader(io.StringIO(text, newline=""), dialect="excel", strict=True)
    try:
        first = next(reader, None)
    except csv.Error as exc:
        raise TableError(name, 1, "(header)", f"broken CSV: {exc}") from None
    if first is None:
        if required:
            raise TableError(name, 1, "(header)", f"the file is empty: the header must name {', '.join(required)}")
        return Table(name, (), reader)
    header = tuple(first)
    if exact and header != tuple(required):
        raise TableError(name, 1, "(header)", f"the columns must be exactly {','.join(required)}", ",".join(header))
    twice = [c for i, c in enumerate(header) if c in header[:i]]
    if twice:
        raise TableError(name, 1, "(header)", "the header names a column twice", twice[0])
    missing = [TableError(name, 1, c, MISSING_COLUMN) for c in required if c not in header]
    if missing and len(header) == 1 and len(required) > 1:  # one column where several are needed: another delimiter?
        for mark, words in ((";", "semicolons"), ("\t", "tabs"), ("|", "vertical bars")):
            if mark in header[0]:
                raise TableError(
                    name,
                    1,
                    "(header)",
                    f"the header is one column separated by {words}, not commas: write the file comma-separated",
                    header[0][:120],
                )
    if missing:
        raise TableError(name, 1, missing[0].column, MISSING_COLUMN, more=missing[1:])
    return Table(name, header, reader)


def read_columns(
    con: duckdb.DuckDBPyConnection, table: str, path: Path, required: Sequence[str] = (), *, name: str | None = None
) -> tuple[str, ...] | None:
    """Load the plain CSV file at ``path`` into DuckDB on ``con`` as the view ``table`` (over
    the table ``<table>_cells``) and return its header, or None (creating nothing) when the file
    is not plain: not UTF-8, a quote, a carriage return but at the end of every line, a NUL
    byte, a blank line, or a row with another number of cells than the header
    (:func:`read_table` reads such a file and names what is wrong).

    The view has one VARCHAR column per header name (``''`` for an empty cell, as
    :func:`read_table` gives it) and ``line`` (BIGINT, the row's 1-based line: a plain file's
    row *n* is on line *n* + 1), in the file's order. The header is checked as
    :func:`read_table` checks it (``required``, ``name``), raising the same :class:`TableError`."""
    name = str(path) if name is None else name
    try:
        data = path.read_bytes()
    except OSError:
        return None
    lines, returns = data.count(b"\n"), data.count(b"\r")
    ending = b"\r\n" if returns else b"\n"
    if returns and not returns == lines == data.count(ending):
        return None  # lines end in CR LF (as Python's csv writes them) or in LF, the same throughout
    if not data or b'"' in data or b"\0" in data or ending * 2 in data or data.startswith(ending):
        return None
    try:
        first = data.split(ending, 1)[0].decode("utf-8")
    except UnicodeDecodeError:
        return None  # DuckDB refuses a later line that is not UTF-8
    header = read_table(path, required, text=first, name=name).header
    if not header:
        return None
    columns = "{" + ", ".join(f"{_quoted(c)}: 'VARCHAR'" for c in header) + "}"
    cells = ", ".join(f"coalesce({_name(c)}, '') AS {_name(c)}" for c in header)
    try:
        con.execute(
            f"CREATE TABLE {table}_cells AS SELECT {cells} FROM read_csv({_quoted(str(path))}, "
            f"header = true, auto_detect = false, columns = {columns}, delim = ',', quote = '\"', escape = '\"', "
            "strict_mode = true, null_padding = false, ignore_errors = false)"  # a line ends in LF or CR LF (no other CR is there)
        )  # a table keeps the file's order (DuckDB preserves insertion order): row n is rowid n - 1, on line n + 1
        con.execute(f"CREATE VIEW {table} AS SELECT *, rowid + 2 AS line FROM {table}_cells")
        found = con.execute(f"SELECT count(*) FROM {table}_cells").fetchone()
    except duckdb.Error:
        found = None
    if found is None or found[0] != lines - (1 if data.endswith(b"\n") else 0):
        con.execute(f"DROP VIEW IF EXISTS {table}")  # DuckDB read the lines otherwise than one row each: not plain
        con.execute(f"DROP TABLE IF EXISTS {table}_cells")
        return None
    return header


def _quoted(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _name(column: str) -> str:
    return '"' + column.replace('"', '""') + '"'


__all__ = ["MISSING_COLUMN", "CellError", "Table", "TableError", "read_columns", "read_table"]

"""Read a data folder of record kinds into a validated, immutable catalog.

Core knows no domain: each domain describes its records as :class:`RecordKind` values
(a data sub-folder, the pydantic model of one record, how the folder is read) and checks
the references between records in a :data:`CrossCheck`; the composition root
(:mod:`computeatlas.catalog`) lists them in load order and calls :func:`build`.

Reading never stops at the first problem: every file is read and every problem is
collected as a :class:`Problem` naming the file, the field and the offending text, so that
``computeatlas validate`` can list them all; :class:`CatalogError` carries that list.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from types import MappingProxyType
from typing import Any, TypeVar

import tomli as toml  # tomllib's own parser compiled with mypyc (a dependency): twice as fast, same TOML 1.0, same errors
from pydantic import BaseModel, ValidationError

from computeatlas.core.settings import BUNDLED_DATA, Settings
from computeatlas.core.tabular import TableError, read_table

DEFAULT_DATA = BUNDLED_DATA
"""The bundled data folder of a source checkout (``<repo>/data``)."""


class Layout(StrEnum):
    """How the files of a record kind's data sub-folder hold its records."""

    TOML_FILES = "toml files"
    """``<folder>/<id>.toml``, one record per file; the record's ``id`` must equal the file name."""
    CSV_ROWS = "csv rows"
    """``<folder>/*.csv``, one record per row; the model's ``file`` and ``row`` fields are filled in."""


@dataclass(frozen=True, slots=True)
class RecordKind:
    """One kind of record of the catalog: the data sub-folder it is read from (also its
    collection's name in :attr:`Catalog.collections`), the pydantic model one record is
    validated with (``model_validate(raw, context={"today": date})``, so validators can
    refuse future dates), how the folder's files hold records (:class:`Layout`), whether
    its collection is ordered by the records' ``name`` (else by file name, then row),
    whether a data folder without any of its files is taken for the wrong folder
    (``required``), and, for CSV rows, what two rows with the same ``id`` share, as a
    duplicate's problem says it (``duplicate``; default ``"row: same id '<id>'"``)."""

    folder: str
    model: type[BaseModel]
    layout: Layout = Layout.TOML_FILES
    by_name: bool = False
    required: bool = False
    duplicate: str | None = None


CrossCheck = Callable[[Mapping[str, Mapping[str, Any]], Mapping[str, str]], Iterable["Problem | None"]]
"""A domain's check of references between records: ``(records, files) -> problems``, where
``records`` maps each collection name to its records by id (only those that validated) and
``files`` maps ``"<folder>/<id>"`` to the record's data file; a None in the result is no problem."""

_SUFFIX = {Layout.TOML_FILES: "toml", Layout.CSV_ROWS: "csv"}

R = TypeVar("R", bound=BaseModel)


def data_dir() -> Path:
    """The data folder to load by default: :attr:`Settings.data` of :meth:`Settings.from_env`
    (``$COMPUTEATLAS_DATA``, else the bundled one). Raises :class:`pydantic.ValidationError`
    for a malformed ``COMPUTEATLAS_*`` variable."""
    return Settings.from_env().data


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong with the data: where (file, field) and what (message, text)."""

    file: str
    field: str
    message: str
    text: str | None = None

    def __str__(self) -> str:
        shown = f" (found {self.text!r})" if self.text is not None and self.text not in self.message else ""
        return f"{self.file}: {self.field}: {self.message}{shown}"


class CatalogError(Exception):
    """Raised by :func:`computeatlas.catalog.load` when the data folder has problems; ``problems`` lists them all."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = problems
        lines = "\n".join(f"  - {p}" for p in problems)
        super().__init__(f"{len(problems)} problem(s) in the data folder:\n{lines}")


@dataclass(frozen=True)
class Catalog:
    """The validated catalog: records by id in one collection per record kind, the file each
    came from, and a data version.

    ``collections`` maps each kind's folder name to its records by id, in load order; each
    domain gives its collections typed names in a subclass (:mod:`computeatlas.silicon.catalog`
    and the like), and the composition root (:class:`computeatlas.catalog.Catalog`) is the
    class of every catalog :func:`build` makes there. ``version`` is a short hash of every data
    file's bytes: it changes whenever the data does and is used for caching and in citations.
    """

    root: Path
    collections: Mapping[str, Mapping[str, Any]]
    files: Mapping[str, str]
    version: str
    last_verified: dt.date | None = None
    problems: tuple[Problem, ...] = field(default=())

    def file_of(self, folder: str, ident: str) -> str:
        """The data file (relative to the data folder's parent) a record came from."""
        return self.files[f"{folder}/{ident}"]


def _error_text(value: Any) -> str | None:
    if isinstance(value, (str, int, float)) and not isinstance(value, bool):
        text = str(value)
        return text if len(text) <= 120 else text[:117] + "..."
    return None


def _problems_from(exc: ValidationError, rel: str, raw: Mapping[str, Any]) -> list[Problem]:
    """Turn a pydantic error into problems with dotted field paths and friendly wording."""
    out = []
    for err in exc.errors(include_url=False):
        loc = [str(p) for p in err["loc"]]
        path = ".".join(loc) or "(record)"
        message = err["msg"].removeprefix("Value error, ")
        if err["type"] == "missing" and loc[:1] == ["specs"] and len(loc) == 2:
            message = f"core spec '{loc[1]}' not researched: give it a state (published, not_published, not_applicable, not_comparable)"
        elif err["type"] == "extra_forbidden":
            message = f"unknown field '{loc[-1]}'"
        text = _error_text(err.get("input"))
        node: Any = raw
        for part in err["loc"]:
            node = node.get(part) if isinstance(node, Mapping) else None
        if isinstance(node, Mapping):  # a claim-level error: point at the field it quotes
            for key in ("value", "sparse"):
                if isinstance(node.get(key), str) and repr(node[key]) in message:
                    path, text = f"{path}.{key}", node[key]
                    break
        out.append(Problem(rel, path, message, text))
    return out


def _read(path: Path, rel: str, model: type[R], today: dt.date, data: bytes | None = None) -> tuple[R | None, list[Problem]]:
    """Validate the record in the TOML file ``path`` (whose bytes are ``data`` when already read)."""
    try:
        text = (path.read_bytes() if data is None else data).decode("utf-8-sig")
        raw = toml.loads(text.replace("\r\n", "\n").replace("\r", "\n"))  # newlines as read_text gives them
    except UnicodeDecodeError as exc:
        return None, [Problem(rel, "(file)", f"not UTF-8 text: {exc}")]
    except toml.TOMLDecodeError as exc:
        return None, [Problem(rel, "(file)", f"broken TOML: {exc}")]
    problems = []
    if raw.get("id") != path.stem:
        problems.append(Problem(rel, "id", f"id must equal the file name '{path.stem}'", _error_text(raw.get("id"))))
    try:
        record = model.model_validate(raw, context={"today": today})
    except ValidationError as exc:
        return None, problems + _problems_from(exc, rel, raw)
    return record, problems


def _files(root: Path, folder: str) -> list[Path]:
    base = root / folder
    return sorted(base.glob("*.toml")) if base.is_dir() else []


C = TypeVar("C", bound=Catalog)


def build(
    kinds: Sequence[RecordKind],
    cross_checks: Sequence[CrossCheck],
    catalog_type: type[C],
    root: Path | None = None,
    today: dt.date | None = None,
) -> tuple[C, list[Problem]]:
    """Read every data file of ``kinds`` under ``root`` (default: :func:`data_dir`) and return
    the catalog (an instance of ``catalog_type``) and every problem found, in reading order:
    CSV tables first, then TOML folders, each in the order of ``kinds``, then ``cross_checks``
    in their order. A problem that a record refers to a record whose file did not validate
    is left out (that file's own problems say what is wrong).

    The catalog holds only the records that validated, one collection per kind in the order
    of ``kinds``. ``today`` (default: the current date) is what verified and accessed dates
    may not exceed. Raises :class:`pydantic.ValidationError` for a malformed
    ``COMPUTEATLAS_*`` variable when ``root`` is None, and :class:`OSError` when a data file
    cannot be read.
    """
    root = Path(root or data_dir())
    today = today or dt.date.today()
    problems: list[Problem] = []
    if not root.is_dir():
        problems.append(Problem(str(root), "(folder)", "data folder not found"))
    folders = [k for k in kinds if k.layout is Layout.TOML_FILES]
    tables = [k for k in kinds if k.layout is Layout.CSV_ROWS]
    records: dict[str, dict[str, Any]] = {k.folder: {} for k in (*folders, *tables)}
    files: dict[str, str] = {}
    failed: set[str] = set()  # ids of files that exist but did not validate
    digest = hashlib.sha256()  # of names relative to the data folder, so copies hash alike
    for kind in tables:
        folder = kind.folder
        for path in sorted((root / folder).glob("*.csv")) if (root / folder).is_dir() else []:
            rel = f"{root.name}/{folder}/{path.name}"
            digest.update(f"{folder}/{path.name}".encode() + b"\0" + path.read_bytes())
            rows, found = _read_table(path, rel, kind.model, today)
            problems += found
            for row in rows:
                ident = row.id  # type: ignore[attr-defined]
                if ident in records[folder]:
                    first = records[folder][ident]
                    what = kind.duplicate or f"row: same id {ident!r}"
                    problems.append(Problem(rel, f"row {row.row}", f"duplicate {what} as {first.file} row {first.row}", ident))  # type: ignore[attr-defined]
                    continue
                records[folder][ident] = row
                files[f"{folder}/{ident}"] = rel
    for kind in folders:
        folder = kind.folder
        seen: dict[str, str] = {}
        for path in _files(root, folder):
            rel = f"{root.name}/{folder}/{path.name}"
            data = path.read_bytes()
            digest.update(f"{folder}/{path.name}".encode() + b"\0" + data)
            record, found = _read(path, rel, kind.model, today, data)
            problems += found
            if record is None:
                failed.add(f"{folder}/{path.stem}")
                continue
            ident = record.id  # type: ignore[attr-defined]
            if ident in seen:
                problems.append(Problem(rel, "id", f"duplicate id, also defined in {seen[ident]}", ident))
                continue
            seen[ident] = rel
            records[folder][ident] = record
            files[f"{folder}/{ident}"] = rel
    for kind in kinds:
        if kind.required and root.is_dir() and not any((root / kind.folder).glob(f"*.{_SUFFIX[kind.layout]}")):
            words = f"no {kind.model.__name__.lower()} files (*.{_SUFFIX[kind.layout]}): is this the data folder?"
            problems.append(Problem(f"{root.name}/{kind.folder}", "(folder)", words))
    found_by_checks = (p for check in cross_checks for p in check(records, files))
    problems += [p for p in found_by_checks if p is not None and not _refers_to_failed(p, failed)]
    for kind in kinds:
        if kind.by_name:
            records[kind.folder] = dict(sorted(records[kind.folder].items(), key=lambda kv: (kv[1].name.lower(), kv[0])))
    verified = [r.verified for group in records.values() for r in group.values() if hasattr(r, "verified")]
    catalog = catalog_type(
        root=root,
        collections=MappingProxyType({k: MappingProxyType(v) for k, v in records.items()}),
        files=MappingProxyType(files),
        version=digest.hexdigest()[:12],
        last_verified=max(verified, default=None),
        problems=tuple(problems),
    )
    return catalog, problems


def missing(
    files: Mapping[str, str], folder: str, ident: str, field_name: str, value: str, target: Mapping[str, Any], where: str
) -> Problem | None:
    """A problem when ``value`` (a reference in record ``folder/ident``) is not in ``target``."""
    if value in target:
        return None
    return Problem(files[f"{folder}/{ident}"], field_name, f"no such {where}", value)


def _refers_to_failed(problem: Problem, failed: set[str]) -> bool:
    """True for a "no such record" problem whose target exists but failed to validate:
    that file's own problems already say what is wrong, so the reference is not repeated."""
    return problem.message.startswith("no such ") and any(f.endswith("/" + str(problem.text)) for f in failed)


def _read_table(path: Path, rel: str, model: type[R], today: dt.date) -> tuple[list[R], list[Problem]]:
    """Read a CSV of records, one per row (:func:`~computeatlas.core.tabular.read_table`);
    every bad row and field is a problem."""
    expected = [name for name in model.model_fields if name not in ("file", "row")]
    try:
        table = read_table(path, name=rel)
    except TableError as exc:
        return [], [_table_problem(exc)]
    header = table.header
    unknown = [h for h in header if h not in expected]
    absent = [h for h in expected if h not in header and model.model_fields[h].is_required()]
    if unknown or absent:
        parts = ([f"unknown column(s) {', '.join(unknown)}"] if unknown else []) + (
            [f"missing column(s) {', '.join(absent)}"] if absent else []
        )
        return [], [Problem(rel, "(header)", "; ".join(parts))]
    rows: list[R] = []
    problems: list[Problem] = []
    try:
        for line, raw in table:
            if isinstance(raw, TableError):
                problems.append(_table_problem(raw))
                continue
            try:
                rows.append(model.model_validate({**raw, "file": rel, "row": line}, context={"today": today}))
            except ValidationError as exc:
                for p in _problems_from(exc, rel, raw):
                    problems.append(Problem(rel, f"row {line}: {p.field}", p.message, p.text))
    except TableError as exc:
        problems.append(_table_problem(exc))
    return rows, problems


def _table_problem(error: TableError) -> Problem:
    """A reading error of a CSV data file as a problem: the file's (with its line) or the
    header's as ``(file)`` or ``(header)``, a row's as ``row N`` (``row N: column``)."""
    if error.column == "(file)":
        return Problem(error.file, error.column, f"{error.message} (line {error.line})", error.text)
    if error.column == "(header)":
        return Problem(error.file, error.column, error.message, error.text)
    where = f"row {error.line}" + ("" if error.column == "(row)" else f": {error.column}")
    return Problem(error.file, where, error.message, error.text)

"""Load the data folder into a validated, immutable, cross-linked catalog.

Loading never stops at the first problem: every file is read and every problem is
collected as a :class:`Problem` naming the file, the field and the offending text, so that
``computeatlas validate`` can list them all. :func:`load` raises :class:`CatalogError`
carrying that list when there is any.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import os
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from computeatlas.model import Accelerator, Vendor

DEFAULT_DATA = Path(__file__).resolve().parent.parent / "data"
"""The bundled data folder of a source checkout (``<repo>/data``)."""

FOLDERS: dict[str, type[BaseModel]] = {"vendors": Vendor, "accelerators": Accelerator}
"""Each data sub-folder and the record type of its files."""

R = TypeVar("R", bound=BaseModel)


def data_dir() -> Path:
    """The data folder to load: ``$COMPUTEATLAS_DATA`` if set, else the bundled one."""
    return Path(os.environ.get("COMPUTEATLAS_DATA") or DEFAULT_DATA)


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
    """Raised by :func:`load` when the data folder has problems; ``problems`` lists them all."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = problems
        lines = "\n".join(f"  - {p}" for p in problems)
        super().__init__(f"{len(problems)} problem(s) in the data folder:\n{lines}")


@dataclass(frozen=True)
class Catalog:
    """The validated catalog: records by id, the file each came from, and a data version.

    ``version`` is a short hash of every data file's bytes: it changes whenever the data
    does and is used for caching and in citations. ``accelerators`` is ordered by name.
    """

    root: Path
    vendors: Mapping[str, Vendor]
    accelerators: Mapping[str, Accelerator]
    files: Mapping[str, str]
    version: str
    last_verified: dt.date | None = None
    problems: tuple[Problem, ...] = field(default=())

    def accelerator(self, ident: str) -> Accelerator:
        """The accelerator with id ``ident``; raises ``KeyError`` when there is none."""
        return self.accelerators[ident]

    def vendor_of(self, accelerator: Accelerator) -> Vendor:
        """The vendor record of ``accelerator``."""
        return self.vendors[accelerator.vendor]


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
            message = (
                f"core spec '{loc[1]}' not researched: give it a state "
                "(published, not_published, not_applicable, not_comparable)"
            )
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


def _read(path: Path, rel: str, model: type[R], today: dt.date) -> tuple[R | None, list[Problem]]:
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError as exc:
        return None, [Problem(rel, "(file)", f"not UTF-8 text: {exc}")]
    except tomllib.TOMLDecodeError as exc:
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


def check(root: Path | None = None, today: dt.date | None = None) -> tuple[Catalog, list[Problem]]:
    """Read every data file under ``root`` and return the catalog and all problems found.

    The catalog holds only the records that validated; callers that need a clean
    catalog use :func:`load`. ``today`` (default: the current date) is what verified and
    accessed dates may not exceed.
    """
    root = Path(root or data_dir())
    today = today or dt.date.today()
    problems: list[Problem] = []
    if not root.is_dir():
        problems.append(Problem(str(root), "(folder)", "data folder not found"))
    records: dict[str, dict[str, BaseModel]] = {name: {} for name in FOLDERS}
    files: dict[str, str] = {}
    digest = hashlib.sha256()
    for folder, model in FOLDERS.items():
        seen: dict[str, str] = {}
        for path in _files(root, folder):
            rel = f"{root.name}/{folder}/{path.name}"
            digest.update(rel.encode() + b"\0" + path.read_bytes())
            record, found = _read(path, rel, model, today)
            problems += found
            if record is None:
                continue
            ident = record.id  # type: ignore[attr-defined]
            if ident in seen:
                problems.append(Problem(rel, "id", f"duplicate id, also defined in {seen[ident]}", ident))
                continue
            seen[ident] = rel
            records[folder][ident] = record
            files[f"{folder}/{ident}"] = rel
    vendors: dict[str, Vendor] = records["vendors"]  # type: ignore[assignment]
    accelerators: dict[str, Accelerator] = records["accelerators"]  # type: ignore[assignment]
    problems += _cross_check(vendors, accelerators, files)
    ordered = dict(sorted(accelerators.items(), key=lambda kv: (kv[1].name.lower(), kv[0])))
    catalog = Catalog(
        root=root,
        vendors=MappingProxyType(vendors),
        accelerators=MappingProxyType(ordered),
        files=MappingProxyType(files),
        version=digest.hexdigest()[:12],
        last_verified=max((a.verified for a in accelerators.values()), default=None),
        problems=tuple(problems),
    )
    return catalog, problems


def _cross_check(
    vendors: Mapping[str, Vendor], accelerators: Mapping[str, Accelerator], files: Mapping[str, str]
) -> Iterable[Problem]:
    """References to records that do not exist, and aliases that are another part's id."""
    ids = {i.casefold(): i for i in accelerators}
    for ident, acc in accelerators.items():
        rel = files[f"accelerators/{ident}"]
        if acc.vendor not in vendors:
            yield Problem(rel, "vendor", "no such vendor in data/vendors/", acc.vendor)
        if acc.predecessor is not None and acc.predecessor not in accelerators:
            yield Problem(rel, "predecessor", "no such accelerator in data/accelerators/", acc.predecessor)
        if acc.predecessor == ident:
            yield Problem(rel, "predecessor", "a part cannot be its own predecessor", acc.predecessor)
        for alias in acc.aliases:
            if ids.get(alias.casefold(), ident) != ident:
                yield Problem(rel, "aliases", "alias is another accelerator's id", alias)


def load(root: Path | None = None, today: dt.date | None = None) -> Catalog:
    """Load and validate the data folder; raise :class:`CatalogError` listing every problem.

    This is the public entry point (``computeatlas.load()``). The returned catalog is
    immutable: mappings are read-only proxies over frozen pydantic records.
    """
    catalog, problems = check(root, today)
    if problems:
        raise CatalogError(problems)
    return catalog

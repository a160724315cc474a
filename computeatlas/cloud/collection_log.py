"""The record of every collection attempt: one small JSON file per attempt, in the store.

A collector (:mod:`computeatlas.cloud.collectors`) run by ``computeatlas prices collect``
records each attempt, whatever its result, so the operator can see per source the last
attempt, the last success and what failed (``/cloud/status``, ``prices status``). Layout::

    <store>/collections/<source>/<started, compact ISO 8601 UTC>-<random>.json

One file per attempt, written to a temporary name and renamed into place, so several app
instances or collectors sharing one store never write into the same file and a reader sees
a whole record or none. Records are never rewritten; reading keeps the newest
:data:`KEEP_READ` per source (by the start time in the file name), so reading stays bounded
however long the store has been collecting.
"""

from __future__ import annotations

import datetime as dt
import os
import re
import secrets
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

FOLDER = "collections"
"""The folder, in a store's root, of the attempt records."""

KEEP_READ = 50
"""How many of a source's newest attempts :func:`attempts` reads."""

SOURCE_NAME = re.compile(r"^[a-z0-9][a-z0-9-]{0,62}$")
"""A collector's name: lower-case letters, digits and hyphens (``aws``, ``skypilot-lambda``)."""

Result = Literal["imported", "held", "failed", "skipped"]
"""What an attempt came to: ``imported`` (a run was committed and is current), ``held`` (a
run was committed but held whole by the pre-publication checks; the previous run stays
current), ``failed`` (the source could not be read; nothing stored), ``skipped`` (not
configured, e.g. no API key; nothing asked)."""


class Attempt(BaseModel):
    """One collection attempt of one source.

    Times are UTC; counts are readings (rows read from the source's response, accepted and
    held by the integrity rules); ``run`` is the import run's id when one was committed;
    ``error`` the failure's message (naming the URL and the field) for ``failed``;
    ``reason`` why a run was held whole or an attempt skipped.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    source: str = Field(pattern=SOURCE_NAME.pattern)
    started: dt.datetime
    finished: dt.datetime
    result: Result
    rows_read: int = Field(default=0, ge=0)
    accepted: int = Field(default=0, ge=0)
    held: int = Field(default=0, ge=0)
    run: str | None = None
    error: str | None = None
    reason: str | None = None

    @property
    def succeeded(self) -> bool:
        """Whether the attempt committed a run that is now current (``imported``)."""
        return self.result == "imported"

    @property
    def seconds(self) -> float:
        """How long the attempt took, in seconds."""
        return (self.finished - self.started).total_seconds()


class UnreadableAttempt(Exception):
    """An attempt record that is not valid JSON of :class:`Attempt`; the message names the file."""


def _stamp(when: dt.datetime) -> str:
    return when.astimezone(dt.UTC).strftime("%Y%m%dT%H%M%S.%fZ")


def record(store_root: Path, attempt: Attempt) -> Path:
    """Write ``attempt`` under ``store_root`` (atomically: a temporary file renamed into place).

    Returns the file written. Raises :class:`OSError` when the store cannot be written.
    """
    folder = Path(store_root) / FOLDER / attempt.source
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{_stamp(attempt.started)}-{secrets.token_hex(4)}.json"
    temporary = folder / f".{path.name}.tmp"
    temporary.write_text(attempt.model_dump_json(indent=1) + "\n", encoding="utf-8")
    os.replace(temporary, path)
    return path


def sources(store_root: Path) -> list[str]:
    """The names of the sources with at least one attempt recorded, sorted."""
    folder = Path(store_root) / FOLDER
    if not folder.is_dir():
        return []
    return sorted(p.name for p in folder.iterdir() if p.is_dir() and SOURCE_NAME.match(p.name))


def attempts(store_root: Path, source: str, keep: int = KEEP_READ) -> tuple[list[Attempt], list[UnreadableAttempt]]:
    """The newest ``keep`` attempts of ``source``, newest first, and the records that could not be read.

    An unreadable record (cut short, not JSON, another shape) is returned as a problem naming
    its file, never raised, so one damaged file hides nothing else.
    """
    folder = Path(store_root) / FOLDER / source
    if not folder.is_dir():
        return [], []
    names = sorted((p for p in folder.glob("*.json") if not p.name.startswith(".")), key=lambda p: p.name, reverse=True)
    found: list[Attempt] = []
    problems: list[UnreadableAttempt] = []
    for path in names[:keep]:
        try:
            found.append(Attempt.model_validate_json(path.read_bytes()))
        except (OSError, ValidationError, ValueError) as exc:
            first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            problems.append(UnreadableAttempt(f"{path}: not a collection attempt record ({first})"))
    found.sort(key=lambda a: a.started, reverse=True)
    return found, problems


def last(found: list[Attempt], *, succeeded: bool = False) -> Attempt | None:
    """The newest attempt of ``found`` (newest first, as :func:`attempts` returns), or the newest success."""
    return next((a for a in found if a.succeeded or not succeeded), None)


__all__ = ["FOLDER", "KEEP_READ", "SOURCE_NAME", "Attempt", "Result", "UnreadableAttempt", "attempts", "last", "record", "sources"]

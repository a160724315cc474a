"""Coverage targets: the maker-hosted goals, and the parts we looked for and could not source.

Both live in ``data/coverage/`` (:data:`COVERAGE`), read like every other record kind:
``goals.toml`` holds the goals (one ``[goals]`` table in the whole folder: a share of
published figures read on the maker's own hosts, overall and per maker), ``unsourced.toml``
the parts a researcher looked for and found no readable source for, each with the hosts and
URLs searched and the date. :func:`computeatlas.silicon.coverage.coverage_view` reports
against them; nothing else decides a goal or repeats the list.
"""

from __future__ import annotations

import datetime as dt
import re
import unicodedata
from collections.abc import Iterator, Mapping
from typing import Any

from pydantic import Field, ValidationInfo, field_validator

from computeatlas.core.catalog import Problem, RecordKind, missing
from computeatlas.core.claims import Id, Record, today_from


def key_of(name: str) -> str:
    """A name as duplicate checks compare it: NFKC, case-folded, spaces, hyphens and underscores dropped."""
    return re.sub(r"[\s_\-]+", "", unicodedata.normalize("NFKC", name).casefold())


class Goals(Record):
    """Goals for the share of published core figures read on the maker's own hosts (0–1)."""

    overall: float | None = Field(default=None, ge=0, le=1, description="goal over every maker's parts together, e.g. 0.75")
    makers: dict[Id, float] = Field(default_factory=dict, description="goal per maker id, e.g. {'nvidia': 0.8}")
    note: str | None = Field(default=None, description="where the goals come from")

    @field_validator("makers")
    @classmethod
    def _shares(cls, value: dict[str, float]) -> dict[str, float]:
        bad = [f"{k} = {v}" for k, v in value.items() if not 0 <= v <= 1]
        if bad:
            raise ValueError(f"a goal is a share between 0 and 1: {', '.join(bad)}")
        return value


class UnsourcedPart(Record):
    """A part researched and not added: no source we could read states its specifications."""

    name: str = Field(min_length=1, description="the part's name as its maker or Epoch AI gives it")
    vendor: Id = Field(description="the maker, an id in data/vendors/")
    epoch_listed: bool = Field(description="listed by Epoch AI among data-centre accelerators released since 2020")
    searched: list[str] = Field(min_length=1, description="hosts and URLs searched, and searches run, in words")
    date: dt.date = Field(description="when the search was made")
    note: str = Field(min_length=1, description="what was found and why it is not enough")

    @field_validator("date")
    @classmethod
    def _not_future(cls, value: dt.date, info: ValidationInfo) -> dt.date:
        today = today_from(info)
        if value > today:
            raise ValueError(f"search date {value} is in the future (today is {today})")
        return value


class CoverageFile(Record):
    """One file of ``data/coverage/``: the goals, the unsourced parts, or both."""

    id: Id
    goals: Goals | None = None
    unsourced: list[UnsourcedPart] = Field(default_factory=list)


COVERAGE = RecordKind("coverage", CoverageFile)
"""Coverage targets: ``data/coverage/<id>.toml`` (``goals.toml``, ``unsourced.toml``)."""


def goals_of(files: Mapping[str, CoverageFile]) -> Goals:
    """The goals of the coverage files (none set when no file has them)."""
    return next((f.goals for f in files.values() if f.goals is not None), Goals())


def unsourced_of(files: Mapping[str, CoverageFile]) -> list[UnsourcedPart]:
    """Every unsourced part of the coverage files, by maker and name."""
    return sorted((p for f in files.values() for p in f.unsourced), key=lambda p: (p.vendor, p.name.casefold()))


def cross_check(records: Mapping[str, Mapping[str, Any]], files: Mapping[str, str]) -> Iterator[Problem | None]:
    """Goals set in two files, goals or unsourced parts of a maker that does not exist, and an
    "unsourced" part that the catalog holds after all (its name is an accelerator's name or alias)."""
    coverage, vendors, accelerators = records.get("coverage", {}), records["vendors"], records["accelerators"]
    names = {key_of(n): acc.id for acc in accelerators.values() for n in (acc.name, *acc.aliases, *acc.part_numbers)}
    with_goals = [ident for ident, f in coverage.items() if f.goals is not None]
    for ident in with_goals[1:]:
        yield Problem(files[f"coverage/{ident}"], "goals", "goals are set in one file only", f"also in coverage/{with_goals[0]}")
    for ident, record in coverage.items():
        if record.goals is not None:
            for maker in record.goals.makers:
                yield missing(files, "coverage", ident, "goals.makers", maker, vendors, "vendor in data/vendors/")
        for i, part in enumerate(record.unsourced):
            yield missing(files, "coverage", ident, f"unsourced[{i}].vendor", part.vendor, vendors, "vendor in data/vendors/")
            held = names.get(key_of(part.name))
            if held is not None:
                yield Problem(files[f"coverage/{ident}"], f"unsourced[{i}].name", f"the catalog holds this part as {held}", part.name)


__all__ = ["COVERAGE", "CoverageFile", "Goals", "UnsourcedPart", "cross_check", "goals_of", "key_of", "unsourced_of"]

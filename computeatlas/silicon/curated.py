"""Curated comparisons: a framing line and a short verdict for a pair of accelerators.

The rows of a comparison are always generated from the records
(:mod:`computeatlas.silicon.comparison`); a curated record only adds words, in our own voice, with
sources. Its id is the canonical pair id: the two accelerator ids in sorted order joined
by ``-vs-``.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator, Mapping
from typing import Any

from pydantic import Field, ValidationInfo, model_validator

from computeatlas.core.catalog import Problem, RecordKind, missing
from computeatlas.core.claims import Id, Record, Source, today_from


def pair_id(a: str, b: str) -> str:
    """The canonical id of the pair ``a``, ``b`` (sorted, joined by ``-vs-``)."""
    first, second = sorted((a, b))
    return f"{first}-vs-{second}"


class Comparison(Record):
    """A curated pair: ``parts`` are two accelerator ids, in the order the title reads."""

    id: Id
    parts: list[Id] = Field(min_length=2, max_length=2)
    framing: str = Field(min_length=1, max_length=200, description="one line: why people weigh these two")
    verdict: str = Field(min_length=1, description="a short verdict in our own words")
    verified: dt.date
    sources: dict[Id, Source] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _check(self, info: ValidationInfo) -> Comparison:
        today = today_from(info)
        if self.verified > today:
            raise ValueError(f"verified date {self.verified} is in the future (today is {today})")
        if self.parts[0] == self.parts[1]:
            raise ValueError("a comparison needs two different accelerators")
        expected = pair_id(*self.parts)
        if self.id != expected:
            raise ValueError(f"id must be the canonical pair id '{expected}'")
        return self


__all__ = ["Comparison", "pair_id"]


COMPARISONS = RecordKind("comparisons", Comparison)
"""Curated comparisons: ``data/comparisons/<pair id>.toml``, one per file."""


def cross_check(records: Mapping[str, Mapping[str, Any]], files: Mapping[str, str]) -> Iterator[Problem | None]:
    """Parts of a curated comparison that are not in data/accelerators/."""
    for ident, comparison in records["comparisons"].items():
        for n, part in enumerate(comparison.parts):
            yield missing(files, "comparisons", ident, f"parts.{n}", part, records["accelerators"], "accelerator in data/accelerators/")

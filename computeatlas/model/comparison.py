"""Curated comparisons: a framing line and a short verdict for a pair of accelerators.

The rows of a comparison are always generated from the records
(:mod:`computeatlas.compare`); a curated record only adds words, in our own voice, with
sources. Its id is the canonical pair id: the two accelerator ids in sorted order joined
by ``-vs-``.
"""

from __future__ import annotations

import datetime as dt

from pydantic import Field, ValidationInfo, model_validator

from computeatlas.model.claims import Id, Record, Source, today_from


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

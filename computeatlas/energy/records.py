"""Energy records: topics with dated figures, each with who claims it and what they sell.

Rack-scale systems are silicon records (:mod:`computeatlas.silicon.systems`) and economics
claims economics records (:mod:`computeatlas.economics.claims`).
"""

from __future__ import annotations

import datetime as dt

from pydantic import Field, PrivateAttr, ValidationInfo, model_validator

from computeatlas.core.catalog import RecordKind
from computeatlas.core.claimants import Interest
from computeatlas.core.claims import Id, Record, Source, today_from
from computeatlas.core.units import Dimension, Figure, UnitError, parse


class EnergyFigure(Record):
    """A dated figure with who claims it. ``value`` keeps its unit; power figures parse to W."""

    key: Id
    label: str = Field(min_length=1)
    value: str = Field(min_length=1)
    as_of: dt.date
    claimant: str = Field(min_length=1)
    claimant_interest: Interest
    source: str
    note: str | None = None
    _power: Figure | None = PrivateAttr(None)

    @property
    def power(self) -> Figure | None:
        """The figure in watts when it is a power (``"120 kW"``), else None (``"10x"``)."""
        return self._power

    @model_validator(mode="after")
    def _parse(self) -> EnergyFigure:
        try:
            self._power = parse(self.value, Dimension.POWER)
        except UnitError:
            self._power = None
        return self


class EnergyTopic(Record):
    """A page under ``/energy/``: short text and dated, sourced figures."""

    id: Id
    title: str = Field(min_length=1)
    summary: str = Field(min_length=1)
    verified: dt.date
    sources: dict[Id, Source] = Field(min_length=1)
    figures: list[EnergyFigure] = Field(min_length=1)

    @model_validator(mode="after")
    def _check(self, info: ValidationInfo) -> EnergyTopic:
        today = today_from(info)
        late = [f.key for f in self.figures if f.as_of > today]
        if self.verified > today or late:
            raise ValueError(f"date in the future (today is {today}): {', '.join(late) or 'verified'}")
        undefined = sorted({f.source for f in self.figures} - set(self.sources))
        if undefined:
            raise ValueError(f"source id(s) {', '.join(map(repr, undefined))} not defined in [sources]")
        keys = [f.key for f in self.figures]
        if len(keys) != len(set(keys)):
            raise ValueError("figure keys must be unique within a topic")
        return self


__all__ = ["EnergyFigure", "EnergyTopic"]


TOPICS = RecordKind("energy", EnergyTopic)
"""Energy topics: ``data/energy/<id>.toml``, one per file."""

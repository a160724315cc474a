"""States: the one vocabulary for the state a figure is in, with its code and its label.

Every ``state`` field of every record and view is a :class:`State`; the API and every
export carry its code (:attr:`State.value`, ``"not_published"``) and its words
(:attr:`State.label`, ``"not published"``), decided here only.

Which states each kind of figure can take:

- a record's claim holds one of :data:`RECORD_STATES` (what a data file may write);
- a spec as shown takes one of :data:`SPEC_STATES`: the record states, *published as text*
  (words where a number belongs) and *not yet collected* (nobody has looked);
- a derived figure (ridge point, per-watt figures, a bound, a spread) is
  :attr:`State.DERIVED` when computed, else the state of the input that stops it;
- a price is *published* as the provider lists it, or *derived* (divided per accelerator),
  or *not separable*; the marks on a price observation (:data:`PRICE_MARKS`) are states too:
  *stale*, *held for review*, *variant not stated*, *hourly equivalent derived from a term*.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Annotated, Any, Final

from pydantic import GetCoreSchemaHandler, GetJsonSchemaHandler
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema, core_schema

DERIVED_LABEL: Final = "derived from published figures"
"""How a derived figure computed from published inputs is labelled wherever it is shown."""


class State(StrEnum):
    """The state of a figure: shown everywhere in its words, never as a blank or a zero.

    ``not_published`` says something about the vendor (it withholds the figure);
    ``not_sourced`` says something about us: the spec was researched (the note says where
    we looked) but no source we could read states it, although the vendor may;
    ``not_collected`` says nobody has looked.
    """

    PUBLISHED = "published"
    PUBLISHED_AS_TEXT = "published_as_text"
    NOT_PUBLISHED = "not_published"
    NOT_APPLICABLE = "not_applicable"
    NOT_COMPARABLE = "not_comparable"
    NOT_SOURCED = "not_sourced"
    NOT_COLLECTED = "not_collected"
    DERIVED = "derived"
    NOT_SEPARABLE = "not_separable"
    STALE = "stale"
    HELD = "held"
    VARIANT_NOT_STATED = "variant_not_stated"
    DERIVED_FROM_TERM = "derived_from_term"
    SINGLE_OFFER = "single_offer"
    NO_OFFERS = "no_offers"
    NO_PRICE = "no_price"
    DOES_NOT_FIT = "does_not_fit"

    @property
    def label(self) -> str:
        """The words pages, tables, the CLI and every export's label column show."""
        return _LABELS[self]


_LABELS = {
    State.PUBLISHED: "published",
    State.PUBLISHED_AS_TEXT: "published as text",
    State.NOT_PUBLISHED: "not published",
    State.NOT_APPLICABLE: "not applicable",
    State.NOT_COMPARABLE: "not comparable",
    State.NOT_SOURCED: "not yet sourced",
    State.NOT_COLLECTED: "not yet collected",
    State.DERIVED: DERIVED_LABEL,
    State.NOT_SEPARABLE: "not separable",
    State.STALE: "stale",
    State.HELD: "held for review",
    State.VARIANT_NOT_STATED: "variant not stated",
    State.DERIVED_FROM_TERM: "hourly equivalent derived from a monthly or weekly term",
    State.SINGLE_OFFER: "not computed: one offer",
    State.NO_OFFERS: "not computed: no offers",
    State.NO_PRICE: "no price given",
    State.DOES_NOT_FIT: "does not fit",
}

RECORD_STATES: tuple[State, ...] = (
    State.PUBLISHED,
    State.NOT_PUBLISHED,
    State.NOT_APPLICABLE,
    State.NOT_COMPARABLE,
    State.NOT_SOURCED,
)
"""The states a claim in a data file may hold (the others are decided when it is shown)."""

SPEC_STATES: tuple[State, ...] = (
    State.PUBLISHED,
    State.PUBLISHED_AS_TEXT,
    State.NOT_PUBLISHED,
    State.NOT_APPLICABLE,
    State.NOT_COMPARABLE,
    State.NOT_SOURCED,
    State.NOT_COLLECTED,
)
"""The states a spec can be shown in, in the order tables and exports list them."""

PRICE_MARKS: tuple[State, ...] = (
    State.STALE,
    State.HELD,
    State.VARIANT_NOT_STATED,
    State.NOT_SEPARABLE,
    State.DERIVED_FROM_TERM,
)
"""The marks a price observation can carry as shown (several at once)."""


@dataclass(frozen=True, slots=True)
class StateSubset:
    """The one way to make a field type of some states only: ``Annotated[State, StateSubset(allowed,
    holder)]`` is a :class:`State` that may hold only ``allowed`` (``holder`` names what holds
    it in the error, e.g. ``"a record"``).

    A state outside ``allowed`` is rejected before enum validation, naming ``holder`` and the
    allowed states (``state 'derived' is not one a record may hold: use one of 'published', …``);
    the JSON Schema lists only ``allowed``, with ``description`` when given.
    """

    allowed: tuple[State, ...]
    holder: str
    description: str | None = None

    def _check(self, value: Any) -> Any:
        if isinstance(value, State):
            value = value.value
        if isinstance(value, str) and value not in {s.value for s in self.allowed}:
            listed = ", ".join(repr(s.value) for s in self.allowed)
            raise ValueError(f"state {value!r} is not one {self.holder} may hold: use one of {listed}")
        return value

    def __get_pydantic_core_schema__(self, source: Any, handler: GetCoreSchemaHandler) -> CoreSchema:
        """The field's schema: :meth:`_check`, then the :class:`State` enum."""
        return core_schema.no_info_before_validator_function(self._check, handler(source))

    def __get_pydantic_json_schema__(self, schema: CoreSchema, handler: GetJsonSchemaHandler) -> JsonSchemaValue:
        """A string of the allowed codes, titled ``State``."""
        described = {"description": self.description} if self.description else {}
        return {"type": "string", "enum": [s.value for s in self.allowed], "title": "State", **described}


RecordState = Annotated[
    State,
    StateSubset(
        RECORD_STATES,
        "a record",
        "not_published: the vendor withholds the figure; not_sourced: researched, but no source we could read states it",
    ),
]
"""The :class:`State` field type of a record's claim: one of :data:`RECORD_STATES`."""

"""The presentation rule: what a person sees for a claim or an offer, decided here only.

Every output (page, API, table, CSV and the other exports, charts, comparisons, derived
figures) asks this module how to show a figure; none decides it itself.

Two vocabularies:

- :class:`Shown` — the state of one figure as shown: published, published as text, not
  published, not applicable, not comparable, not yet sourced, not yet collected. Two marks
  may sit on any of them: *derived* (with the state of its weakest input) and *disputed*.
- :class:`OfferQualifier` — what qualifies a price: stale, held, variant not stated, not
  separable, derived from a monthly or weekly term.
"""

from __future__ import annotations

from enum import StrEnum


class Shown(StrEnum):
    """The state of a figure as every output shows it (the value is the CSV/API word)."""

    PUBLISHED = "published"
    PUBLISHED_AS_TEXT = "published_as_text"
    NOT_PUBLISHED = "not_published"
    NOT_APPLICABLE = "not_applicable"
    NOT_COMPARABLE = "not_comparable"
    NOT_SOURCED = "not_sourced"
    NOT_COLLECTED = "not_collected"

    @property
    def label(self) -> str:
        """The words pages, tables and CSV state cells show for the state."""
        return _SHOWN_LABELS[self]


_SHOWN_LABELS = {
    Shown.PUBLISHED: "published",
    Shown.PUBLISHED_AS_TEXT: "published as text",
    Shown.NOT_PUBLISHED: "not published",
    Shown.NOT_APPLICABLE: "not applicable",
    Shown.NOT_COMPARABLE: "not comparable",
    Shown.NOT_SOURCED: "not yet sourced",
    Shown.NOT_COLLECTED: "not yet collected",
}


class OfferQualifier(StrEnum):
    """What qualifies one price observation as shown (the value is the CSV/API word)."""

    STALE = "stale"
    HELD = "held"
    VARIANT_NOT_STATED = "variant_not_stated"
    NOT_SEPARABLE = "not_separable"
    DERIVED_FROM_TERM = "derived_from_term"

    @property
    def label(self) -> str:
        """The words pages and tables show for the qualifier."""
        return _QUALIFIER_LABELS[self]


_QUALIFIER_LABELS = {
    OfferQualifier.STALE: "stale",
    OfferQualifier.HELD: "held for review",
    OfferQualifier.VARIANT_NOT_STATED: "variant not stated",
    OfferQualifier.NOT_SEPARABLE: "not separable",
    OfferQualifier.DERIVED_FROM_TERM: "hourly equivalent derived from a monthly or weekly term",
}

"""What a filtered table says it filtered, in words, made here only: the line above the
silicon table (``/silicon/``), the current-offer table of ``/cloud/`` and a part's current prices
("Showing 2 of 12 accelerators: vendor acme, memory ≥ 80 GB"). The static site's
``table.js`` writes the same words for a query it applies in the browser.

Sorting and the columns shown are not filters and are not stated.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from computeatlas.cloud.queries import PriceQuery
from computeatlas.core.offer_words import pricing_words
from computeatlas.silicon import table


def _sentence(shown: int, total: int, noun: str, said: Sequence[str]) -> str:
    """``"Showing 2 of 12 accelerators: a, b"``, or ``"Showing all 12 accelerators"`` when nothing is said."""
    if not said:
        return f"Showing all {total} {noun}"
    return f"Showing {shown} of {total} {noun}: {', '.join(said)}"


def silicon_statement(query: table.Query, shown: int, total: int) -> str:
    """The silicon table's filters in words: each choice filter as ``"vendor acme or globex"``
    (values sorted), each range bound as ``"memory ≥ 80 GB"`` (``%g`` in the column's display
    unit); ``shown`` of ``total`` parts."""
    said = [f"{key.replace('_', ' ')} {' or '.join(sorted(query.choices[key]))}" for key in table.CHOICE_FILTERS if key in query.choices]
    for key, (low, high) in query.ranges.items():
        column = table.BY_KEY[key]
        said += [f"{column.label.lower()} {sign} {bound:g} {column.unit}" for sign, bound in (("≥", low), ("≤", high)) if bound is not None]
    return _sentence(shown, total, "accelerators", said)


def offers_statement(query: PriceQuery, shown: int, total: int, labels: Mapping[str, Mapping[str, str]]) -> str:
    """The current-offer filters of ``/cloud/`` in words: ``"provider Lambda, pricing
    on-demand"``, each value in its filter's words (``labels``: parameter → value → words,
    the page's filter choices; a value without words is shown as given); ``shown`` of
    ``total`` offers."""
    said = []
    for key in ("accelerator", "provider", "pricing", "region"):
        values = [str(v) for v in query.values(key)]
        if values:
            words = labels.get(key, {})
            said.append(f"{key} {' or '.join(words.get(v, v) for v in values)}")
    return _sentence(shown, total, "offers", said)


def observed_statement(filters: Mapping[str, str], shown: int, total: int, names: Mapping[str, str]) -> str:
    """A part's current prices narrowed by ``filters`` (provider, pricing, region) in words:
    ``"Showing 2 of 14 current prices: provider CoreWeave, pricing spot"`` (providers by their
    ``names``, pricing kinds in words)."""
    said = []
    for key in ("provider", "pricing", "region"):
        value = filters.get(key)
        if value:
            said.append(
                f"{key} {names.get(value, value) if key == 'provider' else pricing_words(value, '') if key == 'pricing' else value}"
            )
    return _sentence(shown, total, "current prices", said)


__all__ = ["observed_statement", "offers_statement", "silicon_statement"]

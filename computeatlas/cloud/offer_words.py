"""The words and ids of an offer: a price as text, what one accelerator is called, the stable
offer id of a stored row and the variant a stored variant key names (used by
:mod:`computeatlas.cloud.offers`; import them from here)."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping
from decimal import ROUND_HALF_UP, Context, Decimal
from typing import Any

from computeatlas.cloud.variants import Variant
from computeatlas.silicon.records import Accelerator

NOT_STATED = "not-stated"
"""The variant key of an observation whose provider states neither form nor memory."""

# --- numbers and words ---------------------------------------------------------------

_FOUR_PLACES = Decimal("0.0001")


def four_places(value: float | Decimal) -> Decimal:
    """``value`` rounded half up to four decimal places, exactly, whatever its size (the
    precision is set from the value, so a large price never overflows the default 28
    digits). A non-finite value is returned unchanged."""
    number = Decimal(repr(value) if isinstance(value, float) else value)
    if not number.is_finite():
        return number
    digits = max(number.adjusted(), 0) + 1 + 4 + 2
    return number.quantize(_FOUR_PLACES, ROUND_HALF_UP, context=Context(prec=max(28, digits)))


def amount_text(value: float | Decimal) -> str:
    """A price as text, rounded half up as by hand: at least two decimals, at most four,
    trailing zeros dropped beyond two (``12.29``, ``6.155``, ``1.0818``). Any finite size
    works (``1e300`` is written out in full); a non-finite value reads ``not a finite number``."""
    amount = four_places(value)
    if not amount.is_finite():
        return "not a finite number"
    text = f"{amount:f}".rstrip("0")
    whole, _, frac = text.partition(".")
    return f"{whole}.{frac.ljust(2, '0')}"


def unit_word(acc: Accelerator) -> str:
    """What one accelerator is called in prices: ``GPU`` for NVIDIA and AMD parts, else
    ``accelerator`` (a Trainium or a TPU is not a GPU)."""
    return "GPU" if acc.vendor in ("nvidia", "amd") else "accelerator"


def offer_id(provider: str, instance_type: str, pricing: str, term: str, region: str, day: dt.date) -> str:
    """The stable id of an offer's observations on ``day``: provider, instance, pricing, term,
    region and date as a slug. The hand-typed offers wrote a Capacity Block as ``reserved``
    with the term "Capacity Block" (the importer reads it as ``capacity_block``): such a row
    keeps the word it was published under, so ids given out before the store still resolve."""
    word = "reserved" if pricing == "capacity_block" and "capacity block" in term.lower() else pricing.replace("_", "-")
    parts = (provider, instance_type, word, term, region, day.isoformat())
    return re.sub(r"[^a-z0-9]+", "-", " ".join(parts).lower()).strip("-")


def row_id(row: Mapping[str, Any]) -> str:
    """:func:`offer_id` of a stored row."""
    return offer_id(
        row["provider"],
        row["instance_type"],
        row["pricing"],
        row["term"] or "",
        row["region"] or "",
        row["collected"].astimezone(dt.UTC).date(),
    )


_FORM_WORDS = {"nvl": "NVL", "sxm": "SXM", "pcie": "PCIe", "oam": "OAM"}


def variant_of_key(key: str) -> Variant:
    """The :class:`Variant` a stored variant key names (``sxm-80gb`` → "SXM 80 GB", 80 GB);
    '' is "variant not stated" (key :data:`NOT_STATED`). Nothing is taken from the record."""
    if not key:
        return Variant(key=NOT_STATED, label="variant not stated")
    form, memory, words = None, None, []
    for part in key.split("-"):
        found = re.fullmatch(r"(\d+(?:\.\d+)?)gb", part)
        if part in _FORM_WORDS:
            form = _FORM_WORDS[part]
            words.append(form)
        elif found:
            memory = float(found.group(1))
            words.append(f"{memory:g} GB")
        else:
            words.append(part)
    return Variant(key=key, label=" ".join(words), form=form, memory_gb=memory)


__all__ = ["NOT_STATED", "amount_text", "four_places", "offer_id", "row_id", "unit_word", "variant_of_key"]

"""The accelerator page at a glance: the card a buyer reads before anything else.

Built from the same spec views and rental summary as the rest of the page, so the card
cannot disagree with the sections below it: the core figures in the vendor's own units with
their states, availability, the current on-demand price range with its date (or why there is
none), and the catch in one line.
"""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import BaseModel, Field

from computeatlas.cloud.rental import RentSummary
from computeatlas.core.claims import NumberFormat
from computeatlas.core.states import State
from computeatlas.pages.cheapest import price_text
from computeatlas.silicon.specs import SpecView

CARD_SPECS: tuple[str, ...] = ("memory", "memory_bandwidth", "compute.FP4", "compute.FP8", "compute.BF16", "power")
"""The figures the card shows, in order (FP4 only where the record holds it)."""

_CARD_LABELS = {"memory": "Memory", "memory_bandwidth": "Bandwidth", "power": "Power"}


class GlanceFigure(BaseModel):
    """One core figure on the card: as the vendor states it, or its state in words."""

    key: str
    label: str
    display: str = Field(description="the figure as stated (thousands separators), or the state in words")
    state: State
    state_label: str
    basis: str | None = None
    dense: bool = Field(False, description="a compute figure: the dense rate")


class GlancePrice(BaseModel):
    """The current on-demand price range, dated, or why there is none."""

    text: str = Field(description="the range or the reason, in words")
    low: float | None = Field(None, description="cheapest USD per accelerator-hour")
    high: float | None = Field(None, description="dearest USD per accelerator-hour")
    as_of: str | None = Field(None, description="ISO date the range is measured at")
    url: str | None = Field(None, description="the observed-prices page")
    current: bool = Field(False, description="the range is of current observations (False: none, or only an old one shown as old)")
    last_seen: str | None = Field(None, description="no current observation: 'last seen 2026-08-20, 104 days ago'")


class Glance(BaseModel):
    """The summary card at the top of an accelerator page."""

    figures: list[GlanceFigure]
    availability: str
    availability_note: str
    price: GlancePrice
    catch: str = Field(description="the catch, first sentence")


def first_sentence(text: str) -> str:
    """The first sentence of ``text`` (up to the first ". " after at least 20 characters), or all of it."""
    cut = text.find(". ", 20)
    return text if cut < 0 else text[: cut + 1]


def _figure(spec: SpecView) -> GlanceFigure:
    fmt = spec.number_format
    label = f"{fmt.value} dense" if isinstance(fmt, NumberFormat) else _CARD_LABELS.get(spec.key, spec.label)
    shown = spec.state in (State.PUBLISHED, State.PUBLISHED_AS_TEXT)
    return GlanceFigure(
        key=spec.key,
        label=label,
        display=spec.primary.display if shown else spec.state_label,
        state=spec.state,
        state_label=spec.state_label,
        basis=spec.primary.basis if shown else None,
        dense=fmt is not None,
    )


def glance_price(
    rent: RentSummary | None, prices_url: str, prices_read: bool = True, names: Mapping[str, str] | None = None
) -> GlancePrice:
    """The card's price line from the page's rental summary (see :mod:`computeatlas.cloud.rental`);
    ``prices_read`` is False when the observation store was not read (nothing is said about prices then);
    ``names`` gives providers' names by id (the id is shown where none is given)."""
    observed = rent.observed if rent else None
    if not prices_read:
        return GlancePrice(text="Prices were not read for this view: see the observed prices.", url=prices_url)
    if observed is None:
        return GlancePrice(text="No on-demand price: the atlas holds no offer for this part.", url=prices_url)
    day = observed.as_of.date().isoformat()
    old = observed.last_seen
    if observed.offers == 0 and old is not None:
        return GlancePrice(
            text=f"Not current: {old.seen}, {price_text(old.per_accelerator_hour)} USD per accelerator-hour on demand "
            f"({(names or {}).get(old.provider, old.provider)}, {old.instance_type}); no observation in the {observed.freshness_days} days to {day}.",
            as_of=day,
            url=prices_url,
            last_seen=old.seen,
        )
    if observed.offers == 0 or observed.cheapest is None or observed.dearest is None:
        return GlancePrice(
            text=f"No on-demand USD price observed in the {observed.freshness_days} days to {day}.", as_of=day, url=prices_url
        )
    low, high = observed.cheapest.per_accelerator_hour, observed.dearest.per_accelerator_hour
    providers = len(observed.providers)
    count = f"{observed.offers} offer{'s' if observed.offers != 1 else ''} from {providers} provider{'s' if providers != 1 else ''}"
    span = price_text(low) if observed.offers == 1 else f"{price_text(low)}–{price_text(high)}"
    return GlancePrice(
        text=f"{span} USD per accelerator-hour on demand ({count}, {observed.freshness_days} days to {day})",
        low=low,
        high=high,
        as_of=day,
        url=prices_url,
        current=True,
    )


def glance(
    specs: list[SpecView],
    availability: str,
    availability_note: str,
    catch: str,
    rent: RentSummary | None,
    prices_url: str,
    prices_read: bool = True,
    names: Mapping[str, str] | None = None,
) -> Glance:
    """The card of one accelerator from its spec views, rental summary and catch (``prices_read``:
    whether the observation store was read, see :func:`glance_price`)."""
    by_key = {s.key: s for s in specs}
    figures = [
        _figure(by_key[k]) for k in CARD_SPECS if k in by_key and not (k == "compute.FP4" and by_key[k].state is not State.PUBLISHED)
    ]
    return Glance(
        figures=figures,
        availability=availability,
        availability_note=availability_note,
        price=glance_price(rent, prices_url, prices_read, names),
        catch=first_sentence(catch),
    )


__all__ = ["CARD_SPECS", "Glance", "GlanceFigure", "GlancePrice", "first_sentence", "glance", "glance_price"]

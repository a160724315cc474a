"""Prices per accelerator-hour, derived from published offers, and the price spread.

Nothing here is written in a data file: every figure is computed from the offers in
``data/offers/*.csv`` with its arithmetic kept beside it.

- **Price per accelerator-hour** (:func:`offer_price`): for ``price_basis = instance`` it
  is the published instance price ÷ ``accelerators_per_instance`` (``"98.32 USD ÷ 8 =
  12.29 USD per GPU-hour"``); for ``accelerator`` it is the published figure; for
  ``bundle`` it is **not separable** and no number is given. It stays in the offer's own
  currency: a non-USD offer is kept and shown, but left out of USD comparisons (no
  exchange rate is ever applied).
- **Stale**: an offer seen more than :data:`STALE_AFTER_DAYS` days before today.
- **Variant** (:func:`computeatlas.cloud.variants.variant_of`): the form (SXM, PCIe, NVL, OAM)
  and memory per accelerator the provider names; what it leaves out comes from the record.
- **Spread** (:func:`spread`): for one accelerator and ONE variant, the cheapest and the
  dearest on-demand USD price per accelerator-hour within a date window (stale offers
  left out unless asked), both ends named, dated and linked, and dearest ÷ cheapest.
"""

from __future__ import annotations

import datetime as dt
import math
from collections import Counter
from collections.abc import Iterable, Mapping
from decimal import ROUND_HALF_UP, Context, Decimal
from typing import Literal

from pydantic import BaseModel, Field, field_validator

from computeatlas.cloud.records import Offer, PriceBasis, Pricing
from computeatlas.cloud.variants import Variant, record_variant, variant_key, variant_of
from computeatlas.core.catalog import Catalog
from computeatlas.core.errors import BadRequest
from computeatlas.core.urls import site_path
from computeatlas.silicon.records import Accelerator

STALE_AFTER_DAYS = 90
"""An offer seen more than this many days before today is stale."""

COMPARISON_CURRENCY = "USD"
"""The only currency prices are compared in; others are shown but never converted."""

ALL_VARIANTS = "all"
"""The ``variant`` value that asks for every variant to be mixed in one spread."""


def today() -> dt.date:
    """The date staleness is measured from (tests replace this function)."""
    return dt.date.today()


class PricingQueryError(BadRequest):
    """A bad filter or spread parameter (a 400); the message names the parameter and the value."""

    def __init__(self, message: str) -> None:
        super().__init__("Bad query parameter", message)


# --- numbers and words ---------------------------------------------------------------


def amount_text(value: float | Decimal) -> str:
    """A price as text, rounded half up as by hand: at least two decimals, at most four,
    trailing zeros dropped beyond two (``12.29``, ``6.155``, ``1.0818``). Any finite size
    works (``1e300`` is written out in full); a non-finite value reads ``not a finite number``."""
    amount = _four(value)
    if not amount.is_finite():
        return "not a finite number"
    text = f"{amount:f}".rstrip("0")
    whole, _, frac = text.partition(".")
    return f"{whole}.{frac.ljust(2, '0')}"


_FOUR_PLACES = Decimal("0.0001")


def _four(value: float | Decimal) -> Decimal:
    """``value`` rounded half up to four decimal places, exactly, whatever its size.

    The precision is set from the value (digits before the point + 4 + a margin), so a
    large price never raises ``decimal.InvalidOperation`` as the default 28 digits would
    from about 1e24 up. A non-finite value is returned unchanged.
    """
    number = Decimal(repr(value) if isinstance(value, float) else value)
    if not number.is_finite():
        return number
    digits = max(number.adjusted(), 0) + 1 + 4 + 2
    return number.quantize(_FOUR_PLACES, ROUND_HALF_UP, context=Context(prec=max(28, digits)))


def unit_word(acc: Accelerator) -> str:
    """What one accelerator is called in prices: ``GPU`` for NVIDIA and AMD parts, else
    ``accelerator`` (a Trainium or a TPU is not a GPU)."""
    return "GPU" if acc.vendor in ("nvidia", "amd") else "accelerator"


# --- one offer -----------------------------------------------------------------------


class OfferPrice(BaseModel):
    """One published offer with its derived price per accelerator-hour.

    ``price_per_hour`` is as published, in ``currency``, for what ``price_basis`` covers.
    ``per_accelerator_hour`` is derived (see ``arithmetic``) in the same currency, or
    None when the price is a bundle that cannot be split (``state`` "not separable").
    """

    id: str = Field(description="stable offer id from provider, instance type, pricing, term, region and date seen, e.g. 'lambda-1x-nvidia-h100-sxm-on-demand-2026-09-20'")
    provider: str
    provider_name: str
    provider_kind: str
    accelerator: str
    accelerator_name: str
    variant_published: str = Field(description="the variant as the provider names it")
    variant: Variant
    instance_type: str
    accelerators_per_instance: int
    price_basis: PriceBasis
    pricing: Pricing
    term: str | None
    price_per_hour: float = Field(description="as published, per instance-hour (or per accelerator-hour, per price_basis)")
    price_text: str = Field(description="price_per_hour as text with at least two decimals, e.g. '3.20'")
    currency: str
    region: str | None
    region_label: str = Field(description="the region, or 'not stated'")
    seen: dt.date
    age_days: int = Field(description="days between 'seen' and the date the page was built")
    stale: bool = Field(description=f"seen more than {STALE_AFTER_DAYS} days before the page was built")
    state: Literal["derived", "as published", "not separable"]
    per_accelerator_hour: float | None = Field(description="price per accelerator-hour in 'currency'; None when not separable")
    unit: str = Field(description="what one accelerator is called: GPU or accelerator")
    display: str = Field(description="e.g. '12.29 USD per GPU-hour' or 'not separable'")
    arithmetic: str = Field(description="how per_accelerator_hour was derived")
    usd_comparable: bool = Field(description="True when the offer can enter USD comparisons (USD and separable)")
    currency_note: str | None = None
    source_url: str
    note: str | None
    data_file: str
    url: str = Field(description="the offer on its provider's page")


def offer_price(catalog: Catalog, offer: Offer, on: dt.date | None = None) -> OfferPrice:
    """Derive the price per accelerator-hour of ``offer`` as of ``on`` (default today).

    Formula: instance price ÷ accelerators per instance for ``instance`` prices; the
    published figure for ``accelerator`` prices; "not separable" for ``bundle`` prices.
    """
    on = on or today()
    acc = catalog.accelerators[offer.accelerator]
    provider = catalog.providers[offer.provider]
    unit, cur, price = unit_word(acc), offer.currency, offer.price_per_hour
    amount: float | None
    if offer.price_basis is PriceBasis.BUNDLE:
        state, amount = "not separable", None
        display = "not separable"
        arithmetic = f"{amount_text(price)} {cur} per hour covers a bundle with no share per {unit}: not separable"
    elif offer.price_basis is PriceBasis.ACCELERATOR:
        state, amount = "as published", price
        display = f"{amount_text(price)} {cur} per {unit}-hour"
        arithmetic = f"{amount_text(price)} {cur} per {unit}-hour, as published (no division)"
    else:
        published = Decimal(repr(price))
        context = Context(prec=max(28, max(published.adjusted(), 0) + 1 + 28))  # any size, 28 digits after the point
        quotient = context.divide(published, offer.accelerators_per_instance)
        state, amount = "derived", float(quotient)
        display = f"{amount_text(quotient)} {cur} per {unit}-hour"
        sign = "=" if _four(quotient) == quotient else "≈"
        arithmetic = f"{amount_text(price)} {cur} ÷ {offer.accelerators_per_instance} {sign} {display}"
    currency_note = None
    if cur != COMPARISON_CURRENCY:
        currency_note = (f"Priced in {cur}: shown as published and left out of {COMPARISON_CURRENCY} "
                         "comparisons; no exchange rate is applied.")
    age = (on - offer.seen).days
    return OfferPrice(
        id=offer.id, provider=offer.provider, provider_name=provider.name, provider_kind=provider.kind.value,
        accelerator=acc.id, accelerator_name=acc.name, variant_published=offer.variant, variant=variant_of(offer, acc),
        instance_type=offer.instance_type, accelerators_per_instance=offer.accelerators_per_instance,
        price_basis=offer.price_basis, pricing=offer.pricing, term=offer.term, price_per_hour=price, price_text=amount_text(price), currency=cur,
        region=offer.region, region_label=offer.region or "not stated", seen=offer.seen, age_days=age,
        stale=age > STALE_AFTER_DAYS, state=state, per_accelerator_hour=amount, unit=unit, display=display,
        arithmetic=arithmetic, usd_comparable=cur == COMPARISON_CURRENCY and amount is not None,
        currency_note=currency_note, source_url=offer.source_url, note=offer.note,
        data_file=catalog.file_of("offers", offer.id), url=site_path("cloud_provider", ident=offer.provider) + f"#offer-{offer.id}",
    )


def offers_of(catalog: Catalog, accelerator: str) -> list[Offer]:
    """Every offer for ``accelerator``, in file order."""
    return [o for o in catalog.offers.values() if o.accelerator == accelerator]


# --- queries -------------------------------------------------------------------------


class PriceQuery(BaseModel):
    """Filters for offer lists and the spread, as given by query parameters or CLI options.

    ``accelerator``, ``provider``, ``pricing`` and ``region`` (:data:`LIST_PARAMS`) each
    hold one value, a tuple of several (an offer matching any of them passes), or None for
    any; a list or tuple of one value is kept as that value. ``variant`` is a variant key
    (``sxm-80gb``), ``all`` to mix every variant, or None for the default one;
    ``since``/``until`` bound the ``seen`` date (inclusive).
    """

    accelerator: str | tuple[str, ...] | None = None
    provider: str | tuple[str, ...] | None = None
    pricing: Pricing | tuple[Pricing, ...] | None = None
    region: str | tuple[str, ...] | None = None
    variant: str | None = None
    since: dt.date | None = None
    until: dt.date | None = None
    include_stale: bool = False

    @field_validator("accelerator", "provider", "pricing", "region", mode="before")
    @classmethod
    def _one_or_several(cls, value: object) -> object:
        if isinstance(value, list | tuple | set | frozenset):
            unique = tuple(dict.fromkeys(value))
            return None if not unique else unique[0] if len(unique) == 1 else unique
        return value

    def values(self, name: str) -> tuple[object, ...]:
        """The values of the list filter ``name`` as a tuple: empty for any."""
        value = getattr(self, name)
        return () if value is None else value if isinstance(value, tuple) else (value,)

    def params(self) -> dict[str, str]:
        """The non-default parameters, for links that keep the current choice (several
        values of a filter as one comma-separated list)."""
        raw = self.model_dump(exclude_defaults=True, mode="json")
        return {k: ("true" if v is True else ",".join(map(str, v)) if isinstance(v, list) else str(v)) for k, v in raw.items()}


_TRUE, _FALSE = {"true", "1", "yes", "on"}, {"false", "0", "no", "off", ""}


QUERY_PARAMS = tuple(PriceQuery.model_fields)
"""Every parameter name :func:`parse_query` knows."""

LIST_PARAMS = ("accelerator", "provider", "pricing", "region")
"""Parameters that take several values as one comma-separated list (``provider=aws,lambda``)."""


def _split(text: str) -> list[str]:
    """Comma-separated values, trimmed, blanks and repeats dropped, in order."""
    return list(dict.fromkeys(v.strip() for v in text.split(",") if v.strip()))


def parse_query(
    params: Mapping[str, str | None] | Iterable[tuple[str, str | None]], catalog: Catalog, allowed: Iterable[str] = QUERY_PARAMS
) -> PriceQuery:
    """Check and parse filter parameters; raise :class:`PricingQueryError` naming the bad one.

    ``params`` is a mapping, or the raw ``(name, value)`` pairs of a query string (e.g.
    ``request.query_params.multi_items()``), so that a name given twice is an error
    rather than silently keeping one value. ``allowed`` lists the names this page or
    command takes (default: all of :data:`QUERY_PARAMS`); any other name is ignored
    (tracking parameters such as ``utm_source`` are common in shared links).
    Blank values mean "any". :data:`LIST_PARAMS` take several values as one
    comma-separated list (``provider=aws,lambda``: an offer of either passes). Ids and
    regions must exist in the catalog; dates are YYYY-MM-DD.
    """
    allowed = tuple(allowed)
    pairs = [(k, v) for k, v in (params.items() if isinstance(params, Mapping) else params) if k in allowed]
    given: set[str] = set()
    for name, value in pairs:
        if name in given:
            hint = f"give several values as one comma-separated list ({name}=a,b)" if name in LIST_PARAMS else "give it once"
            raise PricingQueryError(f"parameter '{name}': given more than once; {hint}")
        given.add(name)
        if value is not None and len(value) > 200:
            raise PricingQueryError(f"parameter '{name}': value is too long")
    clean = {k: v.strip() for k, v in pairs if v is not None and v.strip()}
    out: dict[str, object] = {}
    for name, target, what in (("accelerator", catalog.accelerators, "accelerator"), ("provider", catalog.providers, "provider")):
        if name in clean:
            for ident in _split(clean[name]):
                if ident not in target:
                    raise PricingQueryError(f"parameter '{name}': no {what} with id {ident!r}")
            out[name] = _split(clean[name])
    if "pricing" in clean:
        chosen = []
        for text in _split(clean["pricing"]):
            try:
                chosen.append(Pricing(text))
            except ValueError:
                raise PricingQueryError(f"parameter 'pricing': {text!r} is not one of " + ", ".join(p.value for p in Pricing)) from None
        out["pricing"] = chosen
    if "region" in clean:
        regions = {r.casefold(): r for r in regions_of(catalog.offers.values())}
        names = [clean["region"]] if clean["region"].casefold() in regions else _split(clean["region"])  # a region may hold a comma
        for text in names:
            if text.casefold() not in regions:
                raise PricingQueryError(f"parameter 'region': no offer lists region {text!r}")
        out["region"] = [regions[text.casefold()] for text in names]
    for name in ("since", "until"):
        if name in clean:
            try:
                out[name] = dt.date.fromisoformat(clean[name])
            except ValueError:
                raise PricingQueryError(f"parameter '{name}': {clean[name]!r} is not a date (write YYYY-MM-DD)") from None
    if out.get("since") and out.get("until") and out["since"] > out["until"]:  # type: ignore[operator]
        raise PricingQueryError(f"parameters 'since' and 'until': {out['since']} is after {out['until']}")
    if "variant" in clean:
        out["variant"] = variant_key(clean["variant"]) if clean["variant"].lower() != ALL_VARIANTS else ALL_VARIANTS
    stale = (dict(pairs).get("include_stale") or "").strip().lower()
    if stale not in _TRUE | _FALSE:
        raise PricingQueryError(f"parameter 'include_stale': {stale!r} is not true or false")
    out["include_stale"] = stale in _TRUE
    return PriceQuery(**out)  # type: ignore[arg-type]


def regions_of(offers: Iterable[Offer]) -> list[str]:
    """The distinct regions offers name, sorted case-insensitively."""
    return sorted({o.region for o in offers if o.region}, key=str.casefold)


def matches(price: OfferPrice, query: PriceQuery) -> bool:
    """True when ``price`` passes the list filters of ``query`` (stale offers are kept in
    lists, only marked; the spread is where they are left out)."""
    return (
        (query.accelerator is None or price.accelerator in query.values("accelerator"))
        and (query.provider is None or price.provider in query.values("provider"))
        and (query.pricing is None or price.pricing in query.values("pricing"))
        and (query.region is None or price.region in query.values("region"))
        and (query.variant in (None, ALL_VARIANTS) or price.variant.key == query.variant)
        and (query.since is None or price.seen >= query.since)
        and (query.until is None or price.seen <= query.until)
    )


def offer_prices(catalog: Catalog, query: PriceQuery | None = None, on: dt.date | None = None) -> list[OfferPrice]:
    """Every offer passing ``query`` with its derived price, sorted by accelerator name,
    then USD price per accelerator-hour (others after), then provider."""
    on = on or today()
    query = query or PriceQuery()
    names = {ident: n for n, ident in enumerate(catalog.accelerators)}
    rows = [p for p in (offer_price(catalog, o, on) for o in catalog.offers.values()) if matches(p, query)]
    return sorted(rows, key=lambda p: (names[p.accelerator], not p.usd_comparable, p.per_accelerator_hour or 0.0, p.provider_name, p.id))


# --- the spread ----------------------------------------------------------------------

SPREAD_FORMULA = (
    "dearest ÷ cheapest on-demand USD price per accelerator-hour, for one variant, "
    f"over offers seen within the window; offers seen more than {STALE_AFTER_DAYS} days ago are left out unless asked"
)


class SpreadEnd(BaseModel):
    """One end of a spread: the offer, who sells it, when it was seen and where it is."""

    offer_id: str
    provider: str
    provider_name: str
    instance_type: str
    region_label: str
    seen: dt.date
    source_url: str
    per_accelerator_hour: float
    display: str
    arithmetic: str
    url: str


class Spread(BaseModel):
    """The price spread of one accelerator: derived from the offers, never written.

    ``state`` is "computed" (two or more offers: both ends and ``ratio`` = dearest ÷
    cheapest), "single offer" (one offer, no spread) or "no offers" (nothing qualifies).
    """

    accelerator: str
    variant: Variant | None = Field(description="the variant priced; None when every variant was mixed on request")
    all_variants: bool
    pricing: Literal["on-demand"] = "on-demand"
    currency: str = COMPARISON_CURRENCY
    since: dt.date | None
    until: dt.date | None
    region: str | tuple[str, ...] | None = Field(description="the region, or the regions, the spread is narrowed to")
    include_stale: bool
    as_of: dt.date
    state: Literal["computed", "single offer", "no offers"]
    state_label: str
    cheapest: SpreadEnd | None
    dearest: SpreadEnd | None
    ratio: float | None = Field(description="dearest ÷ cheapest, when two or more offers count")
    ratio_text: str
    counted: int = Field(description="offers inside the spread")
    formula: str = SPREAD_FORMULA


class PriceRow(BaseModel):
    """An offer on a price page: whether it counts in the spread, why not, and its dot
    position (0–100 % of ``scale_max``) when it has a USD price per accelerator-hour."""

    offer: OfferPrice
    in_spread: bool
    excluded_because: str | None
    position: int | None


class VariantChoice(BaseModel):
    """A variant an accelerator is rented in, with how many offers name it."""

    key: str
    label: str
    offers: int
    selected: bool


class PriceView(BaseModel):
    """The price page of one accelerator and the body of ``/api/prices/{accelerator}``."""

    accelerator: str
    accelerator_name: str
    availability: str
    unit: str
    query: PriceQuery
    variants: list[VariantChoice]
    spread: Spread
    rows: list[PriceRow]
    scale_max: float | None = Field(description="right end of the dot plot, USD per accelerator-hour")
    stale_after_days: int = STALE_AFTER_DAYS
    as_of: dt.date


def _exclusion(p: OfferPrice, variant: str, query: PriceQuery) -> str | None:
    """Why ``p`` is outside the spread, in words; None when it counts."""
    if p.pricing is not Pricing.ON_DEMAND:
        return f"{p.pricing.value} price: the spread counts on-demand prices only"
    if p.per_accelerator_hour is None:
        return f"not separable: the bundle price has no share per {p.unit}"
    if p.currency != COMPARISON_CURRENCY:
        return f"priced in {p.currency}: left out of {COMPARISON_CURRENCY} comparisons (no exchange rate)"
    if variant != ALL_VARIANTS and p.variant.key != variant:
        return f"another variant ({p.variant.label})"
    if query.region is not None and p.region not in query.values("region"):
        return f"another region ({p.region_label})"
    if query.since is not None and p.seen < query.since:
        return f"seen {p.seen}, before the window starts ({query.since})"
    if query.until is not None and p.seen > query.until:
        return f"seen {p.seen}, after the window ends ({query.until})"
    if p.stale and not query.include_stale:
        return f"stale: seen {p.age_days} days ago (more than {STALE_AFTER_DAYS})"
    return None


def _end(p: OfferPrice) -> SpreadEnd:
    return SpreadEnd(
        offer_id=p.id, provider=p.provider, provider_name=p.provider_name, instance_type=p.instance_type,
        region_label=p.region_label, seen=p.seen, source_url=p.source_url,
        per_accelerator_hour=p.per_accelerator_hour or 0.0, display=p.display, arithmetic=p.arithmetic, url=p.url,
    )


def _choose_variant(acc: Accelerator, prices: list[OfferPrice], asked: str | None) -> tuple[str, Variant | None]:
    """The variant key the spread uses (or ``all``) and its Variant; the default is the
    part's own record variant when offered, else the variant most offers name."""
    by_key = {p.variant.key: p.variant for p in prices}
    record = record_variant(acc)
    by_key.setdefault(record.key, record)
    if asked == ALL_VARIANTS:
        return ALL_VARIANTS, None
    if asked is not None:
        if asked not in by_key:
            raise PricingQueryError(
                f"parameter 'variant': {acc.id} has no variant {asked!r}; choose one of "
                + ", ".join(sorted(by_key)) + f" or '{ALL_VARIANTS}'"
            )
        return asked, by_key[asked]
    counts = Counter(p.variant.key for p in prices)
    if record.key in counts or not counts:
        return record.key, record
    key = sorted(counts, key=lambda k: (-counts[k], by_key[k].label))[0]
    return key, by_key[key]


def spread_of(acc: Accelerator, prices: list[OfferPrice], query: PriceQuery, on: dt.date) -> tuple[Spread, list[PriceRow]]:
    """Compute the spread of ``acc`` over ``prices`` (its offers) and mark every offer.

    Raises :class:`PricingQueryError` when ``query.variant`` names a variant the part
    is not offered in. Ties at either end go to the most recently seen offer.
    """
    key, variant = _choose_variant(acc, prices, query.variant)
    reasons = {p.id: _exclusion(p, key, query) for p in prices}
    inside = [p for p in prices if reasons[p.id] is None]
    ranked = sorted(inside, key=lambda p: (p.per_accelerator_hour or 0.0, -p.seen.toordinal(), p.id))
    cheapest = _end(ranked[0]) if ranked else None
    dearest = _end(max(ranked, key=lambda p: (p.per_accelerator_hour or 0.0, p.seen))) if ranked else None
    ratio, state, ratio_text = None, "no offers", "no spread: no on-demand USD offer qualifies"
    if len(ranked) == 1:
        state, ratio_text = "single offer", "no spread: only one offer qualifies"
    elif len(ranked) > 1 and cheapest and dearest:
        ratio, state = dearest.per_accelerator_hour / cheapest.per_accelerator_hour, "computed"
        ratio_text = f"{amount_text(dearest.per_accelerator_hour)} ÷ {amount_text(cheapest.per_accelerator_hour)} ≈ {ratio:.2f}×"
    labels = {"computed": f"computed from {len(ranked)} offers", "single offer": "not computed: one offer", "no offers": "not computed: no offers"}
    spread = Spread(
        accelerator=acc.id, variant=variant, all_variants=key == ALL_VARIANTS, since=query.since, until=query.until,
        region=query.region, include_stale=query.include_stale, as_of=on, state=state, state_label=labels[state],
        cheapest=cheapest, dearest=dearest, ratio=ratio, ratio_text=ratio_text, counted=len(ranked),
    )
    plotted = [p.per_accelerator_hour for p in prices if p.usd_comparable and p.per_accelerator_hour]
    top = scale_top(max(plotted)) if plotted else None
    rows = [
        PriceRow(
            offer=p, in_spread=reasons[p.id] is None, excluded_because=reasons[p.id],
            position=round(100 * (p.per_accelerator_hour / top)) if top and p.usd_comparable and p.per_accelerator_hour else None,
        )
        for p in prices
    ]
    return spread, rows


def scale_top(highest: float) -> float:
    """The right end of a price axis: ``highest`` rounded up to a whole number (to a
    tenth below 1)."""
    return float(math.ceil(highest)) if highest >= 1 else math.ceil(highest * 10) / 10


def price_view(catalog: Catalog, acc: Accelerator, query: PriceQuery | None = None, on: dt.date | None = None) -> PriceView:
    """Every offer of ``acc`` with its derived price, the spread chosen by ``query`` and
    the dot-plot positions. Raises :class:`PricingQueryError` for an unknown variant."""
    on = on or today()
    query = query or PriceQuery()
    names = {p: n for n, p in enumerate(catalog.providers)}
    prices = sorted(
        (offer_price(catalog, o, on) for o in offers_of(catalog, acc.id)),
        key=lambda p: (not p.usd_comparable, p.per_accelerator_hour or 0.0, names[p.provider], p.id),
    )
    spread, rows = spread_of(acc, prices, query, on)
    counts = Counter(p.variant.key for p in prices)
    labels = {p.variant.key: p.variant.label for p in prices}
    chosen = spread.variant.key if spread.variant else ALL_VARIANTS
    variants = [VariantChoice(key=k, label=labels[k], offers=n, selected=k == chosen) for k, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))]
    top = max((r.offer.per_accelerator_hour or 0.0 for r in rows if r.position is not None), default=None)
    return PriceView(
        accelerator=acc.id, accelerator_name=acc.name, availability=acc.availability.value, unit=unit_word(acc),
        query=query, variants=variants, spread=spread, rows=rows, scale_max=scale_top(top) if top else None, as_of=on,
    )


"""Filters of offer lists and the spread, from query parameters or CLI options.

:func:`parse_query` checks raw parameters (a bad one is a :class:`PricingQueryError`, a 400
naming it) and returns a :class:`PriceQuery`; :func:`matches` applies its list filters to
one :class:`~computeatlas.cloud.offers.OfferPrice`.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable, Mapping

from pydantic import BaseModel, field_validator

from computeatlas.cloud.catalog import CloudCatalog
from computeatlas.cloud.offers import OfferPrice, OfferPricing
from computeatlas.cloud.variants import variant_key
from computeatlas.core.errors import BadRequest

ALL_VARIANTS = "all"
"""The ``variant`` value that asks for every variant to be mixed in one spread."""


class PricingQueryError(BadRequest):
    """A bad filter or spread parameter (a 400); the message names the parameter and the value."""

    def __init__(self, message: str) -> None:
        super().__init__("Bad query parameter", message)


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
    pricing: OfferPricing | tuple[OfferPricing, ...] | None = None
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
    params: Mapping[str, str | None] | Iterable[tuple[str, str | None]],
    catalog: CloudCatalog,
    allowed: Iterable[str] = QUERY_PARAMS,
    regions: Callable[[PriceQuery], Iterable[str]] | None = None,
) -> PriceQuery:
    """Check and parse filter parameters; raise :class:`PricingQueryError` naming the bad one.

    ``params`` is a mapping, or the raw ``(name, value)`` pairs of a query string (e.g.
    ``request.query_params.multi_items()``), so that a name given twice is an error
    rather than silently keeping one value. ``allowed`` lists the names this page or
    command takes (default: all of :data:`QUERY_PARAMS`); any other name is ignored
    (tracking parameters such as ``utm_source`` are common in shared links).
    Blank values mean "any". :data:`LIST_PARAMS` take several values as one
    comma-separated list (``provider=aws,lambda``: an offer of either passes). Ids must
    exist in the catalog; dates are YYYY-MM-DD. A region must be one that ``regions`` gives
    for the query parsed so far (the regions the offers in its window name; the store is
    read only when a region is asked); without ``regions`` any region is taken as written.
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
                chosen.append(OfferPricing(text))
            except ValueError:
                raise PricingQueryError(
                    f"parameter 'pricing': {text!r} is not one of " + ", ".join(p.value for p in OfferPricing)
                ) from None
        out["pricing"] = chosen
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
    query = PriceQuery(**out)
    if "region" not in clean:
        return query
    if regions is None:
        return query.model_copy(update={"region": PriceQuery(region=_split(clean["region"])).region})
    known = {r.casefold(): r for r in regions(query)}
    names = [clean["region"]] if clean["region"].casefold() in known else _split(clean["region"])  # a region may hold a comma
    for text in names:
        if text.casefold() not in known:
            raise PricingQueryError(f"parameter 'region': no current offer lists region {text!r}")
    return query.model_copy(update={"region": PriceQuery(region=[known[text.casefold()] for text in names]).region})


def matches(price: OfferPrice, query: PriceQuery) -> bool:
    """True when ``price`` passes the list filters of ``query`` (stale offers, when
    listed, are only marked; the spread is where they are left out)."""
    return (
        (query.accelerator is None or price.accelerator in query.values("accelerator"))
        and (query.provider is None or price.provider in query.values("provider"))
        and (query.pricing is None or price.pricing in query.values("pricing"))
        and (query.region is None or price.region in query.values("region"))
        and (query.variant in (None, ALL_VARIANTS) or price.variant.key == query.variant)
        and (query.since is None or price.seen >= query.since)
        and (query.until is None or price.seen <= query.until)
    )


__all__ = ["ALL_VARIANTS", "LIST_PARAMS", "QUERY_PARAMS", "PriceQuery", "PricingQueryError", "matches", "parse_query"]

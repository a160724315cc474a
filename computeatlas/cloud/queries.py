"""Filters of offer lists and the spread, from query parameters or CLI options.

:func:`parse_query` checks raw parameters (a bad one is a :class:`PricingQueryError`, a 400
naming it) and returns a :class:`PriceQuery`; :func:`matches` applies its list filters to
one :class:`~computeatlas.cloud.offers.OfferPrice`. What a value names is read in one place
each, for every page, endpoint and command: an accelerator by id, alias or name
(:func:`accelerator_id`; a name several parts share is :class:`AmbiguousParam`, a 300 listing
them), a provider by id in any case (:func:`provider_id`), a pricing kind in either spelling
(:func:`pricing_kind`: ``on_demand``, the data's own, or ``on-demand``).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable, Mapping

from pydantic import BaseModel, field_validator

from computeatlas.cloud.catalog import CloudCatalog
from computeatlas.cloud.offers import OfferPrice, OfferPricing
from computeatlas.cloud.variants import variant_key
from computeatlas.core.errors import Ambiguous, BadRequest, closest
from computeatlas.silicon.resolve import AmbiguousName, Candidate, ResolveError, resolve_id

ALL_VARIANTS = "all"
"""The ``variant`` value that asks for every variant to be mixed in one spread."""


class PricingQueryError(BadRequest):
    """A bad filter or spread parameter (a 400); the message names the parameter and the value."""

    def __init__(self, message: str) -> None:
        super().__init__("Bad query parameter", message)


class AmbiguousParam(Ambiguous):
    """A 300: ``name``, the value of ``param``, is a name several accelerators share (``A100``);
    ``candidates`` lists every one to choose from (the web links each, the CLI lists their ids)."""

    def __init__(self, param: str, name: str, message: str, candidates: list[Candidate]) -> None:
        super().__init__("Which accelerator?", f"parameter '{param}': {message}")
        self.param = param
        self.name = name
        self.candidates = candidates


def accelerator_id(catalog: CloudCatalog, text: str, param: str = "accelerator") -> str:
    """The accelerator id ``text`` names: an id, or an alias or name that
    :func:`~computeatlas.silicon.resolve.resolve_id` resolves to one part (``Trn3``, ``H100 SXM``),
    as the pages and ``computeatlas show`` read it. Raises :class:`AmbiguousParam` (300) for a
    name several parts share, never picking one, and :class:`PricingQueryError` (400) naming
    ``param``, the value and the closest ids for anything else."""
    if text in catalog.accelerators:
        return text
    try:
        return resolve_id(catalog, text)
    except AmbiguousName as exc:
        raise AmbiguousParam(param, text, exc.message, exc.options) from None
    except ResolveError as exc:
        near = f"; closest: {', '.join(c.id for c in exc.options)}" if exc.options else ""
        raise PricingQueryError(f"parameter '{param}': no accelerator with id, alias or name {text!r}{near}") from None


def provider_id(text: str, known: Iterable[str], param: str = "provider") -> str:
    """The provider id ``text`` names, in any case (``CoreWeave`` is ``coreweave``), among the
    ``known`` ids; else :class:`PricingQueryError` (400) naming ``param`` and the value, with the
    closest ids and every known one."""
    ids = list(known)
    by_fold = {i.casefold(): i for i in ids}
    found = by_fold.get(text.strip().casefold())
    if found is not None:
        return found
    near = closest(text, ids)
    hint = f"; did you mean {', '.join(near)}?" if near else ""
    raise PricingQueryError(f"parameter '{param}': no provider with id {text!r}{hint} (known: {', '.join(ids) or 'none'})")


def pricing_kind(text: str, param: str = "pricing") -> OfferPricing:
    """The pricing kind ``text`` names, in either spelling: ``on_demand`` (the data's own, as the
    observation store and the price dataset write it) or ``on-demand``, ``capacity_block`` or
    ``capacity-block``, in any case; else :class:`PricingQueryError` naming ``param`` and listing the kinds."""
    try:
        return OfferPricing(text.strip().lower().replace("_", "-"))
    except ValueError:
        kinds = ", ".join(p.value.replace("-", "_") for p in OfferPricing)
        raise PricingQueryError(f"parameter '{param}': {text!r} is not one of {kinds} ('-' may be written for '_')") from None


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
    providers: Callable[[], Iterable[str]] | None = None,
) -> PriceQuery:
    """Check and parse filter parameters; raise :class:`PricingQueryError` naming the bad one.

    ``params`` is a mapping, or the raw ``(name, value)`` pairs of a query string (e.g.
    ``request.query_params.multi_items()``), so that a name given twice is an error
    rather than silently keeping one value. ``allowed`` lists the names this page or
    command takes (default: all of :data:`QUERY_PARAMS`); any other name is ignored
    (tracking parameters such as ``utm_source`` are common in shared links).
    Blank values mean "any". :data:`LIST_PARAMS` take several values as one
    comma-separated list (``provider=aws,lambda``: an offer of either passes). An accelerator
    is an id, alias or name (:func:`accelerator_id`; a shared name is a 300 listing the parts);
    a provider an id in any case (:func:`provider_id`), recorded in the catalog or one of
    ``providers`` (those shown by their prices; read only when a provider is not recorded);
    a pricing kind either spelling (:func:`pricing_kind`); dates are YYYY-MM-DD. A region must be one that ``regions`` gives
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
    if "accelerator" in clean:
        out["accelerator"] = list(dict.fromkeys(accelerator_id(catalog, t) for t in _split(clean["accelerator"])))
    if "provider" in clean:
        recorded = {p.casefold() for p in catalog.providers}
        asked = _split(clean["provider"])
        ids = list(catalog.providers)
        if providers is not None and any(n.casefold() not in recorded for n in asked):
            ids += [p for p in providers() if p.casefold() not in recorded]
        out["provider"] = list(dict.fromkeys(provider_id(n, ids) for n in asked))
    if "pricing" in clean:
        out["pricing"] = [pricing_kind(t) for t in _split(clean["pricing"])]
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


__all__ = [
    "ALL_VARIANTS",
    "LIST_PARAMS",
    "QUERY_PARAMS",
    "AmbiguousParam",
    "PriceQuery",
    "PricingQueryError",
    "accelerator_id",
    "matches",
    "parse_query",
    "pricing_kind",
    "provider_id",
]

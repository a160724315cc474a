"""Layer 1 (energy) and economics pages and API: energy topics, rack-scale systems, the
economics claims and our own estimate.

Pages and API endpoints build the same view objects (:mod:`computeatlas.pages.energy`,
:mod:`computeatlas.economics.estimate`); pages render them with Jinja2, the API returns them as JSON.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Annotated
from urllib.parse import urlencode

from fastapi import Path, Query, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response
from pydantic import BaseModel, ConfigDict, Field

from computeatlas.catalog import Catalog
from computeatlas.cloud import history
from computeatlas.cloud.offers import OfferPrice, current_offers
from computeatlas.cloud.store import Store
from computeatlas.core.claims import NumberFormat
from computeatlas.core.errors import BadRequest, NotFound, PageError
from computeatlas.core.urls import Urls, site_path
from computeatlas.economics.estimate import Estimate, estimate
from computeatlas.economics.inputs import EstimateError, parse_request
from computeatlas.economics.prices import PriceSource, offer_label
from computeatlas.energy import views as energy_figures
from computeatlas.energy.records import EnergyTopic
from computeatlas.pages import energy as energy_views
from computeatlas.pages.cloud_links import offer_page
from computeatlas.pages.economics import linked_estimate
from computeatlas.pages.energy import EconomicsView, SystemView, TopicView
from computeatlas.silicon.related import title_of
from computeatlas.silicon.systems import System
from computeatlas.web import economics
from computeatlas.web.page import (
    Route,
    catalog_of,
    find_record,
    render,
    settings_of,
    slash_redirect,
    urls_of,
)

TOPIC_PATH = Path(description="energy topic id, e.g. 'rack-power-density'", max_length=100)
SYSTEM_PATH = Path(description="system id, e.g. 'nvidia-gb200-nvl72'", max_length=100)
ESTIMATE_FIELDS = (
    "accelerator", "model", "params", "format", "utilisation", "price", "offer", "context", "batch", "accelerators", "kv_bits", "mix",
)  # fmt: skip
FORM_DEFAULTS = {"model": "llama-3-3-70b", "format": "FP8", "utilisation": "0.5", "context": "1024", "kv_bits": "16", "mix": "3:1"}
FORMAT_NAMES = ", ".join(f.value for f in NumberFormat)
"""Every number format's name, for the estimate API's documentation."""
EXAMPLE = {"accelerator": "nvidia-h200-sxm", "model": "llama-3-3-70b", "format": "FP8", "utilisation": "0.5", "price": "3"}
"""The estimate the form offers as an example (used when its accelerator is in the catalog)."""


def find_topic(request: Request, ident: str) -> EnergyTopic:
    """The energy topic ``ident``; raises :class:`NotFound` naming the closest topics."""
    return find_record(catalog_of(request).energy, ident, "energy topic", urls_of(request).template("energy_topic"), lambda t: t.title)


def find_system(request: Request, ident: str) -> System:
    """The system ``ident``; raises :class:`NotFound` naming the closest systems."""
    return find_record(catalog_of(request).systems, ident, "rack-scale system", urls_of(request).template("system_page"), lambda s: s.name)


class EstimateParams(BaseModel):
    """The estimate form's query (``/economics/estimate``): every field optional; other parameters are ignored."""

    model_config = ConfigDict(extra="ignore", frozen=True, populate_by_name=True)

    accelerator: str | None = Field(None, description="accelerator id, e.g. 'nvidia-h200-sxm'")
    model: str | None = Field(None, description="model id, e.g. 'llama-3-3-70b' (or give params)")
    params: str | None = Field(None, description="parameter count of a dense model: 70e9, 70000000000 or 70B (or give a model)")
    number_format: str | None = Field(None, alias="format", description="number format, e.g. FP8")
    utilisation: str | None = Field(None, description="share of dense peak compute used, 0.001 to 1 (or 0.1% to 100%)")
    price: str | None = Field(None, description="USD per accelerator-hour (or give an offer)")
    offer: str | None = Field(None, description="an offer id from the cloud layer")
    context: str | None = Field(None, description="tokens per sequence (default 1024)")
    batch: str | None = Field(None, description="sequences decoded together (default: the largest that fits)")
    accelerators: str | None = Field(None, description="N accelerators (default: the fewest that hold the model)")
    kv_bits: str | None = Field(None, description="bits per cached key or value element: 4, 8, 16 (default) or 32")
    mix: str | None = Field(None, description="input:output tokens of the blended cost (default 3:1)")


def _raw_inputs(params: EstimateParams) -> dict[str, str | None]:
    return params.model_dump(by_alias=True)


def _check_names(request: Request) -> None:
    """Raise :class:`EstimateError` (400) for a parameter of the estimate given more than
    once (the estimate takes one value of each); other parameters are ignored."""
    seen: set[str] = set()
    for name, _ in request.query_params.multi_items():
        if name not in ESTIMATE_FIELDS:
            continue
        if name in seen:
            raise EstimateError(name, "given more than once; give it once")
        seen.add(name)


def _page_error(exc: EstimateError, path: str, raw: dict[str, str | None], urls: Urls) -> PageError:
    """An estimate input error as a 4xx naming the parameter; unknown ids suggest near ones (linked by ``urls``)."""
    suggestions = []
    for name, ident in exc.suggestions:
        fixed = {k: v for k, v in raw.items() if v} | {exc.param: ident}
        suggestions.append((name, f"{path}?{urlencode(fixed)}"))
    more = ""
    if exc.more and exc.accelerator:
        more = (
            f" Suggested: {len(exc.suggestions)} of its {len(exc.suggestions) + exc.more} offers; "
            f"every one is on {urls.path('cloud_prices', ident=exc.accelerator)}."
        )
        suggestions.append(
            (f"all {len(exc.suggestions) + exc.more} offers for {exc.accelerator}", urls.path("cloud_prices", ident=exc.accelerator))
        )
    if exc.status == 404:
        return NotFound("Unknown id", f"parameter '{exc.param}': {exc.reason}.{more}", suggestions)
    return BadRequest("Bad estimate input", f"parameter '{exc.param}': {exc.reason}.")


# --- pages ---------------------------------------------------------------------------


def energy_index(request: Request) -> HTMLResponse:
    """Layer 1: every energy topic with its newest figure, and the rack-scale systems."""
    catalog = catalog_of(request)
    topics = [energy_views.topic_view(catalog, t) for t in catalog.energy.values()]
    systems = [energy_views.system_view(catalog, s) for s in catalog.systems.values()]
    return render(request, "energy_index.html", page_title="Energy", topics=topics, systems=systems,
                  power_text=energy_figures.system_power_text)  # fmt: skip


def energy_topic(request: Request, ident: str = TOPIC_PATH) -> HTMLResponse:
    """One energy topic: dated, sourced figures with who claims them."""
    catalog = catalog_of(request)
    view = energy_views.topic_view(catalog, find_topic(request, ident))
    return render(request, "energy_topic.html", page_title=view.title, view=view)


def systems_index(request: Request) -> HTMLResponse:
    """Every rack-scale system: members, memory and power totals on the system's basis."""
    catalog = catalog_of(request)
    systems = [energy_views.system_view(catalog, s) for s in catalog.systems.values()]
    return render(request, "systems_index.html", page_title="Rack-scale systems", systems=systems,
                  power_text=energy_figures.system_power_text)  # fmt: skip


def system_page(request: Request, ident: str = SYSTEM_PATH) -> HTMLResponse:
    """One system: its members (linked), totals per node/rack/pod, power or "not published"."""
    catalog = catalog_of(request)
    view = energy_views.system_view(catalog, find_system(request, ident))
    return render(request, "system.html", page_title=view.name, view=view)


def economics_page(request: Request) -> HTMLResponse:
    """The economics claims, each with its claimant's interest, a way to our estimate, and the
    models table: each model's cheapest market price and cheapest bound."""
    view = energy_views.economics_view(catalog_of(request))
    return render(
        request,
        "economics.html",
        page_title="Economics",
        view=view,
        models=economics.summaries(request),
        left_out=economics.left_out_of_bounds(request),
    )


def _prices(request: Request) -> PriceSource:
    """The observation store of the app's settings as of now: where the estimate reads prices."""
    settings = settings_of(request)
    return PriceSource(Store(settings.prices_dir), history.utcnow(), settings.freshness_days, settings.hours_per_month, link=offer_page)


def estimate_page(request: Request, params: Annotated[EstimateParams, Query()]) -> HTMLResponse:
    """Our estimate as a GET form (shareable URL); with inputs, the result and every assumption.

    Bad inputs re-render the form with the error and a 4xx status (400, or 404 for an
    unknown id); so does a parameter given twice (400). Too few accelerators for the model
    leave the result "does not fit", naming the least number that holds it.
    """
    catalog = catalog_of(request)
    raw = _raw_inputs(params)
    result: Estimate | None = None
    error: PageError | None = None
    try:
        _check_names(request)
        if any(v for v in raw.values()):
            result = linked_estimate(
                estimate(catalog, parse_request(**{("number_format" if k == "format" else k): v for k, v in raw.items()}), _prices(request))
            )
    except EstimateError as exc:
        error = _page_error(exc, urls_of(request).path("estimate_page"), raw, urls_of(request))
    submitted = any(raw.values())
    form = {k: (v or "") if submitted else FORM_DEFAULTS.get(k, "") for k, v in raw.items()}
    offers: dict[str, list[OfferPrice]] = {}
    source = _prices(request)
    for offer in current_offers(
        catalog, source.store, source.now, source.freshness_days, hours_per_month=source.hours_per_month, link=source.link
    ):
        offers.setdefault(offer.accelerator, []).append(offer)  # catalog order, then price
    return render(
        request, "estimate.html", status=error.status if error else 200, page_title="Our estimate",
        form=form, result=result, error=error, formats=list(NumberFormat), offers=offers, offer_label=offer_label,
        models=list(catalog.models.values()), example=EXAMPLE if EXAMPLE["accelerator"] in catalog.accelerators else None,
        curated=sorted(((title_of(catalog, c), c.id) for c in catalog.comparisons.values()), key=lambda tc: tc[0].lower()),
        api_url=urls_of(request).path("api_estimate") + "?" + urlencode(result.query) if result else None,
    )  # fmt: skip


def _redirect(to: str):
    """A handler that redirects (301) to the route named ``to``."""

    def handler(request: Request) -> Response:
        return slash_redirect(request, urls_of(request).path(to))

    handler.__doc__ = f"Redirect to {site_path(to)}."
    return handler


# --- API -----------------------------------------------------------------------------


def api_energy(request: Request) -> list[TopicView]:
    """Every energy topic with its dated figures and claimants."""
    catalog = catalog_of(request)
    return [energy_views.topic_view(catalog, t) for t in catalog.energy.values()]


def api_energy_topic(request: Request, ident: str = TOPIC_PATH) -> TopicView:
    """One energy topic: figures with value, date, claimant, claimant's interest and source."""
    catalog = catalog_of(request)
    return energy_views.topic_view(catalog, find_topic(request, ident))


def api_systems(request: Request) -> list[SystemView]:
    """Every rack-scale system; totals are on the system's basis (node, rack, pod), never per chip."""
    catalog = catalog_of(request)
    return [energy_views.system_view(catalog, s) for s in catalog.systems.values()]


def api_system(request: Request, ident: str = SYSTEM_PATH) -> SystemView:
    """One system: members, totals with basis and source, power or its state."""
    catalog = catalog_of(request)
    return energy_views.system_view(catalog, find_system(request, ident))


def api_economics(request: Request) -> EconomicsView:
    """Cost-per-million-token and tokens-per-watt claims with claimant and interest."""
    return energy_views.economics_view(catalog_of(request))


def api_estimate(
    request: Request,
    accelerator: str = Query(..., max_length=100, description="accelerator id, e.g. 'nvidia-h200-sxm'"),
    model: str | None = Query(None, max_length=100, description="model id, e.g. 'llama-3-3-70b' (or give params)"),
    params: str | None = Query(
        None, max_length=100, description="parameter count of a dense model, a whole number from 1e6 to 1e15: 70e9 or 70B (or give a model)"
    ),
    number_format: str = Query(..., alias="format", max_length=100, description="number format: " + FORMAT_NAMES),
    utilisation: str = Query(
        ..., max_length=100, description="share of dense peak compute used at large batch, from 0.001 to 1 (or 0.1% to 100%)"
    ),
    price: str | None = Query(None, max_length=100, description="USD per accelerator-hour, from 0.0001 to 1e6 (or give an offer)"),
    offer: str | None = Query(
        None, max_length=100, description="an offer id from the cloud layer, e.g. 'lambda-1x-nvidia-h100-sxm-on-demand-2026-09-20'"
    ),
    context: str | None = Query(None, max_length=100, description="tokens per sequence (default 1024)"),
    batch: str | None = Query(None, max_length=100, description="sequences decoded together (default: the largest that fits)"),
    accelerators: str | None = Query(None, max_length=100, description="N accelerators (default: the fewest that hold the model)"),
    kv_bits: str | None = Query(None, max_length=100, description="bits per cached element: 4, 8, 16 (default) or 32"),
    mix: str | None = Query(None, max_length=100, description="input:output tokens of the blended cost (default 3:1)"),
) -> Estimate:
    """The model page's bound for one model (by id, or a dense model by its parameter count) on
    one accelerator: prefill and decode tokens/s, cost per million input, output and blended
    tokens, with every input, formula and assumption. 400 for bad input, a parameter given
    twice, and a number out of range: params a whole count from 1e6 to 1e15, utilisation from
    0.001 to 1, price from 0.0001 to 1e6 USD per accelerator-hour, nothing non-finite;
    404 for an unknown accelerator, model or offer. Too few accelerators leave
    ``result.state`` "does_not_fit"."""
    raw = {"accelerator": accelerator, "model": model, "params": params, "format": number_format, "utilisation": utilisation,
           "price": price, "offer": offer, "context": context, "batch": batch, "accelerators": accelerators, "kv_bits": kv_bits,
           "mix": mix}  # fmt: skip
    try:
        _check_names(request)
        return linked_estimate(
            estimate(
                catalog_of(request),
                parse_request(
                    accelerator, params, number_format, utilisation, price, offer, model, context, batch, accelerators, kv_bits, mix
                ),
                _prices(request),
            )
        )
    except EstimateError as exc:
        raise _page_error(exc, urls_of(request).path("api_estimate"), raw, urls_of(request)) from None


def static_paths(catalog: Catalog) -> Iterable[str]:
    """Every energy, system and economics page and API document, for the static build."""
    yield from (
        site_path(n) for n in ("energy_index", "systems_index", "economics", "estimate_page", "api_energy", "api_systems", "api_economics")
    )
    for ident in catalog.energy:
        yield site_path("energy_topic", ident=ident)
        yield site_path("api_energy_topic", ident=ident)
    for ident in catalog.systems:
        yield site_path("system_page", ident=ident)
        yield site_path("api_system", ident=ident)


ROUTES: tuple[Route, ...] = (
    Route(_redirect("energy_index"), "energy_redirect", Response),
    Route(energy_index, "energy_index"),
    Route(energy_topic, "energy_topic"),
    Route(_redirect("systems_index"), "systems_redirect", Response),
    Route(systems_index, "systems_index"),
    Route(system_page, "system_page"),
    Route(_redirect("economics"), "economics_redirect", Response),
    Route(economics_page, "economics"),
    Route(estimate_page, "estimate_page"),
    Route(api_energy, "api_energy", JSONResponse, list[TopicView], in_schema=True, summary="Energy topics"),
    Route(api_energy_topic, "api_energy_topic", JSONResponse, TopicView, in_schema=True, summary="One energy topic"),
    Route(api_systems, "api_systems", JSONResponse, list[SystemView], in_schema=True, summary="Rack-scale systems"),
    Route(api_system, "api_system", JSONResponse, SystemView, in_schema=True, summary="One rack-scale system"),
    Route(api_economics, "api_economics", JSONResponse, EconomicsView, in_schema=True, summary="Economics claims"),
    Route(api_estimate, "api_estimate", JSONResponse, Estimate, in_schema=True, summary="Our roofline estimate"),
)

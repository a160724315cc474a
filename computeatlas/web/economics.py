"""Economics per model: ``/economics/models/{model}`` and its JSON twin, and the models table's JSON.

The page and the API build the same :class:`~computeatlas.economics.model_view.ModelView`
(market prices per million tokens, the claims that concern the model, and the bound per
accelerator at today's cheapest fresh on-demand rental prices). Bad settings are a 400 naming
the parameter; an unknown model a 404 naming the closest ones.
"""

from __future__ import annotations

from collections.abc import Iterable

from fastapi import Path, Query, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response

from computeatlas.catalog import Catalog
from computeatlas.charts import token_history
from computeatlas.cloud import history
from computeatlas.cloud.store import Store
from computeatlas.core.claims import NumberFormat
from computeatlas.core.settings import Settings
from computeatlas.core.urls import site_path
from computeatlas.economics.bound_settings import request_from
from computeatlas.economics.errors import UnknownId
from computeatlas.economics.model_view import (
    ModelSummary,
    ModelView,
    model_summaries,
    model_view,
)
from computeatlas.economics.model_view import find_model as find_model_record
from computeatlas.economics.models import ModelRecord
from computeatlas.economics.rental_price import LeftOut, chosen_price, current_rental_prices, left_out
from computeatlas.economics.token_prices import observations_of, token_store
from computeatlas.pages.economics import linked_error, linked_left_out, linked_summaries, linked_view
from computeatlas.web.chart_links import token_prices_svg
from computeatlas.web.page import (
    Moved,
    Route,
    catalog_of,
    render,
    settings_of,
    urls_of,
)

MODEL_PATH = Path(description="model id, e.g. 'llama-3-3-70b'", max_length=100)
FORMAT_QUERY = Query(
    None, alias="format", max_length=10, description="number format of weights and compute: " + ", ".join(f.value for f in NumberFormat)
)
CONTEXT_QUERY = Query(None, max_length=12, description="tokens per sequence, prompt and output together (default 1024)")
MIX_QUERY = Query(None, max_length=30, description="input:output tokens of the blended cost (default 3:1)")
UTILISATION_QUERY = Query(None, max_length=12, description="share of peak, 0.001 to 1; below 1 the figures are estimates, not bounds")
KV_QUERY = Query(None, alias="kv_bits", max_length=3, description="bits per cached key or value: 4, 8, 16 (default) or 32")
BATCH_QUERY = Query(None, max_length=8, description="sequences decoded together (default: the largest that fits)")
OFFER_QUERY = Query(
    None, max_length=200, description="an offer id of the cloud layer whose price replaces its accelerator's cheapest observation"
)
PRICE_QUERY = Query(None, max_length=30, description="a price in USD per accelerator-hour for 'accelerator', above 0 and at most 1e6")
ACCELERATOR_QUERY = Query(None, alias="accelerator", max_length=100, description="the accelerator id 'price' is for")
COUNT_QUERY = Query(None, alias="accelerators", max_length=5, description="N accelerators (default: the fewest that hold the model)")


def find_model(request: Request, ident: str) -> ModelRecord:
    """The model ``ident`` names (:func:`computeatlas.economics.model_view.find_model`): another
    spelling of one model raises :class:`Moved` to the same route at its id, the query kept;
    an unknown name ``NotFound`` (404) naming the closest models."""
    try:
        model = find_model_record(catalog_of(request), ident)
    except UnknownId as exc:
        raise linked_error(exc) from None
    if model.id != ident:
        route = request.scope.get("route")
        name = getattr(route, "name", "economics_model").removesuffix("_head")
        query = request.url.query
        raise Moved(urls_of(request).path(name, ident=model.id) + (f"?{query}" if query else ""))
    return model


def _view(
    request: Request,
    ident: str,
    fmt: str | None,
    context: str | None,
    mix: str | None,
    utilisation: str | None,
    kv_bits: str | None,
    batch: str | None,
    accelerators: str | None,
    offer: str | None,
    price: str | None,
    accelerator: str | None,
) -> ModelView:
    model = find_model(request, ident)
    settings = settings_of(request)
    now = history.utcnow()
    try:
        chosen = chosen_price(catalog_of(request), Store(settings.prices_dir), now, offer, price, accelerator)
    except UnknownId as exc:
        raise linked_error(exc) from None
    return linked_view(model_view(catalog_of(request), model, request_from(fmt, context, mix, utilisation, kv_bits, batch, accelerators),
                                  Store(settings.prices_dir), token_store(settings.data / "tokens"), now, settings.freshness_days, chosen))  # fmt: skip


def summaries(request: Request) -> list[ModelSummary]:
    """Every model's cheapest market output price and lowest output-cost bound (the table on ``/economics/``)."""
    settings = settings_of(request)
    return linked_summaries(model_summaries(catalog_of(request), Store(settings.prices_dir), token_store(settings.data / "tokens"),
                                            history.utcnow(), settings.freshness_days))  # fmt: skip


def token_chart(request: Request, view: ModelView) -> token_history.TokenHistoryView | None:
    """The token-price history chart of ``view``'s model (None when no price is placed on it)."""
    if not view.market:
        return None
    catalog = catalog_of(request)
    return token_history.history_view(
        catalog.models[view.id], view.market, view.as_of, settings_of(request).freshness_days, catalog.version,
        svg_url=token_prices_svg(view.id),
    )  # fmt: skip


def left_out_of_bounds(request: Request) -> list[LeftOut]:
    """The parts the bounds leave out (no current price …), each with why, as of now."""
    settings = settings_of(request)
    store, now = Store(settings.prices_dir), history.utcnow()
    ranked = set(current_rental_prices(catalog_of(request), store, now, settings.freshness_days))
    return linked_left_out(left_out(catalog_of(request), store, now, settings.freshness_days, ranked))


def model_page(
    request: Request,
    ident: str = MODEL_PATH,
    fmt: str | None = FORMAT_QUERY,
    context: str | None = CONTEXT_QUERY,
    mix: str | None = MIX_QUERY,
    utilisation: str | None = UTILISATION_QUERY,
    kv_bits: str | None = KV_QUERY,
    batch: str | None = BATCH_QUERY,
    accelerators: str | None = COUNT_QUERY,
    offer: str | None = OFFER_QUERY,
    price: str | None = PRICE_QUERY,
    accelerator: str | None = ACCELERATOR_QUERY,
) -> HTMLResponse:
    """One model: what the market charged per million tokens, the claims about it, and the bound per accelerator."""
    view = _view(request, ident, fmt, context, mix, utilisation, kv_bits, batch, accelerators, offer, price, accelerator)
    return render(
        request,
        "economics_model.html",
        page_title=f"{view.name}: what a million tokens costs",
        view=view,
        formats=list(NumberFormat),
        token_chart=token_chart(request, view),
    )


def model_prices_svg(request: Request, ident: str = MODEL_PATH) -> Response:
    """The model's token prices per provider over time (input and output, USD per million tokens) as SVG;
    stale prices hollow. 404 when no market price is placed on the model."""
    view = _view(request, ident, None, None, None, None, None, None, None, None, None, None)
    chart = token_chart(request, view)
    if chart is None:
        from computeatlas.core.errors import NotFound

        raise NotFound(
            "No token prices to chart",
            f"No market price per million tokens is placed on '{ident}'.",
            [("Its page", urls_of(request).path("economics_model", ident=view.id))],
        )
    return Response(token_history.svg(chart), media_type="image/svg+xml")


def api_model(
    request: Request,
    ident: str = MODEL_PATH,
    fmt: str | None = FORMAT_QUERY,
    context: str | None = CONTEXT_QUERY,
    mix: str | None = MIX_QUERY,
    utilisation: str | None = UTILISATION_QUERY,
    kv_bits: str | None = KV_QUERY,
    batch: str | None = BATCH_QUERY,
    accelerators: str | None = COUNT_QUERY,
    offer: str | None = OFFER_QUERY,
    price: str | None = PRICE_QUERY,
    accelerator: str | None = ACCELERATOR_QUERY,
) -> ModelView:
    """Market prices per million tokens (per provider, dated, with the spread), the claims about the model with the
    claimant's interest, and the bound per accelerator at today's cheapest fresh on-demand price, ranked by output cost.
    400 for a bad setting (naming it), 404 for an unknown model (naming the closest)."""
    return _view(request, ident, fmt, context, mix, utilisation, kv_bits, batch, accelerators, offer, price, accelerator)


def api_models(request: Request) -> list[ModelSummary]:
    """Every model with its cheapest market output price and its lowest output-cost bound (FP8, 1,024-token context)."""
    return summaries(request)


def static_paths(catalog: Catalog, settings: Settings) -> Iterable[str]:
    """Every model page and its JSON, the token-price chart of each model with a market price,
    and the models table's JSON, for the static build."""
    yield site_path("api_economics_models")
    tokens = token_store(settings.data / "tokens")
    for ident in catalog.models:
        yield site_path("economics_model", ident=ident)
        yield site_path("api_economics_model", ident=ident)
        if observations_of(tokens, ident):
            yield site_path("economics_model_prices_svg", ident=ident)


ROUTES: tuple[Route, ...] = (
    Route(model_prices_svg, "economics_model_prices_svg", Response),
    Route(model_page, "economics_model"),
    Route(
        api_models,
        "api_economics_models",
        JSONResponse,
        list[ModelSummary],
        in_schema=True,
        summary="Models: cheapest market price and bound",
    ),
    Route(
        api_model, "api_economics_model", JSONResponse, ModelView, in_schema=True, summary="One model: market prices, claims and the bound"
    ),
)

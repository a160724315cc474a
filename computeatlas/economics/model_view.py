"""One model's page data (``/economics/models/{model}``, ``/api/economics/models/{model}``, ``computeatlas tokens``):
the market's prices, the claims that concern it, and the bound per accelerator at today's rental prices, side by side.

- **Market**: every accepted per-token observation placed on the model
  (:mod:`computeatlas.economics.token_prices`), dated, the newest of each provider's product,
  and the spread of output prices (dearest ÷ cheapest, both ends named), each marked stale
  when older than the freshness window (:mod:`computeatlas.economics.token_market`); the
  history per provider as a chart (:mod:`computeatlas.charts.token_history`, built by the web layer).
- **Bound**: for every accelerator with a fresh on-demand price
  (:func:`computeatlas.economics.rental_price.current_rental_prices`; parts with no current price
  are listed under the ranking with why), the bound of
  :mod:`computeatlas.economics.bound` at the stated settings, its costs at that price, ranked by
  output cost.
- **Flags**: a market price below the lowest cost bound (input price against prefill, output
  price against decode) is flagged :data:`BELOW_FLAG`, naming the accelerator and price it
  undercuts; a claim is compared only when it states its basis, and otherwise says which
  basis it leaves out or which differs from ours.
"""

from __future__ import annotations

import datetime as dt
import re
import unicodedata

from pydantic import BaseModel, Field

from computeatlas.cloud.store import Store
from computeatlas.core.errors import closest
from computeatlas.core.states import State
from computeatlas.economics.bound import (
    BOUND_LABEL,
    ESTIMATE_LABEL,
    Bound,
    BoundInputError,
    BoundRequest,
    DoesNotFitModel,
    Figure,
    bound,
    check_request,
)
from computeatlas.economics.bound_settings import settings_of
from computeatlas.economics.catalog import EconomicsCatalog
from computeatlas.economics.claims import EconomicsClaim, HardwareBasis
from computeatlas.economics.costs import blended, cost
from computeatlas.economics.errors import UnknownId
from computeatlas.economics.models import FIGURE_LABELS, ModelRecord
from computeatlas.economics.rental_price import LeftOut, RentalPrice, current_rental_prices, left_out
from computeatlas.economics.token_market import MarketPrice, MarketSpread, market
from computeatlas.economics.token_prices import observations_of

BELOW_FLAG = "below what the hardware can do at this rental price — check its basis"
"""The words of a market price below the lowest cost bound at today's rental prices."""

BASIS_HINT = "quantisation, speculative decoding, owned hardware or a subsidy"
"""What commonly explains a price below the bound, named beside :data:`BELOW_FLAG`."""


class FigureRow(BaseModel):
    """One model figure as shown: the number or the state's words, and where it was read."""

    key: str
    label: str
    display: str
    state: State
    text: str | None = None
    source_title: str | None = None
    source_url: str | None = None
    note: str | None = None


class AcceleratorBound(BaseModel):
    """The bound on one accelerator at its cheapest fresh on-demand price, with its costs."""

    accelerator: str
    accelerator_name: str
    accelerator_url: str = Field("", description="the accelerator's page (set by computeatlas.pages.economics)")
    price: RentalPrice | None
    state: State = Field(
        State.DERIVED, description="derived when the bound is computed; does_not_fit, or not_applicable (no such number format)"
    )
    reason: str | None = None
    bound: Bound | None = None
    cost_input: Figure | None = None
    cost_output: Figure | None = None
    cost_blended: Figure | None = None


class ClaimRow(BaseModel):
    """A published claim that concerns the model, with the claimant's interest and our comparison."""

    id: str
    claimant: str
    claimant_sells: str
    value: float
    unit: str
    date: dt.date
    conditions: str
    source_url: str
    compared: bool
    below_bound: bool = False
    comparison: str


class ModelView(BaseModel):
    """Everything ``/economics/models/{model}`` shows, as one document."""

    id: str
    name: str
    developer: str
    architecture: str
    card_url: str
    weights_note: str | None
    note: str | None
    figures: list[FigureRow]
    settings: dict[str, str]
    label: str
    market: list[MarketPrice]
    current: list[MarketPrice]
    spread: MarketSpread
    bounds: list[AcceleratorBound]
    left_out: list[LeftOut] = Field(
        default_factory=list, description="parts not in the ranking of bounds, each with why (no current price …)"
    )
    lowest_output_bound: AcceleratorBound | None
    lowest_input_bound: AcceleratorBound | None
    claims: list[ClaimRow]
    assumptions: list[str]
    as_of: dt.datetime
    data_version: str


def _key(text: str) -> str:
    """``text`` as a comparable key: NFKC, case-folded, every run of other characters a hyphen
    (``Llama 3.3 70B`` and ``llama-3.3-70b`` → ``llama-3-3-70b``)."""
    return re.sub(r"[^0-9a-z]+", "-", unicodedata.normalize("NFKC", text).casefold()).strip("-")


def find_model(catalog: EconomicsCatalog, ident: str) -> ModelRecord:
    """The model ``ident`` names: its id, or a spelling of exactly one model's id, name or a
    provider's exact name for it (our alias table), compared as :func:`_key`; never a
    look-alike (``llama-3.1-70b`` is not ``llama-3.1-405b``). The caller may redirect to the id.

    Raises :class:`~computeatlas.economics.errors.UnknownId` (404) naming the closest models by id, the nearest spelling first.
    """
    model = catalog.models.get(ident)
    if model is not None:
        return model
    key = _key(ident)
    spelled = {
        m.id
        for m in catalog.models.values()
        if key and key in {_key(m.id), _key(m.name), *(_key(a) for names in m.aliases.values() for a in names)}
    }
    if len(spelled) == 1:
        return catalog.models[spelled.pop()]
    keys = {_key(m.id): m.id for m in catalog.models.values()} | {_key(m.name): m.id for m in catalog.models.values()}
    near = [keys[k] for k in closest(key, list(keys))] or sorted(spelled)
    raise UnknownId("model", "No such model", f"no model with id {ident!r} in the atlas",
                    [(catalog.models[i].name, i) for i in dict.fromkeys(near)])  # fmt: skip


def figure_rows(model: ModelRecord) -> list[FigureRow]:
    """The model's figures in display order, each a number or its state's words."""
    out = []
    for key, fig in model.stated_figures():
        src = model.sources.get(fig.source) if fig.source else None
        display = f"{fig.value:,.0f}" if fig.known else fig.state.label
        out.append(
            FigureRow(
                key=key,
                label=FIGURE_LABELS[key],
                display=display,
                state=fig.state,
                text=fig.text,
                source_title=src.title if src else None,
                source_url=src.url if src else None,
                note=fig.note,
            )
        )
    return out


def accelerator_bound(
    model: ModelRecord, acc_id: str, catalog: EconomicsCatalog, request: BoundRequest, price: RentalPrice | None
) -> AcceleratorBound:
    """The bound of ``model`` on ``acc_id`` and its costs at ``price`` (a state, in words, where it cannot be computed)."""
    acc = catalog.accelerators[acc_id]
    row = AcceleratorBound(accelerator=acc.id, accelerator_name=acc.name, price=price)
    try:
        b = bound(model, acc, request)
    except DoesNotFitModel as exc:
        return row.model_copy(update={"state": State.DOES_NOT_FIT, "reason": exc.detail})
    except BoundInputError as exc:  # the part has no such number format
        return row.model_copy(update={"state": State.NOT_APPLICABLE, "reason": exc.detail})
    hourly = price.per_accelerator_hour if price else None
    c_in = cost(b.prefill, b.accelerators, hourly, "cost_input", "Cost per million input tokens (prefill)")
    c_out = cost(b.decode, b.accelerators, hourly, "cost_output", "Cost per million output tokens (decode)")
    return row.model_copy(
        update={
            "bound": b,
            "cost_input": c_in,
            "cost_output": c_out,
            "cost_blended": blended(c_in, c_out, request.input_tokens, request.output_tokens),
        }
    )


def _rank(row: AcceleratorBound) -> tuple[int, float, str]:
    amount = row.cost_output.amount if row.cost_output is not None else None
    return (0 if amount is not None else 1, amount or 0.0, row.accelerator_name)


def compare_claim(
    claim: EconomicsClaim, model: ModelRecord, catalog: EconomicsCatalog, request: BoundRequest, prices: dict[str, RentalPrice]
) -> tuple[bool, str]:
    """Whether ``claim`` is compared with the bound, and the sentence saying how it compares or why it is not.

    Compared only when the claim is in USD per million tokens and states all of its basis (rented
    or owned hardware, precision, batch); owned hardware differs from the bound's rental price and
    is named as the differing basis. Where the claim lists several parts (its source leaves the
    variant open), it is compared with the one whose bound is cheapest: the most favourable to it."""
    if claim.metric != "cost_per_million_tokens" or claim.unit != "USD per million tokens":
        return False, f"not compared: the claim is not a price in USD per million tokens ({claim.unit})"
    missing = [
        name
        for name, value in (
            ("whether it prices rented or owned hardware", claim.basis_hardware),
            ("its precision", claim.basis_precision),
            ("its batch", claim.basis_batch),
        )
        if value is None
    ]
    if missing:
        return False, "not compared: the claim does not state " + ", ".join(missing)
    if claim.basis_hardware is HardwareBasis.OWNED:
        return False, "not compared: its basis differs — owned hardware (capital and power), where the bound prices rented hardware"
    parts = [a for a in claim.accelerators if a in catalog.accelerators and a in prices]
    if not parts:
        return False, "not compared: no fresh on-demand price for the claimed accelerator"
    claimed = request.model_copy(update={"number_format": claim.basis_precision, "batch": claim.basis_batch, "accelerators": None})
    rows = [accelerator_bound(model, a, catalog, claimed, prices[a]) for a in parts]
    computed = [r for r in rows if r.cost_output is not None and r.cost_output.amount is not None]
    if not computed:  # the claim's parts, at its precision and batch, give no bound: say why
        row = rows[0]
        return (
            False,
            f"not compared: the bound on {row.accelerator_name} is {row.reason or (row.cost_output.state.label if row.cost_output else 'not computed')}",
        )
    row = min(computed, key=lambda r: r.cost_output.amount or 0)  # type: ignore[union-attr]  # the part most favourable to the claim
    floor = row.cost_output.amount or 0  # type: ignore[union-attr]
    acc = row.accelerator
    word = "below" if claim.value < floor else "at or above"
    return True, (
        f"{word} the bound: {claim.value:g} USD against {floor:.4g} USD per million output tokens on {row.accelerator_name} "
        f"at {claim.basis_precision.value if claim.basis_precision else ''}, batch {claim.basis_batch}, {prices[acc].text}"
    )


def model_view(
    catalog: EconomicsCatalog,
    model: ModelRecord,
    request: BoundRequest,
    prices_store: Store,
    tokens_store: Store,
    now: dt.datetime,
    freshness_days: int = 90,
    chosen: tuple[str, RentalPrice] | None = None,
) -> ModelView:
    """The page data for ``model`` at the settings ``request`` (checked here, see
    :func:`computeatlas.economics.bound.check_request`): raises ``BoundInputError`` (400) for a bad input.
    ``chosen`` (accelerator, price), from :func:`computeatlas.economics.rental_price.chosen_price`,
    replaces that accelerator's cheapest observation (or adds it when it has none)."""
    request = check_request(request, model)
    prices = current_rental_prices(catalog, prices_store, now, freshness_days)
    if chosen is not None:
        prices[chosen[0]] = chosen[1]
    bounds = sorted((accelerator_bound(model, a, catalog, request, p) for a, p in prices.items()), key=_rank)
    # Market prices and claims are weighed against the bound (utilisation 1) only: an estimate
    # at a lower utilisation is shown, never used to call a price "below what the hardware can do".
    at_peak = request if request.utilisation == 1 else request.model_copy(update={"utilisation": 1.0})
    peak_bounds = (
        bounds if at_peak is request else sorted((accelerator_bound(model, a, catalog, at_peak, p) for a, p in prices.items()), key=_rank)
    )
    computed_out = [b for b in peak_bounds if b.cost_output is not None and b.cost_output.amount is not None]
    computed_in = [b for b in peak_bounds if b.cost_input is not None and b.cost_input.amount is not None]
    low_out = min(computed_out, key=lambda b: b.cost_output.amount or 0, default=None)  # type: ignore[union-attr]
    low_in = min(computed_in, key=lambda b: b.cost_input.amount or 0, default=None)  # type: ignore[union-attr]
    history, current, spread = market(observations_of(tokens_store, model.id), now, freshness_days)
    for row in current:
        for side, low, attr in (("output", low_out, "cost_output"), ("input", low_in, "cost_input")):
            floor = getattr(low, attr).amount if low is not None else None
            if floor is not None and getattr(row, f"{side}_per_million") < floor:
                row.flags.append(
                    f"{side} price {BELOW_FLAG} ({floor:.4g} USD on {low.accelerator_name} at "  # type: ignore[union-attr]
                    f"{low.price.text if low and low.price else 'no price'}; {BASIS_HINT}?)"
                )
    claims = []
    for claim in sorted((c for c in catalog.claims.values() if c.model_id == model.id), key=lambda c: c.id):
        compared, text = compare_claim(claim, model, catalog, at_peak, prices)
        src = claim.sources[claim.source]
        claims.append(ClaimRow(id=claim.id, claimant=claim.claimant, claimant_sells=claim.claimant_sells.value, value=claim.value,
                               unit=claim.unit, date=claim.date, conditions=claim.conditions, source_url=src.url, compared=compared,
                               below_bound=compared and text.startswith("below"), comparison=text))  # fmt: skip
    first = next((b.bound for b in bounds if b.bound is not None), None)
    return ModelView(
        id=model.id, name=model.name, developer=model.developer, architecture=model.architecture.value, card_url=model.card_url,
        weights_note=model.weights_note, note=model.note, figures=figure_rows(model), settings=settings_of(request),
        label=BOUND_LABEL if request.utilisation == 1 else ESTIMATE_LABEL, market=history, current=current, spread=spread,
        bounds=bounds, left_out=left_out(catalog, prices_store, now, freshness_days, set(prices)),
        lowest_output_bound=low_out, lowest_input_bound=low_in, claims=claims, assumptions=first.assumptions if first else [],
        as_of=now, data_version=catalog.version)  # fmt: skip


class ModelSummary(BaseModel):
    """One row of the models table on ``/economics/``: the cheapest market output price and the cheapest output-cost bound."""

    id: str
    name: str
    url: str = Field("", description="the model's page (set by computeatlas.pages.economics)")
    architecture: str
    total_params: float | None
    active_params: float | None
    market_observations: int
    cheapest_output: MarketPrice | None
    cheapest_bound: AcceleratorBound | None


def model_summaries(
    catalog: EconomicsCatalog, prices_store: Store, tokens_store: Store, now: dt.datetime, freshness_days: int = 90
) -> list[ModelSummary]:
    """Every model with its cheapest market output price and its lowest output-cost bound at
    today's cheapest fresh on-demand prices (default settings: FP8, 1,024-token context)."""
    prices = current_rental_prices(catalog, prices_store, now, freshness_days)
    out = []
    for model in catalog.models.values():
        request = check_request(BoundRequest(), model)
        rows = [accelerator_bound(model, a, catalog, request, p) for a, p in prices.items()]
        computed = [r for r in rows if r.cost_output is not None and r.cost_output.amount is not None]
        _, current, _ = market(observations_of(tokens_store, model.id), now, freshness_days)
        fresh = [r for r in current if not r.stale]
        out.append(ModelSummary(
            id=model.id, name=model.name, architecture=model.architecture.value,
            total_params=model.total_params.value, active_params=model.active_params.value, market_observations=len(current),
            cheapest_output=min(fresh or current, key=lambda r: r.output_per_million, default=None),
            cheapest_bound=min(computed, key=lambda r: r.cost_output.amount or 0, default=None)))  # type: ignore[union-attr]  # fmt: skip
    return out


__all__ = [
    "BELOW_FLAG", "AcceleratorBound", "ClaimRow", "FigureRow", "ModelSummary", "ModelView",
    "accelerator_bound", "compare_claim", "figure_rows", "find_model", "model_summaries", "model_view",
]  # fmt: skip

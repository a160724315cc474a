"""Token prices from pydantic/genai-prices (``prices/data.json`` v1, ``prices/new_data/v2/data.json`` v2).

The file is a list of providers ``{id, name, pricing_urls (v1 of 2025-06: pricing_url), models:
[{id, name, prices}]}``. ``prices`` is one object, or a list of ``{constraint, prices}``
(the entry without a constraint applies unless a later one matches). Price fields are USD
per million tokens: ``input_mtok`` and ``output_mtok`` are read, each a number or
``{base, tiers: [{start, price}]}`` (by prompt length). What this importer does with each:

- **provider**: the file's provider id, ``_`` written ``-`` (our ids are hyphenated:
  ``huggingface_nebius`` → ``huggingface-nebius``); anthropic, aws and openrouter stay apart;
- **product**: the model entry's ``id`` as upstream spells it (placed on our model only
  through the alias table, exactly);
- **tiers**: the base price is taken and the published text says so
  (``"3 (base; 6 from 200,000 input tokens)"``); the tiers are kept in ``raw_extra``;
- **start_date** constraints: the price in effect at the file's commit is the one of the
  latest ``start_date`` on or before it (else the unconstrained entry), and its date is the
  ``start_date`` (the better date: when the price took effect, not when upstream learned it);
  a ``start_date`` after the commit is an announced price, held as ``future_dated`` at its
  own date (never shown as current);
- **time-of-day** constraints (``start_time``/``end_time``, DeepSeek's off-peak hours): the
  price depends on the hour, so the row is held as ``conditional_price``;
- a model with no ``input_mtok`` or ``output_mtok`` (an embedding, image or per-request
  price) is skipped with that reason;
- collected: the commit date; ``via`` says "published by DATE (commit SHA7)"; ``source_url``
  is the upstream file at its commit and the provider's ``pricing_urls`` are kept in
  ``raw_extra``.

v1 and v2 are kept apart in ``via`` and ``raw_extra.feed``: v2 splits some prices v1 folded
together (an image model's ``output_mtok``), so the two are not one feed.
"""

from __future__ import annotations

import datetime as dt
import json
import math
from collections.abc import Iterator
from pathlib import Path

from computeatlas.cloud.importers.cells import Skip
from computeatlas.cloud.observations import InputFailed
from computeatlas.core.tabular import TableError
from computeatlas.economics.token_files import GENAI_REPO, GENAI_V1, GENAI_V2, JsonInputError, Provenance, load, provenance_of
from computeatlas.economics.token_prices import TokenObservation

UNIT = "USD per million tokens"
SIDES = ("input_mtok", "output_mtok")


class _Bad(Exception):
    """A bad value at a JSON path (turned into a :class:`JsonInputError`)."""

    def __init__(self, path: str, message: str, value: object = None) -> None:
        super().__init__(message)
        self.path, self.message, self.text = path, message, None if value is None else json.dumps(value)[:120]


def provider_id(upstream: str) -> str:
    """Our provider id for a genai-prices provider id: lower case, ``_`` written ``-``."""
    return upstream.strip().lower().replace("_", "-")


def _amount(value: object, path: str) -> tuple[float, str, list[dict]]:
    """(base price, text as published, tiers) of one price field (a number or ``{base, tiers}``)."""
    tiers: list[dict] = []
    if isinstance(value, dict):
        if set(value) != {"base", "tiers"} or not isinstance(value["tiers"], list):
            raise _Bad(path, "a tiered price is {base, tiers: [{start, price}]}", value)
        tiers = value["tiers"]
        for k, tier in enumerate(tiers):
            if (
                not isinstance(tier, dict)
                or not isinstance(tier.get("start"), int)
                or isinstance(tier.get("price"), bool)
                or not isinstance(tier.get("price"), int | float)
            ):
                raise _Bad(f"{path}.tiers[{k}]", "a tier is {start: tokens, price: USD per million tokens}", tier)
        value = value["base"]
        path = f"{path}.base"
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise _Bad(path, "a price must be a number (USD per million tokens)", value)
    if not math.isfinite(value) or value < 0:
        raise _Bad(path, "a price must be a finite, non-negative number", value)
    text = f"{value:g}"
    if tiers:
        text += " (base; " + "; ".join(f"{t['price']:g} from {t['start']:,} input tokens" for t in tiers) + ")"
    return float(value), text, tiers


def _entries(prices: object, path: str) -> list[tuple[dict, dict, str]]:
    """(constraint, prices, JSON path) of every entry of a model's ``prices``."""
    if isinstance(prices, dict):
        return [({}, prices, path)]
    if not isinstance(prices, list) or not prices:
        raise _Bad(path, "prices must be an object or a list of {constraint, prices}", prices)
    out = []
    for k, entry in enumerate(prices):
        where = f"{path}[{k}]"
        if not isinstance(entry, dict) or not isinstance(entry.get("prices"), dict):
            raise _Bad(where, "a conditional price is {constraint, prices}", entry)
        constraint = entry.get("constraint") or {}
        if not isinstance(constraint, dict) or set(constraint) - {"start_date", "start_time", "end_time"}:
            raise _Bad(f"{where}.constraint", "an unknown constraint (known: start_date, start_time and end_time)", constraint)
        out.append((constraint, entry["prices"], f"{where}.prices"))
    return out


def _start(constraint: dict, path: str) -> dt.datetime | None:
    if "start_date" not in constraint:
        return None
    try:
        return dt.datetime.combine(dt.date.fromisoformat(str(constraint["start_date"])), dt.time(), dt.UTC)
    except ValueError:
        raise _Bad(f"{path}.start_date", "not a date (YYYY-MM-DD)", constraint["start_date"]) from None


def _model(provider: dict, model: dict, where: str, prov: Provenance, file: str) -> Iterator[TokenObservation | Skip]:
    """The observations of one model entry (see the module docstring)."""
    ident = model.get("id")
    if not isinstance(ident, str) or not ident.strip():
        raise _Bad(f"{where}.id", "a model needs an id", ident)
    if "prices" not in model:
        raise _Bad(f"{where}.prices", "a model needs prices", None)
    entries = _entries(model["prices"], f"{where}.prices")
    starts = [(_start(c, f"{p[: -len('.prices')]}.constraint"), c, pr, p) for c, pr, p in entries]
    urls = provider.get("pricing_urls") or ([provider["pricing_url"]] if isinstance(provider.get("pricing_url"), str) else [])
    windows = [c for _, c, _, _ in starts if "start_time" in c or "end_time" in c]
    in_effect = [s for s in starts if s[0] is None and not ("start_time" in s[1] or "end_time" in s[1])]
    dated = sorted((s for s in starts if s[0] is not None), key=lambda s: s[0])  # type: ignore[arg-type, return-value]
    past = [s for s in dated if s[0] <= prov.published]  # type: ignore[operator]
    chosen = past[-1] if past else (in_effect[0] if in_effect else None)
    todo: list[tuple[tuple, str | None]] = [(s, "future_dated") for s in dated if s[0] > prov.published]  # type: ignore[operator]
    if chosen is not None:
        todo.insert(0, (chosen, "conditional_price" if windows else None))
    for (start, constraint, prices, path), rule in todo:
        if any(side not in prices for side in SIDES):
            yield Skip("no input_mtok and output_mtok (an embedding, image, audio or per-request price)")
            continue
        (inp, pin, tin), (outp, pout, tout) = (_amount(prices[side], f"{path}.{side}") for side in SIDES)
        feed = "v2" if prov.path == GENAI_V2 else "v1"
        what = f"pydantic/genai-prices {prov.path} ({feed})"
        via = prov.via(what) + (f"; in effect from {start.date().isoformat()} (its start_date constraint)" if start else "")
        extra = {"provider_id": provider.get("id"), "provider_name": provider.get("name"), "pricing_urls": urls, "model_name": model.get("name"),
                 "json_path": path, "feed": feed, "constraint": constraint or None, "tiers": {"input": tin, "output": tout} if tin or tout else None,
                 "other_prices": {k: v for k, v in prices.items() if k not in SIDES} or None}  # fmt: skip
        obs = TokenObservation(
            provider=provider_id(str(provider["id"])), product=ident.strip(), input_per_million=inp, output_per_million=outp,
            published_input=pin, published_output=pout, published_unit=UNIT, collected=start or prov.published, source_url=prov.url,
            source_title=f"pydantic/genai-prices {prov.path} at commit {prov.short} ({prov.published.date().isoformat()})", via=via,
            raw_extra=json.dumps({k: v for k, v in extra.items() if v is not None}, ensure_ascii=False, sort_keys=True))  # fmt: skip
        if rule == "future_dated":
            obs = obs.held(
                rule,
                f"announced for {start.date().isoformat()}, after the file's commit of "
                f"{prov.published.date().isoformat()}: not in effect when published",
            )
        elif rule == "conditional_price":
            hours = ", ".join(f"{c.get('start_time', '')}–{c.get('end_time', '')}" for c in windows)
            obs = obs.held(rule, f"the price depends on the time of day (another price from {hours}): not one price")
        yield obs


def read(
    path: Path, now: dt.datetime | None = None, commit: str | None = None, published: dt.datetime | None = None
) -> Iterator[tuple[int, TokenObservation | TableError | Skip]]:
    """Every model entry of a genai-prices ``data.json`` (not yet placed or checked), as
    ``(0, result)``: a :class:`TokenObservation` (USD per million tokens, possibly held by
    ``future_dated`` or ``conditional_price``), a :class:`Skip`, or a :class:`JsonInputError`
    naming the file and JSON path of a bad value. Raises :class:`InputFailed` for an
    unreadable file, a changed schema (not a list of providers with an id and models) or
    a file of unknown commit (give ``commit`` and ``published``)."""
    upstream = GENAI_V2 if "v2" in path.name else GENAI_V1
    prov = provenance_of(path, GENAI_REPO, upstream, commit, published, "v2" if upstream == GENAI_V2 else "v1")
    data = load(path)
    if not isinstance(data, list):
        raise InputFailed([JsonInputError(str(path), "$", "expected a list of providers (the genai-prices data.json schema)")])
    problems: list[TableError] = [
        JsonInputError(str(path), f"$[{i}]", "a provider needs an id and a list of models")
        for i, p in enumerate(data)
        if not isinstance(p, dict) or not isinstance(p.get("id"), str) or not isinstance(p.get("models"), list)
    ]
    if problems:
        raise InputFailed(problems)
    for i, provider in enumerate(data):
        for j, model in enumerate(provider["models"]):
            where = f"$[{i}].models[{j}]"
            try:
                if not isinstance(model, dict):
                    raise _Bad(where, "a model entry must be an object", model)
                results = list(_model(provider, model, where, prov, str(path)))
            except _Bad as bad:
                yield 0, JsonInputError(str(path), bad.path, bad.message, bad.text)
                continue
            for result in results:
                yield 0, result


__all__ = ["provider_id", "read"]

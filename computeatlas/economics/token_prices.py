"""Market prices per million tokens as dated observations: what hosted-model APIs charged.

A :class:`TokenObservation` is one provider's published input and output price for one of
its products (the provider's own model name) at one moment. Like a rental price
(:mod:`computeatlas.cloud.observations`) it is never edited: imports append to a store in
the same format as the rental store (:class:`computeatlas.cloud.store.Store`, with this
module's :data:`COLUMNS` and :data:`KEY`; bundled under ``data/tokens/``), and every row
passes named rules (:data:`RULES`); a row that fails one is held with its reason, never
shown as a price.

Units. Every price is stored in **USD per million tokens** and also kept as published
(``published_input``/``published_output`` with ``published_unit``). The OpenComputePrices
snapshot's own price columns are zero for these rows: the prices are in ``raw_extra``, in
a unit that differs by source (:func:`per_million`):

- OpenRouter: ``prompt_price_per_token`` / ``completion_price_per_token``, USD per token →
  × 1,000,000 (``"0.00000032"`` → 0.32 USD per million);
- DeepInfra: ``cents_per_input_token`` / ``cents_per_output_token``, **US cents** per token
  → ÷ 100 × 1,000,000 = × 10,000 (``4e-05`` cents → 0.40 USD per million);
- Novita: ``input_price`` / ``output_price`` text such as ``"$0.269 /Mt"``, USD per million
  tokens (the first amount; a cache-read price after it is not used);
- Together: ``input`` / ``output`` text such as ``"$0.88"``, USD per million tokens as its
  price list states them (the first amount; a cached-input price after it is not used).

Other sources, each a reader beside this module, imported by
:mod:`computeatlas.economics.token_import`: pydantic/genai-prices
(:mod:`computeatlas.economics.genai_prices`, USD per million tokens as published) and
LiteLLM's table via tokencost (:mod:`computeatlas.economics.litellm_prices`, USD per token →
× 1,000,000); a committed JSON file's collection time is its commit date
(:mod:`computeatlas.economics.token_files`).

Placement. The product name is placed on a model only through the model records' alias
table (:attr:`computeatlas.economics.models.ModelRecord.aliases`), exactly and per provider:
never by substring. A name the table lacks is held as ``unplaced``.
"""

from __future__ import annotations

import datetime as dt
import json
import math
import re
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, field_validator

from computeatlas.cloud.import_summary import ImportCounts
from computeatlas.cloud.importers.cells import Skip, rows, timestamp
from computeatlas.cloud.observations import Status
from computeatlas.cloud.store import Store
from computeatlas.core.tabular import CellError, TableError
from computeatlas.economics.models import MARKET_ONLY_PROVIDERS, ModelRecord

COLUMNS = {
    "provider": "VARCHAR", "product": "VARCHAR", "model": "VARCHAR", "input_per_million": "DOUBLE",
    "output_per_million": "DOUBLE", "currency": "VARCHAR", "published_input": "VARCHAR", "published_output": "VARCHAR",
    "published_unit": "VARCHAR", "collected": "TIMESTAMPTZ", "source_url": "VARCHAR", "source_title": "VARCHAR",
    "via": "VARCHAR", "raw_extra": "VARCHAR", "status": "VARCHAR", "rules": "VARCHAR[]", "reasons": "VARCHAR[]", "run": "VARCHAR",
}  # fmt: skip
"""The stored columns and their DuckDB types (the order of :class:`TokenObservation`'s fields)."""

KEY = ("provider", "product", "collected")
"""What identifies one observation: provider, its product name, collection time."""

MIN_PER_MILLION = 0.001
"""Lowest plausible price, USD per million tokens (a tenth of a cent): below it, surely a unit slip."""

MAX_PER_MILLION = 1000.0
"""Highest plausible price, USD per million tokens: above it, surely a unit slip (a thousandfold error)."""

RULES = {
    "unplaced": "the alias table places no model on this provider's product name",
    "zero_price": "an input or output price of zero (a free tier or a missing figure, not a price)",
    "outside_band": f"a price outside {MIN_PER_MILLION:g} to {MAX_PER_MILLION:g} USD per million tokens (surely a unit slip)",
    "far_from_median": "a price more than 1,000× above or below its model's median on the same side (computeatlas.economics.token_band)",
    "future_dated": "a price announced for a date after the file was published (not in effect then; never shown as current)",
    "conditional_price": "a price that depends on the time of day (peak and off-peak hours): not one price",
}
"""Every rule that holds a token price, and what it means."""

SOURCES = {
    "openrouter": ("https://openrouter.ai/models", "OpenRouter model list (per-token prices)", "USD per token"),
    "deepinfra": ("https://deepinfra.com/pricing", "DeepInfra price list", "US cents per token"),
    "novita": ("https://novita.ai/pricing", "Novita AI price list", "USD per million tokens"),
    "together": ("https://www.together.ai/pricing", "Together AI price list", "USD per million tokens"),
}
"""Per collector source: the provider's public price list, its title, and the unit the
collector recorded. The snapshot does not say which page or API each collector read; the
provider's price list is named as the place the figure is published."""

READ_COLUMNS = ("snapshot_ts", "source", "provider", "instance_type", "pricing_type", "currency", "price_unit", "raw_extra")
_MONEY = re.compile(r"^\s*\$\s*([0-9]+(?:\.[0-9]+)?)")


class TokenObservation(BaseModel):
    """One provider's published price per token for one product at one moment, and our decision.

    Published: ``provider`` (id), ``product`` (the provider's own model name), the prices as
    published (``published_input``, ``published_output`` in ``published_unit``), ``collected``
    (UTC), ``source_url``/``source_title``, ``via`` (the file it came through), ``raw_extra``.
    Derived: ``input_per_million``/``output_per_million`` in USD per million tokens.
    Decided: ``model`` (our model id through the alias table; '' when unplaced), ``status``,
    ``rules`` and ``reasons``, ``run``.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    provider: str = Field(min_length=1)
    product: str = Field(min_length=1)
    model: str = ""
    input_per_million: float = Field(ge=0)
    output_per_million: float = Field(ge=0)
    currency: str = "USD"
    published_input: str
    published_output: str
    published_unit: str
    collected: dt.datetime
    source_url: str = ""
    source_title: str = ""
    via: str = ""
    raw_extra: str = ""
    status: Status = Status.ACCEPTED
    rules: tuple[str, ...] = ()
    reasons: tuple[str, ...] = ()
    run: str = ""

    @field_validator("input_per_million", "output_per_million")
    @classmethod
    def _finite(cls, value: float) -> float:
        if not math.isfinite(value):
            raise ValueError("a price must be a finite number")
        return value

    def key(self) -> tuple[str, str, str]:
        """Provider, product and collection time (ISO, UTC)."""
        return (self.provider, self.product, self.collected.astimezone(dt.UTC).isoformat())

    def held(self, rule: str, reason: str) -> TokenObservation:
        """A copy held by ``rule`` with ``reason`` added."""
        return self.model_copy(update={"status": Status.HELD, "rules": (*self.rules, rule), "reasons": (*self.reasons, reason)})


def _number(value: object, column: str) -> float:
    """A finite, non-negative number from a JSON value or a numeric string; else :class:`CellError`."""
    try:
        number = float(str(value).strip())
    except ValueError:
        raise CellError(column, "not a number", str(value)) from None
    if not math.isfinite(number) or number < 0:
        raise CellError(column, "a price must be a finite, non-negative number", str(value))
    return number


def per_million(source: str, extra: Mapping[str, object]) -> tuple[float, float, str, str, str]:
    """(input, output) in USD per million tokens, the two prices as published and their unit,
    from a snapshot row's ``raw_extra`` of ``source`` (see the module docstring for each unit).

    >>> per_million("deepinfra", {"cents_per_input_token": 2.3e-05, "cents_per_output_token": 4e-05})[:2]
    (0.23, 0.4)

    Raises :class:`CellError` (column ``raw_extra.<field>``) for a missing, non-numeric,
    negative or non-finite price, and for a source with no known unit.
    """
    if source == "openrouter":
        fields, scale = ("prompt_price_per_token", "completion_price_per_token"), 1e6
    elif source == "deepinfra":
        fields, scale = ("cents_per_input_token", "cents_per_output_token"), 1e6 / 100
    elif source in ("novita", "together"):
        fields = ("input_price", "output_price") if source == "novita" else ("input", "output")
        out: list[float] = []
        for name in fields:
            text = str(extra.get(name, ""))
            match = _MONEY.match(text)
            if match is None:
                raise CellError(f"raw_extra.{name}", "no dollar amount at the start (e.g. '$0.27' or '$0.269 /Mt')", text)
            out.append(float(match.group(1)))
        return out[0], out[1], str(extra[fields[0]]), str(extra[fields[1]]), SOURCES[source][2]
    else:
        raise CellError("source", f"no per-token unit known for this source (known: {', '.join(SOURCES)})", source)
    values = []
    for name in fields:
        if name not in extra or extra[name] in (None, ""):
            raise CellError(f"raw_extra.{name}", "the price is missing", None)
        values.append(_number(extra[name], f"raw_extra.{name}"))
    return (round(values[0] * scale, 9), round(values[1] * scale, 9), str(extra[fields[0]]), str(extra[fields[1]]),
            SOURCES[source][2])  # fmt: skip


def read(path: Path, now: dt.datetime | None = None) -> Iterator[tuple[int, TokenObservation | TableError | Skip]]:
    """The per-token observations of an OpenComputePrices CSV file, line by line (not yet placed
    or checked). A row that is not a per-token price is a :class:`Skip`; a bad cell an
    :class:`TableError` naming file, line and column. Raises
    :class:`~computeatlas.cloud.observations.InputFailed` for an unreadable file or a missing column."""
    now = now or dt.datetime.now(dt.UTC)

    def parse(raw: dict[str, str]) -> TokenObservation | Skip:
        if raw["pricing_type"].strip() != "inference" or raw["price_unit"].strip().lower() != "token":
            return Skip("not a per-token price (a rental price: see computeatlas prices import)")
        try:
            extra = json.loads(raw["raw_extra"])
        except ValueError:
            raise CellError("raw_extra", "not JSON", raw["raw_extra"][:120]) from None
        if not isinstance(extra, dict):
            raise CellError("raw_extra", "not a JSON object", raw["raw_extra"][:120])
        if raw["currency"].strip() != "USD":  # the per-token prices are read as US dollars (or cents): no other currency
            raise CellError("currency", "token prices are read in USD only (write 'USD')", raw["currency"])
        source = raw["source"].strip()
        input_m, output_m, pub_in, pub_out, unit = per_million(source, extra)
        url, title, _ = SOURCES[source]
        return TokenObservation(
            provider=source, product=raw["instance_type"].strip(), input_per_million=input_m, output_per_million=output_m,
            published_input=pub_in, published_output=pub_out, published_unit=unit, collected=timestamp(raw, "snapshot_ts", now),
            source_url=url, source_title=title, via=f"OpenComputePrices {path.name} (MIT), collected {raw['snapshot_ts'][:10]}",
            raw_extra=json.dumps(extra, ensure_ascii=False, sort_keys=True))  # fmt: skip

    for reading in rows(path, READ_COLUMNS, parse):  # type: ignore[arg-type]
        yield reading.line, reading.result  # type: ignore[misc]


def alias_table(models: Iterable[ModelRecord]) -> dict[tuple[str, str], str]:
    """(provider, exact product name) → model id, from every model record's aliases."""
    return {(provider, name): m.id for m in models for provider, names in m.aliases.items() for name in names}


def decide(obs: TokenObservation, aliases: Mapping[tuple[str, str], str]) -> TokenObservation:
    """Place ``obs`` through ``aliases`` and apply :data:`RULES`; a failed rule holds the row
    with its reason (several may hold it)."""
    model = aliases.get((obs.provider, obs.product), "")
    obs = obs.model_copy(update={"model": model})
    if not model:
        obs = obs.held("unplaced", f"no model record lists {obs.product!r} as a {obs.provider} name")
    for side in ("input", "output"):
        value = getattr(obs, f"{side}_per_million")
        if value == 0:
            obs = obs.held("zero_price", f"the {side} price is zero ({getattr(obs, f'published_{side}')!r} {obs.published_unit})")
        elif not MIN_PER_MILLION <= value <= MAX_PER_MILLION:
            obs = obs.held("outside_band", f"the {side} price comes to {value:g} USD per million tokens")
    return obs


@dataclass
class TokenSummary(ImportCounts):
    """What one token-price import did (:class:`~computeatlas.cloud.runs.ImportCounts`), with
    the accepted rows counted by model."""

    accepted_by_model: Counter[str] = field(default_factory=Counter)
    accepted_by_provider: Counter[str] = field(default_factory=Counter)
    held_by_provider: Counter[str] = field(default_factory=Counter)
    skipped_by_reason: Counter[str] = field(default_factory=Counter)

    def counts(self) -> dict[str, object]:
        """The counts as plain data (for the run's manifest)."""
        return {
            **super().counts(),
            **{
                name: dict(getattr(self, name).most_common())
                for name in ("accepted_by_model", "accepted_by_provider", "held_by_provider", "skipped_by_reason")
            },
        }


def token_store(root: Path) -> Store:
    """The token-price store under ``root`` (the bundled one is ``data/tokens``)."""
    return Store(root, COLUMNS, KEY)


def observations_of(store: Store, model: str) -> list[TokenObservation]:
    """Every accepted observation placed on ``model`` (the newest decision per key), oldest first."""
    rows_ = store.query("SELECT * FROM latest WHERE status = 'accepted' AND model = ? ORDER BY collected, provider, product", [model])
    return [token_observation_of(r) for r in rows_]


_TOKEN_FIELDS = frozenset(TokenObservation.model_fields)  # read once: the class property costs a call per lookup


def token_observation_of(row: Mapping[str, object]) -> TokenObservation:
    """A stored row as a :class:`TokenObservation` again (the partition column ``date`` dropped)."""
    data = {k: v for k, v in row.items() if k in _TOKEN_FIELDS}
    data["rules"] = tuple(data.get("rules") or ())  # type: ignore[arg-type]
    data["reasons"] = tuple(data.get("reasons") or ())  # type: ignore[arg-type]
    return TokenObservation.model_validate(data)


TOKEN_PROVIDER_NAMES = {**MARKET_ONLY_PROVIDERS, "aws": "AWS Bedrock", "azure": "Azure", "google": "Google", "anthropic": "Anthropic"}
"""Names shown for token-price provider ids (AWS sells tokens as Bedrock, not as its rental provider record)."""


def provider_name(provider: str) -> str:
    """The name shown for a token-price provider id (:data:`TOKEN_PROVIDER_NAMES`, else the id)."""
    return TOKEN_PROVIDER_NAMES.get(provider, provider)


class Side(StrEnum):
    """Which price of a token observation: input (prompt) or output (completion)."""

    INPUT = "input"
    OUTPUT = "output"


__all__ = [
    "COLUMNS", "KEY", "MAX_PER_MILLION", "MIN_PER_MILLION", "RULES", "SOURCES", "Side", "TokenObservation", "TokenSummary",
    "alias_table", "decide", "observations_of", "per_million", "provider_name", "read", "token_observation_of",
    "token_store",
]  # fmt: skip

"""Token prices from LiteLLM's ``model_prices_and_context_window.json`` as AgentOps-AI/tokencost copies it.

The file is an object keyed by LiteLLM's model name (``gpt-4o``, ``groq/llama-3.1-8b-instant``,
``meta.llama3-1-8b-instruct-v1:0``), each with ``input_cost_per_token`` and
``output_cost_per_token`` in **USD per token** (× 1,000,000 → USD per million tokens:
``2.2e-07`` → 0.22) and ``litellm_provider``. What this importer does with each entry:

- **provider**: ``litellm_provider`` through :data:`PROVIDERS` where LiteLLM's name for a
  provider differs from ours (``bedrock`` and ``bedrock_converse`` are AWS Bedrock, ``aws``;
  ``together_ai`` is ``together``; ``fireworks_ai`` is ``fireworks``), else as spelled with
  ``_`` written ``-``. An entry with no ``litellm_provider`` (the 2024-01-31 file, tokencost's
  early format) is skipped with that reason: with no provider it cannot be placed;
- **product**: the key exactly as LiteLLM spells it, prefix and all (placed on our model only
  through the alias table);
- **tiers**: the base ``*_cost_per_token`` is taken and the published text says so
  (``"3.5e-07 (base; 7e-07 above 128k tokens)"``); batch and cache prices are kept in ``raw_extra``;
- an entry without both prices (an embedding, image or per-second model) and the
  ``sample_spec`` template are skipped with the reason;
- collected: the commit date; ``via`` says "published by DATE (commit SHA7)"; ``source_url``
  is tokencost's file at its commit, and an entry's own ``source`` URL is kept in ``raw_extra``.
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
from computeatlas.economics.token_files import TOKENCOST_PATH, TOKENCOST_REPO, JsonInputError, load, provenance_of
from computeatlas.economics.token_prices import TokenObservation

UNIT = "USD per token"
PER_MILLION = 1_000_000

PROVIDERS = {"bedrock": "aws", "bedrock_converse": "aws", "together_ai": "together", "fireworks_ai": "fireworks"}
"""LiteLLM provider names that are another spelling of one of our provider ids (LiteLLM's provider docs:
Bedrock is AWS Bedrock, ``together_ai`` Together AI, ``fireworks_ai`` Fireworks AI)."""


def provider_id(litellm_provider: str) -> str:
    """Our provider id for a ``litellm_provider`` value (:data:`PROVIDERS`, else ``_`` written ``-``)."""
    name = litellm_provider.strip().lower()
    return PROVIDERS.get(name, name.replace("_", "-"))


def _price(entry: dict, field: str, path: str) -> float:
    value = entry[field]
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"{path}.{field}", "a price must be a number (USD per token)", json.dumps(value)[:120])
    if not math.isfinite(value) or value < 0:
        raise ValueError(f"{path}.{field}", "a price must be a finite, non-negative number", json.dumps(value))
    return float(value)


def _tiers(entry: dict, side: str) -> list[str]:
    prefix = f"{side}_cost_per_token_above_"
    return [
        f"{entry[k]:g} above {k[len(prefix) :].removesuffix('_tokens')} tokens"
        for k in sorted(entry)
        if k.startswith(prefix) and isinstance(entry[k], int | float) and not isinstance(entry[k], bool)
    ]


def read(
    path: Path, now: dt.datetime | None = None, commit: str | None = None, published: dt.datetime | None = None
) -> Iterator[tuple[int, TokenObservation | TableError | Skip]]:
    """Every entry of a tokencost ``model_prices.json`` (not yet placed or checked), as ``(0, result)``:
    a :class:`TokenObservation` (converted to USD per million tokens), a :class:`Skip` with its
    reason, or a :class:`JsonInputError` naming the file and JSON path of a bad value. Raises
    :class:`InputFailed` for an unreadable file, one that is not an object of entries, or one
    of unknown commit (give ``commit`` and ``published``)."""
    prov = provenance_of(path, TOKENCOST_REPO, TOKENCOST_PATH, commit, published)
    data = load(path)
    if not isinstance(data, dict):
        raise InputFailed([JsonInputError(str(path), "$", "expected an object keyed by model name (LiteLLM's model price table)")])
    for key, entry in data.items():
        where = f"${json.dumps([key], ensure_ascii=False)}"
        if key == "sample_spec":
            yield 0, Skip("sample_spec: LiteLLM's template entry, not a model")
            continue
        if not isinstance(entry, dict):
            yield 0, JsonInputError(str(path), where, "an entry must be an object", json.dumps(entry)[:120])
            continue
        provider = entry.get("litellm_provider")
        if entry.get("input_cost_per_token") is None or entry.get("output_cost_per_token") is None:
            yield 0, Skip(f"no input_cost_per_token and output_cost_per_token (mode {entry.get('mode')}: not priced per token both ways)")
            continue
        try:
            inp, outp = _price(entry, "input_cost_per_token", where), _price(entry, "output_cost_per_token", where)
            if provider is not None and (not isinstance(provider, str) or not provider.strip()):
                raise ValueError(f"{where}.litellm_provider", "the provider must be a name", json.dumps(provider))
        except ValueError as bad:
            column, message, text = bad.args
            yield 0, JsonInputError(str(path), column, message, text)
            continue
        if provider is None:
            yield 0, Skip("no litellm_provider (tokencost's early format): no provider to place the price on")
            continue
        texts = []
        for side, value in (("input", entry["input_cost_per_token"]), ("output", entry["output_cost_per_token"])):
            tiers = _tiers(entry, side)
            texts.append(f"{value:g}" + (f" (base; {'; '.join(tiers)})" if tiers else ""))
        source = entry.get("source")
        extra = {"litellm_provider": provider, "mode": entry.get("mode"), "json_path": where,
                 "pricing_urls": [source] if isinstance(source, str) and source.startswith("http") else None,
                 "other_prices": {k: v for k, v in entry.items() if "cost" in k and k not in ("input_cost_per_token", "output_cost_per_token")} or None}  # fmt: skip
        yield 0, TokenObservation(
            provider=provider_id(provider), product=key, input_per_million=round(inp * PER_MILLION, 9),
            output_per_million=round(outp * PER_MILLION, 9), published_input=texts[0], published_output=texts[1], published_unit=UNIT,
            collected=prov.published, source_url=prov.url,
            source_title=f"AgentOps-AI/tokencost {TOKENCOST_PATH} at commit {prov.short} ({prov.published.date().isoformat()})",
            via=prov.via("BerriAI/litellm model_prices_and_context_window.json as copied by AgentOps-AI/tokencost (tokencost/model_prices.json)"),
            raw_extra=json.dumps({k: v for k, v in extra.items() if v is not None}, ensure_ascii=False, sort_keys=True))  # fmt: skip


__all__ = ["PROVIDERS", "provider_id", "read"]

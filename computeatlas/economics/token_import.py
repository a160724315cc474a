"""Importing token prices: one run over files of one format into the token store.

Formats (:data:`FORMATS`): ``tokens`` (the OpenComputePrices CSV rows, read by
:func:`computeatlas.economics.token_prices.read`), ``genai-prices``
(:mod:`computeatlas.economics.genai_prices`) and ``litellm``
(:mod:`computeatlas.economics.litellm_prices`). Every row is placed and checked by
:func:`computeatlas.economics.token_prices.decide`, then judged against its model's median
(:mod:`computeatlas.economics.token_band`); the run is appended atomically, and a row the
store already has (same key, prices and decision) adds nothing.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Iterable, Sequence
from pathlib import Path

from computeatlas.cloud.importers.cells import Skip
from computeatlas.cloud.observations import Status
from computeatlas.cloud.runs import run_id
from computeatlas.cloud.store import Store
from computeatlas.core.tabular import TableError
from computeatlas.economics import genai_prices, litellm_prices, token_band
from computeatlas.economics.models import ModelRecord
from computeatlas.economics.token_prices import TokenObservation, TokenSummary, alias_table, decide, read

FORMATS = {
    "tokens": "per-token rows of the OpenComputePrices collectors (CSV)",
    "genai-prices": "pydantic/genai-prices data.json, v1 or v2 (JSON; computeatlas.economics.genai_prices)",
    "litellm": "LiteLLM's model price table as AgentOps-AI/tokencost copies it (JSON; computeatlas.economics.litellm_prices)",
}
"""The token-price formats of ``computeatlas prices import`` and what each reads."""


def _reader(fmt: str):
    """The ``read(path, now, **options)`` function of format ``fmt`` (:data:`FORMATS`); ``KeyError`` for another."""
    if fmt == "tokens":
        return lambda path, now, **_: read(path, now)
    if fmt == "genai-prices":
        return genai_prices.read
    if fmt == "litellm":
        return litellm_prices.read
    raise KeyError(fmt)


def import_token_files(
    paths: Sequence[Path],
    store: Store,
    models: Iterable[ModelRecord],
    now: dt.datetime | None = None,
    fmt: str = "tokens",
    commit: str | None = None,
    published: dt.datetime | None = None,
) -> TokenSummary:
    """Import the per-token prices of ``paths`` (in format ``fmt``, one of :data:`FORMATS`)
    into ``store`` as one atomic run. ``commit`` and ``published`` give the commit of a JSON
    file whose name :data:`computeatlas.economics.token_files.KNOWN` does not list.

    Each row is placed through the alias table and checked by :data:`RULES`; the rows that
    pass are then judged against their model's median (:mod:`computeatlas.economics.token_band`,
    over the store's accepted prices and this import's). Rows already stored (same key, same
    prices, same decision) add nothing, so importing the same files twice adds nothing.
    Raises ``InputFailed`` for an unreadable file or a changed schema (nothing stored).
    """
    now = now or dt.datetime.now(dt.UTC)
    reader = _reader(fmt)
    options = {"commit": commit, "published": published} if fmt != "tokens" else {}
    aliases = alias_table(models)
    run = run_id(now, paths)
    summary = TokenSummary(run=run, files=[str(p) for p in paths])
    decided: list[TokenObservation] = []
    for path in paths:
        for _line, result in reader(path, now, **options):
            summary.read += 1
            if isinstance(result, TableError):
                summary.rejected += 1
                summary.errors.append(result)
            elif isinstance(result, Skip):
                summary.skipped += 1
                summary.skipped_by_reason[result.reason] += 1
            else:
                decided.append(decide(result, aliases).model_copy(update={"run": run}))
    stored = {(r["provider"], r["product"], r["collected"].astimezone(dt.UTC).isoformat()): r
              for r in store.query("SELECT * FROM latest")}  # fmt: skip
    band = token_band.medians(
        (r for r in stored.values() if r["status"] == Status.ACCEPTED.value and r["model"]),
        [o for o in decided if o.status is Status.ACCEPTED],
    )
    decided = [token_band.judge(o, band) if o.status is Status.ACCEPTED else o for o in decided]
    added, seen = [], set()
    for obs in decided:
        prior = stored.get(obs.key())
        same = prior is not None and (prior["input_per_million"], prior["output_per_million"], prior["model"], prior["status"]) == (
            obs.input_per_million,
            obs.output_per_million,
            obs.model,
            obs.status.value,
        )
        if same or obs.key() in seen:
            summary.already_stored += 1
            continue
        seen.add(obs.key())
        added.append(obs)
        if obs.status is Status.ACCEPTED:
            summary.accepted += 1
            summary.accepted_by_model[obs.model] += 1
            summary.accepted_by_provider[obs.provider] += 1
        else:
            summary.held += 1
            summary.held_by_rule[obs.rules[0]] += 1
            summary.held_by_provider[obs.provider] += 1
    if added:
        store.append(
            added,
            run,
            {
                "format": "opencomputeprices-tokens" if fmt == "tokens" else fmt,
                "started": now.isoformat(),
                "counts": summary.counts(),
                "inputs": [{"file": p.name, "sha256": hashlib.sha256(p.read_bytes()).hexdigest()} for p in paths],
            },
        )
    return summary


__all__ = ["FORMATS", "import_token_files"]

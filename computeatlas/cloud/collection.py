"""Running collectors: each configured source collected into its own import run, every attempt recorded.

:func:`configured` builds every collector (:data:`SOURCES`) with its settings, its base URL
(the source's own, or :attr:`~computeatlas.core.settings.Settings.collector_urls`' mirror)
and our instance types of its provider. :func:`collect_sources` runs the named ones one
after the other: a collector whose settings are missing is ``skipped`` with the reason; one
whose source fails (:class:`~computeatlas.cloud.collectors.base.CollectorError`) is
``failed`` with the error and stores nothing, so the store keeps every earlier run as it was;
otherwise its readings go through :func:`computeatlas.cloud.runs.import_readings` (instance
table, integrity rules, one atomic run). A failing source never stops the others. Every
attempt is recorded (:func:`computeatlas.cloud.collection_log.record`) and returned.

The pre-publication check is a step between "readings collected" and "run committed":
``check(source, collected, store)`` returns a reason to hold the whole run, or None. A held
run is still stored, every reading held by the ``collection_held`` rule with that reason, so
the previous run's prices stay the current ones; the attempt's result is ``held``.
"""

from __future__ import annotations

import datetime as dt
import functools
from collections.abc import Callable, Iterable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from computeatlas.cloud import bounds, import_summary, runs
from computeatlas.cloud.catalog import CloudCatalog
from computeatlas.cloud.collection_log import Attempt, record
from computeatlas.cloud.collectors import http
from computeatlas.cloud.collectors.aws import Aws
from computeatlas.cloud.collectors.azure import Azure
from computeatlas.cloud.collectors.base import Collected, Collector, CollectorError, Progress
from computeatlas.cloud.collectors.gcp import Gcp
from computeatlas.cloud.collectors.oracle import Oracle
from computeatlas.cloud.collectors.skypilot import CLOUDS, SkyPilot
from computeatlas.cloud.collectors.vastai import VastAi
from computeatlas.cloud.instances import InstanceTable, instance_table
from computeatlas.cloud.observations import Observation
from computeatlas.cloud.rules import Limits
from computeatlas.cloud.store import Store
from computeatlas.cloud.writers import StoreBusy
from computeatlas.core.settings import Settings

if TYPE_CHECKING:
    import httpx

HELD_RULE = "collection_held"
"""The rule that holds every reading of a run held whole by the pre-publication check."""

Check = Callable[[str, Collected, Store], "str | None"]
"""The pre-publication check: (source name, what was collected, the store) → a reason to hold the run, or None."""

SOURCES: dict[str, Callable[..., Collector]] = {
    "aws": Aws,
    "azure": Azure,
    "gcp": Gcp,
    "oracle": Oracle,
    "vastai": VastAi,
    **{f"skypilot-{cloud}": functools.partial(SkyPilot, cloud=cloud) for cloud in CLOUDS},
}
"""Every collector by name, in the order ``--all`` runs them."""


@dataclass(frozen=True)
class Outcome:
    """One source's attempt and, when a run was made, its import summary; ``warnings`` of the collection."""

    attempt: Attempt
    summary: import_summary.Summary | None
    warnings: tuple[str, ...] = ()


def configured(
    settings: Settings, table: InstanceTable, names: Iterable[str] | None = None, now: Callable[[], dt.datetime] | None = None
) -> dict[str, Collector]:
    """The collectors ``names`` (default: all of :data:`SOURCES`), each with its base URL, settings and
    instance types. Raises :class:`KeyError` naming an unknown collector."""
    wanted = list(SOURCES) if names is None else list(names)
    unknown = [n for n in wanted if n not in SOURCES]
    if unknown:
        raise KeyError(f"unknown collector {unknown[0]!r}; available: {', '.join(SOURCES)}")
    values = {"gcp_api_key": settings.gcp_api_key}
    built: dict[str, Collector] = {}
    for name in wanted:
        probe = SOURCES[name](settings=values, now=now)
        rows = [r for r in table.rows if r.provider == probe.provider]
        types = sorted({r.instance_type for r in rows})
        built[name] = SOURCES[name](
            base_url=settings.collector_urls.get(name), settings=values, now=now, instance_types=types, **probe.table_options(rows)
        )
    return built


def collect_sources(
    names: Iterable[str] | None,
    settings: Settings,
    catalog: CloudCatalog,
    *,
    check: Check | None = None,
    client: Callable[[], AbstractContextManager[httpx.Client]] | None = None,
    now: Callable[[], dt.datetime] | None = None,
    progress: Callable[[str], Progress | None] | None = None,
    on_wait: Callable[[str], None] | None = None,
    on_done: Callable[[Outcome], None] | None = None,
) -> list[Outcome]:
    """Collect ``names`` (None: every collector) into the store of ``settings``, each into its own run.

    ``client`` makes the HTTP client of each collection (default
    :func:`~computeatlas.cloud.collectors.http.client` with the settings' timeout and public
    origin); ``now`` is the clock; ``progress(name)`` gives the callback told the rows read;
    ``on_done`` is told each outcome as it ends. Returns the outcomes in order. Raises
    :class:`KeyError` for an unknown name (nothing collected then); a busy or unwritable store
    fails that source (recorded), never the others.
    """
    clock = now or (lambda: dt.datetime.now(dt.UTC))
    table = instance_table(catalog)
    collectors = configured(settings, table, names, now)
    store = Store(settings.prices_dir)
    make = client or (lambda: http.client(settings.public_origin, timeout=settings.collector_timeout))
    context = _Context(settings, catalog, table, store, check, on_wait)
    outcomes: list[Outcome] = []
    for name, collector in collectors.items():
        outcome = _one(name, collector, context, make, clock, progress(name) if progress else None)
        record(settings.prices_dir, outcome.attempt)
        outcomes.append(outcome)
        if on_done:
            on_done(outcome)
    return outcomes


@dataclass(frozen=True)
class _Context:
    settings: Settings
    catalog: CloudCatalog
    table: InstanceTable
    store: Store
    check: Check | None
    on_wait: Callable[[str], None] | None


def _one(
    name: str,
    collector: Collector,
    context: _Context,
    make: Callable[[], AbstractContextManager[httpx.Client]],
    clock: Callable[[], dt.datetime],
    progress: Progress | None,
) -> Outcome:
    """One source's attempt: skipped, failed, held or imported (see the module)."""
    started = clock()

    def attempt(result: str, **fields: Any) -> Attempt:
        return Attempt(source=name, started=started, finished=max(clock(), started), result=result, **fields)

    reason = collector.missing()
    if reason:
        return Outcome(attempt("skipped", reason=reason), None)
    try:
        with make() as client:
            got = collector.collect(client, progress)
    except CollectorError as exc:
        return Outcome(attempt("failed", error=str(exc)), None)
    except OSError as exc:  # a temporary file that could not be written
        return Outcome(attempt("failed", error=f"{name}: {exc}"), None)
    except Exception as exc:  # a reading the source gave that no check foresaw: this source fails, the others go on
        first = str(exc).splitlines()[0] if str(exc) else ""
        return Outcome(attempt("failed", error=f"{name}: an unexpected response ({type(exc).__name__}: {first})"), None)
    hold = context.check(name, got, context.store) if context.check else None
    readings: Sequence[Observation] = got.observations
    if hold:
        readings = [o.held(HELD_RULE, hold) for o in readings]
    try:
        summary = runs.import_readings(
            f"collector:{name}",
            [],
            context.store,
            context.table,
            runs.rates_of(context.settings),
            Limits.of(context.settings),
            observations=readings,
            siblings=bounds.sibling_map(context.catalog.accelerators.values()),
            on_wait=context.on_wait,
        )
    except StoreBusy as exc:
        return Outcome(attempt("failed", rows_read=got.rows_read, error=f"{name}: {exc}"), None)
    except OSError as exc:
        return Outcome(attempt("failed", rows_read=got.rows_read, error=f"{name}: the store could not be written: {exc}"), None)
    summary.skipped += sum(got.skipped.values())
    summary.skipped_by_reason.update(got.skipped)
    stored = summary.accepted + summary.held
    fields: dict[str, Any] = dict(
        rows_read=got.rows_read, accepted=summary.accepted, held=summary.held, run=summary.run if stored else None
    )
    result = "held" if hold else "imported"
    return Outcome(attempt(result, reason=hold, **fields), summary, tuple(got.warnings))


def names_of(given: Sequence[str], every: bool) -> list[str] | None:
    """The collectors a command names: None (all) for ``--all``, else ``given`` in order, once each."""
    return None if every else list(dict.fromkeys(given))


__all__ = ["HELD_RULE", "SOURCES", "Check", "Outcome", "collect_sources", "configured", "names_of"]

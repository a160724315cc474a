"""An import run: files of one format → decided observations appended to the store.

:func:`import_files` reads every file (an unreadable file, an unknown format or a missing
column raises :class:`~computeatlas.cloud.observations.InputFailed` before anything is
stored), places and checks the rows (:func:`computeatlas.cloud.rules.apply`), drops what
the store already holds, and appends the rest as one atomic run
(:meth:`computeatlas.cloud.store.Store.append`). The returned :class:`Summary`
(:mod:`computeatlas.cloud.import_summary`) counts rows read, accepted, held, rejected and
skipped, by reason and by provider; what deduplication reads is
:mod:`computeatlas.cloud.deduplication`'.

Deduplication: a row whose key (provider, instance, region, pricing, term, collection
time) is already stored with the same price and the same decision adds nothing, so
importing the same file twice adds nothing. The same key with another price is a
``conflict`` only against an *accepted* row: held, and never replacing the stored row. A
key whose stored rows are all held blocks nothing: a later accepted row (another price) is
added beside them and becomes the observation's newest decision, the held rows staying
listed for the operator (the store is append-only). The same price with another
decision (a newly sourced instance row places it) is stored again as the newer decision.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import gc
import hashlib
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path

from computeatlas.cloud import band, batch_run, bounds, rules
from computeatlas.cloud.catalog import CloudCatalog as Catalog
from computeatlas.cloud.deduplication import SEP, WORD, conflicts_within, neighbours, words
from computeatlas.cloud.deduplication import stored as stored_rows
from computeatlas.cloud.group_rules import stale_repeats
from computeatlas.cloud.import_job import ImportJob
from computeatlas.cloud.import_summary import Summary
from computeatlas.cloud.importers import formats
from computeatlas.cloud.importers.cells import Reading, Skip
from computeatlas.cloud.instances import InstanceTable, instance_table
from computeatlas.cloud.observations import (
    LICENSED_SUFFIX,
    InputFailed,
    Observation,
    Status,
)
from computeatlas.cloud.rates import RateTable, load_rates
from computeatlas.cloud.store import Store
from computeatlas.cloud.writers import LOCK_TIMEOUT_SECONDS
from computeatlas.core.settings import Settings
from computeatlas.core.tabular import TableError


def run_id(now: dt.datetime, paths: Sequence[Path], observations: Sequence[Observation] = ()) -> str:
    """A sortable run id: the UTC start time and a digest of the inputs (files' names and
    bytes, or a collector's observations)."""
    digest = hashlib.sha256()
    for path in paths:
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    for obs in observations:
        digest.update(obs.model_dump_json().encode())
    return f"{now:%Y%m%dT%H%M%S%f}Z-{digest.hexdigest()[:8]}"


def first_date(fmt: str, limits: rules.Limits) -> dt.date:
    """The first date of ``fmt``'s source: the importer module's ``FIRST_DATE`` when it sets
    one, else ``limits.first_date`` (:attr:`~computeatlas.core.settings.Settings.price_first_date`)."""
    reader = formats().get(fmt)
    module = sys.modules.get(getattr(reader, "__module__", "")) if reader else None
    found = getattr(module, "FIRST_DATE", None)
    return found if isinstance(found, dt.date) else limits.first_date


def import_readings(
    fmt: str,
    paths: Sequence[Path],
    store: Store,
    table: InstanceTable,
    rates: RateTable,
    limits: rules.Limits,
    now: dt.datetime | None = None,
    progress: Callable[[int], None] | None = None,
    observations: Sequence[Observation] = (),
    siblings: Mapping[str, tuple[str, ...]] | None = None,
    lock_timeout: float = LOCK_TIMEOUT_SECONDS,
    on_wait: Callable[[str], None] | None = None,
    columnar: bool = True,
    **options: object,
) -> Summary:
    """Import ``paths`` (format ``fmt``) and already-made ``observations`` (from a collector)
    into ``store`` as one run. Raises :class:`InputFailed` for an unknown format or an
    unreadable file; nothing is stored then.

    One plain atlas-format file is imported in columns (:mod:`computeatlas.cloud.batch_run`:
    the same run, at engine speed) unless ``columnar`` is False; every other import, and one
    the columns do not decide, row by row.

    The files are read first; then the store's write lock is held (waiting up to
    ``lock_timeout`` seconds, telling ``on_wait`` the lock file, else
    :class:`~computeatlas.cloud.writers.StoreBusy`) while the
    leftovers of killed writers are removed, the rows are checked against what is stored
    (duplicates, conflicts, the band's pool, which parts have a price yet) and the run is
    appended: so two imports at once are one after the other. ``siblings``
    (:func:`~computeatlas.cloud.bounds.sibling_map`) lets a part's first price be checked
    against its closest sibling; without it, only the absolute bounds check a first price."""
    now = now or dt.datetime.now(dt.UTC)
    readers = formats()
    if fmt not in readers and not (fmt.startswith("collector:") and not paths):
        raise InputFailed(
            [TableError(str(p), 1, "(file)", f"unknown format {fmt!r}; known: {', '.join(readers)}") for p in paths]
            or [TableError("(none)", 0, "(format)", f"unknown format {fmt!r}; known: {', '.join(readers)}")]
        )
    job = ImportJob(store, table, rates, limits, now, run_id(now, paths, observations), siblings or {}, lock_timeout, on_wait, progress)
    if columnar and fmt == "atlas" and len(paths) == 1 and not observations and not options:
        found = batch_run.imported(paths[0], job, first_date(fmt, limits))
        if found is not None:
            return found
    with _bulk():
        return _import(fmt, paths, job, readers[fmt] if paths else None, observations, options)


@contextlib.contextmanager
def _bulk() -> Iterator[None]:
    """The cyclic garbage collector paused while one import makes its millions of rows (none
    is in a cycle; each collection would walk every row made so far, which more than doubles
    the time of a large import); restored after, as it was."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _import(
    fmt: str,
    paths: Sequence[Path],
    job: ImportJob,
    reader: Callable[..., Iterable[Reading]] | None,
    observations: Sequence[Observation],
    options: Mapping[str, object],
) -> Summary:
    """:func:`import_readings` once the format is known and the run named."""
    summary = Summary(run=job.run, format=fmt, files=[str(p) for p in paths])
    parsed: list[Observation] = [o.replaced() for o in observations]  # copies: the rows are completed in place (rules.apply's fresh)
    summary.read += len(observations)
    for path in paths:
        lines: set[int] = set()
        for reading in reader(path, now=job.now, **options):  # type: ignore[misc]
            if reading.line not in lines:
                lines.add(reading.line)
                summary.read += 1
                if job.progress:
                    job.progress(1)
            if isinstance(reading.result, TableError):
                summary.rejected += 1
                summary.rejected_by_reason[f"{reading.result.column}: {reading.result.message}"] += 1
                summary.errors.append(reading.result)
            elif isinstance(reading.result, Skip):
                summary.skipped += 1
                summary.skipped_by_reason[reading.result.reason] += 1
            else:
                parsed.append(reading.result)
    with job.store.writing(job.lock_timeout, job.on_wait):
        job.store.remove_leftovers(job.lock_timeout)
        _decide_and_append(fmt, paths, job, parsed, summary)
    return summary


def _window(decided: Sequence[Observation], start: dt.date, now: dt.datetime, days: int) -> tuple[dt.datetime, dt.datetime] | None:
    """The span of the plausible collection times in ``decided``, widened by ``days`` either
    side and kept within real dates (None when no time is plausible)."""
    low, high = dt.datetime.combine(start, dt.time(), dt.UTC), now + bounds.CLOCK_SKEW  # bounds.date_problem's
    plausible = [o.collected for o in decided if low <= o.collected <= high]
    if not plausible:
        return None
    floor, widen = dt.datetime.combine(start, dt.time(), dt.UTC), dt.timedelta(days=days)
    return max(floor, min(plausible) - widen), max(plausible) + widen


def _decide_and_append(fmt: str, paths: Sequence[Path], job: ImportJob, parsed: list[Observation], summary: Summary) -> None:
    """Place, check, deduplicate against the store and append one run (under the write lock)."""
    store, table, rates, limits, now, run, siblings = job.store, job.table, job.rates, job.limits, job.now, job.run, job.siblings
    start = first_date(fmt, limits)
    batch: list[Observation] = []
    keys: list[tuple[str, ...]] = []
    seen: dict[tuple[str, ...], Observation | list[Observation]] = {}
    for obs in parsed:
        key: tuple[str, ...] = obs.key()
        other = seen.get(key)
        if other is None:
            seen[key] = obs
        elif isinstance(other, Observation):
            if other.same_price(obs):
                summary.already_stored += 1
                continue
            seen[key] = [other, obs]
        elif any(o.same_price(obs) for o in other):
            summary.already_stored += 1
            continue
        else:
            other.append(obs)
        batch.append(obs)
        keys.append(key)
    pool: list[band.PoolPrice] = []
    span = _window(batch, start, now, limits.freshness_days)
    placed = _placed(batch, table)
    known = store.observed_accelerators() if batch else frozenset()
    if span is not None:
        near = placed | {s for acc in placed - known for s in siblings.get(acc, ())}
        for accelerator, pricing, collected, currency, per_acc, provider, count in store.pool(near, *span):
            usd = rates.to_usd(per_acc, currency, collected.date())[0]
            if usd is not None:
                pool.append(band.PoolPrice(accelerator, pricing, collected, usd, provider, count))
    decided = rules.apply(
        batch, table, rates, limits, pool, now=now, first_date=start, known=known, siblings=siblings, run=run, fresh=True
    )  # every row of batch is this import's own: read here, or a copy of a collector's
    keys += [o.key() for o in decided[len(batch) :]]  # the combined split bills, after the rows in their order
    decided = conflicts_within(decided, keys)
    others = neighbours(store, decided, limits.conflict_window_days)
    if others:  # other sources' stored prices of the same offers: this import's older-sourced ones are held
        decided = stale_repeats([*others, *decided], limits.conflict_window_days)[len(others) :]
    summary.combined = len(decided) - len(batch)
    first_day = min((o.collected.date() for o in decided), default=now.date())
    last_day = max((o.collected.date() for o in decided), default=now.date())
    stored = stored_rows(store, {o.provider for o in decided}, first_day, last_day) if decided else {}
    conflicts = store.stored_conflicts({o.provider for o in decided}, first_day, last_day) if decided else set()
    added: list[Observation] = []
    for obs, key in zip(decided, keys, strict=True):
        prior = stored.get(key)
        if prior is None and not conflicts:
            added.append(obs)
            continue
        price = (float(obs.amount), obs.currency, WORD[obs.unit], WORD[obs.price_basis])
        same = prior is not None and prior[0] == price[0] and prior[1] == words(*price[1:])
        if prior is not None and not same and prior[2] == Status.ACCEPTED and "conflict" not in obs.rules:
            obs = obs.held("conflict", f"the store holds this observation at {prior[0]:g} {prior[1].split(SEP)[0]} (run {prior[4]})")
        if "conflict" in obs.rules and (key, price) in conflicts:
            summary.already_stored += 1
            continue
        if same and prior is not None and prior[3] == words(WORD[obs.status], obs.accelerator, obs.variant, words(*obs.rules)):
            summary.already_stored += 1
            continue
        added.append(obs)
    for obs in added:
        if obs.status is Status.ACCEPTED:
            summary.accepted += 1
            summary.accepted_by_provider[obs.provider] += 1
        else:
            summary.held += 1
            summary.held_by_provider[obs.provider] += 1
            summary.held_by_rule[obs.rules[0]] += 1
    if added:
        store.append(
            added,
            run,
            {
                "format": fmt,
                "started": now.isoformat(),
                "counts": summary.counts(),
                "inputs": [{"file": p.name, "sha256": hashlib.sha256(p.read_bytes()).hexdigest()} for p in paths],
            },
        )


def _placed(batch: Sequence[Observation], table: InstanceTable) -> set[str]:
    """The parts :func:`rules.place` puts ``batch`` on: a row's own accelerator, else its
    instance's row in ``table`` (looked up once per distinct provider and instance)."""
    own = {o.accelerator for o in batch}
    names = {(o.provider, o.instance_type) for o in batch if not o.accelerator}
    found = (table.find(provider, instance.removesuffix(LICENSED_SUFFIX)) for provider, instance in names)
    return ({acc for acc in own if acc} | {row.accelerator for row in found if row is not None}) - {""}


def rates_of(settings: Settings) -> RateTable:
    """The sourced exchange-rate table of the data folder (``data/prices/rates.csv``)."""
    return load_rates(settings.data / "prices" / "rates.csv")


def import_files(fmt: str, paths: Sequence[Path], settings: Settings, catalog: Catalog, **options: object) -> Summary:
    """Import ``paths`` into the store at ``settings.prices_dir``, placing rows through the
    catalog's instance table, with the rate table and limits of ``settings``."""
    return import_readings(
        fmt,
        paths,
        Store(settings.prices_dir),
        instance_table(catalog),
        rates_of(settings),
        rules.Limits.of(settings),
        siblings=bounds.sibling_map(catalog.accelerators.values()),
        **options,  # type: ignore[arg-type]
    )


__all__ = ["first_date", "import_files", "import_readings", "rates_of", "run_id"]

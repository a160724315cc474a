"""The state of every collector, from the collection log and the current table: what
``/cloud/status``, ``/api/status/collectors`` and ``computeatlas prices status`` show.

:func:`collectors_status` builds one :class:`CollectorsStatus` (every face renders the same
object): per source (:mod:`computeatlas.cloud.collection_log`: the sources with an attempt
recorded, and the configured ones given as ``expected``) the last attempt and the last
success (time, rows read, accepted, held), its failures (newest first, with the error), the
newest of the current offers its runs brought (the store's current table, by ``run``: so
a source's prices are told apart however many sources share a provider) with its age, and
whether it is **overdue**: its last success is older than the schedule
(:attr:`~computeatlas.core.settings.Settings.collection_schedule_hours`, 6 hours), said as
"overdue by N hours" (whole hours past the schedule). An attempt record that cannot be read,
or a store whose current prices cannot be read, is listed in ``problems``; nothing is raised.

:func:`provider_collected` is what a provider page says: when its newest current price was
collected, and through which collector or file (``via``).

Times are UTC; ages in hours.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Collection, Iterable
from pathlib import Path
from typing import Literal

import duckdb
from pydantic import BaseModel, Field

from computeatlas.cloud import collection_log
from computeatlas.cloud.collection_log import Attempt, Result
from computeatlas.cloud.dataset import StoreDamaged
from computeatlas.cloud.store import Store

Schedule = Literal["current", "overdue", "never"]
"""Where a source stands against its schedule (not a figure's state, :class:`~computeatlas.core.states.State`): ``current`` (its last success is within the schedule), ``overdue`` (older),
``never`` (no success recorded: every attempt failed, was held or skipped, or none was made)."""


class AttemptView(BaseModel):
    """One recorded attempt as the status shows it (:class:`~computeatlas.cloud.collection_log.Attempt`'s fields)."""

    started: dt.datetime
    finished: dt.datetime
    result: Result
    rows_read: int
    accepted: int
    held: int
    run: str | None
    error: str | None
    reason: str | None
    seconds: float = Field(description="how long the attempt took")
    age_hours: float = Field(description="hours from the attempt's end to the status's time")


class SourceStatus(BaseModel):
    """One source's collections: its last attempt and success, failures and newest current price."""

    source: str
    schedule: Schedule
    notes: list[str] = Field(description="what the operator should know, in words (overdue, failing, held, skipped)")
    attention: bool = Field(
        description="the operator should act: overdue, the last attempt failed or was held, or no attempt yet "
        "(a source only ever skipped, e.g. without its API key, is not)"
    )
    last_attempt: AttemptView | None
    last_success: AttemptView | None = Field(description="the newest attempt whose run was imported (is current)")
    overdue_hours: float | None = Field(description="hours past the schedule since the last success; None when not overdue or never")
    newest_price: dt.datetime | None = Field(description="collection time of the newest current offer this source's runs brought")
    newest_price_age_hours: float | None
    newest_price_stale: bool = Field(description="the newest current price is older than the freshness window")
    current_offers: int = Field(description="current offers (the current table's rows) this source's runs brought")
    failures: list[AttemptView] = Field(description="failed attempts among those read, newest first, each with its error")
    attempts: int = Field(description="attempts read (the newest, at most collection_log.KEEP_READ)")


class CollectorsStatus(BaseModel):
    """Every source's :class:`SourceStatus` as of ``as_of``, and what could not be read."""

    as_of: dt.datetime
    schedule_hours: float
    freshness_days: int
    sources: list[SourceStatus]
    problems: list[str] = Field(description="attempt records or store files that could not be read, each naming its file")
    attention: bool = Field(description="a source needs attention or there is a problem (`prices status` exits 1)")
    configured: list[str] = Field(
        default_factory=list,
        description="the configured collectors, sorted; before the store's first recorded attempt none is listed in sources "
        "(a store only ever imported into: its prices came from files, not collections)",
    )


def _in_store(text: str, root: Path) -> str:
    """``text`` with the store's folder written ``<store>`` (a public page names no server path)."""
    return text.replace(str(root), "<store>")


def _hours(since: dt.datetime, now: dt.datetime) -> float:
    return (now - since).total_seconds() / 3600


def hours_words(hours: float) -> str:
    """Whole hours in words: ``"less than an hour"``, ``"1 hour"``, ``"4 hours"`` (rounded down)."""
    whole = math.floor(hours)
    return "less than an hour" if whole < 1 else f"{whole} hour" + ("s" if whole != 1 else "")


def _view(attempt: Attempt, now: dt.datetime) -> AttemptView:
    return AttemptView(
        **attempt.model_dump(exclude={"source"}),
        seconds=attempt.seconds,
        age_hours=round(_hours(attempt.finished, now), 3),
    )


def _current_by_run(store: Store, now: dt.datetime) -> dict[str, tuple[dt.datetime, int]]:
    """Per import run: the newest collection time and the count of its rows in the current
    table (each offer's newest accepted row), read from the table or, when it is not fresh,
    the history. Raises :class:`StoreDamaged` or ``duckdb.Error`` when the store cannot be read."""
    rows = store.query_current("SELECT run, max(collected) AS collected, count(*) AS offers FROM current GROUP BY run")
    if rows is not None:
        return {r["run"]: (r["collected"], int(r["offers"])) for r in rows}
    found: dict[str, tuple[dt.datetime, int]] = {}
    for row in store.newest(None, now, columns=["run"]):
        newest, count = found.get(row["run"], (row["collected"], 0))
        found[row["run"]] = (max(newest, row["collected"]), count + 1)
    return found


def _source(
    source: str,
    found: list[Attempt],
    current: dict[str, tuple[dt.datetime, int]],
    now: dt.datetime,
    schedule: float,
    freshness: int,
    unreadable: int = 0,
) -> SourceStatus:
    """The status of one source from its attempts (newest first), how many of its records could
    not be read, and the current table by run."""
    last, success = collection_log.last(found), collection_log.last(found, succeeded=True)
    mine = [current[a.run] for a in found if a.run and a.run in current]
    newest = max((when for when, _ in mine), default=None)
    notes: list[str] = []
    overdue: float | None = None
    standing: Schedule = "never"
    if success is not None:
        age = _hours(success.finished, now)
        standing = "overdue" if age > schedule else "current"
        if age > schedule:
            overdue = round(age - schedule, 3)
            notes.append(
                f"overdue by {hours_words(age - schedule)}: the last successful collection finished "
                f"{success.finished:%Y-%m-%d %H:%M} UTC, {hours_words(age)} ago (scheduled every {schedule:g} hours)"
            )
    elif found:
        notes.append("never collected successfully: no attempt recorded imported a run")
    elif unreadable:
        notes.append("no readable collection attempt is recorded")
    else:
        notes.append("no collection attempted yet")
    if last is not None and last.result == "failed":
        notes.append(f"the last attempt failed ({last.finished:%Y-%m-%d %H:%M} UTC): {last.error or 'no error recorded'}")
    elif last is not None and last.result == "held":
        notes.append(f"the last run ({last.run}) was held whole for the operator: {last.reason or 'no reason recorded'}")
    elif last is not None and last.result == "skipped":
        notes.append(f"the last attempt was skipped: {last.reason or 'no reason recorded'}")
    age_newest = round(_hours(newest, now), 3) if newest is not None else None
    return SourceStatus(
        source=source,
        schedule=standing,
        notes=notes,
        attention=standing == "overdue" or last is None or last.result in ("failed", "held"),
        last_attempt=_view(last, now) if last is not None else None,
        last_success=_view(success, now) if success is not None else None,
        overdue_hours=overdue,
        newest_price=newest,
        newest_price_age_hours=age_newest,
        newest_price_stale=age_newest is not None and age_newest > freshness * 24,
        current_offers=sum(n for _, n in mine),
        failures=[_view(a, now) for a in found if a.result == "failed"],
        attempts=len(found),
    )


def source_names(store_root: Path, expected: Iterable[str] = ()) -> list[str]:
    """The sources the status lists, sorted: those with an attempt recorded and, when there is
    any (a store that collects; a store only ever imported into lists none), the ``expected``
    ones too. Raises ``OSError`` when the collection log cannot be read."""
    recorded = set(collection_log.sources(store_root))
    return sorted(recorded | set(expected)) if recorded else []


def collectors_status(
    store: Store,
    now: dt.datetime,
    schedule_hours: float = 6.0,
    freshness_days: int = 90,
    expected: Iterable[str] = (),
    only: Collection[str] | None = None,
) -> CollectorsStatus:
    """The status of every source of ``store``'s collection log and, once the store keeps one,
    of ``expected`` (the configured collectors: a new one is listed before its first attempt),
    sorted by name (:func:`source_names`); ``only`` keeps those named (an ``expected`` one among them
    is listed even when the store keeps no log yet: never collected). Unreadable attempt records
    and a store that cannot be read are ``problems``."""
    problems: list[str] = []
    root = Path(store.root)
    try:
        names = source_names(root, expected)
    except OSError as exc:
        names = []
        problems.append(_in_store(f"{root / collection_log.FOLDER}: the collection log cannot be read ({exc})", root))
    if only is not None:  # an expected source asked for by name is listed even before any attempt ("never")
        names = sorted(n for n in set(names) | (set(only) & set(expected)) if n in only)
    try:
        current = _current_by_run(store, now)
    except (StoreDamaged, duckdb.Error, OSError) as exc:
        current = {}
        first = (getattr(exc, "detail", None) or str(exc) or type(exc).__name__).splitlines()[0][:300]
        problems.append(_in_store(f"{root}: the current prices cannot be read, so no source's newest price is shown ({first})", root))
    sources = []
    for name in names:
        folder = root / collection_log.FOLDER / name
        try:
            found, unreadable = collection_log.attempts(root, name)
        except OSError as exc:
            found, unreadable = [], [collection_log.UnreadableAttempt(f"{folder}: cannot be read ({exc})")]
        except TypeError:  # records mixing times with and without a zone cannot be ordered
            found, unreadable = [], [collection_log.UnreadableAttempt(f"{folder}: a record gives a time without a zone (UTC, ending in Z)")]
        zoneless = [a for a in found if a.started.tzinfo is None or a.finished.tzinfo is None]
        if zoneless:
            found = [a for a in found if a not in zoneless]
            unreadable.append(
                collection_log.UnreadableAttempt(f"{folder}: {len(zoneless)} record(s) give a time without a zone (UTC, ending in Z)")
            )
        problems.extend(_in_store(str(p), root) for p in unreadable)
        sources.append(_source(name, found, current, now, schedule_hours, freshness_days, len(unreadable)))
    return CollectorsStatus(
        as_of=now,
        schedule_hours=schedule_hours,
        freshness_days=freshness_days,
        sources=sources,
        problems=problems,
        attention=bool(problems) or any(s.attention for s in sources),
        configured=sorted(set(expected)),
    )


class LastCollected(BaseModel):
    """When a provider's newest current price was collected, and through what (``via``)."""

    collected: dt.datetime
    via: str = Field(description="the collector or file its newest current price came through")
    offers: int = Field(description="the provider's rows in the current table (each offer's newest accepted row)")


def provider_collected(store: Store, provider: str, now: dt.datetime) -> LastCollected | None:
    """When ``provider``'s newest current price (the current table's rows, stale ones too) was
    collected, or None when the store holds none (or cannot be read: the page still answers)."""
    try:
        rows = store.query_current(
            "SELECT max(collected) AS collected, arg_max(via, collected) AS via, count(*) AS offers FROM current WHERE provider = ? GROUP BY provider",
            [provider],
        )
        if rows is None:
            mine = [r for r in store.newest(None, now, columns=["provider", "via"]) if r["provider"] == provider]
            newest = max(mine, key=lambda r: r["collected"], default=None)
            rows = [{"collected": newest["collected"], "via": newest["via"], "offers": len(mine)}] if newest else []
    except (StoreDamaged, duckdb.Error, OSError):
        return None
    if not rows or rows[0]["collected"] is None:
        return None
    return LastCollected(collected=rows[0]["collected"], via=rows[0]["via"] or "", offers=int(rows[0]["offers"]))


__all__ = [
    "AttemptView",
    "CollectorsStatus",
    "LastCollected",
    "Schedule",
    "SourceStatus",
    "collectors_status",
    "hours_words",
    "provider_collected",
]

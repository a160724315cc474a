"""What one import run is decided with: the store it goes into, the tables that place and
price its rows, the limits its rules check, when it runs and under which name, and how it
waits for the store's write lock. Made once by :func:`computeatlas.cloud.runs.import_readings`
and handed to both ways of deciding a run (the row path in :mod:`~computeatlas.cloud.runs`,
the columns in :mod:`~computeatlas.cloud.batch_run`), so the two read the same settings."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from computeatlas.cloud import rules
from computeatlas.cloud.instances import InstanceTable
from computeatlas.cloud.rates import RateTable
from computeatlas.cloud.store import Store


@dataclass(frozen=True, slots=True)
class ImportJob:
    """One import run's settings (no rows: those are read by the path that decides it).

    - ``store``: where the run is appended; ``table``: the instance table that places rows;
      ``rates``: the dated exchange rates; ``limits``: the integrity rules' thresholds.
    - ``now``: the run's time (UTC); ``run``: its id (:func:`computeatlas.cloud.run_folder.run_id`).
    - ``siblings``: each part's closest siblings, so a part's first price is checked against
      one (:func:`~computeatlas.cloud.bounds.sibling_map`; empty: only the absolute bounds).
    - ``lock_timeout`` (s) and ``on_wait`` (told the lock file): how the write lock is awaited.
    - ``progress``: told how many rows were read, as they are.
    """

    store: Store
    table: InstanceTable
    rates: RateTable
    limits: rules.Limits
    now: dt.datetime
    run: str
    siblings: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    lock_timeout: float = 0.0
    on_wait: Callable[[str], None] | None = None
    progress: Callable[[int], None] | None = None


__all__ = ["ImportJob"]

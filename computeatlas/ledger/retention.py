"""Retention: requests are deleted once they are older than :data:`DEFAULT_RETENTION_DAYS` (365).

The privacy note under the form promises it; three things keep the promise:

- ``computeatlas serve`` runs :meth:`RetentionSweeper.sweep` before it starts listening, and
  then again every :data:`SWEEP_INTERVAL` seconds (one hour) in a daemon thread, for as long
  as the server runs, so no request outlives the retention by more than an hour;
- ``computeatlas requests purge-expired`` does one sweep, without asking, for a cron job or
  a systemd timer where the app is run some other way (another ASGI server, a platform);
- each sweep goes through :meth:`Ledger.purge`, which scrubs the deleted rows from the
  ledger's files (:meth:`Ledger.scrub`).
"""

from __future__ import annotations

import datetime as dt
import logging
import threading
from collections.abc import Callable

from sqlalchemy.exc import SQLAlchemyError

from computeatlas.ledger.database import LedgerUnavailable, safe_reason
from computeatlas.ledger.store import DEFAULT_RETENTION_DAYS, Ledger

log = logging.getLogger("computeatlas.ledger")

SWEEP_INTERVAL = 60 * 60
"""Seconds between two sweeps while the server runs (one hour)."""


class RetentionSweeper:
    """Deletes requests older than ``retention_days`` now and then every ``interval`` seconds.

    ``open_ledger`` opens the ledger for one sweep (it is closed afterwards), e.g.
    ``lambda: Ledger.open(url)``; ``now`` gives the naive-UTC time (default the clock).
    A sweep that fails (the database is unreachable) is logged without anything a visitor
    typed and retried at the next interval; it never stops the server.
    """

    def __init__(
        self,
        open_ledger: Callable[[], Ledger],
        retention_days: int = DEFAULT_RETENTION_DAYS,
        interval: float = SWEEP_INTERVAL,
        now: Callable[[], dt.datetime] | None = None,
    ) -> None:
        self.open_ledger = open_ledger
        self.retention_days = retention_days
        self.interval = interval
        self.now = now or (lambda: dt.datetime.now(dt.UTC).replace(tzinfo=None))
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def sweep(self) -> int | None:
        """Delete the expired requests once; return how many, or None when the ledger failed (logged)."""
        try:
            ledger = self.open_ledger()
            try:
                purged = ledger.purge(self.retention_days, now=self.now())
            finally:
                ledger.close()
        except (LedgerUnavailable, SQLAlchemyError, OSError) as exc:
            log.error("the retention sweep could not purge expired requests: %s", safe_reason(exc))
            return None
        if purged:
            log.info("retention: purged %d request(s) older than %d days", purged, self.retention_days)
        return purged

    def start(self) -> None:
        """Sweep every :attr:`interval` seconds in a daemon thread until :meth:`stop` (no sweep at once)."""
        if self._thread is not None:
            return
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name="ledger-retention", daemon=True)
        self._thread.start()

    def stop(self, timeout: float | None = 5.0) -> None:
        """Stop the thread (waiting up to ``timeout`` seconds for a sweep in progress)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            self.sweep()

"""The reads of one accelerator's rental-price history from a store of offers: the variants
it was seen in, the parts ever observed, its accepted observations in a window (the newest
``limit`` found without reading the whole history) and its daily medians per provider.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any

from computeatlas.cloud.dataset import Dataset

RECENT_DAYS = 7
"""How many days back :meth:`Store.history` looks first for the newest ``limit`` observations."""


class PartHistory(Dataset):
    """A dataset of rental observations (the columns of :class:`~computeatlas.cloud.store.Store`)
    read one part at a time."""

    def variants_of(self, accelerator: str) -> frozenset[str]:
        """The variant keys stated by ``accelerator``'s accepted observations, ever ('' for not stated)."""
        if accelerator not in self.observed_accelerators():
            return frozenset()
        rows = self.query(
            "SELECT DISTINCT variant FROM latest WHERE status = 'accepted' AND accelerator = ?", [accelerator], accelerator=accelerator
        )
        return frozenset(r["variant"] or "" for r in rows)

    def observed_accelerators(self) -> frozenset[str]:
        """Every part with at least one accepted observation, ever: from the fresh current
        table's pointer (which may keep a part whose accepted rows were all held again later,
        until the table is written from the whole history), else one small query, kept."""
        table = self.current_pointer()
        if table is not None and "accelerators" in table:
            return frozenset(table["accelerators"])
        return frozenset(
            r["accelerator"]
            for r in self.query("SELECT DISTINCT accelerator FROM latest WHERE status = 'accepted' AND accelerator IS NOT NULL")
        )

    def _filters(self, accelerator: str, equal: dict[str, str | None]) -> tuple[list[str], list[object]]:
        clauses: list[str] = ["status = 'accepted'", "accelerator = ?"]
        params: list[object] = [accelerator]
        for column, value in equal.items():
            if value is not None:
                if column not in ("provider", "pricing", "variant", "region"):
                    raise ValueError(f"history cannot filter on {column!r}")
                clauses.append(f"{column} = ?")
                params.append(value)
        return clauses, params

    def history(
        self,
        accelerator: str,
        since: dt.date | None = None,
        until: dt.date | None = None,
        limit: int | None = None,
        columns: Sequence[str] | None = None,
        **equal: str | None,
    ) -> list[dict[str, Any]]:
        """Accepted observations of ``accelerator`` collected between ``since`` and ``until``
        (dates, inclusive), oldest first (the newest ``limit`` when given); ``equal``
        filters on columns (provider, pricing, variant, region) when a value is given.
        ``columns`` names the columns of each row (default: every column; a page that shows a
        few reads only those). Raises ``ValueError`` for a column the store does not have."""
        unknown = sorted(set(columns or ()) - {*self.columns, "date"})
        if unknown:
            raise ValueError(f"the store has no column {', '.join(unknown)}")
        chosen = ", ".join(columns) if columns else "*"
        clauses, params = self._filters(accelerator, equal)
        if accelerator not in self.observed_accelerators():  # never observed: nothing to read (most parts of the catalog)
            return []
        if limit:
            # The last week first: when it holds ``limit`` observations, they are the newest (every other is older).
            end = until or dt.datetime.now(dt.UTC).date()
            start = max(since, end - dt.timedelta(days=RECENT_DAYS)) if since else end - dt.timedelta(days=RECENT_DAYS)
            if since is None or start > since:
                recent = self.query(
                    f"SELECT {chosen} FROM (SELECT * FROM latest WHERE {' AND '.join(clauses)} ORDER BY collected DESC, provider, "
                    f"instance_type, region, pricing, term LIMIT {int(limit)}) ORDER BY collected, provider, instance_type, "
                    "region, pricing, term",
                    params,
                    start,
                    until,
                    accelerator,
                )
                if len(recent) >= limit:
                    return recent
            # Else one query: the observations per date counted from the newest (a small aggregate) give the first
            # date the newest ``limit`` are on, and only rows from that date on enter the top ``limit``.
            where = " AND ".join(clauses)
            return self.query(
                f"WITH days AS (SELECT date, count(*) AS n FROM latest WHERE {where} GROUP BY date), "
                f"cut AS (SELECT max(date) AS since FROM (SELECT date, sum(n) OVER (ORDER BY date DESC) AS total FROM days) "
                f"WHERE total >= {int(limit)}) "
                f"SELECT {chosen} FROM (SELECT * FROM latest WHERE {where} AND (date >= (SELECT since FROM cut) OR "
                f"(SELECT since FROM cut) IS NULL) ORDER BY collected DESC, provider, instance_type, region, pricing, term "
                f"LIMIT {int(limit)}) ORDER BY collected, provider, instance_type, region, pricing, term",
                [*params, *params],
                since,
                until,
                accelerator,
            )
        sql = f"SELECT * FROM latest WHERE {' AND '.join(clauses)}"
        # Ordered by the whole key (one row per key), so the same rows always come in the same order.
        return self.query(
            f"SELECT {chosen} FROM ({sql}) ORDER BY collected, provider, instance_type, region, pricing, term",
            params,
            since,
            until,
            accelerator,
        )

    def series(
        self, accelerator: str, since: dt.date | None = None, until: dt.date | None = None, **equal: str | None
    ) -> list[dict[str, Any]]:
        """Per collection date and provider, the median on-demand USD price per accelerator-hour
        of ``accelerator`` and the number of observations behind it; computed by DuckDB, not in
        Python. There is no median over all providers: the providers seen differ from one date
        to the next, so such a line would move with the set, not with prices."""
        clauses, params = self._filters(accelerator, {**equal, "pricing": "on_demand"})
        if accelerator not in self.observed_accelerators():
            return []
        if not (equal.get("variant") or equal.get("region")):  # the daily roll-up holds these medians
            where = "accelerator = ?" + (" AND provider = ?" if equal.get("provider") else "")
            return self.query(
                f"SELECT date, provider, median, observations FROM daily WHERE {where} ORDER BY date, provider",
                [accelerator, *([equal["provider"]] if equal.get("provider") else [])],
                since,
                until,
                accelerator,
            )
        clauses += ["currency = 'USD'", "per_accelerator_hour IS NOT NULL"]
        return self.query(
            f"SELECT date, provider, median(per_accelerator_hour) AS median, count(*) AS observations "
            f"FROM latest WHERE {' AND '.join(clauses)} GROUP BY date, provider ORDER BY date, provider",
            params,
            since,
            until,
            accelerator,
        )


__all__ = ["RECENT_DAYS", "PartHistory"]

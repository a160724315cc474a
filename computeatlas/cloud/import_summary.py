"""What one import run did, counted: rows read, accepted, held (by rule and provider),
rejected (by reason), skipped and already stored (:class:`ImportCounts` for any kind of
price, :class:`Summary` for rental prices); the counts go in the run's manifest and the
CLI's JSON output."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from computeatlas.core.tabular import TableError


@dataclass
class ImportCounts:
    """What one import run did, for any kind of price: ``read`` input rows, ``accepted`` and
    ``held`` observations added (held ones by their first rule), ``already_stored`` those the
    store had, ``rejected`` rows with a bad cell (``errors``), ``skipped`` rows of another kind."""

    run: str
    files: list[str]
    read: int = 0
    accepted: int = 0
    held: int = 0
    rejected: int = 0
    skipped: int = 0
    already_stored: int = 0
    held_by_rule: Counter[str] = field(default_factory=Counter)
    errors: list[TableError] = field(default_factory=list)

    def counts(self) -> dict[str, object]:
        """The counts as plain data (for the run's manifest and JSON output)."""
        return {
            "read": self.read,
            "accepted": self.accepted,
            "held": self.held,
            "rejected": self.rejected,
            "skipped": self.skipped,
            "already_stored": self.already_stored,
            "held_by_rule": dict(self.held_by_rule.most_common()),
        }


@dataclass
class Summary(ImportCounts):
    """What one rental-price import did (:class:`ImportCounts`; a SkyPilot row may give two
    prices), with split bills ``combined`` and the counts by provider and reason."""

    format: str = ""
    combined: int = 0
    held_by_provider: Counter[str] = field(default_factory=Counter)
    accepted_by_provider: Counter[str] = field(default_factory=Counter)
    rejected_by_reason: Counter[str] = field(default_factory=Counter)
    skipped_by_reason: Counter[str] = field(default_factory=Counter)

    def counts(self) -> dict[str, object]:
        """The counts as plain data (for the run's manifest and JSON output)."""
        return {
            **super().counts(),
            "combined": self.combined,
            "held_by_provider": dict(self.held_by_provider.most_common()),
            "accepted_by_provider": dict(self.accepted_by_provider.most_common()),
            "rejected_by_reason": dict(self.rejected_by_reason.most_common()),
            "skipped_by_reason": dict(self.skipped_by_reason.most_common()),
        }


__all__ = ["ImportCounts", "Summary"]

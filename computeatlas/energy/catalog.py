"""The catalog as energy sees it: the economics collections (claims included) and energy topics."""

from __future__ import annotations

from collections.abc import Mapping

from computeatlas.economics.catalog import EconomicsCatalog
from computeatlas.energy.records import EnergyTopic


class EnergyCatalog(EconomicsCatalog):
    """A catalog with the economics collections and :data:`~computeatlas.energy.records.TOPICS`."""

    @property
    def energy(self) -> Mapping[str, EnergyTopic]:
        """Energy topics by id."""
        return self.collections["energy"]


__all__ = ["EnergyCatalog"]

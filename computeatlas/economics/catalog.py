"""The catalog as economics sees it: the cloud's collections, economics claims and models."""

from __future__ import annotations

from collections.abc import Mapping

from computeatlas.cloud.catalog import CloudCatalog
from computeatlas.economics.claims import EconomicsClaim
from computeatlas.economics.models import ModelRecord


class EconomicsCatalog(CloudCatalog):
    """A catalog with the cloud's collections and :data:`~computeatlas.economics.claims.CLAIMS`
    and :data:`~computeatlas.economics.models.MODELS`."""

    @property
    def claims(self) -> Mapping[str, EconomicsClaim]:
        """Economics claims by id."""
        return self.collections["claims"]

    @property
    def models(self) -> Mapping[str, ModelRecord]:
        """Open-weight language models by id, ordered by name."""
        return self.collections["models"]


__all__ = ["EconomicsCatalog"]

"""The catalog as the cloud sees it: the silicon collections and cloud providers and offers.

The instance table (:data:`~computeatlas.cloud.records.INSTANCES`) is read through
:func:`computeatlas.cloud.instances.instance_table`.
"""

from __future__ import annotations

from collections.abc import Mapping

from computeatlas.cloud.records import Offer, Provider
from computeatlas.silicon.catalog import SiliconCatalog


class CloudCatalog(SiliconCatalog):
    """A catalog with the silicon collections and :data:`~computeatlas.cloud.records.PROVIDERS`
    and :data:`~computeatlas.cloud.records.OFFERS`."""

    @property
    def providers(self) -> Mapping[str, Provider]:
        """Cloud providers by id, ordered by name."""
        return self.collections["providers"]

    @property
    def offers(self) -> Mapping[str, Offer]:
        """The hand-typed offers of ``data/offers/`` by offer id, loaded only to be validated:
        they reach pages through their import into the observation store, and no page, API,
        chart, CLI command or estimate reads them from here."""
        return self.collections["offers"]


__all__ = ["CloudCatalog"]

"""The catalog as silicon sees it: vendors, accelerators, curated comparisons and systems.

:class:`SiliconCatalog` names the silicon collections of a
:class:`~computeatlas.core.catalog.Catalog`; the catalog every load returns
(:class:`computeatlas.catalog.Catalog`) is one, so silicon code takes a ``SiliconCatalog``.
"""

from __future__ import annotations

from collections.abc import Mapping

from computeatlas.core.catalog import Catalog
from computeatlas.silicon.curated import Comparison
from computeatlas.silicon.records import Accelerator, Vendor
from computeatlas.silicon.systems import System
from computeatlas.silicon.targets import CoverageFile


class SiliconCatalog(Catalog):
    """A catalog with the silicon collections (:data:`~computeatlas.silicon.records.VENDORS`,
    :data:`~computeatlas.silicon.records.ACCELERATORS`,
    :data:`~computeatlas.silicon.curated.COMPARISONS`, :data:`~computeatlas.silicon.systems.SYSTEMS`)."""

    @property
    def vendors(self) -> Mapping[str, Vendor]:
        """Vendors by id."""
        return self.collections["vendors"]

    @property
    def accelerators(self) -> Mapping[str, Accelerator]:
        """Accelerators by id, ordered by name."""
        return self.collections["accelerators"]

    @property
    def comparisons(self) -> Mapping[str, Comparison]:
        """Curated comparisons by canonical pair id."""
        return self.collections["comparisons"]

    @property
    def systems(self) -> Mapping[str, System]:
        """Rack-scale systems by id, ordered by name."""
        return self.collections["systems"]

    @property
    def coverage_files(self) -> Mapping[str, CoverageFile]:
        """The coverage targets (data/coverage/: goals and unsourced parts) by file id."""
        return self.collections.get("coverage", {})

    def accelerator(self, ident: str) -> Accelerator:
        """The accelerator with id ``ident``; raises ``KeyError`` when there is none."""
        return self.accelerators[ident]

    def vendor_of(self, accelerator: Accelerator) -> Vendor:
        """The vendor record of ``accelerator``; raises ``KeyError`` when there is none."""
        return self.vendors[accelerator.vendor]


__all__ = ["SiliconCatalog"]

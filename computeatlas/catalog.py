"""The composition root: every domain's record kinds and checks, and the catalog they make.

This is the one module that knows every domain. :data:`KINDS` lists the record kinds in
load order and :data:`CROSS_CHECKS` the domains' checks of references between records;
:func:`check` and :func:`load` read a data folder with them
(:func:`computeatlas.core.catalog.build`). It sits above the domains and below the pages,
the web app and the CLI (``[tool.importlinter]`` in ``pyproject.toml``): core imports no
domain, and no domain imports this module.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from computeatlas.cloud import records as cloud_records
from computeatlas.core.catalog import DEFAULT_DATA, CatalogError, CrossCheck, Problem, RecordKind, build, data_dir
from computeatlas.economics import claims, models
from computeatlas.energy import records as energy_records
from computeatlas.energy.catalog import EnergyCatalog
from computeatlas.silicon import checks, curated, systems, targets
from computeatlas.silicon import records as silicon_records


class Catalog(EnergyCatalog):
    """The validated catalog of every domain: each domain's collections by name
    (``vendors``, ``accelerators``, ``comparisons``, ``systems``, ``providers``, ``offers``,
    ``claims``, ``models``, ``energy``; the instance table through
    :func:`computeatlas.cloud.instances.instance_table`), the file each record came from,
    and a data version (see :class:`computeatlas.core.catalog.Catalog`).

    Each domain's view (:class:`~computeatlas.silicon.catalog.SiliconCatalog`,
    :class:`~computeatlas.cloud.catalog.CloudCatalog`,
    :class:`~computeatlas.economics.catalog.EconomicsCatalog`,
    :class:`~computeatlas.energy.catalog.EnergyCatalog`) is a base class of this one.
    """


KINDS: tuple[RecordKind, ...] = (
    silicon_records.VENDORS,
    silicon_records.ACCELERATORS,
    curated.COMPARISONS,
    targets.COVERAGE,
    cloud_records.PROVIDERS,
    systems.SYSTEMS,
    energy_records.TOPICS,
    claims.CLAIMS,
    models.MODELS,
    cloud_records.OFFERS,
    cloud_records.INSTANCES,
)
"""Every record kind, in load order: the order of :attr:`Catalog.collections` (and so of
``computeatlas validate``'s counts) and, CSV tables first, of reading and of problems."""

CROSS_CHECKS: tuple[CrossCheck, ...] = (
    silicon_records.cross_check,
    checks.cross_check,
    curated.cross_check,
    targets.cross_check,
    cloud_records.cross_check,
    systems.cross_check,
    claims.cross_check,
    models.cross_check,
)
"""Every domain's check of references between records, in the order their problems are listed."""


def check(root: Path | None = None, today: dt.date | None = None) -> tuple[Catalog, list[Problem]]:
    """Read every data file under ``root`` (default: :func:`~computeatlas.core.catalog.data_dir`)
    and return the catalog and all problems found.

    The catalog holds only the records that validated; callers that need a clean
    catalog use :func:`load`. ``today`` (default: the current date) is what verified and
    accessed dates may not exceed. Raises :class:`pydantic.ValidationError` for a malformed
    ``COMPUTEATLAS_*`` variable when ``root`` is None.
    """
    return build(KINDS, CROSS_CHECKS, Catalog, root, today)


def load(root: Path | None = None, today: dt.date | None = None) -> Catalog:
    """Load and validate the data folder; raise :class:`~computeatlas.core.catalog.CatalogError`
    listing every problem.

    This is the public entry point (``computeatlas.load()``). The returned catalog is
    immutable: mappings are read-only proxies over frozen pydantic records.
    """
    catalog, problems = check(root, today)
    if problems:
        raise CatalogError(problems)
    return catalog


__all__ = ["CROSS_CHECKS", "DEFAULT_DATA", "KINDS", "Catalog", "CatalogError", "Problem", "check", "data_dir", "load"]

"""Compute Atlas: a sourced, verified reference for AI compute.

``computeatlas.load()`` returns the validated catalog of the bundled data folder (or of
``$COMPUTEATLAS_DATA``); see :mod:`computeatlas.catalog`. ``Catalog`` and ``load`` are
imported from there on first use, so that the domains are imported by the first load, not
by ``import computeatlas``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from computeatlas.core.catalog import CatalogError, Problem

if TYPE_CHECKING:
    from computeatlas.catalog import Catalog, load

__all__ = ["Catalog", "CatalogError", "Problem", "load"]
__version__ = "0.1.0"


def __getattr__(name: str) -> Any:
    """``Catalog`` and ``load`` of :mod:`computeatlas.catalog`; raises :class:`AttributeError`
    for any other name."""
    if name in ("Catalog", "load"):
        from computeatlas import catalog

        return getattr(catalog, name)
    raise AttributeError(f"module 'computeatlas' has no attribute {name!r}")

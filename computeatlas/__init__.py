"""Compute Atlas: a sourced, verified reference for AI compute.

``computeatlas.load()`` returns the validated catalog of the bundled data folder (or of
``$COMPUTEATLAS_DATA``); see :mod:`computeatlas.catalog`. The names below are imported on
first use, so that ``import computeatlas`` stays light and the domains are imported by the
first load.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from computeatlas.catalog import Catalog, CatalogError, Problem, load

__all__ = ["Catalog", "CatalogError", "Problem", "load"]
__version__ = "0.1.0"


def __getattr__(name: str) -> Any:
    """``Catalog``, ``CatalogError``, ``Problem`` and ``load`` of :mod:`computeatlas.catalog`;
    raises :class:`AttributeError` for any other name."""
    if name in __all__:
        from computeatlas import catalog

        return getattr(catalog, name)
    raise AttributeError(f"module 'computeatlas' has no attribute {name!r}")

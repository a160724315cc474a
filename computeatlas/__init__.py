"""Compute Atlas: a sourced, verified reference for AI compute.

``computeatlas.load()`` returns the validated catalog of the bundled data folder (or of
``$COMPUTEATLAS_DATA``); see :mod:`computeatlas.core.catalog`.
"""

from computeatlas.core.catalog import Catalog, CatalogError, Problem, load

__all__ = ["Catalog", "CatalogError", "Problem", "load"]
__version__ = "0.1.0"

"""The records: the one schema for data files, the API and the generated JSON Schema.

:mod:`~computeatlas.model.claims` holds the value model (states, bases, claims, sources);
:mod:`~computeatlas.model.silicon` the vendors and accelerators.
"""

from computeatlas.model.claims import *  # noqa: F403
from computeatlas.model.claims import __all__ as _claims_all
from computeatlas.model.silicon import *  # noqa: F403
from computeatlas.model.silicon import __all__ as _silicon_all

__all__ = [*_claims_all, *_silicon_all]

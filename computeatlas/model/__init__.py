"""The records: the one schema for data files, the API and the generated JSON Schema.

- :mod:`~computeatlas.model.claims`: the value model (states, bases, claims, sources);
- :mod:`~computeatlas.model.silicon`: vendors and accelerators;
- :mod:`~computeatlas.model.comparison`: curated comparisons;
- :mod:`~computeatlas.model.cloud`: providers and offers;
- :mod:`~computeatlas.model.energy`: systems, energy topics, economics claims.
"""

from computeatlas.model import claims, cloud, comparison, energy, silicon
from computeatlas.model.claims import *  # noqa: F403
from computeatlas.model.cloud import *  # noqa: F403
from computeatlas.model.comparison import *  # noqa: F403
from computeatlas.model.energy import *  # noqa: F403
from computeatlas.model.silicon import *  # noqa: F403

__all__ = [*claims.__all__, *silicon.__all__, *comparison.__all__, *cloud.__all__, *energy.__all__]

"""The ``computeatlas`` command. Each module registers its commands on the shared app."""

from computeatlas.cli import (
    cloud,  # noqa: F401  (registers commands)
    compare,  # noqa: F401  (registers commands)
    dataset,  # noqa: F401  (registers commands)
    economics,  # noqa: F401  (registers commands)
    silicon,  # noqa: F401  (registers commands)
    site,  # noqa: F401  (registers commands)
)
from computeatlas.cli.base import app

__all__ = ["app"]

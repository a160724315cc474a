"""The ``computeatlas`` command. Each module registers its commands on the shared app."""

from computeatlas.cli import silicon  # noqa: F401  (registers commands)
from computeatlas.cli import compare  # noqa: F401  (registers commands)
from computeatlas.cli import economics  # noqa: F401  (registers commands)
from computeatlas.cli import cloud  # noqa: F401  (registers commands)
from computeatlas.cli import dataset  # noqa: F401  (registers commands)
from computeatlas.cli import site  # noqa: F401  (registers commands)
from computeatlas.cli.base import app

__all__ = ["app"]

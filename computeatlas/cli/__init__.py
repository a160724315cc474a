"""The ``computeatlas`` command. Each module registers its commands on the shared app.

:func:`main` is the console script's entry point; ``app`` stays importable for tests
(``CliRunner().invoke(app, …)``).
"""

from __future__ import annotations

from collections.abc import Sequence

import typer
from pydantic_settings import SettingsError

from computeatlas.cli import (
    cloud,  # noqa: F401  (registers commands)
    compare,  # noqa: F401  (registers commands)
    coverage,  # noqa: F401  (registers commands)
    dataset,  # noqa: F401  (registers commands)
    economics,  # noqa: F401  (registers commands)
    silicon,  # noqa: F401  (registers commands)
    site,  # noqa: F401  (registers commands)
)
from computeatlas.cli.base import app, os_error_message, settings_error_message
from computeatlas.core.settings import UnknownSetting

# The price store's commands under 'prices', imported in the order `prices --help` lists them.
# isort: split
from computeatlas.cli import price_store  # noqa: F401  (registers prices runs, status, repair, compact)

# isort: split
from computeatlas.cli import intake  # noqa: F401  (registers prices import)

# isort: split
from computeatlas.cli import collection  # noqa: F401  (registers prices collect)

# isort: split
from computeatlas.cli import observations  # noqa: F401  (registers prices held, history)


def main(argv: Sequence[str] | None = None) -> None:
    """Run ``computeatlas`` with ``argv`` (default: the process's arguments); never returns.

    Exits 0 on success, 1 on bad data or an operating-system error, 2 on bad input. An
    :class:`OSError` is one line naming the path and the OS reason (commands already do
    this through :class:`~computeatlas.cli.base.AtlasGroup`; this catches any raised
    outside a command), never a traceback.
    """
    try:
        app(args=list(argv) if argv is not None else None, prog_name="computeatlas")
    except OSError as exc:
        typer.echo(f"Error: {os_error_message(exc)}", err=True)
        raise SystemExit(1) from None
    except SettingsError as exc:  # raised where a command reads the settings itself
        typer.echo(f"Error: {settings_error_message(exc)}", err=True)
        raise SystemExit(2) from None
    except UnknownSetting as exc:
        typer.echo(f"Error: setting {exc}", err=True)
        raise SystemExit(2) from None


__all__ = ["app", "main"]

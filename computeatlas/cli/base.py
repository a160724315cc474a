"""The Typer app and what every command shares: loading the catalog, finding a part, consoles.

Every command is a thin layer over the Python API: it loads the catalog through
:func:`computeatlas.catalog.load`, calls the library and prints what it returns; errors
are one clear message on stderr and a non-zero exit code (1: bad data or an operating
system error, 2: bad input; a bad-input message, :func:`fail`, is wrapped at the terminal's
width like all other prose). An :class:`OSError` that escapes a command (an ``--out``
path that cannot be written, a folder that is a file …) is caught once, here, by the
app's group (:class:`AtlasGroup`) and printed as one line naming the path and the reason;
pretty tracebacks are off, so nothing else turns into a screenful of frames.
"""

from __future__ import annotations

import errno
import inspect
import re
from pathlib import Path
from typing import Annotated, Any

import typer
from pydantic import ValidationError
from pydantic_settings import SettingsError
from rich.console import Console
from typer.core import TyperGroup

from computeatlas import catalog as catalog_mod
from computeatlas.catalog import Catalog, CatalogError
from computeatlas.cli.tables import say
from computeatlas.core.cache import Cache, use
from computeatlas.core.errors import Unavailable
from computeatlas.core.settings import Settings, UnknownSetting
from computeatlas.silicon.resolve import ResolveError, resolve_id


def os_error_message(exc: OSError) -> str:
    """One line for an operating-system error: the path(s) it names and the OS reason.

    ``FileNotFoundError(2, "No such file or directory", "/proc/x.json")`` gives
    ``"cannot use /proc/x.json: No such file or directory"``; an error naming no path gives its text.
    """
    reason = (exc.strerror or str(exc) or type(exc).__name__).replace("\n", " ").strip()
    paths = [str(p) for p in (exc.filename, exc.filename2) if p is not None]
    return f"cannot use {' → '.join(paths)}: {reason}" if paths else reason


CLI_CACHE_BYTES = Settings.model_fields["page_cache_bytes"].default
"""The bound of a command run's cache (B): the app's default."""


class AtlasGroup(TyperGroup):
    """The app's command group: an :class:`OSError` or an :class:`~computeatlas.core.errors.Unavailable`
    (a damaged store) from any command is one line on stderr, exit 1. Each run has its own
    cache (:class:`~computeatlas.core.cache.Cache` of :data:`CLI_CACHE_BYTES`), active while
    the command runs."""

    def invoke(self, ctx: Any) -> Any:
        """Run the command; turn an escaping :class:`OSError` into :func:`os_error_message` and exit 1."""
        try:
            with use(Cache(CLI_CACHE_BYTES)):
                return super().invoke(ctx)
        except OSError as exc:
            if exc.errno == errno.EPIPE:  # the reader went away (``| head``): let click handle it quietly
                raise
            typer.echo(f"Error: {os_error_message(exc)}", err=True)
            raise typer.Exit(1) from None
        except Unavailable as exc:  # e.g. a damaged price store: what and what to run, no traceback
            typer.echo(f"Error: {exc.detail}", err=True)
            raise typer.Exit(1) from None


app = typer.Typer(
    name="computeatlas",
    help="Compute Atlas: a sourced, verified reference for AI accelerators.",
    no_args_is_help=True,
    add_completion=False,
    cls=AtlasGroup,
    pretty_exceptions_enable=False,
)


def _print_version(value: bool) -> None:
    """``--version``: print ``computeatlas <version>`` and exit 0."""
    if value:
        import computeatlas

        typer.echo(f"computeatlas {computeatlas.__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[bool, typer.Option("--version", callback=_print_version, is_eager=True, help="Print the version and exit.")] = False,
) -> None:
    """Compute Atlas: a sourced, verified reference for AI accelerators."""


out = Console(soft_wrap=False)
err = Console(stderr=True)

WideOption = Annotated[
    bool,
    typer.Option(
        "--wide",
        help="Print tables at full width, one line per row (for a wide terminal or a file); by default they wrap to the terminal, 80 columns when piped.",
    ),
]

DataOption = Annotated[
    Path | None,
    typer.Option("--data", help="Data folder (default: $COMPUTEATLAS_DATA or the bundled data/)."),
]


PricesOption = Annotated[
    Path | None, typer.Option("--prices", help="The observation store (default: $COMPUTEATLAS_PRICES or data/prices).")
]


_ROLE = re.compile(r":[a-z]+:`~?([^`]+)`")
_LITERAL = re.compile(r"``([^`]+)``")


def plain_help(text: str) -> str:
    """A docstring as a person reads it in ``--help``: Sphinx roles become their target's name
    (``:meth:`Settings.from_env``` → ``Settings.from_env``; ``~a.b.C`` → ``C``) and literals
    lose their backquotes (````--data```` → ``--data``), and each paragraph is one line, for
    the help to wrap at the terminal's width (a line starting with ``-`` or ``*`` starts an item).
    What follows a form feed (``\\f``, click's mark) is left out."""

    def role(found: re.Match[str]) -> str:
        target = found.group(1)
        return target.rsplit(".", 1)[-1] if found.group(0).startswith(":") and "`~" in found.group(0) else target

    shown = text.partition("\f")[0]  # click's mark: what follows is for the code's readers only
    paragraphs = []
    for paragraph in re.split(r"\n[ \t]*\n", _LITERAL.sub(r"\1", _ROLE.sub(role, shown)).strip()):
        items = re.split(r"\n\s*(?=[-*] )", paragraph)
        paragraphs.append("\n".join(" ".join(line.strip() for line in item.splitlines()) for item in items))
    return "\n\n".join(paragraphs)


def plain_helps(typer_app: typer.Typer) -> None:
    """Give every command and group of ``typer_app`` (and of its groups) its help as
    :func:`plain_help` writes it, from its ``help=`` or its docstring."""
    for command in typer_app.registered_commands:
        command.help = plain_help(command.help or inspect.getdoc(command.callback) or "")
    for group in typer_app.registered_groups:
        if group.help:
            group.help = plain_help(group.help)
        if group.typer_instance is not None:
            plain_helps(group.typer_instance)


def settings_for(**options: object) -> Settings:
    """The settings of this run: :meth:`Settings.from_env` with the command's options on top
    (an option left out, ``None``, keeps the environment's value). Exits 2 naming the
    setting when one is malformed."""
    try:
        return Settings.from_env(**options)
    except ValidationError as exc:
        first = exc.errors()[0]
        name = ".".join(str(p) for p in first["loc"]) or "settings"
        raise fail(f"setting {name} (COMPUTEATLAS_{name.upper()}): {first['msg'].removeprefix('Value error, ')}") from None
    except SettingsError as exc:  # a value pydantic-settings could not even decode (a list that is not JSON)
        raise fail(settings_error_message(exc)) from None
    except UnknownSetting as exc:
        raise fail(f"setting {exc}") from None


def settings_error_message(exc: SettingsError) -> str:
    """One line for a setting that cannot be decoded, naming its variable and the expected form."""
    found = re.search(r'field "([a-z_]+)"', str(exc))
    name = found.group(1) if found else "settings"
    return f'setting {name} (COMPUTEATLAS_{name.upper()}): cannot be read; a list is written as JSON, e.g. \'["127.0.0.1", "10.0.0.0/8"]\''


def load_catalog(data: Path | Settings | None) -> Catalog:
    """Load the catalog of ``data`` (the settings whose ``data`` folder to load, or a ``--data``
    folder over the settings from the environment) or exit 1 printing every problem;
    exit 2 on a malformed setting."""
    folder = (data if isinstance(data, Settings) else settings_for(data=data)).data
    try:
        return catalog_mod.load(folder)
    except CatalogError as exc:
        typer.echo(str(exc), err=True)
        raise typer.Exit(1) from None


def complain(message: str) -> None:
    """Print ``message`` on stderr wrapped at the console's width (80 columns when piped), as
    :func:`~computeatlas.cli.tables.say` wraps prose: words never cut, a URL or id longer than
    the line whole on a line of its own."""
    say(err, message)


def fail(message: str, code: int = 2) -> typer.Exit:
    """Print ``message`` on stderr (:func:`complain`) and return the Exit to raise (``raise fail(...)``)."""
    complain(message)
    return typer.Exit(code)


def find_accelerator_id(catalog: Catalog, name: str) -> str:
    """The id that ``name`` (an id, alias or name) resolves to, by :func:`computeatlas.silicon.resolve.resolve_id`;
    else exit 2 listing the candidates (ambiguous) or the closest ids (unknown)."""
    try:
        return resolve_id(catalog, name)
    except ResolveError as exc:
        raise fail(exc.message) from None


def check_out_path(option: str, path: Path, *, folder: bool) -> None:
    """Exit 2 when ``path`` (given as ``option``) cannot be what the command writes.

    ``folder`` True: ``path`` must be a folder or not exist; False: a file or not exist.
    Either way no existing ancestor of ``path`` may be a file. Anything else the OS
    refuses later (no permission, a read-only file system) is reported by :class:`AtlasGroup`.
    """
    if path.exists():
        if folder and not path.is_dir():
            raise fail(f"{option} {path}: this is a file; give a folder (new or empty).")
        if not folder and path.is_dir():
            raise fail(f"{option} {path}: this is a folder; give a file name.")
        return
    for parent in path.parents:
        if parent.exists():
            if not parent.is_dir():
                raise fail(f"{option} {path}: {parent} is a file, not a folder.")
            return

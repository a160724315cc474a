"""Printing the CLI's tables so they read at 80 columns, on a terminal or piped.

Rich ellipsises a cell that does not fit ("2614…" for 2614.9, "Memo…" for Memory), which
hides figures. :func:`print_table` never cuts a word: every column wraps at spaces, keeps
its longest word whole (up to :data:`LONGEST_WORD` characters; a longer one, such as a
URL, is folded onto the next line), and a table too wide to wrap is printed as wide as it
needs. A table that does not fit with its rules drops the vertical ones first; one that
still does not fit (its columns' longest words add up to more than the width) is printed as
records, one block per row, each cell on its own lines under its heading's words
(:func:`print_records`). ``wide=True`` (the commands' ``--wide``) prints every table at its
natural width, one line per row, for a wide terminal or a file.

:func:`say` prints prose wrapped at the console's width in the same way: words are never
cut, and a word longer than the line (a URL) stands alone on its own line, whole.

When output is piped, rich takes the width from ``$COLUMNS`` or assumes 80, as on a terminal.
"""

from __future__ import annotations

import textwrap

from rich import box
from rich.console import Console
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

LONGEST_WORD = 20
"""Words up to this many characters are never broken; longer ones fold."""


RECORD_LABEL = 18
"""In records, the width of the headings' column (characters); a longer heading has a line of its own."""


def _lines(cell: object) -> list[str]:
    text = cell.plain if isinstance(cell, Text) else Text.from_markup(cell).plain if isinstance(cell, str) else str(cell)
    return text.splitlines() or [""]


def _widths(grid: Table) -> tuple[list[int], list[int]]:
    """Each column's natural width (its longest line) and least width (its longest word, at
    most :data:`LONGEST_WORD`), in characters, without padding."""
    natural, least = [], []
    for column in grid.columns:
        lines = [line for cell in [column.header, *column.cells] for line in _lines(cell)]
        longest_line = max((len(line) for line in lines), default=1)
        longest_word = max((len(w) for line in lines for w in line.split()), default=1)
        natural.append(max(longest_line, 1))
        least.append(max(1, min(longest_word, LONGEST_WORD, longest_line)))
    return natural, least


def natural_width(console: Console, grid: Table) -> int:
    """The width ``grid`` takes with no cell wrapped (characters)."""
    return Measurement.get(console, console.options.update(width=100_000), grid).maximum


def fit(console: Console, grid: Table, width: int) -> int:
    """Give ``grid``'s columns fixed widths so that it fits ``width`` characters if it can,
    shrinking the columns with the most room first and none below its longest word; every
    column wraps at spaces and folds only a word longer than :data:`LONGEST_WORD`. Returns
    the table's width."""
    natural, least = _widths(grid)
    overhead = natural_width(console, grid) - sum(natural)
    widths = list(natural)
    budget = width - overhead
    while sum(widths) > budget:
        slack = [w - m for w, m in zip(widths, least, strict=True)]
        widest = max(range(len(widths)), key=lambda i: slack[i])
        if slack[widest] <= 0:
            break
        widths[widest] -= 1
    for column, w in zip(grid.columns, widths, strict=True):
        column.width, column.overflow, column.no_wrap = w, "fold", False
    return sum(widths) + overhead


def wrap(text: str, width: int, indent: str = "") -> list[str]:
    """``text`` wrapped to ``width`` characters at spaces, paragraphs (lines) kept, every line
    after a paragraph's first indented by ``indent``; a word never cut (a word longer than the
    line, a URL, stands alone on its own line)."""
    lines: list[str] = []
    for paragraph in text.splitlines() or [""]:
        wrapped = textwrap.wrap(paragraph, width, subsequent_indent=indent, break_long_words=False, break_on_hyphens=False)
        lines += [line.lstrip() if len(line) > width else line for line in wrapped] or [""]  # a long word starts the line
    return lines


def say(console: Console, text: str, indent: str = "") -> None:
    """Print ``text`` (plain, no markup) on ``console`` wrapped at its width by :func:`wrap`."""
    for line in wrap(text, console.width, indent):
        console.print(line, markup=False, highlight=False, overflow="ignore", crop=False, soft_wrap=True)


class Footnotes:
    """URLs cited from a table's cells by number, printed whole under the table (a URL in a
    cell would be folded across lines): ``cell = notes.cite(url)`` gives ``"[1]"``, the same
    number for the same URL; :meth:`print` writes ``[1] url`` lines."""

    def __init__(self) -> None:
        self.urls: list[str] = []

    def cite(self, url: str | None) -> str:
        """``"[n]"`` for ``url`` (numbered from 1 in order of first citation); ``""`` for none."""
        if not url:
            return ""
        if url not in self.urls:
            self.urls.append(url)
        return f"[{self.urls.index(url) + 1}]"

    def print(self, console: Console) -> None:
        """Print each cited URL on its own line after its number (a URL wider than the console
        stands alone on the next line, whole)."""
        for n, url in enumerate(self.urls, 1):
            say(console, f"[{n}] {url}", indent="    ")


def print_records(console: Console, grid: Table) -> None:
    """Print ``grid`` as records: its title, then per row a rule and one ``heading: value``
    line (wrapped by :func:`wrap`, continued under the value) per non-empty cell; then its caption."""
    width = console.width
    headings = [" ".join(_lines(column.header)) for column in grid.columns]
    label = min(max((len(h) for h in headings), default=0) + 2, RECORD_LABEL, width // 3)
    if grid.title:
        say(console, " ".join(_lines(grid.title)))
    cells = [[" ".join(line.strip() for line in _lines(cell)) for cell in column.cells] for column in grid.columns]
    for row in zip(*cells, strict=True):
        console.print("─" * width, markup=False, highlight=False)
        for heading, value in zip(headings, row, strict=True):
            if not value:
                continue
            head = f"{heading}:".ljust(label) if len(heading) + 2 <= label else f"{heading}:\n" + " " * label
            say(console, head + value, indent=" " * label)
    if grid.caption:
        say(console, " ".join(_lines(grid.caption)))


def print_table(console: Console, grid: Table, *, wide: bool = False, **options: object) -> None:
    """Print ``grid`` on ``console`` without cutting a figure or a word (see the module doc).

    ``wide`` prints it at its natural width (every row on one line), whatever the terminal's
    width; otherwise it wraps to the console's width, and only a table whose columns cannot
    shrink that far (each keeps its longest word) is printed wider. ``options`` go to
    :meth:`rich.console.Console.print` (``markup=False`` …).
    """
    if wide:
        width = natural_width(console, grid)
    else:
        width = fit(console, grid, console.width)
        if width > console.width:  # drop the vertical rules: two spaces between columns, none at the edges
            grid.box, grid.show_edge, grid.pad_edge, grid.padding = box.SIMPLE_HEAD, False, False, (0, 1, 0, 0)
            for column in grid.columns:
                column.width = None
            width = fit(console, grid, console.width)
            if width > console.width:
                print_records(console, grid)
                return
    if width > console.width:
        # Console.print caps its width= at the console's width, so this one table is printed
        # by a console of its width on the same file, with the same colours and wrapping.
        wider = Console(
            file=console.file,
            width=width,
            color_system=console.color_system,  # type: ignore[arg-type]
            force_terminal=console.is_terminal,
            no_color=console.no_color,
            soft_wrap=console.soft_wrap,
            legacy_windows=console.legacy_windows,
        )
        wider.print(grid, crop=False, **options)  # type: ignore[arg-type]
    else:
        console.print(grid, **options)  # type: ignore[arg-type]


__all__ = ["LONGEST_WORD", "RECORD_LABEL", "Footnotes", "fit", "natural_width", "print_records", "print_table", "say", "wrap"]

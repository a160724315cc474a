"""Small modules: no module under ``computeatlas/`` is over :data:`MAX_LINES` lines (as ``wc -l`` counts).

The modules still over it are listed in :data:`STILL_OVER` with their line counts: one of them
may shrink but not grow, and leaves the list once it is split (the test says so when it is at
or under the limit, so the list only shrinks). A module not on the list may not pass the limit.
"""

from __future__ import annotations

from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "computeatlas"

MAX_LINES = 400
"""The most lines a module may have."""

STILL_OVER: dict[str, int] = {}
"""Modules (paths under ``computeatlas/``) over :data:`MAX_LINES` today, with their line counts: the most each may have until it is split."""


def line_counts(package: Path = PACKAGE) -> dict[str, int]:
    """Every module under ``package``: its path relative to it and its number of lines (newlines, as ``wc -l``)."""
    return {path.relative_to(package).as_posix(): path.read_bytes().count(b"\n") for path in sorted(package.rglob("*.py"))}


def oversized(counts: dict[str, int], still_over: dict[str, int] = STILL_OVER, limit: int = MAX_LINES) -> list[str]:
    """What breaks the rule, one line each: a module over ``limit`` that is not in ``still_over``,
    a listed module that grew past its listed count, and a listed module that is no longer over
    the limit (to be taken off the list) or no longer exists."""
    problems = [f"{name}: {n} lines, over {limit}" for name, n in counts.items() if n > limit and name not in still_over]
    for name, most in still_over.items():
        n = counts.get(name)
        if n is None:
            problems.append(f"{name}: listed in STILL_OVER but gone: take it off the list")
        elif n <= limit:
            problems.append(f"{name}: {n} lines, no longer over {limit}: take it off STILL_OVER")
        elif n > most:
            problems.append(f"{name}: {n} lines, grew past its listed {most} (split it instead)")
    return problems


def test_no_module_is_over_the_limit_and_the_listed_ones_only_shrink() -> None:
    counts = line_counts()
    assert len(counts) > 100 and counts["cli/__init__.py"] > 0
    assert oversized(counts) == []


def test_the_rule_names_a_new_large_module_a_grown_one_and_a_split_one() -> None:
    counts = {"small.py": 400, "new.py": 401, "listed.py": 450, "grown.py": 420, "split.py": 380}
    still_over = {"listed.py": 450, "grown.py": 410, "split.py": 500, "gone.py": 420}
    assert oversized(counts, still_over) == [
        "new.py: 401 lines, over 400",
        "grown.py: 420 lines, grew past its listed 410 (split it instead)",
        "split.py: 380 lines, no longer over 400: take it off STILL_OVER",
        "gone.py: listed in STILL_OVER but gone: take it off the list",
    ]

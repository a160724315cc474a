"""Which parts a comparison is of: 2 to 6 names resolved to distinct ids, in the order they are shown.

Bad input raises :class:`CompareError` with an HTTP-style ``status`` (400, or 404 for an
unknown name) and the closest ids or candidates in ``options``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from computeatlas.silicon import resolve
from computeatlas.silicon.catalog import SiliconCatalog
from computeatlas.silicon.curated import pair_id

MIN_PARTS = 2
MAX_PARTS = 6


class CompareError(ValueError):
    """Bad input for a comparison. ``status`` is 400 or 404; ``options`` lists candidates or
    the closest ids; ``message`` is one sentence naming what was wrong."""

    def __init__(self, message: str, status: int = 400, options: list[resolve.Candidate] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.options = options or []


def split_ids(values: str | Iterable[str] | None) -> list[str]:
    """Names from ``"a,b,c"`` or repeated values (``ids=a&ids=b``): split on commas, trimmed, blanks dropped."""
    if values is None:
        return []
    items = [values] if isinstance(values, str) else list(values)
    return [part.strip() for item in items for part in item.split(",") if part.strip()]


def resolve_parts(catalog: SiliconCatalog, names: Sequence[str]) -> list[str]:
    """Resolve 2–6 names (ids, aliases, names) to distinct ids, keeping their order.

    Raises :class:`CompareError`: none given (400), more than :data:`MAX_PARTS` (400), an
    unknown name (404, closest ids), an ambiguous one (400, candidates), the same part
    twice (400), or only one part (400).
    """
    if not names:
        raise CompareError("No accelerators given: name 2 to 6, e.g. ids=nvidia-h100-sxm,nvidia-h200-sxm.")
    if len(names) > MAX_PARTS:
        raise CompareError(f"{len(names)} accelerators given: a comparison takes at most {MAX_PARTS}.")
    ids: list[str] = []
    given: dict[str, str] = {}
    for name in names:
        try:
            ident = resolve.resolve_id(catalog, name)
        except resolve.UnknownName as exc:
            raise CompareError(exc.message, 404, exc.options) from None
        except resolve.ResolveError as exc:
            raise CompareError(exc.message, 400, exc.options) from None
        if ident in ids:
            first = given[ident]
            which = f"'{ident}' is named twice" if first == name == ident else f"'{first}' and '{name}' are both {ident}"
            raise CompareError(f"The same accelerator twice: {which}. Compare different parts.")
        ids.append(ident)
        given[ident] = name
    if len(ids) < MIN_PARTS:
        raise CompareError(f"Only one accelerator given ({ids[0]}): name at least {MIN_PARTS}.")
    return ids


def display_order(catalog: SiliconCatalog, ids: Sequence[str]) -> list[str]:
    """The order parts are shown in: a pair follows its curated record's ``parts`` if there
    is one, else the canonical (sorted) order; three or more keep the order given."""
    if len(ids) != 2:
        return list(ids)
    curated = catalog.comparisons.get(pair_id(*ids))
    return list(curated.parts) if curated is not None else sorted(ids)


__all__ = ["MAX_PARTS", "MIN_PARTS", "CompareError", "display_order", "resolve_parts", "split_ids"]

"""Search: the parts a name or a word people use may mean, ranked, exact matches first.

:func:`computeatlas.silicon.resolve.resolve` answers "which part is this name?" and never
guesses. Search answers a wider question, "which parts go by this word?": ``MI300``,
``TPU``, ``Blackwell``, ``Hopper`` or ``Trainium`` list every matching part, and the
page links to each. It never *picks* one: only an exact id, alias or name (the resolver's
three tiers, unique) is a ``found`` result that a page may open directly.

How parts are ranked (the same rules run in Python here and in ``static/search.js`` over
the same :class:`SearchIndex`, so the static site lists what the live one does)
    1. exact matches, in the resolver's order: id, then alias, then name;
    2. *word* matches: every word of the query begins a word of the part's id, name,
       aliases, family aliases, part numbers, family (``Hopper``) or vendor id
       (``nvidia``). Words are runs of letters and digits after the resolver's
       normalisation (NFKC, case folded), so ``MI300`` finds ``MI300X`` and ``TPU``
       finds ``TPU7x``, but ``B200`` does not find ``GB200`` (a word must *begin* with it).
       Parts where more query words equal a whole word come first; then the index order
       (newest announcement first, then name).
"""

from __future__ import annotations

import datetime as dt
import functools
import re
import threading
import weakref
from typing import Literal

from pydantic import BaseModel, Field

from computeatlas.silicon import resolve
from computeatlas.silicon.catalog import SiliconCatalog
from computeatlas.silicon.resolve import Candidate, Resolution

MatchKind = Literal["id", "alias", "name", "words"]
_WORD_SPLIT = re.compile(r"[\W_]+")


def words(text: str) -> list[str]:
    """The words of ``text``: its :func:`~computeatlas.silicon.resolve.normal` form split at every
    character that is not a letter or a digit, empty pieces dropped (``"TPU7x (Ironwood)"`` →
    ``["tpu7x", "ironwood"]``)."""
    return [w for w in _WORD_SPLIT.split(resolve.normal(text)) if w]


class IndexPart(BaseModel):
    """One part in the search index: id, display name and its searchable words."""

    id: str
    name: str
    words: list[str] = Field(
        description="every word of the part's id, name, aliases, family aliases, part numbers, family and vendor id, once"
    )


class SearchIndex(BaseModel):
    """The prebuilt search index (``/api/search-index``), read by the static site's search script.

    ``parts`` are in rank order for word matches (newest announcement first, then name).
    ``exact`` maps each normal id, alias and name (:func:`~computeatlas.silicon.resolve.normal`)
    to ``[part position, tier]`` pairs, tier 0 id, 1 alias, 2 name, as the resolver reads them.
    """

    data_version: str
    parts: list[IndexPart]
    exact: dict[str, list[tuple[int, int]]]


class Match(Candidate):
    """A part the query may mean and how it matched: an exact ``id``, ``alias`` or ``name``, or ``words``."""

    matched_by: MatchKind


class SearchResult(Resolution):
    """The body of ``/api/search``: the resolver's answer plus every matching part, ranked.

    ``status`` is ``found`` (one exact match, in ``match``), ``ambiguous`` (an exact name
    shared by several parts, in ``candidates``), ``partial`` (no exact match, but parts whose
    words begin with the query's words, in ``matches``) or ``unknown`` (nothing matches;
    ``suggestions`` lists the closest ids). ``matches`` always lists every matching part,
    exact matches first.
    """

    status: Literal["found", "ambiguous", "partial", "unknown"]  # type: ignore[assignment]
    matches: list[Match] = Field(default_factory=list, description="every matching part, ranked: exact matches first, then word matches")


_INDEXES: dict[int, tuple[weakref.ref[SiliconCatalog], SearchIndex]] = {}
_LOCK = threading.Lock()


def _forget(key: int, _ref: object) -> None:
    """Drop the index of a catalog that is gone (the weak reference's callback)."""
    _INDEXES.pop(key, None)


def build_index(catalog: SiliconCatalog) -> SearchIndex:
    """The search index of ``catalog``, built on first use and kept while the catalog lives
    (the catalog is immutable)."""
    key = id(catalog)
    with _LOCK:
        cached = _INDEXES.get(key)
        if cached is not None and cached[0]() is catalog:
            return cached[1]
    order = sorted(catalog.accelerators.values(), key=lambda a: (-(a.announced or dt.date.min).toordinal(), a.name.casefold()))
    parts: list[IndexPart] = []
    exact: dict[str, list[tuple[int, int]]] = {}
    for position, acc in enumerate(order):
        texts = [acc.id, acc.name, *acc.aliases, *acc.family_aliases, *acc.part_numbers, acc.family, acc.vendor]
        parts.append(IndexPart(id=acc.id, name=acc.name, words=list(dict.fromkeys(w for t in texts for w in words(t)))))
        for tier, names in enumerate(([acc.id], [*acc.aliases, *acc.family_aliases, *acc.part_numbers], [acc.name])):
            for text in names:
                entry = exact.setdefault(resolve.normal(text), [])
                if (position, tier) not in entry:
                    entry.append((position, tier))
    index = SearchIndex(data_version=catalog.version, parts=parts, exact=exact)
    with _LOCK:
        _INDEXES[key] = (weakref.ref(catalog, functools.partial(_forget, key)), index)
    return index


def rank(index: SearchIndex, query: str) -> list[tuple[int, MatchKind]]:
    """The positions in ``index.parts`` that ``query`` matches, best first, with how each matched
    (see the module docstring). Pure: ``static/search.js`` implements the same function."""
    tiers: tuple[MatchKind, ...] = ("id", "alias", "name")
    found: list[tuple[int, MatchKind]] = []
    entries = index.exact.get(resolve.normal(query), [])
    if entries:
        best = min(tier for _, tier in entries)  # the first tier with a match decides, as in the resolver
        found = [(pos, tiers[tier]) for pos, tier in entries if tier == best]
    seen = {pos for pos, _ in found}
    wanted = words(query)
    if not wanted:
        return found
    scored: list[tuple[int, int]] = []
    for pos, part in enumerate(index.parts):
        if pos in seen:
            continue
        if all(any(w.startswith(q) for w in part.words) for q in wanted):
            scored.append((-sum(q in part.words for q in wanted), pos))
    return found + [(pos, "words") for _, pos in sorted(scored)]


def search(catalog: SiliconCatalog, text: str) -> SearchResult:
    """Search ``catalog`` for ``text``; see the module docstring for the matching and the ranking.

    Raises :class:`~computeatlas.silicon.resolve.InvalidName` for empty text or text over
    :data:`~computeatlas.silicon.resolve.MAX_NAME` characters.
    """
    exact = resolve.resolve(catalog, text)  # validates the text and gives the resolver's own answer
    index = build_index(catalog)
    matches = [Match(id=index.parts[pos].id, name=index.parts[pos].name, matched_by=kind)
               for pos, kind in rank(index, text)]  # fmt: skip
    if exact.status == "unknown" and matches:
        return SearchResult(query=text, status="partial", matches=matches)
    return SearchResult(**exact.model_dump(exclude={"status"}), status=exact.status, matches=matches)


__all__ = ["IndexPart", "Match", "MatchKind", "SearchIndex", "SearchResult", "build_index", "rank", "search", "words"]

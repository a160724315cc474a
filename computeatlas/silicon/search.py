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

The site-wide search (:func:`index_of` over :class:`Entry` values of every kind with a page:
accelerators, systems and comparisons here, models, providers and energy topics from their
domains, gathered in :mod:`computeatlas.pages.search`) adds one tier between the two:
*prefix* matches, where the query followed by a separator begins an id, alias or name
(``gpt-oss`` begins ``gpt-oss-120b``). Each hit carries its :data:`Kind`. An index built
without prefix names (:func:`build_index`, the accelerators alone) ranks as above.
"""

from __future__ import annotations

import datetime as dt
import difflib
import functools
import re
import threading
import weakref
from typing import Literal, cast

from pydantic import BaseModel, Field

from computeatlas.silicon import resolve
from computeatlas.silicon.catalog import SiliconCatalog
from computeatlas.silicon.resolve import Candidate, Resolution

MatchKind = Literal["id", "alias", "name", "prefix", "words"]
Kind = Literal["accelerator", "model", "provider", "energy topic", "system", "comparison"]
"""What a search hit is; each kind has its own page."""
_WORD_SPLIT = re.compile(r"[\W_]+")


def words(text: str) -> list[str]:
    """The words of ``text``: its :func:`~computeatlas.silicon.resolve.normal` form split at every
    character that is not a letter or a digit, empty pieces dropped (``"TPU7x (Ironwood)"`` →
    ``["tpu7x", "ironwood"]``)."""
    return [w for w in _WORD_SPLIT.split(resolve.normal(text)) if w]


class Entry(BaseModel):
    """One record to search: its kind, id, display name, the other exact names it goes by
    (``aliases``) and further text whose words find it (``texts``: a family, a vendor id)."""

    kind: Kind
    id: str
    name: str
    aliases: list[str] = Field(default_factory=list)
    texts: list[str] = Field(default_factory=list)


class IndexPart(BaseModel):
    """One hit in the search index: kind, id, display name, its searchable words and the
    normal names a prefix match reads."""

    kind: Kind = "accelerator"
    id: str
    name: str
    words: list[str] = Field(
        description="every word of the hit's id, name, aliases and further text (for a part: family aliases, part numbers, family and vendor id), once"
    )
    names: list[str] = Field(
        default_factory=list, description="the normal id, aliases and name a prefix match reads (none: no prefix tier)"
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


class Hit(Candidate):
    """A record a query may mean: its kind, id and display name."""

    kind: Kind = "accelerator"


class Match(Hit):
    """A hit the query may mean, its kind, and how it matched: an exact ``id``, ``alias`` or
    ``name``, a ``prefix`` of one, or ``words``."""

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


def accelerator_entries(catalog: SiliconCatalog) -> list[Entry]:
    """Every accelerator of ``catalog`` to search, newest announcement first, then name."""
    order = sorted(catalog.accelerators.values(), key=lambda a: (-(a.announced or dt.date.min).toordinal(), a.name.casefold()))
    return [
        Entry(
            kind="accelerator", id=a.id, name=a.name, aliases=[*a.aliases, *a.family_aliases, *a.part_numbers], texts=[a.family, a.vendor]
        )
        for a in order
    ]


def system_entries(catalog: SiliconCatalog) -> list[Entry]:
    """Every rack-scale system of ``catalog`` to search, in the catalog's order (by name)."""
    return [Entry(kind="system", id=s.id, name=s.name) for s in catalog.systems.values()]


def comparison_entries(catalog: SiliconCatalog) -> list[Entry]:
    """Every curated comparison of ``catalog`` to search, named after its two parts
    (``NVIDIA B200 vs NVIDIA B300``), in the catalog's order."""
    return [
        Entry(kind="comparison", id=c.id, name=" vs ".join(catalog.accelerators[p].name for p in c.parts))
        for c in catalog.comparisons.values()
    ]


def index_of(entries: list[Entry], version: str, prefixes: bool = True) -> SearchIndex:
    """The search index of ``entries``, in their order (the order word matches rank in):
    exact names are the id (tier 0), the aliases (1) and the name (2); ``prefixes`` adds
    each entry's normal names for the prefix tier."""
    parts: list[IndexPart] = []
    exact: dict[str, list[tuple[int, int]]] = {}
    for position, entry in enumerate(entries):
        texts = [entry.id, entry.name, *entry.aliases, *entry.texts]
        tiers = ([entry.id], entry.aliases, [entry.name])
        names = list(dict.fromkeys(resolve.normal(t) for tier in tiers for t in tier)) if prefixes else []
        found = list(dict.fromkeys(w for t in texts for w in words(t)))
        parts.append(IndexPart(kind=entry.kind, id=entry.id, name=entry.name, words=found, names=names))
        for tier, texts_of_tier in enumerate(tiers):
            for text in texts_of_tier:
                slot = exact.setdefault(resolve.normal(text), [])
                if (position, tier) not in slot:
                    slot.append((position, tier))
    return SearchIndex(data_version=version, parts=parts, exact=exact)


def build_index(catalog: SiliconCatalog) -> SearchIndex:
    """The search index of ``catalog``, built on first use and kept while the catalog lives
    (the catalog is immutable)."""
    key = id(catalog)
    with _LOCK:
        cached = _INDEXES.get(key)
        if cached is not None and cached[0]() is catalog:
            return cached[1]
    index = index_of(accelerator_entries(catalog), catalog.version, prefixes=False)
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
    start = resolve.normal(query) + " "
    prefixed = [pos for pos, part in enumerate(index.parts) if pos not in seen and any(n.startswith(start) for n in part.names)]
    seen.update(prefixed)
    scored: list[tuple[int, int]] = []
    for pos, part in enumerate(index.parts):
        if pos in seen:
            continue
        if all(any(w.startswith(q) for w in part.words) for q in wanted):
            scored.append((-sum(q in part.words for q in wanted), pos))
    return found + [(pos, "prefix") for pos in prefixed] + [(pos, "words") for _, pos in sorted(scored)]


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


def search_in(index: SearchIndex, text: str) -> SearchResult:
    """Search ``index`` (of any kinds: :func:`index_of`) for ``text``: every hit, ranked by
    :func:`rank`. ``found`` when exactly one hit is exact (``match``, ``matched_by``),
    ``ambiguous`` when several are (``candidates``), ``partial`` when only prefix or word
    matches, ``unknown`` when none (``suggestions``: up to 5 hits with the closest exact
    names, difflib ratio ≥ 0.5). Match and candidates are :class:`Match` values, suggestions :class:`Hit` ones.

    Raises :class:`~computeatlas.silicon.resolve.InvalidName` for empty text or text over
    :data:`~computeatlas.silicon.resolve.MAX_NAME` characters.
    """
    resolve.check(text)
    matches = [Match(kind=index.parts[pos].kind, id=index.parts[pos].id, name=index.parts[pos].name, matched_by=how)
               for pos, how in rank(index, text)]  # fmt: skip
    exact = [m for m in matches if m.matched_by in resolve.TIERS]
    if len(exact) == 1:
        return SearchResult(query=text, status="found", match=exact[0], matched_by=cast(resolve.Tier, exact[0].matched_by), matches=matches)
    if exact:
        return SearchResult(query=text, status="ambiguous", candidates=exact, matches=matches)
    if matches:
        return SearchResult(query=text, status="partial", matches=matches)
    near = difflib.get_close_matches(resolve.normal(text), list(index.exact), n=15, cutoff=0.5)
    positions = list(dict.fromkeys(pos for key in near for pos, _ in index.exact[key]))[:5]
    suggestions = [Hit(kind=index.parts[p].kind, id=index.parts[p].id, name=index.parts[p].name) for p in positions]
    return SearchResult(query=text, status="unknown", suggestions=list(suggestions))


__all__ = [
    "Entry",
    "Hit",
    "IndexPart",
    "Kind",
    "Match",
    "MatchKind",
    "SearchIndex",
    "SearchResult",
    "accelerator_entries",
    "build_index",
    "comparison_entries",
    "index_of",
    "rank",
    "search",
    "search_in",
    "system_entries",
    "words",
]

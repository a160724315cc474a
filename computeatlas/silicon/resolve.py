"""Names people use → accelerator ids.

A name resolves in three tiers, the first tier with any match deciding:

1. an exact id (``nvidia-h100-sxm``);
2. an exact alias from a record's ``aliases`` (``H100 SXM5 80GB``, ``Trn3``, ``Ironwood``),
   ``family_aliases`` (``H100``) or ``part_numbers``;
3. an exact name (``NVIDIA H100 SXM5 80GB``).

Matching ignores case and treats runs of spaces, hyphens and underscores as one separator
(``tpu-v7`` = ``TPU v7``), but it never matches part of a name: ``GB200`` does not find
``B200``. When one tier matches several parts (``H100`` is a family alias of both the SXM
and the PCIe card) the name is *ambiguous* and every candidate is listed; nothing is picked.
When nothing matches, the closest ids are suggested.

The index is built once per catalog (the catalog is immutable) and each lookup is a
dictionary read, so resolving does not grow with the size of the catalog.
"""

from __future__ import annotations

import difflib
import functools
import re
import threading
import unicodedata
import weakref
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal

from pydantic import BaseModel, Field

from computeatlas.silicon.catalog import SiliconCatalog

MAX_NAME = 200
"""Longest name accepted (characters); longer input is an error, not a search."""

Tier = Literal["id", "alias", "name"]
TIERS: tuple[Tier, ...] = ("id", "alias", "name")


def normal(text: str) -> str:
    """The matching form of a name: NFKC, invisible format characters (zero-width space and
    joiners, U+200B–U+200D, U+2060, U+FEFF …) dropped, case-folded, separators (space, ``-``,
    ``_``) as one space. ``"H200\u200b"`` and ``"Ｈ２００"`` match ``"H200"``."""
    text = "".join(c for c in unicodedata.normalize("NFKC", text) if unicodedata.category(c) != "Cf")
    return re.sub(r"[\s_\-]+", " ", text.casefold()).strip()


class Candidate(BaseModel):
    """A part a name may mean: its id and display name (:mod:`computeatlas.pages.search` adds its page path)."""

    id: str
    name: str


class Resolution(BaseModel):
    """What a name resolves to; the body of ``/api/search``.

    ``status`` is ``found`` (``match`` set, ``matched_by`` the tier), ``ambiguous``
    (``candidates`` lists every part the name is shared by) or ``unknown``
    (``suggestions`` lists the closest ids, best first, possibly none).
    """

    query: str
    status: Literal["found", "ambiguous", "unknown"]
    match: Candidate | None = None
    matched_by: Tier | None = Field(None, description="id, alias or name")
    candidates: list[Candidate] = Field(default_factory=list)
    suggestions: list[Candidate] = Field(default_factory=list)


class ResolveError(LookupError):
    """Base of the errors :func:`resolve_id` raises; ``name`` is the text given."""

    def __init__(self, name: str, message: str, options: list[Candidate]) -> None:
        super().__init__(message)
        self.name = name
        self.message = message
        self.options = options


class UnknownName(ResolveError):
    """No id, alias or name matches; ``options`` holds the closest parts (maybe none)."""


class AmbiguousName(ResolveError):
    """Several parts share the name; ``options`` holds all of them."""


class InvalidName(ResolveError):
    """The text cannot be a name (empty, or longer than :data:`MAX_NAME`)."""


@dataclass
class _Index:
    tiers: dict[Tier, dict[str, list[str]]]
    words: dict[str, list[str]] = field(default_factory=dict)  # every normal key → ids, for suggestions


_INDEXES: dict[int, tuple[weakref.ref[SiliconCatalog], _Index]] = {}
_LOCK = threading.Lock()


def _forget(key: int, _ref: object) -> None:
    """Drop the index of a catalog that is gone (the weak reference's callback)."""
    _INDEXES.pop(key, None)


def _build(catalog: SiliconCatalog) -> _Index:
    tiers: dict[Tier, dict[str, list[str]]] = {t: {} for t in TIERS}
    for acc in catalog.accelerators.values():
        keys: dict[Tier, Iterable[str]] = {
            "id": [acc.id],
            "alias": [*acc.aliases, *acc.family_aliases, *acc.part_numbers],
            "name": [acc.name],
        }
        for tier, names in keys.items():
            for text in names:
                ids = tiers[tier].setdefault(normal(text), [])
                if acc.id not in ids:
                    ids.append(acc.id)
    words: dict[str, list[str]] = {}
    for tier in TIERS:
        for key, ids in tiers[tier].items():
            words.setdefault(key, [])
            words[key] += [i for i in ids if i not in words[key]]
    return _Index(tiers, words)


def _index(catalog: SiliconCatalog) -> _Index:
    """The index of ``catalog``, built on first use and kept while the catalog lives."""
    key = id(catalog)
    with _LOCK:
        found = _INDEXES.get(key)
        if found is not None and found[0]() is catalog:
            return found[1]
        index = _build(catalog)
        _INDEXES[key] = (weakref.ref(catalog, functools.partial(_forget, key)), index)
        return index


def candidate(catalog: SiliconCatalog, ident: str) -> Candidate:
    """The :class:`Candidate` for accelerator ``ident`` (which must exist)."""
    return Candidate(id=ident, name=catalog.accelerators[ident].name)


def closest_ids(catalog: SiliconCatalog, text: str, n: int = 5) -> list[str]:
    """Up to ``n`` ids whose id, alias or name is closest to ``text`` (difflib ratio ≥ 0.5).

    Used only for suggestions after a lookup failed; it scans every name (O(catalog)).
    """
    words = _index(catalog).words
    near = difflib.get_close_matches(normal(text), list(words), n=n * 3, cutoff=0.5)
    ids = list(dict.fromkeys(i for key in near for i in words[key]))
    return ids[:n]


def check(text: str) -> None:
    """Raise :class:`InvalidName` for empty text (or not a string) or text over :data:`MAX_NAME` characters."""
    if not isinstance(text, str) or not text.strip():
        raise InvalidName("", "a name is empty: give an id, a name or an alias such as 'H100 SXM'", [])
    if len(text) > MAX_NAME:
        raise InvalidName(text[:40], f"a name is longer than {MAX_NAME} characters", [])


def resolve(catalog: SiliconCatalog, text: str) -> Resolution:
    """Resolve ``text`` to a part of ``catalog``; see the module docstring for the rules.

    Never raises for an unknown or ambiguous name: the :class:`Resolution` says which.
    Raises :class:`InvalidName` for empty text or text over :data:`MAX_NAME` characters.
    """
    check(text)
    index = _index(catalog)
    key = normal(text)
    for tier in TIERS:
        ids = index.tiers[tier].get(key)
        if not ids:
            continue
        if len(ids) == 1:
            return Resolution(query=text, status="found", match=candidate(catalog, ids[0]), matched_by=tier)
        return Resolution(query=text, status="ambiguous", candidates=[candidate(catalog, i) for i in ids])
    return Resolution(query=text, status="unknown", suggestions=[candidate(catalog, i) for i in closest_ids(catalog, text)])


def resolve_id(catalog: SiliconCatalog, text: str) -> str:
    """The id ``text`` names; raises :class:`UnknownName`, :class:`AmbiguousName` or
    :class:`InvalidName`, each with a one-sentence ``message`` naming the text."""
    found = resolve(catalog, text)
    if found.match is not None:
        return found.match.id
    if found.status == "ambiguous":
        names = ", ".join(f"{c.id} ({c.name})" for c in found.candidates)
        raise AmbiguousName(text, f"'{text}' could mean several accelerators: {names}. Use one of these ids.", found.candidates)
    hint = f" Closest: {', '.join(c.id for c in found.suggestions)}." if found.suggestions else ""
    raise UnknownName(text, f"No accelerator with id '{text}', nor with that alias or name.{hint}", found.suggestions)


__all__ = [
    "MAX_NAME",
    "AmbiguousName",
    "Candidate",
    "InvalidName",
    "Resolution",
    "ResolveError",
    "UnknownName",
    "check",
    "closest_ids",
    "normal",
    "resolve",
    "resolve_id",
]

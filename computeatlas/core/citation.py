"""How to cite a page of the atlas: a line of text and a BibTeX entry, both with the verified date.

A citation names the page's title, its canonical URL, the date someone last checked the
record against its sources (``verified``) and the data version the page was built from,
so a reader can find exactly the figures that were cited.
"""

from __future__ import annotations

import datetime as dt
import re

from pydantic import BaseModel, Field

from computeatlas.core.presentation import where_read
from computeatlas.core.provenance import CopyForm, ReadAt, read_from

PUBLISHER = "Compute Atlas"


class SourceView(BaseModel):
    """A source as pages and the API show it: its key in the record's ``[sources]`` table
    and its fields; ``kind == "vendor"`` marks a party that sells one side. ``kind`` says
    who wrote the document; ``read_from``, ``copy_form`` and ``read_at`` say where we read it."""

    key: str
    title: str
    url: str
    publisher: str
    kind: str
    accessed: dt.date
    copy_form: CopyForm | None = Field(None, description="'verbatim' or 'conversion' when url is a third party's copy")
    copy_of: str | None = Field(None, description="the author's own URL of the document a copy reproduces")
    read_from: str = Field("", description="the host we read it on (github.com/<owner> for GitHub)")
    read_at: ReadAt | None = Field(None, description="maker_hosted, maker_copy or elsewhere, where the maker is known")
    where_read: str | None = Field(None, description="words for a copy, e.g. 'read from an unofficial conversion at github.com/kuhar'")


def source_view(key: str, source: BaseModel, read_at: ReadAt | None = None) -> SourceView:
    """The view of ``source`` (a :class:`computeatlas.core.claims.Source`) under ``key``;
    ``read_at`` is where it was read relative to the part's maker, when the caller knows the maker."""
    fields = source.model_dump()
    return SourceView(
        key=key,
        **fields,
        read_from=read_from(fields["url"]),
        read_at=read_at,
        where_read=where_read(fields["url"], fields.get("copy_form")),
    )


_BIBTEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "{": r"\{",
    "}": r"\}",
    "%": r"\%",
    "&": r"\&",
    "#": r"\#",
    "_": r"\_",
    "$": r"\$",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}
MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")


class Citation(BaseModel):
    """A page's citation: ``text`` for prose, ``bibtex`` for reference managers, ``key`` the BibTeX key."""

    key: str
    text: str
    bibtex: str


def bibtex_escape(text: str) -> str:
    """``text`` with BibTeX/LaTeX special characters escaped (``&`` → ``\\&``, ``_`` → ``\\_`` …)."""
    return "".join(_BIBTEX_SPECIAL.get(ch, ch) for ch in text)


def citation(ident: str, title: str, url: str, verified: dt.date, data_version: str) -> Citation:
    """The citation of the page ``title`` at ``url`` (absolute), checked on ``verified``.

    ``ident`` (a record id) makes the BibTeX key ``computeatlas-{ident}-{year}``; the URL
    is given verbatim in ``\\url{}`` (it must not be escaped).
    """
    key = "computeatlas-" + re.sub(r"[^a-z0-9-]+", "-", ident.lower()).strip("-") + f"-{verified.year}"
    text = f"{PUBLISHER}. “{title}”. Verified {verified.isoformat()}; data version {data_version}. {url}"
    bibtex = "\n".join(
        [
            f"@misc{{{key},",
            f"  title        = {{{{{bibtex_escape(title)}}}}},",
            f"  author       = {{{{{PUBLISHER}}}}},",
            f"  year         = {{{verified.year}}},",
            f"  month        = {MONTHS[verified.month - 1]},",
            f"  howpublished = {{\\url{{{url}}}}},",
            f"  note         = {{Verified {verified.isoformat()}; data version {bibtex_escape(data_version)}}}",
            "}",
        ]
    )
    return Citation(key=key, text=text, bibtex=bibtex)


__all__ = ["Citation", "bibtex_escape", "citation"]

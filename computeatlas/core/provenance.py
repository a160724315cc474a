"""Where a source was read: on its maker's own hosts, or from a copy somewhere else.

A source's ``kind`` says who wrote the document (the vendor, the press …); its URL says
where we read it. A maker's hosts are listed once, in the maker's file in
``data/vendors/`` (:class:`MakerHosts`): its domains (a domain covers its subdomains;
the domain of the vendor's ``url`` always counts), its GitHub organisations and its
MLPerf submitter names. *Maker-hosted* is derived from a URL's host against that list,
never written by hand. A vendor document read anywhere else is a copy, and the record
says so (``copy_form = "verbatim"`` or ``"conversion"``, see
:class:`~computeatlas.core.claims.Source`).
"""

from __future__ import annotations

from enum import StrEnum
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field


class CopyForm(StrEnum):
    """What a copy of a document is: the document as published, or a conversion of it
    (a PDF re-typed as Markdown, a table transcribed), which may carry transcription errors."""

    VERBATIM = "verbatim"
    CONVERSION = "conversion"


class ReadAt(StrEnum):
    """Where a figure's source was read, as coverage counts it."""

    MAKER_HOSTED = "maker_hosted"
    MAKER_COPY = "maker_copy"
    ELSEWHERE = "elsewhere"

    @property
    def label(self) -> str:
        """Words for tables: "maker-hosted", "maker's document via a copy", "other source"."""
        return {"maker_hosted": "maker-hosted", "maker_copy": "maker's document via a copy", "elsewhere": "other source"}[self.value]


MLPERF_ORGS = ("mlcommons",)
"""GitHub organisations whose results repositories hold MLPerf submissions, one folder per submitter."""

_DIVISIONS = frozenset({"closed", "open", "preview", "available", "rdi", "network"})


class MakerHosts(BaseModel):
    """Where a maker publishes: extra domains (beyond its ``url``'s), GitHub organisations
    (``github.com/<org>/``, ``<org>.github.io``, ``raw.githubusercontent.com/<org>/``) and
    MLPerf submitter folders (``closed/<name>/`` in an MLCommons results repository)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    domains: list[str] = Field(default_factory=list, description="host names the maker owns, e.g. 'amd.com'; subdomains included")
    github: list[str] = Field(default_factory=list, description="GitHub organisations the maker owns, e.g. 'ROCm'")
    mlperf: list[str] = Field(default_factory=list, description="the maker's MLPerf submitter folder names, e.g. 'NVIDIA'")


def host_of(url: str) -> str:
    """The lower-case host name of ``url`` (``"https://www.AMD.com/x"`` → ``"www.amd.com"``)."""
    return (urlsplit(url).hostname or "").lower()


def read_from(url: str) -> str:
    """Where ``url`` was read, in words: the host, or ``github.com/<owner>`` (and the same for
    ``raw.githubusercontent.com``) since a GitHub owner is who hosts the file."""
    host = host_of(url)
    parts = [p for p in urlsplit(url).path.split("/") if p]
    if host in ("github.com", "raw.githubusercontent.com") and parts:
        return f"github.com/{parts[0]}"
    return host.removeprefix("www.")


def _in_domain(host: str, domain: str) -> bool:
    domain = domain.lower().removeprefix("www.")
    return host == domain or host.endswith("." + domain)


def _mlperf_submitter(host: str, parts: list[str]) -> str | None:
    """The submitter folder of an MLCommons results file, or None."""
    if host == "github.com" and len(parts) > 4 and parts[2] in ("blob", "raw", "tree"):
        rest = parts[4:]
    elif host == "raw.githubusercontent.com" and len(parts) > 3:
        rest = parts[3:]
    else:
        return None
    rest = [p for p in rest[:-1] if p.lower() not in _DIVISIONS]
    return rest[0] if rest else None


def owns(hosts: MakerHosts, vendor_url: str, url: str) -> bool:
    """True when ``url`` is on the maker's own hosts: the domain of ``vendor_url`` or one of
    ``hosts.domains``, a GitHub organisation in ``hosts.github``, or the maker's own
    submitter folder of an MLPerf results repository (``hosts.mlperf``)."""
    host = host_of(url)
    parts = [p for p in urlsplit(url).path.split("/") if p]
    domains = [host_of(vendor_url), *hosts.domains]
    if any(_in_domain(host, d) for d in domains if d):
        return True
    orgs = {o.lower() for o in hosts.github}
    if host in ("github.com", "raw.githubusercontent.com") and parts:
        owner = parts[0].lower()
        if owner in orgs:
            return True
        if owner in MLPERF_ORGS:
            submitter = _mlperf_submitter(host, parts)
            return submitter is not None and submitter.lower() in {m.lower() for m in hosts.mlperf}
        return False
    return host.endswith(".github.io") and host.removesuffix(".github.io") in orgs


def read_at(kind: str, url: str, copy_form: CopyForm | None, hosts: MakerHosts, vendor_url: str) -> ReadAt:
    """Where a source of ``kind`` (``"vendor"``, ``"press"`` …) at ``url`` was read, for the
    maker with ``hosts`` and ``vendor_url``: the maker's document on its own hosts, the
    maker's document read from a marked copy, or anything else (another party's document,
    wherever it is hosted)."""
    if kind != "vendor":
        return ReadAt.ELSEWHERE
    if copy_form is None and owns(hosts, vendor_url, url):
        return ReadAt.MAKER_HOSTED
    return ReadAt.MAKER_COPY if copy_form is not None else ReadAt.ELSEWHERE


__all__ = ["MLPERF_ORGS", "CopyForm", "MakerHosts", "ReadAt", "host_of", "owns", "read_at", "read_from"]

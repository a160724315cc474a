"""Offers in words: how capacity is bought and where a price was read, the one wording every price table uses."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

_PRICING_WORDS = {
    "on_demand": "on-demand",
    "spot": "spot",
    "committed": "committed",
    "reserved": "reserved",
    "capacity_block": "capacity block",
    "marketplace": "marketplace",
    "monthly": "monthly",
    "weekly": "weekly",
}
_TERM = re.compile(r"(\d+)\s*-?\s*(year|yr|month|week|day)s?", re.I)


def pricing_words(kind: str, term: str | None = None) -> str:
    """How capacity is bought, in words, the one wording every price table uses: ``on-demand``,
    ``spot``, ``1-year committed``, ``3-year committed``, ``capacity block``, ``reserved, 1
    year``. ``kind`` may be spelled ``on_demand`` or ``on-demand`` (or an enum of either);
    ``term`` as the source wrote it ("1 year", "3 years", "Low Priority"). A term that only
    repeats the kind ("Capacity Block") or says nothing ("not stated") is left out."""
    key = str(getattr(kind, "value", kind)).strip().lower().replace("-", "_")
    word = _PRICING_WORDS.get(key, key.replace("_", " "))
    text = (term or "").strip()
    if not text or text.lower() in ("not stated", word, key.replace("_", " ")):
        return word
    found = _TERM.fullmatch(text)
    if found and key == "committed":
        unit = {"yr": "year"}.get(found.group(2).lower(), found.group(2).lower())
        return f"{found.group(1)}-{unit} committed"
    if found:
        n, unit = int(found.group(1)), {"yr": "year"}.get(found.group(2).lower(), found.group(2).lower())
        return f"{word}, {n} {unit}{'s' if n != 1 else ''}"
    return f"{word} ({text})"


def source_words(url: str | None) -> str:
    """Where a price was read, in words for a link: the upstream file and its repository for a
    file on GitHub (``pricing.yml in Cyclenerd/google-cloud-pricing-cost-calculator``), else the
    page's host and path (``aws.amazon.com/ec2/capacityblocks/pricing``); "source not recorded"
    for none. Never our own data file."""
    text = (url or "").strip()
    if not text:
        return "source not recorded"
    parsed = urlsplit(text)
    parts = [p for p in parsed.path.split("/") if p]
    host = parsed.netloc.removeprefix("www.")
    if host == "github.com" and len(parts) >= 5 and parts[2] in ("blob", "raw"):
        return f"{parts[-1]} in {parts[0]}/{parts[1]}"
    if host == "raw.githubusercontent.com" and len(parts) >= 4:
        return f"{parts[-1]} in {parts[0]}/{parts[1]}"
    return (host + parsed.path.rstrip("/")) or text


__all__ = ["pricing_words", "source_words"]

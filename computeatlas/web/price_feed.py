"""The Atom feed of one accelerator's price changes (``/cloud/prices/{accelerator}/feed``,
a route of :mod:`computeatlas.web.cloud`), read from the observation store."""

from __future__ import annotations

import datetime as dt
import xml.etree.ElementTree as ET
from urllib.parse import quote

from fastapi import Request
from fastapi.responses import Response

from computeatlas.cloud.history import price_changes
from computeatlas.cloud.store import Store
from computeatlas.core.urls import site_path
from computeatlas.web.cloud_params import ACCELERATOR_PATH
from computeatlas.web.page import find_accelerator, settings_of, urls_of
from computeatlas.web.site import ATOM


def price_feed(request: Request, ident: str = ACCELERATOR_PATH) -> Response:
    """The Atom feed of one accelerator's price changes: each offer's first observation and
    each change of its price per accelerator-hour, newest first (read from the store)."""
    acc = find_accelerator(request, ident)
    urls = urls_of(request)
    changes = price_changes(Store(settings_of(request).prices_dir), acc.id)
    page = urls.absolute(site_path("cloud_prices", ident=acc.id))
    feed = ET.Element("feed", xmlns=ATOM)
    ET.SubElement(feed, "title").text = f"Compute Atlas: {acc.name} price changes"
    ET.SubElement(feed, "subtitle").text = (
        "Each entry is an offer first observed, or observed at another price per "
        "accelerator-hour than before; accepted observations only, each with its source."
    )
    ET.SubElement(feed, "id").text = urls.absolute(site_path("cloud_price_feed", ident=acc.id))
    ET.SubElement(feed, "updated").text = (changes[0].collected if changes else dt.datetime(2000, 1, 1, tzinfo=dt.UTC)).isoformat()
    ET.SubElement(feed, "link", rel="self", type="application/atom+xml", href=urls.absolute(site_path("cloud_price_feed", ident=acc.id)))
    ET.SubElement(feed, "link", rel="alternate", type="text/html", href=page)
    ET.SubElement(ET.SubElement(feed, "author"), "name").text = "Compute Atlas"
    for c in changes:
        entry = ET.SubElement(feed, "entry")
        offer = (
            f"{c.provider} {c.instance_type}" + (f" ({c.region})" if c.region else "") + f", {c.pricing}" + (f" {c.term}" if c.term else "")
        )
        price = f"{c.per_accelerator_hour:.4g} {c.currency} per accelerator-hour"
        if c.previous is None:
            title, summary = f"{offer}: {price} (first observed)", f"First observed on {c.collected.date()}: {price}."
        else:
            title = f"{offer}: {c.previous:.4g} → {price}"
            summary = f"{price} on {c.collected.date()}, was {c.previous:.4g} {c.currency} on {c.previous_collected.date() if c.previous_collected else '?'}."
        ET.SubElement(entry, "title").text = title
        ET.SubElement(entry, "id").text = f"{page}#{quote(c.key, safe='')}"
        ET.SubElement(entry, "updated").text = c.collected.isoformat()
        ET.SubElement(entry, "link", rel="alternate", href=page)
        ET.SubElement(entry, "link", rel="via", href=c.source_url)
        ET.SubElement(entry, "category", term=c.pricing)
        ET.SubElement(entry, "summary", type="text").text = f"{summary} Source: {c.source_url} (via {c.via})."
    return Response(ET.tostring(feed, encoding="utf-8", xml_declaration=True), media_type="application/atom+xml")


__all__ = ["price_feed"]

"""How Azure's Retail Prices API names what a meter prices (one place for the collector and
every importer of Azure price sheets).

The API has no column for the pricing kind or the operating system: they are in the names.

- :func:`meter_pricing`: a ``skuName`` (or ``meterName``) ending in "Spot" is a spot price;
  ending in "Low Priority" (Azure's retired Low Priority VMs) a spot price with the term
  ``Low Priority``; anything else pay-as-you-go (on_demand). :func:`base_sku` drops that
  suffix, leaving the size name.
- :func:`licensed`: a ``productName`` whose last word is "Windows" (or Azure's abbreviation
  "Win", as in "Virtual Machines NCCadsv5 Srs Win") includes a Windows licence; importers
  name such a price ``<instance> (Windows)``
  (:data:`~computeatlas.cloud.observations.LICENSED_SUFFIX`), held by ``licence_included``.
"""

from __future__ import annotations

import re

from computeatlas.cloud.observations import LICENSED_SUFFIX, PricingKind

LOW_PRIORITY = "Low Priority"
"""The term of a spot price sold as one of Azure's (retired) Low Priority VMs."""

_SUFFIX = re.compile(r"\s+(Spot|Low Priority)$")


def meter_pricing(name: str) -> tuple[PricingKind, str]:
    """The pricing kind and term a ``skuName`` or ``meterName`` states.

    >>> meter_pricing("ND96isrH100v5 Spot"), meter_pricing("NC6 Low Priority"), meter_pricing("NC6")
    ((<PricingKind.SPOT: 'spot'>, ''), (<PricingKind.SPOT: 'spot'>, 'Low Priority'), (<PricingKind.ON_DEMAND: 'on_demand'>, ''))
    """
    name = name.strip()
    if name.endswith("Spot"):
        return PricingKind.SPOT, ""
    if name.endswith(LOW_PRIORITY):
        return PricingKind.SPOT, LOW_PRIORITY
    return PricingKind.ON_DEMAND, ""


def base_sku(name: str) -> str:
    """The size name without the " Spot" / " Low Priority" suffix (``"NC6 Low Priority"`` → ``"NC6"``)."""
    return _SUFFIX.sub("", name.strip())


def sku_key(name: str) -> str:
    """An Azure size name folded for matching: case, a leading ``Standard_``, spaces, underscores
    and hyphens ignored. The Retail Prices API writes one size as ``armSkuName``
    ``Standard_ND96isr_H100_v5`` and as ``skuName`` ``ND96isrH100v5``: both fold to
    ``nd96isrh100v5``. Letters and digits are never changed, so ``ND96amsA100v4`` does not
    fold to ``Standard_ND96amsr_A100_v4``.

    >>> sku_key("Standard_ND96isr_H100_v5") == sku_key("ND96isrH100v5") == sku_key("ND96isr H100 v5")
    True
    """
    return re.sub(r"[\s_-]+", "", re.sub(r"^standard_", "", name.strip().casefold()))


def licensed(product: str) -> bool:
    """True when ``product`` (a ``productName``) is a Windows product, its price including the licence."""
    words = product.split()
    return bool(words) and words[-1] in ("Windows", "Win")


def licensed_name(name: str, product: str) -> str:
    """``name`` with :data:`~computeatlas.cloud.observations.LICENSED_SUFFIX` when ``product`` is a Windows product."""
    return name + LICENSED_SUFFIX if licensed(product) else name


__all__ = ["LOW_PRIORITY", "base_sku", "licensed", "licensed_name", "meter_pricing", "sku_key"]

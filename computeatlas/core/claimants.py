"""Who makes a claim: the claimant's interest, the reason to read its figure as a claim.

Energy figures (:mod:`computeatlas.energy.records`) and economics claims
(:mod:`computeatlas.economics.claims`) both record what their claimant sells.
"""

from __future__ import annotations

from enum import StrEnum


class Interest(StrEnum):
    """What the party making a claim sells: the reason to read its figure as a claim."""

    CHIP_VENDOR = "chip vendor"
    CLOUD = "cloud"
    INDEPENDENT = "independent"
    MODEL_PROVIDER = "model provider"
    UTILITY = "utility"
    GOVERNMENT = "government"
    INDUSTRY_GROUP = "industry group"


__all__ = ["Interest"]

"""Link bandwidths: what a figure counts (one direction, both, or not said) and how one is written in words."""

from __future__ import annotations

import re
from enum import StrEnum


class LinkDirection(StrEnum):
    """What a link bandwidth counts, as its source says: one direction, both directions
    added together, or not said. Figures counted differently are never compared."""

    PER_DIRECTION = "per_direction"
    BIDIRECTIONAL = "bidirectional"
    NOT_STATED = "not_stated"

    @property
    def label(self) -> str:
        """Words for pages and CSV cells: "per direction", "bidirectional", "direction not stated"."""
        return "direction not stated" if self is LinkDirection.NOT_STATED else self.value.replace("_", " ")


LINK_BANDWIDTH = re.compile(r"\d[\d,.]*\s*(?:[kMGTP]i?)?(?:B|b|bit)/s|\d[\d,.]*\s*[kMGTP]?bps\b")
"""A bandwidth written in words ("900 GB/s", "400 Gb/s", "1.6 Tbps"); transfer rates (GT/s) are not bandwidths."""


__all__ = ["LINK_BANDWIDTH", "LinkDirection"]

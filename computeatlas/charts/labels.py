"""Label placement for chart marks: one label per mark, beside it, without overlaps.

Vega's own label transform needs a canvas, which vl-convert does not have, so positions
are computed here in pixels from fixed axis domains and handed to the chart in data
units. Labels that cannot sit next to their mark move out in rings, joined to it by a
leader line; when no spot is free the least crowded one is taken, so every mark keeps a
label.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

WIDTH, HEIGHT = 600, 420
"""Plot area in pixels; the SVG scales with its container (it has a viewBox)."""
CHAR_WIDTH, LABEL_HEIGHT, GAP = 6.6, 13.0, 7.0
"""Label metrics at 11 px: an average character's width, a line's height, the gap to a mark."""


def label_text(label: str) -> str:
    """A label without its parenthetical ("Gaudi 3 (HL-325L OAM)" → "Gaudi 3")."""
    return label.split(" (", 1)[0].strip() or label


def domain(values: list[float], log: bool) -> tuple[float, float]:
    """Axis domain with a margin: ×/÷ 1.6 on a log scale, 8 % of the range on a linear one."""
    if not values:
        return (1.0, 10.0) if log else (0.0, 1.0)
    low, high = min(values), max(values)
    if log:
        return low / 1.6, high * 1.6
    pad = (high - low) * 0.08 or abs(high) * 0.1 or 1.0
    return low - pad, high + pad


def place(
    points: Sequence[tuple[float, float, str]],
    xd: tuple[float, float],
    yd: tuple[float, float],
    log: bool,
    width: float = WIDTH,
    height: float = HEIGHT,
) -> list[dict[str, Any]]:
    """One label per mark for ``points`` (x, y, label) in data units; coincident points share a mark and a label.

    Positions are computed in pixels from the fixed domains, trying eight spots around the
    mark at growing distances (a leader line joins mark and label beyond the first ring);
    the least-overlapping spot wins when none is free. Returned rows hold data coordinates.
    """

    def to_px(value: float, domain: tuple[float, float], size: float, flip: bool) -> float:
        lo, hi = domain
        frac = (math.log10(value) - math.log10(lo)) / (math.log10(hi) - math.log10(lo)) if log else (value - lo) / (hi - lo)
        return size - frac * size if flip else frac * size

    def to_data(px: float, domain: tuple[float, float], size: float, flip: bool) -> float:
        frac = (size - px) / size if flip else px / size
        lo, hi = domain
        if log:
            return 10 ** (math.log10(lo) + frac * (math.log10(hi) - math.log10(lo)))
        return lo + frac * (hi - lo)

    groups: dict[tuple[float, float], list[str]] = {}
    for x, y, label in points:
        groups.setdefault((x, y), []).append(label)
    marks = [(to_px(x, xd, width, False), to_px(y, yd, height, True), (x, y), names) for (x, y), names in groups.items()]
    taken = _Grid()
    for mx, my, _, _ in marks:
        taken.add((mx - 5, my - 5, mx + 5, my + 5))
    crowd = _Grid()
    for mx, my, _, _ in marks:
        crowd.add((mx, my, mx, my))

    rows = []
    # Crowded marks first, so they get the nearest spots.
    order = sorted(marks, key=lambda m: -len(crowd.near((m[0] - 60, m[1] - 30, m[0] + 60, m[1] + 30))))
    for mx, my, (x, y), labels in order:
        names = [label_text(n) for n in labels]
        text = " / ".join(names) if len(names) <= 3 else f"{' / '.join(names[:2])} and {len(names) - 2} more"
        w, h = len(text) * CHAR_WIDTH, LABEL_HEIGHT
        best: tuple[float, tuple[float, float, float, float], int] | None = None
        for ring in (0, 1, 2, 3):
            d = GAP + ring * 12
            spots = [
                (mx + d, my),
                (mx - d - w, my),
                (mx - w / 2, my - d - h / 2),
                (mx - w / 2, my + d + h / 2),
                (mx + d, my - d),
                (mx + d, my + d),
                (mx - d - w, my - d),
                (mx - d - w, my + d),
            ]
            for left, mid in spots:
                box = (left, mid - h / 2, left + w, mid + h / 2)
                cost = sum(overlap(box, b) for b in taken.near(box))
                if box[0] < 0 or box[2] > width or box[1] < 0 or box[3] > height:
                    cost += 10_000
                cost += ring * 0.5
                if best is None or cost < best[0]:
                    best = (cost, box, ring)
            if best is not None and best[0] < 1:
                break
        assert best is not None
        _, box, ring = best
        taken.add(box)
        lx, ly = box[0], (box[1] + box[3]) / 2
        # The leader line ends at the label's nearest edge.
        ex = min(max(mx, box[0]), box[2])
        rows.append(
            {
                "text": text,
                "lx": to_data(lx, xd, width, False),
                "ly": to_data(ly, yd, height, True),
                "x": x,
                "y": y,
                "ex": to_data(ex, xd, width, False),
                "ey": to_data(ly, yd, height, True),
                "leader": ring > 0,
            }
        )
    return rows


Box = tuple[float, float, float, float]


def overlap(a: Box, b: Box) -> float:
    """Area shared by two boxes (left, top, right, bottom), in square pixels."""
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    return w * h if w > 0 and h > 0 else 0.0


class _Grid:
    """Boxes bucketed by 40-pixel cells, so finding a box's neighbours does not scan them all."""

    CELL = 40.0

    def __init__(self) -> None:
        self.cells: dict[tuple[int, int], list[Box]] = {}

    def _keys(self, box: Box) -> list[tuple[int, int]]:
        c = self.CELL
        return [
            (i, j)
            for i in range(math.floor(box[0] / c), math.floor(box[2] / c) + 1)
            for j in range(math.floor(box[1] / c), math.floor(box[3] / c) + 1)
        ]

    def add(self, box: Box) -> None:
        for key in self._keys(box):
            self.cells.setdefault(key, []).append(box)

    def near(self, box: Box) -> list[Box]:
        """Every stored box sharing a cell with ``box``, once."""
        seen: dict[int, Box] = {}
        for key in self._keys(box):
            for other in self.cells.get(key, ()):
                seen[id(other)] = other
        return list(seen.values())


__all__ = ["CHAR_WIDTH", "HEIGHT", "LABEL_HEIGHT", "WIDTH", "domain", "label_text", "overlap", "place"]

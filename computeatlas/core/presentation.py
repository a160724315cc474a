"""The presentation rule: what a person sees for a claim or an offer, decided here only.

Every output (page, API, table, CSV and the other exports, charts, comparisons, derived
figures) asks this module how to show a figure; none decides it itself.

A figure's state is one :class:`~computeatlas.core.states.State` (code and label); as shown,
a spec takes one of :data:`~computeatlas.core.states.SPEC_STATES`. Two marks may sit on any
of them: *derived* (with the state of its weakest input) and *disputed*. A price observation
carries marks from :data:`~computeatlas.core.states.PRICE_MARKS` (stale, held, variant not
stated, not separable, derived from a monthly or weekly term).

The rule, in one place (:func:`present`):

- no claim at all → *not yet collected* (nobody has looked);
- a published claim with a number → *published*: the figure as the source wrote it
  (``stated``), and, when it is per accelerator (chip or package), its ``amount`` in the
  canonical unit, the only thing any output compares, plots, sorts or divides;
- a published claim with words only where a number belongs (power "Up to 700 W (board)")
  → *published as text*: shown as those words everywhere, never as a number and never as
  missing. The text of an interconnect or a software stack *is* the spec (published); the
  interconnect's bandwidth, when the record has no figure for it, is *not yet collected*;
- a sparse figure the record does not hold → *not yet collected* (never "not published":
  the record says nothing about whether the vendor publishes one);
- every other state shows its own words; a *not comparable* claim keeps the vendor's words.

Numbers are rounded once (:func:`plain`: 12 significant digits, an integer when whole);
FLOP/s against OP/s is decided once (:func:`compute_unit`: integer formats count OP/s).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from decimal import Decimal
from urllib.parse import urlsplit

from pydantic import BaseModel, Field

from computeatlas.core.claims import (
    Claim,
    ComputeSpec,
    LinkDirection,
    LinkSpec,
    NumberFormat,
    TextDetail,
    TextSpec,
)
from computeatlas.core.states import DERIVED_LABEL, SPEC_STATES, State

STATE_WORDS: tuple[str, ...] = tuple(s.label for s in SPEC_STATES)
"""Every word a spec's state cell may hold, in :data:`~computeatlas.core.states.SPEC_STATES` order."""


WEAKEST_FIRST: tuple[State, ...] = (
    State.NOT_APPLICABLE,
    State.NOT_PUBLISHED,
    State.NOT_COMPARABLE,
    State.PUBLISHED_AS_TEXT,
    State.NOT_SOURCED,
    State.NOT_COLLECTED,
    State.PUBLISHED,
)
"""Which input decides a derived figure's state: the first of these among its inputs
without a number (the hardware has no such thing, before the vendor withholds it, before
another basis, before words only, before our own gaps)."""

# --- units and numbers ----------------------------------------------------------------


def compute_unit(fmt: NumberFormat) -> str:
    """Canonical unit of compute at ``fmt``: ``"OP/s"`` for integer formats (INT8, INT4), else ``"FLOP/s"``."""
    return "OP/s" if fmt.is_integer else "FLOP/s"


def operations(fmt: NumberFormat) -> str:
    """What compute at ``fmt`` counts: ``"OP"`` for integer formats, else ``"FLOP"``."""
    return "OP" if fmt.is_integer else "FLOP"


def tera_unit(fmt: NumberFormat) -> str:
    """Display unit of compute at ``fmt`` in tables and charts: ``"TOPS"`` or ``"TFLOPS"``."""
    return "TOPS" if fmt.is_integer else "TFLOPS"


CANONICAL_UNITS = {"memory": "B", "memory_bandwidth": "B/s", "power": "W", "interconnect": "B/s"}
"""Canonical unit of each spec's amount (compute: :func:`compute_unit`)."""


def canonical_unit(key: str) -> str | None:
    """Canonical unit of the spec at field path ``key`` (``"memory"``, ``"compute.INT8"``)."""
    if key.startswith("compute."):
        return compute_unit(NumberFormat(key.split(".", 1)[1]))
    return CANONICAL_UNITS.get(key)


def plain(number: float) -> int | float:
    """A figure rounded once for every output: 12 significant digits (no float noise), an int when whole."""
    rounded = float(f"{number:.12g}")
    return int(rounded) if rounded.is_integer() and abs(rounded) < 1e15 else rounded


def plain_text(number: int | float) -> str:
    """A number as text without exponent or thousands separator: ``1e-05`` → ``"0.00001"``."""
    if isinstance(number, int):
        return str(number)
    text = format(Decimal(repr(number)), "f")
    return text.rstrip("0").rstrip(".") if "." in text else text


def page_text(number: float, stated: str | None = None, unit: str | None = None) -> str:
    """A number as a table cell on a page shows it (the exports keep :func:`plain`).

    ``number`` is the figure in the column's display ``unit``. Where the source ``stated``
    it in that unit or another decimal prefix of it (``7380 GB/s`` in a TB/s column), the
    number is exact and shown whole with thousands separators (``"7.38"``, ``"3,958"``);
    otherwise it is a conversion (``144 GiB`` in GB) and has three significant figures
    (``"155"``; the cell shows the stated figure first, see :func:`stated_in_other_unit`).
    """
    if stated is not None and unit is not None and stated_in_other_unit(stated, unit):
        return sig3(float(number))
    return grouped(number)


def in_row_unit(amount: float, scale: float, unit: str, stated: str | None) -> tuple[str, str | None]:
    """A figure in a comparison row whose one unit is ``unit`` (``scale`` canonical units
    each): ``(display, secondary)``. A figure stated in ``unit`` or another decimal prefix
    of it is shown exactly in ``unit`` (``7380 GB/s`` → ``"7.38 TB/s"``, ``4.5 PFLOPS`` →
    ``"4,500 TFLOPS"``); one stated otherwise keeps its words first (``"144 GiB"``) with the
    conversion second (``"= 155 GB"``)."""
    number = amount / scale
    if stated and stated_in_other_unit(stated, unit):
        return figure_text(stated), f"= {sig3(number)} {unit}"
    return f"{grouped(number)} {unit}", None


_DECIMAL = ("", "k", "M", "G", "T", "P", "E")


def stated_in_other_unit(stated: str, unit: str) -> bool:
    """True when ``stated`` (``"144 GiB"``) is not in ``unit`` or a decimal prefix of it
    (``"GB"``): converting it to ``unit`` changes its digits (a binary prefix, another unit)."""
    _, _, written = stated.strip().partition(" ")
    written = written.strip()
    if not written or written == unit:
        return False
    bases = {unit[len(p) :] for p in _DECIMAL if p and unit.startswith(p)} | {unit}
    if unit.endswith(("FLOPS", "OPS")):
        bases |= {"FLOPS" if unit.endswith("FLOPS") else "OPS"}
    return not any(written == p + b for p in _DECIMAL for b in bases)


# --- numbers as people read them on pages ----------------------------------------------
#
# One rule for every page (never for CSV or the other exports, which keep :func:`plain`):
# a published figure is shown exactly as its source states it, in its unit and prefix, with
# thousands separators (:func:`figure_text`: "3958 TFLOPS" → "3,958 TFLOPS", "144 GiB" stays
# "144 GiB"); a conversion or a derived figure has three significant figures
# (:func:`sig3`); a ratio names the larger side ("1.83× higher", :func:`ratio_words`).

_NUMBER = re.compile(r"(?<![\w.,])(\d+)(\.\d+)?(?:e(\d+))?(?![\w.,])")
_POWERS = {9: "billion", 12: "trillion", 6: "million"}


def grouped(number: float) -> str:
    """``number`` (rounded once by :func:`plain`) with thousands separators: ``20000`` → ``"20,000"``, ``2614.9`` → ``"2,614.9"``."""
    text = plain_text(plain(number) if isinstance(number, float) else number)
    sign, text = ("-", text[1:]) if text.startswith("-") else ("", text)
    whole, dot, fraction = text.partition(".")
    return f"{sign}{int(whole):,}{dot}{fraction}"


def sig3(number: float) -> str:
    """A converted or derived figure: three significant figures, thousands separators, no
    exponent (``154.618822656`` → ``"155"``, ``34.3597`` → ``"34.4"``, ``0.54612`` → ``"0.546"``,
    ``12345.6`` → ``"12,300"``)."""
    if number == 0:
        return "0"
    return grouped(float(f"{number:.3g}"))


_PREFIXES = ((1e18, "E"), (1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"), (1.0, ""))


def prefixed(amount: float, unit: str) -> str:
    """A derived amount of a base ``unit`` with a decimal prefix, three significant figures:
    ``prefixed(2.827e12, "FLOP/s per W")`` → ``"2.83 TFLOP/s per W"``."""
    for scale, prefix in _PREFIXES:
        if abs(amount) >= scale:
            return f"{sig3(amount / scale)} {prefix}{unit}"
    return f"{sig3(amount)} {unit}"


def figure_text(stated: str) -> str:
    """A figure as its source wrote it, made readable and nothing else: thousands separators
    in its numbers and a power of ten in words (``"3958 TFLOPS"`` → ``"3,958 TFLOPS"``,
    ``"80e9"`` → ``"80 billion"``); the unit and prefix stay as written (``"144 GiB"``)."""

    def one(match: re.Match[str]) -> str:
        whole, fraction, exponent = match.group(1), match.group(2) or "", match.group(3)
        if exponent is not None:
            words = _POWERS.get(int(exponent))
            if words is None:
                return match.group(0)
            return f"{grouped(float(whole + fraction))} {words}"
        return f"{int(whole):,}{fraction}"

    return _NUMBER.sub(one, stated)


def ratio_words(first: str, a: float, second: str, b: float) -> str:
    """How two positive figures compare, the larger side named: ``"B200: 2.27× higher than H100"``
    (three significant figures; ``"the same"`` when equal at that precision)."""
    if a <= 0 or b <= 0:
        raise ValueError("a ratio needs two positive figures")
    big, small, ratio = (first, second, a / b) if a >= b else (second, first, b / a)
    if f"{ratio:.3g}" == "1":
        return f"{first} and {second}: the same"
    return f"{big}: {sig3(ratio)}× higher than {small}"


def ratio_text(ratio: float) -> str:
    """A ratio of one cell to a reference as "N× higher" or "N× lower" (never a fraction
    below one): ``1.83`` → ``"1.83× higher"``, ``0.546`` → ``"1.83× lower"``, ``1`` → ``"same"``."""
    if ratio <= 0:
        raise ValueError("a ratio needs two positive figures")
    if f"{ratio:.3g}" == "1" or f"{1 / ratio:.3g}" == "1":
        return "same"
    return f"{sig3(ratio)}× higher" if ratio > 1 else f"{sig3(1 / ratio)}× lower"


def same_figure_other_unit(a: str | None, b: str | None) -> bool:
    """True when two stated figures are one number whose units differ only by a binary
    prefix's "i" (``"144 GiB"`` and ``"144 GB"``): one figure written in two units, not a
    disagreement a buyer has to weigh."""
    if not a or not b:
        return False
    na, _, ua = a.strip().partition(" ")
    nb, _, ub = b.strip().partition(" ")
    return na == nb and ua != ub and ua.replace("i", "") == ub.replace("i", "")


def dispute_to_weigh(claim: Claim | None, source_kinds: Mapping[str, str]) -> bool:
    """Whether a table shows ``claim`` as *disputed*: another source disagrees and the
    disagreement is one a buyer must weigh — the maker against the maker (two vendor
    sources), or no maker source behind the primary figure. A press or third-party figure
    against the maker's own, or one figure in two units (:func:`same_figure_other_unit`),
    is a note on the record page, not a badge. ``source_kinds`` maps the record's source
    keys to their kind (``"vendor"``, ``"press"`` …)."""
    if claim is None or not claim.disputed:
        return False
    others = [o for o in claim.other_claims if not same_figure_other_unit(claim.value, o.value)]
    if not others:
        return False
    if source_kinds.get(claim.source or "") != "vendor":
        return True
    return any(source_kinds.get(o.source) == "vendor" for o in others)


# --- what a person sees ---------------------------------------------------------------


class Presented(BaseModel):
    """One figure as every output shows it.

    ``amount`` (canonical unit ``unit``) is set only for a published per-accelerator number:
    the only value that is compared, plotted, sorted, filtered or divided. ``display`` is
    what a person reads (the figure as written, the published words, or the state's words);
    ``stated`` is what the source wrote (figure with its unit, or its words).
    """

    state: State
    display: str
    amount: float | None = Field(None, description="the figure in the canonical unit; only for per-accelerator figures")
    unit: str | None = Field(None, description="canonical unit of amount: B, B/s, FLOP/s, OP/s, W")
    stated: str | None = Field(None, description="the figure or words as the source wrote them")
    basis: str | None = None
    reason: str | None = Field(None, description="why there is no number, in words")
    derived: bool = Field(False, description="computed from other figures; the state is that of its weakest input")
    disputed: bool = Field(False, description="another source makes a different claim")

    @property
    def label(self) -> str:
        """The state in words; a derived figure from published inputs reads "derived from published figures"."""
        if self.derived and self.state is State.PUBLISHED:
            return DERIVED_LABEL
        return self.state.label

    @property
    def comparable(self) -> bool:
        """True when there is a per-accelerator number to compare."""
        return self.amount is not None

    def scaled(self, scale: float) -> int | float | None:
        """The amount in a display unit (``scale`` canonical units per display unit), rounded once."""
        return plain(self.amount / scale) if self.amount is not None else None


def _words_are_the_spec(claim: Claim) -> bool:
    """True for specs whose text is the spec itself (a software stack, a process node)."""
    return isinstance(claim, (TextSpec, TextDetail)) or claim.dimension is None


def why(state: State, claim: Claim | None) -> str:
    """Why a figure has no number to compare, in words (the part after "power: ")."""
    if state is State.PUBLISHED_AS_TEXT and claim is not None:
        return f"published as text (“{claim.text}”)"
    if state is State.NOT_COMPARABLE and claim is not None:
        if claim.basis is not None and not claim.basis.per_accelerator:
            return f"not comparable (stated per {claim.basis.value})"
        if isinstance(claim, ComputeSpec):  # stated per accelerator, but not as a dense rate
            words = claim.published_text or ""
            words = words if len(words) <= 90 else words[:89].rstrip() + "…"
            return (
                f"not comparable (no dense figure stated; the source says “{words}”)"
                if words
                else "not comparable (no dense figure stated)"
            )
        return "not comparable (not stated as a per-accelerator figure we can compare)"
    if state is State.PUBLISHED and claim is not None and claim.basis is not None and not claim.basis.per_accelerator:
        return f"published per {claim.basis.value}, not per accelerator"
    return state.label


def _reason(state: State, claim: Claim | None, what: str) -> str:
    return f"{what}: {why(state, claim)}"


def present(claim: Claim | None, *, unit: str | None = None, what: str = "the figure", figure: bool = False) -> Presented:
    """What every output shows for ``claim`` (None: nobody collected it).

    ``unit`` is the canonical unit of the amount (see :func:`canonical_unit`); ``what``
    names the figure in reasons ("power"). With ``figure=True`` the claim is read as a
    number column: an interconnect named in words without a bandwidth figure is then
    *not yet collected* rather than published.
    """
    if claim is None:
        return Presented(state=State.NOT_COLLECTED, display=State.NOT_COLLECTED.label, reason=f"{what}: not yet collected")
    disputed = claim.disputed
    basis = claim.basis.value if claim.basis else None
    if claim.state is State.PUBLISHED:
        fig = claim.figure
        if fig is not None:
            per_accelerator = bool(claim.basis and claim.basis.per_accelerator)
            parts = [figure_text(claim.value)] if claim.value else []
            if isinstance(claim, LinkSpec) and claim.direction is not None and parts:
                parts[-1] += f" ({claim.direction.label})"
            if claim.text and not figure:
                parts.insert(0, claim.text)
            return Presented(
                state=State.PUBLISHED,
                display=" · ".join(parts),
                amount=fig.amount if per_accelerator else None,
                unit=unit if per_accelerator else None,
                stated=claim.value,
                basis=basis,
                reason=None if per_accelerator else _reason(State.PUBLISHED, claim, what),
                disputed=disputed,
            )
        if isinstance(claim, LinkSpec) and figure:
            return Presented(
                state=State.NOT_COLLECTED,
                display=State.NOT_COLLECTED.label,
                basis=basis,
                reason=f"{what}: not yet collected (the record names the link, “{claim.text}”, without a figure)",
                disputed=disputed,
            )
        if claim.text and (_words_are_the_spec(claim) or isinstance(claim, LinkSpec)):
            return Presented(state=State.PUBLISHED, display=claim.text, stated=claim.text, basis=basis, disputed=disputed)
        state = State.PUBLISHED_AS_TEXT
        return Presented(
            state=state,
            display=claim.text or state.label,
            stated=claim.text,
            basis=basis,
            reason=_reason(state, claim, what),
            disputed=disputed,
        )
    state = claim.state
    return Presented(
        state=state,
        display=state.label,
        stated=claim.published_text if state is State.NOT_COMPARABLE else None,
        basis=basis,
        reason=_reason(state, claim, what),
        disputed=disputed,
    )


def present_sparse(claim: ComputeSpec | None, *, unit: str | None = None, what: str = "the sparse figure") -> Presented:
    """The structured-sparsity figure beside a dense one.

    A published sparse figure per accelerator is a number. Where the dense figure is
    published but the record holds no sparse figure, the sparse figure is *not yet
    collected* (the record does not say the vendor withholds it). Where the dense figure
    is itself a state (not applicable, not published, not comparable …), the sparse figure
    carries that state.
    """
    if claim is None or claim.sparse_figure is None:
        dense = present(claim, unit=unit, what=what, figure=True)
        if claim is None or dense.state in (State.PUBLISHED, State.PUBLISHED_AS_TEXT):
            return Presented(state=State.NOT_COLLECTED, display=State.NOT_COLLECTED.label, reason=f"{what}: not yet collected")
        return dense.model_copy(update={"stated": None})
    per_accelerator = bool(claim.basis and claim.basis.per_accelerator)
    return Presented(
        state=State.PUBLISHED,
        display=f"{figure_text(claim.sparse or '')} with {claim.sparse_pattern} sparsity",
        amount=claim.sparse_figure.amount if per_accelerator else None,
        unit=unit if per_accelerator else None,
        stated=claim.sparse,
        basis=claim.basis.value if claim.basis else None,
        disputed=claim.disputed,
    )


def present_link(claim: LinkSpec | None, direction: LinkDirection, *, what: str = "interconnect bandwidth") -> Presented:
    """The link bandwidth as a number column that holds one counting convention only
    (``direction``): a figure counted another way is *not comparable* there, with a reason
    naming how it is counted; a state (not published, not yet collected …) is the claim's."""
    shown = present(claim, unit="B/s", what=what, figure=True)
    if claim is None or claim.direction is None or claim.direction is direction or shown.state is not State.PUBLISHED:
        return shown
    return Presented(
        state=State.NOT_COMPARABLE,
        display=State.NOT_COMPARABLE.label,
        basis=shown.basis,
        disputed=shown.disputed,
        reason=f"{what}: not comparable (the source counts it {claim.direction.label}, not {direction.label})",
    )


def weakest(states: Iterable[State]) -> State:
    """The state a derived figure takes from its inputs' states (see :data:`WEAKEST_FIRST`)."""
    given = set(states)
    return next((s for s in WEAKEST_FIRST if s in given), State.PUBLISHED)


def present_derived(inputs: Iterable[Presented], value: float | None, unit: str, display: str | None = None) -> Presented:
    """A derived figure: ``value`` (in ``unit``) when every input has a number, else the
    state of the weakest input, its reason, and no value."""
    given = list(inputs)
    missing = [i for i in given if i.amount is None]
    if not missing and value is not None:
        return Presented(state=State.PUBLISHED, display=display or f"{plain(value)} {unit}", amount=value, unit=unit,
                         derived=True, disputed=any(i.disputed for i in given))  # fmt: skip

    def effective(i: Presented) -> State:
        return State.NOT_COMPARABLE if i.state is State.PUBLISHED else i.state  # published, but not per accelerator

    state = weakest(effective(i) for i in missing) if missing else State.NOT_COLLECTED
    reasons = [i.reason for i in missing if i.reason and effective(i) is state]
    return Presented(state=state, display=state.label, reason="; ".join(reasons) or None, derived=True)


# --- offers ---------------------------------------------------------------------------


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


__all__ = [
    "CANONICAL_UNITS",
    "DERIVED_LABEL",
    "STATE_WORDS",
    "WEAKEST_FIRST",
    "Presented",
    "State",
    "canonical_unit",
    "compute_unit",
    "dispute_to_weigh",
    "figure_text",
    "grouped",
    "in_row_unit",
    "operations",
    "page_text",
    "plain",
    "plain_text",
    "prefixed",
    "present",
    "present_derived",
    "present_link",
    "present_sparse",
    "pricing_words",
    "ratio_text",
    "ratio_words",
    "same_figure_other_unit",
    "sig3",
    "source_words",
    "stated_in_other_unit",
    "tera_unit",
    "weakest",
    "why",
]

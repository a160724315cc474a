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
- every other state shows its own words; a *not comparable* claim keeps the vendor's words;
- where the maker prints only a sparse figure and an independent source states the dense one
  in so many words (``independent_dense``), the figure is compared like any other but always
  carries who states it: "989 TFLOPS (from Yobitel, not from NVIDIA)", in ``display``,
  ``stated`` and ``attribution``.

Numbers and units are decided in :mod:`computeatlas.core.numbers` (rounded once, FLOP/s
against OP/s once) and offers in words in :mod:`computeatlas.core.offer_words`; import
their names from there.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from pydantic import BaseModel, Field

from computeatlas.core.claims import Claim, ComputeSpec, LinkSpec, PowerSpec, TextDetail, TextSpec
from computeatlas.core.links import LinkDirection
from computeatlas.core.numbers import (
    figure_text,
    plain,
    same_figure_other_unit,
)
from computeatlas.core.provenance import CopyForm, read_from
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


def where_read(url: str, copy_form: CopyForm | str | None) -> str | None:
    """How every output says a source was read from a copy: ``"read from an unofficial
    conversion at github.com/kuhar"`` (a converted copy, which may carry transcription
    errors) or ``"read from a copy at sgpjbg.com"`` (verbatim); None for a document read where
    its author publishes it."""
    if copy_form is None:
        return None
    form = CopyForm(copy_form)
    where = read_from(url)
    return f"read from an unofficial conversion at {where}" if form is CopyForm.CONVERSION else f"read from a copy at {where}"


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
    stated_amount: float | None = Field(
        None, description="a published number in the canonical unit on the basis it is stated on (per rack too), for the record's own page"
    )
    basis: str | None = None
    reason: str | None = Field(None, description="why there is no number, in words")
    derived: bool = Field(False, description="computed from other figures; the state is that of its weakest input")
    disputed: bool = Field(False, description="another source makes a different claim")
    attribution: str | None = Field(
        None, description="a dense figure the maker does not print, stated by an independent source: 'from Yobitel, not from NVIDIA'"
    )

    @property
    def label(self) -> str:
        """The state in words; a derived figure from published inputs reads "derived from published figures"."""
        if self.derived and self.state is State.PUBLISHED:
            return DERIVED_LABEL
        return self.state.label

    @property
    def record_display(self) -> str:
        """What the record's own page, API and CLI show: :attr:`display`, except that a *not
        comparable* figure names the basis it is stated on (``"not comparable per accelerator (pod)"``)."""
        if self.state is State.NOT_COMPARABLE and not self.derived:
            return f"not comparable per accelerator ({self.basis or 'other basis'})"
        return self.display

    @property
    def total_display(self) -> str:
        """A figure as a total on its own basis, as a system page shows it: the stated figure
        and its basis (``"132 kW per rack"``); a *not comparable* one with its basis and the
        vendor's words; otherwise :attr:`display` (words, or the state in words)."""
        if self.stated_amount is not None:
            return f"{self.stated} per {self.basis}" if self.basis else str(self.stated)
        if self.state is State.NOT_COMPARABLE and not self.derived:
            return f"not comparable ({self.basis or 'other basis'}): {self.stated}"
        return self.display

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
            measured = isinstance(claim, PowerSpec) and claim.measured
            per_accelerator = bool(claim.basis and claim.basis.per_accelerator) and not measured
            parts = [figure_text(claim.value)] if claim.value else []
            if isinstance(claim, LinkSpec) and claim.direction is not None and parts:
                parts[-1] += f" ({claim.direction.label})"
            if measured and parts:
                parts[-1] += " (measured, not a TDP)"
            if claim.text and not figure:
                parts.insert(0, claim.text)
            credit = claim.attribution if isinstance(claim, ComputeSpec) else None
            if credit and parts:  # the maker prints only a sparse figure: an independent source's dense one, said so
                parts[-1] += f" ({credit})"
            return Presented(
                state=State.PUBLISHED,
                display=" · ".join(parts),
                amount=fig.amount if per_accelerator else None,
                unit=unit if per_accelerator else None,
                stated=f"{claim.value} ({credit})" if credit else claim.value,
                attribution=credit,
                stated_amount=fig.amount,
                basis=basis,
                reason=f"{what}: a measured power, not a rating, so never divided as a TDP"
                if measured
                else None
                if per_accelerator
                else _reason(State.PUBLISHED, claim, what),
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
        stated_amount=claim.sparse_figure.amount,
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


__all__ = [
    "STATE_WORDS",
    "WEAKEST_FIRST",
    "Presented",
    "dispute_to_weigh",
    "present",
    "present_derived",
    "present_link",
    "present_sparse",
    "weakest",
    "why",
]

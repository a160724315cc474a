"""The rules of one imported row's own cells: its placement through the instance table
(``unplaced``, ``count_mismatch``), its stated memory (``memory_mismatch``) and its stated
per-accelerator figure (``per_accelerator_mismatch``); what each rule means is
:data:`computeatlas.cloud.rules.RULES`, the order they are applied in
:func:`computeatlas.cloud.rules.apply`.
"""

from __future__ import annotations

from typing import Any

from computeatlas.cloud.instances import InstanceTable
from computeatlas.cloud.observations import Observation, PriceBasis

_set = object.__setattr__  # completes a row no one else holds (a frozen model refuses setattr)


def place(obs: Observation, table: InstanceTable, fresh: bool = False, memo: dict[Any, Any] | None = None) -> Observation:
    """The row placed through ``table`` (accelerator, variant, count, billing), or held as
    ``unplaced``; the variant is the row's own, or the part's only one
    (:meth:`~computeatlas.cloud.instances.InstanceTable.variant`); held as ``count_mismatch`` when the source states another accelerator
    count than the table's. A row that already carries an accelerator (a hand-checked
    offer) keeps it. ``fresh``: ``obs`` was made for this call alone and no one else holds
    it, so it is placed in place instead of copied. ``memo`` (a dict kept by the caller for
    the rows of one call, with ``table`` unchanged) keeps each instance name's row and placement."""
    if obs.accelerator:
        return obs
    name = (obs.provider, obs.instance_type)
    found = memo.get(name) if memo is not None else None
    if found is None:
        row = table.find(obs.provider, obs.base_instance)
        found = (
            row,
            None
            if row is None
            else {
                "accelerator": row.accelerator,
                "variant": table.variant(row),
                "accelerators": row.accelerators,
                "billing": row.billing.value,
            },
        )
        if memo is not None:
            memo[name] = found  # the table never changes during the call: a name's row and placement stay
    row, decided = found
    if row is None or decided is None:
        return obs.held("unplaced", f"unknown instance type {obs.base_instance!r} at provider {obs.provider!r}")
    if fresh:
        placed = complete(obs, decided, memo)
    else:
        placed = obs.replaced(**decided)
    if obs.stated_accelerators is not None and obs.stated_accelerators != row.accelerators:
        return placed.held(
            "count_mismatch",
            f"the source states {obs.stated_accelerators} accelerator(s) per instance; our instance "
            f"table has {row.accelerators} for {obs.base_instance!r} at {obs.provider!r}",
        )
    return placed


def complete(obs: Observation, changes: dict[str, object], memo: dict[Any, Any] | None) -> Observation:
    """``obs`` (a row no one else holds) with ``changes`` set in place; its set of fields given
    joined with the changes' names, each distinct set joined once per ``memo`` (the rows of one
    import share one set: :meth:`~computeatlas.cloud.observations.Observation.trusted`), which
    is kept for changes of the same names (and may hold other live objects' ids)."""
    obs.__dict__.update(changes)
    have = obs.__pydantic_fields_set__
    found = memo.get(id(have)) if memo is not None else None
    if found is None:
        found = (have, have | changes.keys())
        if memo is not None:
            memo[id(have)] = found  # keeps ``have``, so its id names no other object while the memo lives
    _set(obs, "__pydantic_fields_set__", found[1])
    return obs


def check_memory(obs: Observation, table: InstanceTable) -> Observation:
    """``obs`` held as ``memory_mismatch`` when its stated memory per instance is not count ×
    the memory of one accelerator (within 10%); else ``obs`` itself."""
    if obs.stated_memory_gb is None:
        return obs
    row = table.find(obs.provider, obs.base_instance)
    if row is None or row.accelerator_memory_gb is None or not obs.accelerators:
        return obs
    expected = obs.accelerators * row.accelerator_memory_gb
    if abs(obs.stated_memory_gb - expected) > 0.10 * expected:
        return obs.held(
            "memory_mismatch",
            f"the source states {obs.stated_memory_gb:g} GB per instance; {obs.accelerators} × "
            f"{row.accelerator_memory_gb:g} GB = {expected:g} GB",
        )
    return obs


def check_per_accelerator(obs: Observation) -> Observation:
    """``obs`` held as ``per_accelerator_mismatch`` when its stated per-accelerator figure is
    not instance price ÷ count beyond rounding (1 cent or 0.5%); else ``obs`` itself."""
    count = obs.stated_accelerators or obs.accelerators
    if obs.stated_per_accelerator is None or obs.price_basis is not PriceBasis.INSTANCE or not count:
        return obs
    derived = obs.amount / count
    if abs(derived - obs.stated_per_accelerator) > max(0.01, 0.005 * derived):
        return obs.held(
            "per_accelerator_mismatch",
            f"{obs.amount:g} ÷ {count} = {derived:.4g} per accelerator-hour, but the source states {obs.stated_per_accelerator:g}",
        )
    return obs


__all__ = ["check_memory", "check_per_accelerator", "complete", "place"]

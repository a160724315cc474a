"""One state type: every ``state`` field of every record and view model is a :class:`State`."""

from __future__ import annotations

import dataclasses
import enum
import importlib
import pkgutil
import typing

import pydantic
import pytest

import computeatlas
from computeatlas.core.states import PRICE_MARKS, RECORD_STATES, SPEC_STATES, State


def _classes() -> list[type]:
    """Every class defined in a module of the package, by its dotted name."""
    found: dict[str, type] = {}
    for info in pkgutil.walk_packages(computeatlas.__path__, "computeatlas."):
        if ".migrations" in info.name:  # alembic's scripts run only under alembic
            continue
        for value in vars(importlib.import_module(info.name)).values():
            if isinstance(value, type) and value.__module__ == info.name:
                found[f"{value.__module__}.{value.__qualname__}"] = value
    return [found[k] for k in sorted(found)]


CLASSES = _classes()
MODELS = [c for c in CLASSES if issubclass(c, pydantic.BaseModel) or dataclasses.is_dataclass(c)]


STATE_FIELDS = ("state", "outcome", "fits")
"""The field names that hold a figure's state (and any name ending in ``_state``)."""


def _holds_state(name: str) -> bool:
    return name in STATE_FIELDS or name.endswith("_state")


def _state_fields(model: type) -> dict[str, object]:
    if issubclass(model, pydantic.BaseModel):
        return {name: f.annotation for name, f in model.model_fields.items() if _holds_state(name)}
    hints = typing.get_type_hints(model)
    return {f.name: hints[f.name] for f in dataclasses.fields(model) if _holds_state(f.name)}


def _is_state(annotation: object) -> bool:
    if annotation is State:
        return True
    args = typing.get_args(annotation)
    if typing.get_origin(annotation) is typing.Literal:
        return bool(args) and all(isinstance(a, State) for a in args)
    return bool(args) and all(a is type(None) or _is_state(a) for a in args) and any(a is not type(None) for a in args)


def test_the_walk_sees_the_view_models() -> None:
    names = {m.__qualname__ for m in MODELS}
    assert {"Claim", "Presented", "DerivedFigure", "Spread", "CellView", "GlanceFigure", "AcceleratorBound", "Estimate"} <= names
    assert len([m for m in MODELS if _state_fields(m)]) >= 25


@pytest.mark.parametrize("model", [m for m in MODELS if _state_fields(m)], ids=lambda m: f"{m.__module__}.{m.__qualname__}")
def test_every_state_field_is_the_one_state_type(model: type) -> None:
    wrong = {name: annotation for name, annotation in _state_fields(model).items() if not _is_state(annotation)}
    assert not wrong, f"{model.__module__}.{model.__qualname__}: state fields not typed State: {wrong}"


def test_codes_and_labels_are_one_each() -> None:
    assert len({s.value for s in State}) == len({s.label for s in State}) == len(State)
    assert State.NOT_PUBLISHED.value == "not_published" and State.NOT_PUBLISHED.label == "not published"
    assert State.NOT_SOURCED.label == "not yet sourced" and State.NOT_COLLECTED.label == "not yet collected"
    assert set(RECORD_STATES) < set(SPEC_STATES) and not set(SPEC_STATES) & set(PRICE_MARKS) - {State.NOT_SEPARABLE}


def test_no_other_state_vocabulary() -> None:
    """No second enum of states: a class named like one (``…State``, ``Outcome``, ``Shown``) is State itself."""
    others = [
        f"{c.__module__}.{c.__qualname__}"
        for c in CLASSES
        if issubclass(c, enum.Enum) and c is not State and c.__name__.endswith(("State", "Outcome", "Shown", "Qualifier"))
    ]
    assert others == []

"""The economics layer's unknown-id error: it names the closest records by id, and the pages layer links them."""

from __future__ import annotations

from collections.abc import Sequence

from computeatlas.core.errors import NotFound


class UnknownId(NotFound):
    """404: no ``kind`` record (``"model"`` or ``"accelerator"``) has the id asked for.

    ``near`` lists the closest records as ``(name, id)`` pairs, nearest first; the domain builds
    no URL, so :attr:`suggestions` stays empty until :func:`computeatlas.pages.economics.linked_error`
    turns ``near`` into links."""

    def __init__(self, kind: str, title: str, detail: str, near: Sequence[tuple[str, str]]) -> None:
        super().__init__(title, detail)
        self.kind = kind
        self.near = list(near)


__all__ = ["UnknownId"]

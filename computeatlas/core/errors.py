"""Errors a page handler raises; the app turns them into a clear page or JSON body."""

from __future__ import annotations

import difflib
from collections.abc import Iterable


class PageError(Exception):
    """An error shown to a visitor: HTTP ``status``, a ``title``, a ``detail`` sentence and
    optional ``suggestions`` as ``(name, url)`` pairs."""

    status = 400

    def __init__(self, title: str, detail: str, suggestions: list[tuple[str, str]] | None = None) -> None:
        super().__init__(detail)
        self.title = title
        self.detail = detail
        self.suggestions = suggestions or []


class NotFound(PageError):
    """404: no such record or page."""

    status = 404


class Ambiguous(PageError):
    """300: a name that several records share (``A100``); ``suggestions`` lists every one to choose from."""

    status = 300


class Unavailable(PageError):
    """503: what the page needs cannot be read now (e.g. a damaged data store); ``detail`` says what and what to do."""

    status = 503


class BadRequest(PageError):
    """400: a parameter is wrong; ``detail`` names it and says why."""

    status = 400


class ParamError(BadRequest):
    """400: one request parameter of a page or API call is wrong. ``param`` names it,
    ``reason`` says why; the detail reads ``query parameter 'memory_min': <reason>``
    (``where`` is ``query``, ``form`` or ``path``). A bad cell of an input file is a
    :class:`~computeatlas.core.tabular.TableError` instead.

    The app maps every parameter error, its own and FastAPI's request validation, to this one
    400 body in one place (:func:`computeatlas.web.app.create_app`).
    """

    def __init__(self, param: str, reason: str, where: str = "query", title: str = "Bad query parameter") -> None:
        self.param = param
        self.reason = reason
        self.where = where
        super().__init__(title, f"{where} parameter '{param}': {reason}")


def closest(word: str, candidates: Iterable[str], n: int = 5) -> list[str]:
    """Up to ``n`` candidates closest to ``word`` (difflib ratio ≥ 0.4), best first."""
    return difflib.get_close_matches(word.lower(), list(candidates), n=n, cutoff=0.4)

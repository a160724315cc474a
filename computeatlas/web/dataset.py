"""The dataset layer: ``/data/`` (what the table holds, and the request form) and ``/api/dataset``.

``GET /data/`` shows the schema, licence and versions and a four-question form. ``POST
/data/`` checks the form (:func:`computeatlas.ledger.request.check`) behind the guards of
:mod:`computeatlas.web.guard`, records the request in the ledger, and then:

- research or evaluation → the response *is* the CSV (``Content-Disposition:
  attachment``, a dated file name), sent only after the request has been committed;
- commercial → a page saying the licence enquiry was recorded; no data is sent.

A form with mistakes comes back (400) with each field's message and what was typed,
escaped; every other refusal of a person (403, 409, 429, 503) also says why and gives back
what was typed. A filled-in honeypot field and a form sent back sooner than
``settings.form_min_seconds`` after it was served (a bot's) get the same page, which looks
like a success (200, :data:`BOT_TITLE`); nothing is recorded and nothing is sent. Bad tokens are 403, an oversized body 413, a
body that is not a form 415, too many submissions from one address 429 (with
``Retry-After``; the address is the peer's, or from ``X-Forwarded-For`` only when the peer
is one of ``settings.trusted_proxies``), a ledger that cannot be opened or written 503;
none of them records anything. The ledger is never readable over HTTP. When the form's
secret cannot be read or created (an unwritable ``var`` folder)
``GET /data/`` is a 503 page too, never a 500 (``computeatlas serve`` checks both at start-up).

The privacy note says how to have one's data exported or erased sooner (the operator's
``computeatlas requests export/erase --email``) and, when :attr:`Settings.contact` is set
(an address or URL), whom to write to.

The ledger is :meth:`Ledger.open` of :func:`computeatlas.ledger.database_url` of the app's settings, opened on
the first submission (tests may set ``app.state.ledger`` and ``app.state.form_guard``).
"""

from __future__ import annotations

import datetime as dt
import logging
import threading
from collections.abc import Iterable, Mapping
from typing import TypeVar
from urllib.parse import parse_qsl

from fastapi import Request
from fastapi.responses import HTMLResponse, JSONResponse, Response
from limits.errors import ConfigurationError, StorageError
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy.exc import SQLAlchemyError
from starlette.concurrency import run_in_threadpool

from computeatlas.catalog import Catalog
from computeatlas.cloud.store import Store
from computeatlas.core.cache import active
from computeatlas.core.errors import BadRequest, PageError
from computeatlas.core.urls import site_path
from computeatlas.ledger import (
    DEFAULT_RETENTION_DAYS,
    FORM_FIELDS,
    INTENDED_USES,
    Ledger,
    LedgerUnavailable,
    check,
    database_url,
)
from computeatlas.ledger.database import safe_reason
from computeatlas.ledger.request import DOWNLOAD
from computeatlas.publish.exports import csv as csv_export
from computeatlas.publish.exports import prices as prices_export
from computeatlas.publish.exports.silicon_table import (
    SCHEMA_VERSION,
    DatasetView,
    build,
    describe,
)
from computeatlas.silicon.coverage import coverage_view
from computeatlas.web.guard import (
    COOKIE,
    FormGuard,
    ServiceUnavailable,
    TokenError,
    TooFast,
    UnsupportedMediaType,
    client_key,
    read_body,
)
from computeatlas.web.page import Route, catalog_of, render, settings_of, slash_redirect, urls_of

log = logging.getLogger("computeatlas.web.dataset")

HONEYPOT = "website"
"""A field people never see (hidden by CSS, skipped by keyboard); bots fill it in."""

PRIVACY = (
    "What you type here is used only to answer this request: we keep your name, email, organisation, "
    "intended use and the date, and nothing else (no IP address, no tracking). To limit how often one address "
    "may send this form, a keyed hash of it (never the address) is counted, apart from your request, for as long "
    "as the rate limit counts it (a day by default). What you type is never sold, shared or "
    f"used for marketing, and it is deleted after {DEFAULT_RETENTION_DAYS} days. To see what we hold about you, "
    "or to have it deleted sooner, ask the operator of this site: they can export or erase every request made "
    "with your email address (computeatlas requests export --email, computeatlas requests erase --email)."
)
"""The privacy note without a contact; :func:`privacy_note` adds :attr:`Settings.contact` when set."""

BOT_TITLE = "Request received"
"""The title of the one answer to a filled-in honeypot field and to a form sent back sooner
than a page can render: a page that looks like a success (200), with nothing recorded and
nothing sent, so a bot learns nothing of which check it tripped."""

MAX_CONTACT = 200


def privacy_note(configured: str = "") -> str:
    """The privacy note shown under the form, with whom to write to when ``configured``
    (:attr:`Settings.contact`) is set (its first :data:`MAX_CONTACT` characters, on one line;
    the template escapes it)."""
    contact = " ".join(configured.split())[:MAX_CONTACT]
    if not contact:
        return PRIVACY
    return f"{PRIVACY} Write to {contact} to ask."


class DatasetForm(BaseModel):
    """The fields the ``/data/`` form posts (the request's four questions, the licence box,
    the signed token and the honeypot); any other field is ignored. Each field is the text
    as typed: :func:`computeatlas.ledger.check` judges the request fields and says what is
    wrong with each on the form."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    name: str = ""
    email: str = ""
    organisation: str = ""
    intended_use: str = ""
    licence: str = ""
    token: str = ""
    website: str = Field("", description="the honeypot: people never see it, bots fill it in")


ARTIFACTS = "dataset downloads"
"""The namespace of the dataset's description and CSV bytes in the active cache (:mod:`computeatlas.core.cache`)."""

_LEDGER_LOCK = threading.Lock()


def artifacts(catalog: Catalog) -> tuple[DatasetView, bytes]:
    """The dataset description and the CSV bytes for ``catalog``, built once per data version
    (kept in the app's one cache, namespace :data:`ARTIFACTS`, its size the CSV's length)."""
    return active().get_or_build(
        ARTIFACTS,
        catalog.version,
        lambda: (describe(catalog), csv_export.to_bytes(build(catalog))),
        size=lambda found: len(found[1]) + 4096,
    )


def _guard(request: Request) -> FormGuard:
    """The app's form guard, made on first use; raises :class:`ServiceUnavailable` (503)
    when its secret cannot be read or created or its settings are wrong."""
    guard = getattr(request.app.state, "form_guard", None)
    if guard is None:
        try:
            guard = FormGuard.from_settings(settings_of(request))
        except (OSError, ValueError, ConfigurationError):
            log.exception("the dataset form cannot start: its secret or settings are not usable")
            raise ServiceUnavailable(
                "The request form is unavailable",
                "The server cannot use its data folder just now, so it cannot take dataset requests. "
                "Please try again later; the silicon table itself is still at /silicon/.",
            ) from None
        request.app.state.form_guard = guard
    return guard


def _ledger(request: Request) -> Ledger:
    """The app's ledger, opened (and migrated) on first use; runs in a worker thread."""
    with _LEDGER_LOCK:
        ledger = getattr(request.app.state, "ledger", None)
        if ledger is None:
            ledger = request.app.state.ledger = Ledger.open(database_url(settings_of(request)))
        return ledger


AnyResponse = TypeVar("AnyResponse", bound=Response)


def _no_store(response: AnyResponse) -> AnyResponse:
    response.headers["Cache-Control"] = "no-store"
    return response


def _form_page(
    request: Request,
    *,
    status: int = 200,
    values: Mapping[str, str] | None = None,
    errors: Mapping[str, str] | None = None,
    notice: str | None = None,
    key: str | None = None,
) -> HTMLResponse:
    """The ``/data/`` page with a fresh token (keeping one-time ``key`` when given)."""
    guard = _guard(request)
    cookie = guard.cookie_of(request)
    new_cookie = cookie is None
    cookie = cookie or guard.new_cookie()
    view, _ = artifacts(catalog_of(request))
    response = render(
        request,
        "data.html",
        status=status,
        page_title="The silicon table as data",
        view=view,
        fields=FORM_FIELDS,
        uses=INTENDED_USES,
        values=values or {},
        errors=errors or {},
        notice=notice,
        token=guard.issue(cookie, key),
        honeypot=HONEYPOT,
        privacy=privacy_note(settings_of(request).contact),
        coverage=coverage_view(catalog_of(request)),
        price_licences=prices_export.licence_summary(Store(settings_of(request).prices_dir)),
    )
    if new_cookie:
        response.set_cookie(
            COOKIE,
            cookie,
            httponly=True,
            samesite="strict",
            path=urls_of(request).prefixed(site_path("data_page")),
            secure=request.url.scheme == "https" or settings_of(request).public_origin.startswith("https://"),  # behind a TLS proxy too
        )
    return _no_store(response)


# --- pages ---------------------------------------------------------------------------


def data_page(request: Request) -> HTMLResponse:
    """What the dataset holds (columns, licence, version, last change) and the request form."""
    return _form_page(request)


def data_redirect(request: Request) -> Response:
    """``/data`` without the slash goes to the page."""
    return slash_redirect(request, urls_of(request).path("data_page"))


SHOWN = ("name", "email", "organisation", "intended_use", "licence")
"""The fields typed by a person, given back (their first 300 characters) on every refusal."""


def _shown(form: Mapping[str, str]) -> dict[str, str]:
    return {k: str(form.get(k, ""))[:300] for k in SHOWN}


async def _typed(request: Request) -> dict[str, str]:
    """What the person typed, for a refusal made before the form is checked (empty when the
    body is not a UTF-8 form or is over :data:`MAX_BODY`)."""
    try:
        body = await read_body(request)
        return _shown(dict(parse_qsl(body.decode("utf-8"), keep_blank_values=True, max_num_fields=20, errors="strict")))
    except (PageError, UnicodeDecodeError, ValueError):
        return {}


async def data_submit(request: Request) -> Response:
    """Record a dataset request; answer with the CSV (research, evaluation) or an enquiry page."""
    guard = _guard(request)
    try:
        address = client_key(request, settings_of(request).trusted_proxies)
    except ValueError:  # a malformed trusted_proxies entry (serve refuses to start on one)
        log.error("the dataset form cannot rate-limit: settings.trusted_proxies is malformed")
        raise ServiceUnavailable(
            "The request form is unavailable", "The server is misconfigured just now; please try again later."
        ) from None
    try:
        retry = await run_in_threadpool(guard.allow, address)
    except StorageError as exc:  # the counts' database (or Redis) cannot be reached: refuse, never let a post through uncounted
        log.error("could not check the form's rate limit: %s", safe_reason(exc.storage_error))
        return _form_page(
            request,
            status=503,
            values=await _typed(request),
            notice="We could not check your request just now, so nothing was recorded and nothing was sent. Please try again in a minute.",
        )
    if retry is not None:
        minutes = max(1, round(retry / 60))
        response = _form_page(
            request,
            status=429,
            values=await _typed(request),
            notice=f"Too many requests from your address. Please try again in about {minutes} minute{'s' if minutes != 1 else ''}.",
        )
        response.headers["Retry-After"] = str(retry)
        return response
    media = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if media != "application/x-www-form-urlencoded":
        raise UnsupportedMediaType("Form not understood", "Send the form as application/x-www-form-urlencoded, as a browser does.")
    body = await read_body(request)
    try:
        fields = DatasetForm.model_validate(
            dict(parse_qsl(body.decode("utf-8"), keep_blank_values=True, max_num_fields=20, errors="strict"))
        )
    except (UnicodeDecodeError, ValueError):
        raise BadRequest("Form not understood", "The form must be UTF-8 text with at most 20 fields.") from None
    form = fields.model_dump()
    token = fields.token
    shown = _shown(form)
    too_fast = False
    try:
        key = guard.verify(token, guard.cookie_of(request), min_seconds=settings_of(request).form_min_seconds)
    except TokenError as exc:
        return _form_page(
            request,
            status=403,
            values=shown,
            notice=f"{exc} We have refreshed the form: please check it and send it again.",
        )
    except TooFast as exc:
        key, too_fast = exc.key, True
    if too_fast or form[HONEYPOT]:  # one answer for both, naming neither, that looks like a success
        return _no_store(render(request, "data_received.html", page_title=BOT_TITLE, view=artifacts(catalog_of(request))[0]))
    dataset_request, errors, values = check(form)
    if dataset_request is None:
        return _form_page(request, status=400, values=values, errors=errors, key=key)
    catalog = catalog_of(request)
    _, csv_bytes = artifacts(catalog)

    def record() -> tuple[object, bool]:
        return _ledger(request).record(dataset_request, key, data_version=catalog.version, schema_version=SCHEMA_VERSION)

    try:
        entry, created = await run_in_threadpool(record)
    except (SQLAlchemyError, LedgerUnavailable, OSError) as exc:  # the reason only: no traceback, nothing typed
        log.error("could not record a dataset request: %s", safe_reason(exc))
        return _form_page(
            request,
            status=503,
            values=values,
            key=key,
            notice="We could not record your request just now, so nothing was sent. Please try again in a minute.",
        )
    if not created:  # the token was used already: it records one request and answers once
        return _form_page(
            request,
            status=409,
            values=values,
            notice="This form was already sent, and your request is recorded; a form can be sent once. "
            "We have refreshed it: send it again to download the table again.",
        )
    if entry.kind == DOWNLOAD:  # type: ignore[attr-defined]
        name = csv_export.filename(dt.datetime.now(dt.UTC).date())
        return _no_store(
            Response(
                csv_bytes,
                media_type=csv_export.MEDIA_TYPE,
                headers={"Content-Disposition": f'attachment; filename="{name}"'},
            )
        )
    return _no_store(render(request, "data_enquiry.html", page_title="Licence enquiry recorded", entry=entry, view=artifacts(catalog)[0]))


# --- API -----------------------------------------------------------------------------


def api_dataset(request: Request) -> DatasetView:
    """The dataset's schema (columns with units), licence, schema and data versions, size."""
    view, _ = artifacts(catalog_of(request))
    return view


def static_paths(catalog: Catalog) -> Iterable[str]:
    """``/data/`` and its JSON for the static build. A static copy's form posts to the live
    server (the build points POST forms there); its token has no cookie and expires, so
    the live server answers the first send with a fresh form, keeping what was typed."""
    yield from (site_path("data_page"), site_path("api_dataset"))


ROUTES: tuple[Route, ...] = (
    Route(data_redirect, "data_redirect", Response),
    Route(data_page, "data_page"),
    Route(data_submit, "data_submit", Response, methods=("POST",)),
    Route(api_dataset, "api_dataset", JSONResponse, DatasetView, in_schema=True, summary="The dataset: schema, licence, versions"),
)

"""``/data/`` and ``/api/dataset``: the page, the form's outcomes, every form error, the guards
(token, honeypot, rate limit, body cap), escaping, and that the ledger is never served."""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Iterator
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy.exc import OperationalError
from starlette.requests import Request

from computeatlas.catalog import Catalog
from computeatlas.core.settings import Settings
from computeatlas.ledger import Ledger
from computeatlas.web import dataset as dataset_web
from computeatlas.web.app import create_app
from computeatlas.web.guard import MAX_BODY, FormGuard, client_key
from tests.ledger_support import BACKENDS, ledger_url
from tests.test_exports import EXPECTED_CSV

VALID = {
    "name": "Zoë O’Brien-Núñez",
    "email": "zoe@example.org",
    "organisation": "Université de Genève",
    "intended_use": "research",
    "licence": "accepted",
}


def make_app(catalog: Catalog, tmp_path: Path, rate: str = "1000/minute", form_min_seconds: float = 0, **settings: object) -> FastAPI:
    app = create_app(catalog, Settings(var=tmp_path / "var", form_min_seconds=form_min_seconds, **settings))
    app.state.ledger = Ledger.open(f"sqlite:///{tmp_path / 'ledger.sqlite3'}")
    app.state.form_guard = FormGuard(b"test-secret-0123456789", rate=rate)
    return app


@pytest.fixture
def app(catalog: Catalog, tmp_path: Path) -> Iterator[FastAPI]:
    made = make_app(catalog, tmp_path)
    yield made
    made.state.ledger.close()


@pytest.fixture
def web(app: FastAPI) -> TestClient:
    return TestClient(app)


def soup(response) -> BeautifulSoup:  # type: ignore[no-untyped-def]
    assert response.headers["content-type"].startswith("text/html")
    return BeautifulSoup(response.text, "lxml")


def token_of(client: TestClient) -> str:
    response = client.get("/data/")
    assert response.status_code == 200
    return soup(response).select_one('form input[name="token"]')["value"]


def submit(client: TestClient, token: str | None = None, **fields: str):  # type: ignore[no-untyped-def]
    data = {**VALID, **fields}
    data["token"] = token if token is not None else token_of(client)
    return client.post("/data/", data={k: v for k, v in data.items() if v is not None})


def rows(app: FastAPI) -> list:
    return app.state.ledger.list(limit=None)


# --- the page ------------------------------------------------------------------------


def test_page_says_what_the_table_holds(web: TestClient, catalog: Catalog) -> None:
    response = web.get("/data/")
    page = soup(response)
    assert page.select_one("h1").get_text() == "The silicon table as data"
    columns = [tr["data-column"] for tr in page.select("#columns tr[data-column]")]
    assert columns[:3] == ["id", "name", "vendor"] and len(columns) == 124
    memory = page.select_one('#columns tr[data-column="memory_gb"]').get_text(" ", strip=True)
    assert "GB (10^9 bytes)" in memory
    assert page.select_one('a[rel~="license"]')["href"] == "https://creativecommons.org/licenses/by-nc/4.0/"
    assert page.select_one("#schema-version").get_text() == "3.1.0"
    assert page.select_one("#data-version").get_text() == catalog.version
    assert page.select_one("#last-verified").get_text() == "2026-11-01"  # newest verified date in the small catalog
    assert "only to answer this request" in page.select_one("#privacy").get_text()
    assert page.select_one('header nav a[href="/data/"]').get_text() == "Data"
    assert [f["name"] for f in page.select("form.request-form [name]")] == [
        "token",
        "name",
        "email",
        "organisation",
        "intended_use",
        "licence",
        "website",
    ]


def test_page_is_never_cached_and_sets_a_strict_cookie(web: TestClient) -> None:
    first, second = web.get("/data/"), TestClient(web.app).get("/data/")
    assert first.headers["cache-control"] == "no-store" and "etag" not in first.headers
    cookie = first.headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=strict" in cookie and "Path=/data/" in cookie
    assert soup(first).select_one('[name="token"]')["value"] != soup(second).select_one('[name="token"]')["value"]


def test_the_cookie_is_secure_when_the_public_site_is_https(catalog: Catalog, tmp_path: Path) -> None:
    plain = TestClient(make_app(catalog, tmp_path)).get("/data/").headers["set-cookie"]
    behind_tls = TestClient(make_app(catalog, tmp_path, public_origin="https://atlas.example.org")).get("/data/").headers["set-cookie"]
    assert "Secure" not in plain and "Secure" in behind_tls  # the app sees http from the TLS proxy in front


def test_data_without_slash_redirects(web: TestClient) -> None:
    response = web.get("/data", follow_redirects=False)
    assert response.status_code == 301 and response.headers["location"] == "/data/"


def test_api_dataset_describes_the_schema(web: TestClient, catalog: Catalog) -> None:
    body = web.get("/api/dataset").json()
    assert (body["schema_version"], body["licence"], body["rows"]) == ("3.1.0", "CC-BY-NC-4.0", 3)
    assert body["data_version"] == catalog.version and body["last_verified"] == "2026-11-01"
    units = {c["name"]: c["unit"] for c in body["columns"]}
    assert units["memory_bandwidth_tbps"] == "TB/s (10^12 bytes/s)" and units["power_w"] == "W"
    assert body["states"] == [
        "published",
        "published as text",
        "not published",
        "not applicable",
        "not comparable",
        "not yet sourced",
        "not yet collected",
        "derived from published figures",
    ]
    assert "/api/dataset" in web.get("/openapi.json").json()["paths"]
    assert list(dataset_web.static_paths(catalog)) == ["/data/", "/api/dataset"]


# --- outcomes ------------------------------------------------------------------------


@pytest.mark.parametrize("use", ["research", "evaluation"])
def test_a_valid_request_is_recorded_and_answered_with_the_csv(web: TestClient, app: FastAPI, use: str) -> None:
    response = submit(web, intended_use=use)
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/csv; charset=utf-8; header=present"
    today = dt.datetime.now(dt.UTC).date().isoformat()
    assert response.headers["content-disposition"] == f'attachment; filename="compute-atlas-silicon-{today}.csv"'
    assert response.headers["cache-control"] == "no-store"
    assert response.content.decode("utf-8-sig") == EXPECTED_CSV and response.content.startswith(b"\xef\xbb\xbf")
    [entry] = rows(app)
    assert (entry.name, entry.email, entry.organisation) == (VALID["name"], VALID["email"], VALID["organisation"])
    assert (entry.kind, entry.intended_use, entry.licence_accepted) == ("download", use, True)


def test_a_commercial_request_is_a_licence_enquiry_with_no_download(web: TestClient, app: FastAPI) -> None:
    response = submit(web, intended_use="commercial", licence=None)
    assert response.status_code == 200
    page = soup(response)
    assert page.select_one("h1").get_text() == "Licence enquiry recorded"
    assert page.select_one(".email").get_text() == "zoe@example.org"
    assert "content-disposition" not in response.headers and "id,name" not in response.text
    [entry] = rows(app)
    assert (entry.kind, entry.intended_use, entry.licence_accepted) == ("enquiry", "commercial", False)


def test_double_submit_records_one_row(web: TestClient, app: FastAPI) -> None:
    token = token_of(web)
    first, second = submit(web, token), submit(web, token)
    assert first.status_code == 200 and first.headers["content-type"].startswith("text/csv")
    assert second.status_code == 409 and "already sent" in _notice(second)  # a token is used once
    assert len(rows(app)) == 1
    submit(web)  # a newly loaded form is a new request
    assert len(rows(app)) == 2


@pytest.mark.parametrize(
    ("name", "organisation"),
    [
        ("Zoë O’Brien-Núñez", "Université de Genève"),
        ("D'Arcy Ó Súilleabháin", "Coláiste na hOllscoile, Corcaigh"),
        ("王小明", "清华大学"),
        ("می\u200cخواهم", "دانشگاه تهران"),  # a zero-width non-joiner, as Persian writes it
        ("  Ana   María  ", "independent"),
    ],
)
def test_names_with_accents_apostrophes_and_any_script_are_accepted(web: TestClient, app: FastAPI, name: str, organisation: str) -> None:
    assert submit(web, name=name, organisation=organisation).status_code == 200
    assert rows(app)[0].name == " ".join(name.split())


# --- form errors ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fields", "field", "message"),
    [
        ({"name": ""}, "name", "Enter your name."),
        ({"name": "x" * 101}, "name", "Name is too long: at most 100 characters."),
        ({"name": "Bell\x07"}, "name", "Name contains a control or invisible character (U+0007)"),
        ({"name": "abc\u202edef"}, "name", "Name contains a control or invisible character (U+202E)"),
        ({"email": ""}, "email", "Enter your email address."),
        ({"email": "not-an-email"}, "email", "That email address is not valid: An email address must have an @-sign."),
        ({"email": "a@" + "b" * 250 + ".org"}, "email", "Email is too long: at most 254 characters."),
        ({"email": "zoe@localhost"}, "email", "That email address is not valid"),
        ({"email": "a" * 65 + "@example.org"}, "email", "too long before the @-sign"),
        ({"name": "\u3164"}, "name", "Name has no visible characters (U+3164 shows nothing); please type it."),
        ({"name": "\u2800 \u2800"}, "name", "Name has no visible characters (U+2800 shows nothing); please type it."),
        ({"name": "\u200d\u200c"}, "name", "Name has no visible characters (U+200D shows nothing); please type it."),
        ({"name": "\u115f\u1160\uffa0"}, "name", "Name has no visible characters (U+115F shows nothing); please type it."),
        ({"organisation": "\u3164\u3164"}, "organisation", "Organisation has no visible characters (U+3164 shows nothing)"),
        ({"organisation": ""}, "organisation", "Enter your organisation (or “independent”)."),
        ({"organisation": "o" * 151}, "organisation", "Organisation is too long: at most 150 characters."),
        ({"intended_use": ""}, "intended_use", "Choose research, evaluation or commercial use."),
        ({"intended_use": "resale"}, "intended_use", "Choose research, evaluation or commercial use."),
        ({"licence": ""}, "licence", "Tick the box to accept the CC-BY-NC-4.0 licence"),
    ],
)
def test_each_form_error_reshows_the_form_with_the_fields_message(
    web: TestClient, app: FastAPI, fields: dict[str, str], field: str, message: str
) -> None:
    response = submit(web, **fields)
    assert response.status_code == 400
    page = soup(response)
    assert message in page.select_one(f"#error-{field}").get_text()
    assert page.select_one(f"#field-{field}")["aria-invalid"] == "true"
    assert page.select_one(f'.form-errors a[href="#field-{field}"]') is not None
    assert page.select_one("#field-organisation")["value"] == " ".join(fields.get("organisation", VALID["organisation"]).split())[:150]
    assert rows(app) == []


def test_a_corrected_form_keeps_its_key_and_records_once(web: TestClient, app: FastAPI) -> None:
    page = soup(submit(web, email="broken"))
    token = page.select_one('[name="token"]')["value"]
    assert submit(web, token).status_code == 200
    again = submit(web, token)  # the same form again: single use, said plainly, recorded once
    assert again.status_code == 409 and again.headers["content-type"].startswith("text/html")
    assert _notice(again) == (
        "This form was already sent, and your request is recorded; a form can be sent once. "
        "We have refreshed it: send it again to download the table again."
    )
    fresh = soup(again).select_one('[name="token"]')["value"]
    assert fresh != token and soup(again).select_one("#field-name")["value"] == VALID["name"]
    assert len(rows(app)) == 1
    assert submit(web, fresh).headers["content-type"].startswith("text/csv")  # the refreshed form downloads
    assert len(rows(app)) == 2


def test_nothing_typed_is_reflected_unescaped(web: TestClient) -> None:
    hostile = '<script>alert(1)</script>"><img src=x onerror=alert(2)>'
    response = submit(web, name=hostile, organisation=hostile, email=hostile)
    assert response.status_code == 400
    page = soup(response)
    assert page.select("script") == [] and page.select("img") == []
    assert page.select_one("#field-name")["value"] == hostile
    assert "&lt;script&gt;" in response.text and "<script>" not in response.text


def test_the_enquiry_page_escapes_what_was_typed(web: TestClient) -> None:
    response = submit(web, name="<b>Bold</b> & Co", organisation="<i>Org</i>", intended_use="commercial")
    page = soup(response)
    assert page.select_one(".who").get_text() == "<b>Bold</b> & Co" and page.select("b, i") == []


# --- guards --------------------------------------------------------------------------


def test_missing_or_forged_token_is_refused(web: TestClient, app: FastAPI) -> None:
    token_of(web)  # the browser has its cookie
    missing = submit(web, token="")
    assert missing.status_code == 403
    assert "arrived without its security token" in soup(missing).select_one(".form-notice").get_text()
    forged = submit(web, token="eyJrIjoiYWFhYWFhYWFhYWFhYWFhYWFhYWEiLCJjIjoiMCJ9.forged.sig")
    assert forged.status_code == 403 and "not valid" in soup(forged).select_one(".form-notice").get_text()
    assert soup(forged).select_one("#field-name")["value"] == VALID["name"]  # what was typed is kept
    assert rows(app) == []


def test_a_token_from_another_browser_is_refused(app: FastAPI) -> None:
    alice, mallory = TestClient(app), TestClient(app)
    stolen = token_of(mallory)
    token_of(alice)
    response = submit(alice, token=stolen)
    assert response.status_code == 403 and "another browser" in response.text
    assert rows(app) == []


def test_a_post_without_the_cookie_is_refused(app: FastAPI) -> None:
    token = token_of(TestClient(app))
    response = submit(TestClient(app), token=token)  # a fresh client: no cookie
    assert response.status_code == 403 and "did not send back the form" in response.text


def test_an_expired_token_is_refused(web: TestClient, app: FastAPI) -> None:
    token = token_of(web)
    app.state.form_guard.max_age = -1
    response = submit(web, token=token)
    assert response.status_code == 403 and "has expired" in response.text
    assert rows(app) == []


def _notice(response) -> str:  # type: ignore[no-untyped-def]
    return soup(response).select_one(".form-notice").get_text(" ", strip=True)


def _looks_like_success(response) -> bool:  # type: ignore[no-untyped-def]
    page = soup(response)
    return response.status_code == 200 and page.select_one("h1").get_text(strip=True) == "Request received" and not page.select("main form")


def test_the_honeypot_answers_bots_as_if_it_were_a_success_and_records_nothing(web: TestClient, app: FastAPI) -> None:
    response = submit(web, website="http://spam.example")
    assert _looks_like_success(response)
    assert "text/csv" not in response.headers["content-type"]  # nothing is sent
    assert VALID["email"] not in response.text
    assert rows(app) == []


def test_a_form_sent_back_too_fast_is_answered_exactly_as_the_honeypot(catalog: Catalog, tmp_path: Path) -> None:
    app = make_app(catalog, tmp_path, form_min_seconds=1)
    client = TestClient(app)
    guard = app.state.form_guard
    start = 1_800_000_000.0
    guard.clock = lambda: start
    token = token_of(client)
    guard.clock = lambda: start + 0.4  # before a page could render and be filled in
    fast = submit(client, token)
    honeypot = submit(client, token_of(client), website="http://spam.example")
    assert _looks_like_success(fast) and _looks_like_success(honeypot)
    assert soup(fast).select_one("main").get_text() == soup(honeypot).select_one("main").get_text()
    assert rows(app) == []
    guard.clock = lambda: start + 2.0  # the same form, sent with autofill two seconds after the page loaded
    accepted = submit(client, token)
    assert accepted.status_code == 200 and accepted.headers["content-type"].startswith("text/csv")
    assert len(rows(app)) == 1
    app.state.ledger.close()


def test_the_minimum_time_comes_from_the_settings(catalog: Catalog, tmp_path: Path) -> None:
    assert Settings().form_min_seconds == 1.0
    app = make_app(catalog, tmp_path, form_min_seconds=60)
    client = TestClient(app)
    token = token_of(client)
    assert _looks_like_success(submit(client, token))  # a test posts at once: well under a minute
    assert rows(app) == []
    app.state.form_guard.clock = lambda: __import__("time").time() + 61
    assert submit(client, token).headers["content-type"].startswith("text/csv")
    app.state.ledger.close()


def test_rate_limit_per_address(catalog: Catalog, tmp_path: Path) -> None:
    app = make_app(catalog, tmp_path, rate="3/minute")
    client = TestClient(app)
    statuses = [submit(client, email=f"p{i}@example.org").status_code for i in range(3)]
    assert statuses == [200, 200, 200]
    limited = submit(client)
    assert limited.status_code == 429
    assert 1 <= int(limited.headers["retry-after"]) <= 60
    assert "Too many requests from your address" in soup(limited).select_one(".form-notice").get_text()
    assert soup(limited).select_one("#field-name")["value"] == VALID["name"]  # the refusal keeps what was typed
    assert len(rows(app)) == 3
    app.state.ledger.close()


def _request(host: str, forwarded: str | None = None) -> Request:
    headers = [(b"x-forwarded-for", forwarded.encode())] if forwarded is not None else []
    return Request({"type": "http", "client": (host, 1234), "headers": headers})


def test_forwarded_for_is_ignored_unless_the_peer_is_a_trusted_proxy() -> None:
    assert client_key(_request("127.0.0.1", "198.51.100.7")) == "127.0.0.1"  # nothing trusted by default
    assert client_key(_request("203.0.113.9", "198.51.100.7"), ("127.0.0.1",)) == "203.0.113.9"  # not our proxy
    assert client_key(_request("127.0.0.1", "198.51.100.7"), ("127.0.0.1",)) == "198.51.100.7"
    # read from the right: what a visitor put in front of the proxy's entry is not believed
    assert client_key(_request("10.0.0.2", "6.6.6.6, 198.51.100.7, 10.0.0.1"), ("10.0.0.0/8",)) == "198.51.100.7"
    assert client_key(_request("10.0.0.2", "2001:db8:1:2::5"), ("10.0.0.0/8",)) == "2001:db8:1:2::/64"
    assert client_key(_request("10.0.0.2", "not-an-address"), ("10.0.0.0/8",)) == "10.0.0.2"
    assert client_key(_request("10.0.0.2"), ("10.0.0.0/8",)) == "10.0.0.2"
    with pytest.raises(ValueError, match="'localhost' is not an IP address or network"):
        client_key(_request("10.0.0.2"), ("localhost",))


def test_rotating_forwarded_for_shares_one_limit_unless_the_proxy_is_trusted(catalog: Catalog, tmp_path: Path) -> None:
    for trusted, expected in (((), [200, 200, 429]), (("127.0.0.1",), [200, 200, 200])):
        app = create_app(catalog, Settings(form_min_seconds=0, trusted_proxies=trusted))
        app.state.ledger = Ledger.open(f"sqlite:///{tmp_path / f'ledger{len(trusted)}.sqlite3'}")
        app.state.form_guard = FormGuard(b"test-secret-0123456789", rate="2/minute")
        client = TestClient(app, client=("127.0.0.1", 5000))
        statuses = []
        for i in range(3):
            token = token_of(client)
            data = {**VALID, "email": f"p{i}@example.org", "token": token}
            statuses.append(client.post("/data/", data=data, headers={"x-forwarded-for": f"198.51.100.{i}"}).status_code)
        app.state.ledger.close()
        assert statuses == expected, trusted


def test_a_malformed_trusted_proxy_is_a_503_not_a_500(catalog: Catalog, tmp_path: Path) -> None:
    app = create_app(catalog, Settings(form_min_seconds=0, trusted_proxies=("localhost",)))
    app.state.form_guard = FormGuard(b"test-secret-0123456789")
    response = TestClient(app, raise_server_exceptions=False).post("/data/", data=VALID)
    assert response.status_code == 503 and "The request form is unavailable" in response.text


def test_serve_refuses_to_start_on_a_malformed_trusted_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    from computeatlas.cli import app as cli_app
    from tests.conftest import CliRunner

    monkeypatch.setenv("COMPUTEATLAS_TRUSTED_PROXIES", '["10.0.0.0/8", "proxy.internal"]')
    result = CliRunner().invoke(cli_app, ["serve", "--port", "1"])
    assert result.exit_code == 1
    assert "Not starting: trusted_proxies: 'proxy.internal' is not an IP address or network." in result.stderr


def test_serve_warns_that_memory_rate_limits_count_per_worker() -> None:
    from computeatlas.cli.silicon import rate_limit_warning

    assert rate_limit_warning(1, "memory://") is None
    assert rate_limit_warning(4, "redis://cache:6379") is None
    assert rate_limit_warning(4, "memory://") == (
        "Warning: rate limits are counted separately by each of the 4 workers (rate-limit storage memory://), so one "
        "address may send up to 4 times the limit. To share one count, leave COMPUTEATLAS_RATE_LIMIT_STORAGE empty (the "
        "ledger's database) or set it to a shared store such as redis://host:6379."
    )


def test_client_key_groups_ipv6_by_64() -> None:
    def key(host: str) -> str:
        return client_key(Request({"type": "http", "client": (host, 1234), "headers": []}))

    assert key("2001:db8:1:2:aaaa::1") == key("2001:db8:1:2:bbbb::9") == "2001:db8:1:2::/64"
    assert key("203.0.113.7") == "203.0.113.7"
    assert key("::ffff:203.0.113.7") == "203.0.113.7"


def test_an_oversized_body_is_refused(web: TestClient, app: FastAPI) -> None:
    response = submit(web, organisation="o" * (MAX_BODY + 1))
    assert response.status_code == 413 and "at most 16384" in response.text
    assert rows(app) == []


def test_an_oversized_streamed_body_without_length_is_refused(web: TestClient) -> None:
    def chunks() -> Iterator[bytes]:
        for _ in range(40):
            yield b"name=" + b"x" * 1000 + b"&"

    response = web.post("/data/", content=chunks(), headers={"content-type": "application/x-www-form-urlencoded"})
    assert response.status_code == 413


@pytest.mark.parametrize(
    ("content", "content_type", "status", "words"),
    [
        (b'{"name": "x"}', "application/json", 415, "application/x-www-form-urlencoded"),
        (b"name=%FF%FE", "application/x-www-form-urlencoded", 400, "UTF-8"),
        (b"&".join(b"f%d=1" % i for i in range(25)), "application/x-www-form-urlencoded", 400, "at most 20 fields"),
    ],
)
def test_a_body_that_is_not_our_form_is_a_clear_4xx(web: TestClient, content: bytes, content_type: str, status: int, words: str) -> None:
    response = web.post("/data/", content=content, headers={"content-type": content_type})
    assert response.status_code == status and words in response.text


def test_a_ledger_that_cannot_be_written_is_a_503_and_sends_nothing(web: TestClient, app: FastAPI) -> None:
    class Broken:
        def record(self, *args: object, **kwargs: object) -> None:
            raise OperationalError("INSERT", {}, Exception("disk I/O error"))

    real, app.state.ledger = app.state.ledger, Broken()
    try:
        response = submit(web)
    finally:
        app.state.ledger = real
    assert response.status_code == 503 and "nothing was sent" in response.text
    assert "id,name" not in response.text


@pytest.mark.parametrize(
    "path", ["/var/ledger.sqlite3", "/ledger.sqlite3", "/data/ledger.sqlite3", "/static/../var/ledger.sqlite3", "/api/requests"]
)
def test_the_ledger_is_never_served(web: TestClient, path: str) -> None:
    submit(web)
    response = web.get(path)
    assert response.status_code == 404 and "zoe@example.org" not in response.text


def test_no_route_reads_the_ledger(app: FastAPI) -> None:
    paths = {route.path for route in app.routes}
    assert not any("request" in p or "ledger" in p for p in paths)


# --- an unusable data folder is a 503, the privacy note says how to ask (tester findings) ---


@pytest.fixture
def unwritable_var(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``$COMPUTEATLAS_VAR`` under a file, so neither the secret nor the ledger can be created."""
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    monkeypatch.setenv("COMPUTEATLAS_VAR", str(blocker / "var"))
    for name in ("COMPUTEATLAS_DATABASE_URL", "COMPUTEATLAS_SECRET", "COMPUTEATLAS_RATE_LIMIT", "COMPUTEATLAS_RATE_LIMIT_STORAGE"):
        monkeypatch.delenv(name, raising=False)
    return blocker / "var"


def test_an_unwritable_data_folder_makes_the_form_page_a_503_not_a_500(catalog: Catalog, unwritable_var: Path) -> None:
    client = TestClient(create_app(catalog), raise_server_exceptions=False)
    response = client.get("/data/")
    assert response.status_code == 503
    assert "The request form is unavailable" in response.text and "/silicon/" in response.text
    assert str(unwritable_var) not in response.text  # the server's paths are not shown to visitors
    assert client.post("/data/", data=VALID).status_code == 503
    assert client.get("/api/dataset").status_code == 200  # the description does not need the folder


def test_a_ledger_that_cannot_be_opened_is_a_503_and_sends_nothing(
    catalog: Catalog, unwritable_var: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COMPUTEATLAS_SECRET", "a-secret-long-enough-0123456789")
    app = create_app(catalog, Settings(form_min_seconds=0))
    client = TestClient(app, raise_server_exceptions=False)  # no ledger yet: opened on first use
    response = submit(client)
    assert response.status_code == 503 and "nothing was sent" in response.text
    assert "id,name" not in response.text


def test_the_privacy_note_says_how_to_ask_and_whom_when_configured(
    catalog: Catalog, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("COMPUTEATLAS_CONTACT", raising=False)
    web = TestClient(make_app(catalog, tmp_path))
    note = soup(web.get("/data/")).select_one("#privacy").get_text()
    assert "write to ask" not in note and "deleted after 365 days" in note
    assert "a keyed hash of it (never the address) is counted" in note
    assert "computeatlas requests export --email" in note and "computeatlas requests erase --email" in note
    assert "Write to" not in note
    monkeypatch.setenv("COMPUTEATLAS_CONTACT", "privacy@atlas.example <b>now</b>")
    assert "Write to" not in soup(web.get("/data/")).select_one("#privacy").get_text()  # settings are read once
    web = TestClient(make_app(catalog, tmp_path, contact="privacy@atlas.example <b>now</b>"))
    response = web.get("/data/")
    assert "Write to privacy@atlas.example <b>now</b> to ask." in soup(response).select_one("#privacy").get_text()
    assert "<b>now</b>" not in response.text  # escaped


# --- logs never carry what a visitor typed -----------------------------------------------------

REFUSE_INSERTS = {
    "sqlite": "CREATE TRIGGER refuse BEFORE INSERT ON dataset_requests BEGIN SELECT RAISE(ABORT, 'refused by test'); END",
    "postgresql": "ALTER TABLE dataset_requests ADD CONSTRAINT refuse CHECK (false) NOT VALID",
}


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_failing_write_logs_no_visitor_text(catalog: Catalog, tmp_path: Path, backend: str, caplog: pytest.LogCaptureFixture) -> None:
    from sqlalchemy import text

    with ledger_url(backend, tmp_path) as url:
        app = make_app(catalog, tmp_path)
        app.state.ledger.close()
        app.state.ledger = Ledger.open(url)
        with app.state.ledger.engine.begin() as connection:
            connection.execute(text(REFUSE_INSERTS[backend]))
        caplog.set_level(logging.DEBUG)
        caplog.set_level(logging.INFO, logger="sqlalchemy.engine")  # as an operator debugging SQL would
        try:
            response = submit(TestClient(app), name="Zoë Secretname", email="secret.person@example.org", organisation="Hidden Org Ltd")
        finally:
            app.state.ledger.close()
    assert response.status_code == 503
    logged = caplog.text + "".join(str(r.args) for r in caplog.records)
    expected = {"sqlite": "IntegrityError: refused by test", "postgresql": "CheckViolation: new row for relation"}[backend]
    assert f"could not record a dataset request: {expected}" in logged
    for typed in ("Secretname", "secret.person", "Hidden Org"):
        assert typed not in logged


def test_the_form_declares_exactly_the_fields_it_reads() -> None:
    from computeatlas.ledger import FORM_FIELDS

    assert set(dataset_web.DatasetForm.model_fields) == {f.name for f in FORM_FIELDS} | {"token", dataset_web.HONEYPOT}
    parsed = dataset_web.DatasetForm.model_validate({"name": "Zoë", "utm_source": "mail"})
    assert parsed.name == "Zoë" and parsed.email == "" and not hasattr(parsed, "utm_source")


def test_the_data_page_offers_the_price_history_with_every_licence(web: TestClient) -> None:
    section = soup(web.get("/data/")).select_one("#price-dataset")
    hrefs = [a["href"] for a in section.select("a")]
    assert hrefs == ["/data/prices/observations.csv", "/data/prices/observations.parquet", "/data/prices/NOTICE.txt"]
    text = section.get_text(" ", strip=True)
    # the bundled store's upstream licence copies: data/prices/LICENSE-Cyclenerd is Apache 2.0, LICENSE-gpuhunt MPL 2.0
    assert "CC-BY-NC-4.0 (Compute Atlas data)" in text
    assert "Apache-2.0 (Cyclenerd rows)" in text and "MPL-2.0 (gpuhunt rows)" in text and "MIT (OpenComputePrices rows)" in text

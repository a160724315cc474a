"""The static build and the site's own files: file layout, links rewritten for a sub-path, no dead
link, the Atom feed, the sitemap, robots.txt, the 404 page, data files, citations, the CLI."""

from __future__ import annotations

import datetime as dt
import json
import re
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from computeatlas.build import paths
from computeatlas.build import static as site
from computeatlas.build.links import dead_links
from computeatlas.catalog import Catalog, load
from computeatlas.cli import app
from computeatlas.core.citation import bibtex_escape, citation
from computeatlas.core.urls import Urls
from computeatlas.web.routes import all_paths
from computeatlas.web.site import changes, is_page
from tests.conftest import SMALL_CATALOG, TODAY, CliRunner, write_data

ATOM = "{http://www.w3.org/2005/Atom}"
SITEMAP = "{http://www.sitemaps.org/schemas/sitemap/0.9}"
ORIGIN = "https://atlas.example.org"
LIVE = "https://live.atlas.example.org"


@pytest.fixture
def dated_catalog(tmp_path: Path) -> Catalog:
    """The small catalog with Acme A2 verified later (2026-11-20) than the others (2026-11-01)."""
    records = [dict(r, verified="2026-11-20") if r["id"] == "acme-a2" else r for r in SMALL_CATALOG]
    return load(write_data(tmp_path / "data", records), today=TODAY)


@pytest.fixture(scope="session")
def built(catalog: Catalog, tmp_path_factory: pytest.TempPathFactory) -> site.BuildResult:
    """The small catalog built once for https://atlas.example.org/sub/ (read only: copy it to change it)."""
    return site.build(catalog, tmp_path_factory.mktemp("small") / "out", "/sub/", site_url=ORIGIN, live_url=LIVE)


@pytest.fixture(scope="session")
def real_build(real_catalog: Catalog, tmp_path_factory: pytest.TempPathFactory) -> site.BuildResult:
    """The bundled data built once per session, for a sub-path."""
    return site.build(real_catalog, tmp_path_factory.mktemp("real") / "out", "/atlas/", site_url=ORIGIN, live_url=LIVE)


# --- where things go -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "kind", "file", "url"),
    [
        ("/", "text/html; charset=utf-8", "index.html", "/"),
        ("/silicon/", "text/html", "silicon/index.html", "/silicon/"),
        ("/silicon/acme-a1", "text/html", "silicon/acme-a1/index.html", "/silicon/acme-a1/"),
        ("/api/accelerators", "application/json", "api/accelerators.json", "/api/accelerators.json"),
        ("/api/accelerators/acme-a1", "application/json", "api/accelerators/acme-a1.json", "/api/accelerators/acme-a1.json"),
        ("/charts/memory-bandwidth.svg", "image/svg+xml", "charts/memory-bandwidth.svg", "/charts/memory-bandwidth.svg"),
        ("/feed.xml", "application/atom+xml", "feed.xml", "/feed.xml"),
        ("/openapi.json", "application/json", "openapi.json", "/openapi.json"),
    ],
)
def test_file_for(path: str, kind: str, file: str, url: str) -> None:
    assert paths.file_for(path, kind) == file
    assert paths.public_url(file) == url


@pytest.mark.parametrize(("given", "expected"), [("", ""), ("/", ""), ("/sub/", "/sub"), ("sub", "/sub"), ("/a/b", "/a/b")])
def test_base_path_normalised(given: str, expected: str) -> None:
    assert paths.normalise_base_path(given) == expected


@pytest.mark.parametrize("bad", ["https://x.org/sub", "/a/../b", "/a b/"])
def test_bad_base_path_is_refused(bad: str) -> None:
    with pytest.raises(ValueError, match="base path"):
        paths.normalise_base_path(bad)


def test_build_renders_every_static_path(built: site.BuildResult, catalog: Catalog) -> None:
    out = built.out_dir
    assert set(built.files) == set(all_paths(catalog)) | {"/404.html"}
    for ident in catalog.accelerators:
        assert (out / "silicon" / ident / "index.html").is_file()
        assert json.loads((out / "api" / "accelerators" / f"{ident}.json").read_text())["id"] == ident
    for name in ("index.html", "404.html", "sitemap.xml", "feed.xml", "robots.txt", "static/site.css", site.MARKER):
        assert (out / name).is_file(), name
    assert built.site_url == ORIGIN + "/sub/"


def test_pages_are_the_live_pages_with_links_for_the_sub_path(built: site.BuildResult, client: TestClient) -> None:
    html = (built.out_dir / "silicon" / "index.html").read_text()
    soup = BeautifulSoup(html, "lxml")
    live = BeautifulSoup(client.get("/silicon/").text, "lxml")
    assert [r["data-id"] for r in soup.select("#silicon-table tbody tr")] == [r["data-id"] for r in live.select("#silicon-table tbody tr")]
    links = {a.get_text(): a["href"] for a in soup.select("#silicon-table tbody th a")}
    assert links == {"Acme A1": "/sub/silicon/acme-a1/", "Acme A2": "/sub/silicon/acme-a2/", "Globex G1": "/sub/silicon/globex-g1/"}
    assert soup.find("link", rel="stylesheet")["href"] == "/sub/static/site.css"
    assert soup.find("link", rel="canonical")["href"] == ORIGIN + "/sub/silicon/"
    # A sort link keeps its query string (a static host serves the unsorted table).
    assert soup.select_one('th[data-key="memory"] a')["href"] == "/sub/silicon/?sort=memory"
    assert 'href="/silicon/' not in html


def test_json_links_are_rewritten_and_values_kept(built: site.BuildResult, client: TestClient) -> None:
    listed = json.loads((built.out_dir / "api" / "accelerators.json").read_text())
    live = client.get("/api/accelerators").json()
    assert [r["id"] for r in listed] == [r["id"] for r in live]
    first = listed[0]
    assert first["url"] == "/sub/silicon/acme-a1/" and first["api_url"] == "/sub/api/accelerators/acme-a1.json"
    one = json.loads((built.out_dir / "api" / "accelerators" / "acme-a2.json").read_text())
    assert one["specs"] == client.get("/api/accelerators/acme-a2").json()["specs"]


def test_the_404_page(built: site.BuildResult, client: TestClient) -> None:
    soup = BeautifulSoup((built.out_dir / "404.html").read_text(), "lxml")
    assert soup.h1.get_text() == "No such page"
    assert soup.find("link", rel="canonical") is None
    assert client.get("/404.html").status_code == 404


def test_no_dead_link_in_a_small_build(built: site.BuildResult) -> None:
    dead = dead_links(built.out_dir, "/sub/", ORIGIN)
    assert dead == [], "\n".join(map(str, dead))
    assert built.live_dead == []


def test_no_dead_link_in_the_real_build(real_build: site.BuildResult) -> None:
    assert len(real_build.files) > 100
    dead = dead_links(real_build.out_dir, "/atlas/", ORIGIN)
    assert dead == [], f"{len(dead)} dead link(s):\n" + "\n".join(map(str, dead[:40]))
    assert real_build.live_dead == [], real_build.live_dead
    # The curated comparisons are prebuilt, pages and JSON; other pairs go to the live server.
    pair = json.loads((real_build.out_dir / "api" / "compare" / "aws-trainium-3-vs-google-tpu-v7.json").read_text())
    assert set(pair["ids"]) == {"aws-trainium-3", "google-tpu-v7"} and pair["url"] == "/atlas/compare/aws-trainium-3-vs-google-tpu-v7/"
    related = BeautifulSoup((real_build.out_dir / "silicon" / "nvidia-h100-sxm" / "index.html").read_text(), "lxml")
    hrefs = {li["data-id"]: li.select_one("a.more")["href"] for li in related.select("#related li")}
    assert hrefs["nvidia-h200-sxm"] == "/atlas/compare/nvidia-h100-sxm-vs-nvidia-h200-sxm/"
    assert hrefs["nvidia-h100-pcie"] == LIVE + "/compare/nvidia-h100-pcie-vs-nvidia-h100-sxm"


def test_without_a_live_server_the_static_site_stands_alone(catalog: Catalog, tmp_path: Path) -> None:
    result = site.build(catalog, tmp_path / "out", "/sub/", site_url=ORIGIN)
    out = result.out_dir
    assert result.live == []
    dead = dead_links(out, "/sub/", ORIGIN)
    assert dead == [], "\n".join(map(str, dead))

    def page(rel: str) -> BeautifulSoup:
        return BeautifulSoup((out / rel).read_text(), "lxml")

    # The forms that need a server are replaced by what was built and a plain note.
    compare = page("compare/index.html")
    assert compare.select_one("form.compare-form") is None and "static" in compare.select_one("#static-note").get_text()
    assert compare.select("#curated li a") == []  # the small catalog has no curated comparison
    estimate = page("economics/estimate/index.html")
    assert estimate.select_one("form.estimate-form") is None
    assert [a["href"] for a in estimate.select("#static-note a")] == ["/sub/silicon/"]
    assert page("data/index.html").select_one("form.request-form") is None
    # Search runs in the browser over the prebuilt index, whose links are the built files.
    search = page("search/index.html")
    form = search.select_one("main form.search-form")
    assert form["action"] == "/sub/search/" and form["data-index"] == "/sub/api/search-index.json"
    assert search.select_one('script[src="/sub/static/search.js"]') is not None and (out / "static" / "search.js").is_file()
    index = json.loads((out / "api" / "search-index.json").read_text())
    assert {p["id"]: p["url"] for p in index["parts"]}["acme-a1"] == "/sub/silicon/acme-a1/"
    # An accelerator page links only to the comparisons that were built (none here): the parts stay listed.
    related = page("silicon/acme-a1/index.html").select("#related li")
    assert related and all(li.select_one("a.more") is None for li in related)


def test_the_link_walker_finds_dead_links(built: site.BuildResult, tmp_path: Path) -> None:
    out = Path(shutil.copytree(built.out_dir, tmp_path / "out"))
    (out / "silicon" / "acme-a2" / "index.html").unlink()
    page = out / "silicon" / "acme-a1" / "index.html"
    page.write_text(
        page.read_text().replace(
            "</main>",
            '<a href="#no-such-anchor">x</a><a href="../globex-g1/">ok</a><a href="/elsewhere/">out</a>'
            '<form method="get" action="/sub/compare/"></form><form method="post" action="/sub/data/"></form>'
            '<form method="get" action="/sub/records/" data-static="script"></form></main>',
        )
    )
    blank = out / "compare" / "index.html"
    blank.write_text(re.sub(r"(?s)</h1>.*</main>", "</h1></main>", blank.read_text()))
    dead = {(d.page, d.link, d.reason) for d in dead_links(out, "/sub/", ORIGIN)}
    assert ("silicon/index.html", "/sub/silicon/acme-a2/", "no such file") in dead
    assert ("silicon/acme-a1/index.html", "#no-such-anchor", "no element with id 'no-such-anchor'") in dead
    assert ("silicon/acme-a1/index.html", "/elsewhere/", "outside the base path /sub/") in dead
    assert not any(link == "../globex-g1/" for _, link, _ in dead)
    assert ("sitemap.xml", ORIGIN + "/sub/silicon/acme-a2/", "no such file") in dead
    reasons = {(p, link): reason for p, link, reason in dead}
    assert reasons[("silicon/acme-a1/index.html", "/sub/compare/")].startswith("a form to a static page, which ignores what is typed")
    assert reasons[("silicon/acme-a1/index.html", "/sub/data/")] == "a form that posts to a static file, which a static host cannot take"
    assert reasons[("silicon/acme-a1/index.html", "/sub/records/")] == "a form for a page's script, but that page loads no script"
    assert reasons[("compare/index.html", "")] == "a blank page: its <main> holds nothing but its heading"


def test_forms_that_need_a_server_go_to_the_live_one(built: site.BuildResult) -> None:
    def form(rel: str, css: str) -> str:
        return BeautifulSoup((built.out_dir / rel).read_text(), "lxml").select_one(css)["action"]

    assert form("compare/index.html", "form.compare-form") == LIVE + "/compare/"
    assert form("economics/estimate/index.html", "form.estimate-form") == LIVE + "/economics/estimate"
    assert form("silicon/index.html", "form.filters") == LIVE + "/silicon/"
    assert form("index.html", "header form.site-search") == "/sub/search/"  # search runs on the static site


def test_forms_and_unbuilt_pages_go_to_the_live_server() -> None:
    urls = Urls("/sub", ORIGIN, files={"/silicon/": "/silicon/", "/data/": "/data/", "/silicon/acme-a1": "/silicon/acme-a1/"}, live=LIVE)
    assert urls.post("data_submit") == f"{LIVE}/data/"
    assert urls.path("data_page") == "/sub/data/"
    assert urls.path("search") == f"{LIVE}/search"
    assert urls.form("compare_index") == f"{LIVE}/compare/" and urls.served("compare_pair", pair="x-vs-y") == f"{LIVE}/compare/x-vs-y"
    assert urls.link("/silicon/?sort=memory") == "/sub/silicon/?sort=memory"
    assert urls.path("silicon_page", ident="acme-a1") == "/sub/silicon/acme-a1/"
    assert urls.link(urls.path("silicon_page", ident="acme-a1")) == "/sub/silicon/acme-a1/"  # a made link stays made
    assert urls.absolute("/silicon/acme-a1") == ORIGIN + "/sub/silicon/acme-a1/"
    assert urls.sent_live == {"/search", "/compare/", "/compare/x-vs-y"}
    alone = Urls("/sub", ORIGIN, files={"/compare/": "/compare/", "/compare/a-vs-b": "/compare/a-vs-b/"})
    assert alone.form("compare_index") is None and alone.post("data_submit") is None
    assert alone.served("compare_pair", pair="a-vs-b") == "/sub/compare/a-vs-b/" and alone.served("compare_pair", pair="x-vs-y") is None
    assert Urls().form("estimate_page") == "/economics/estimate" and Urls().served("compare_pair", pair="x-vs-y") == "/compare/x-vs-y"


def test_pages_are_rendered_with_their_final_links_not_rewritten(catalog: Catalog, built: site.BuildResult) -> None:
    result = built  # /sub/ on ORIGIN with LIVE
    page = (result.out_dir / "silicon" / "acme-a1" / "index.html").read_bytes()
    from computeatlas.core.settings import Settings
    from computeatlas.web.app import create_app

    urls = Urls("/sub", ORIGIN, files={p: paths.public_url(paths.file_for(p, site.expected_type(p))) for p in result.files}, live=LIVE)
    app = create_app(catalog, Settings(base_path="/sub", public_origin=ORIGIN), urls)
    assert TestClient(app, base_url=ORIGIN).get("/sub/silicon/acme-a1").content == page  # the file is the response, byte for byte


def test_the_dataset_form_posts_to_the_live_server(built: site.BuildResult) -> None:
    # /data/ is built, but its form posts to the live server (which sets the form's cookie).
    nav = BeautifulSoup((built.out_dir / "index.html").read_text(), "lxml").select("header.site nav a")
    hrefs = {a.get_text(): a["href"] for a in nav}
    assert hrefs["Silicon"] == "/sub/silicon/"
    assert hrefs["Data"] == "/sub/data/" and built.files["/data/"] == "data/index.html"
    form = BeautifulSoup((built.out_dir / "data" / "index.html").read_text(), "lxml").select_one("form.request-form")
    assert form["method"].lower() == "post" and form["action"] == LIVE + "/data/"


def test_rebuild_replaces_an_earlier_build_but_refuses_other_folders(catalog: Catalog, tmp_path: Path) -> None:
    out = tmp_path / "site"
    site.build(catalog, out, site_url=ORIGIN, paths=["/"])  # one page: the folder is what is tested
    (out / "stale.html").write_text("old")
    site.build(catalog, out, site_url=ORIGIN, paths=["/"])
    assert not (out / "stale.html").exists()
    other = tmp_path / "precious"
    other.mkdir()
    (other / "notes.txt").write_text("keep me")
    with pytest.raises(site.BuildError, match="not empty and was not made by a build"):
        site.build(catalog, other, site_url=ORIGIN, paths=["/"])
    assert (other / "notes.txt").read_text() == "keep me"


def test_a_path_that_fails_stops_the_build(catalog: Catalog, tmp_path: Path) -> None:
    with pytest.raises(site.BuildError) as info:
        site.build(catalog, tmp_path / "out", paths=["/silicon/", "/silicon/no-such-part"], site_url=ORIGIN)
    assert info.value.problems == ["/silicon/no-such-part: HTTP 404"]


def test_progress_is_reported_for_every_url(catalog: Catalog, tmp_path: Path) -> None:
    seen: list[tuple[int, int, str]] = []
    site.build(catalog, tmp_path / "out", paths=["/", "/silicon/"], site_url=ORIGIN, on_progress=lambda *a: seen.append(a))
    assert seen == [(1, 3, "/"), (2, 3, "/silicon/"), (3, 3, "/404.html")]


# --- feed, sitemap, robots -------------------------------------------------------------


def test_feed_has_one_entry_per_record_newest_first(dated_catalog: Catalog) -> None:
    client = TestClient(__import__("computeatlas.web.app", fromlist=["create_app"]).create_app(dated_catalog))
    response = client.get("/feed.xml")
    assert response.headers["content-type"] == "application/atom+xml"
    root = ET.fromstring(response.content)
    assert root.tag == ATOM + "feed"
    for required in ("id", "title", "updated"):
        assert root.find(ATOM + required).text
    entries = root.findall(ATOM + "entry")
    # Three accelerators: A2 verified 2026-11-20, then A1 and G1 (2026-11-01) by title.
    assert [e.find(ATOM + "title").text for e in entries] == [
        "Acme A2 — verified 2026-11-20",
        "Acme A1 — verified 2026-11-01",
        "Globex G1 — verified 2026-11-01",
    ]
    first = entries[0]
    assert first.find(ATOM + "updated").text == "2026-11-20T00:00:00Z"
    assert first.find(ATOM + "link").get("href") == "http://127.0.0.1:8000/silicon/acme-a2"
    assert first.find(ATOM + "id").text == "http://127.0.0.1:8000/silicon/acme-a2#verified-2026-11-20"
    assert root.find(ATOM + "updated").text == "2026-11-20T00:00:00Z"
    assert all(e.find(ATOM + "summary").text.startswith("A test part.") for e in entries)


def test_changes_link_to_the_data_file_when_no_page_is_built(catalog: Catalog) -> None:
    found = {c.ident: c.url for c in changes(catalog, ["/silicon/acme-a1"])}
    assert found["acme-a1"] == "/silicon/acme-a1"
    assert found["globex-g1"] == "/records/accelerators/globex-g1.toml"


def test_sitemap_lists_pages_only(dated_catalog: Catalog) -> None:
    from computeatlas.web.app import create_app

    root = ET.fromstring(TestClient(create_app(dated_catalog)).get("/sitemap.xml").content)
    assert root.tag == SITEMAP + "urlset"
    urls = {u.find(SITEMAP + "loc").text: u.find(SITEMAP + "lastmod").text for u in root.findall(SITEMAP + "url")}
    assert urls["http://127.0.0.1:8000/silicon/acme-a2"] == "2026-11-20"
    assert urls["http://127.0.0.1:8000/silicon/acme-a1"] == "2026-11-01"
    assert urls["http://127.0.0.1:8000/silicon/"] == "2026-11-20"  # the newest verified date
    assert not any("/api/" in u or u.endswith((".json", ".svg", ".xml", ".toml")) for u in urls)
    dt.date.fromisoformat(next(iter(urls.values())))


def test_built_feed_and_sitemap_name_the_public_site(built: site.BuildResult) -> None:
    feed = ET.parse(built.out_dir / "feed.xml").getroot()
    links = [e.find(ATOM + "link").get("href") for e in feed.findall(ATOM + "entry")]
    assert links[0] == ORIGIN + "/sub/silicon/acme-a1/"
    assert feed.find(ATOM + "link[@rel='self']").get("href") == ORIGIN + "/sub/feed.xml"
    sitemap = ET.parse(built.out_dir / "sitemap.xml").getroot()
    locs = [u.find(SITEMAP + "loc").text for u in sitemap.findall(SITEMAP + "url")]
    assert ORIGIN + "/sub/" in locs and ORIGIN + "/sub/silicon/acme-a1/" in locs
    assert (built.out_dir / "robots.txt").read_text().endswith(f"Sitemap: {ORIGIN}/sub/sitemap.xml\n")


@pytest.mark.parametrize(
    ("path", "page"), [("/silicon/", True), ("/silicon/x", True), ("/api/accelerators", False), ("/feed.xml", False), ("/records/", False)]
)
def test_is_page(path: str, page: bool) -> None:
    assert is_page(path) is page


# --- data files and citations ----------------------------------------------------------


def test_data_files_are_served_verbatim(client: TestClient, data_dir: Path) -> None:
    response = client.get("/records/accelerators/acme-a1.toml")
    assert response.status_code == 200 and response.headers["content-type"] == "text/plain; charset=utf-8"
    assert response.content == (data_dir / "accelerators" / "acme-a1.toml").read_bytes()
    index = BeautifulSoup(client.get("/records/").text, "lxml")
    assert "/records/accelerators/acme-a2.toml" in [a["href"] for a in index.select("ul.records a")]


@pytest.mark.parametrize(
    "path", ["/records/accelerators/nope.toml", "/records/..%2F..%2Fetc/passwd", "/records/vendors/../../pyproject.toml"]
)
def test_unknown_data_file_is_a_404(client: TestClient, path: str) -> None:
    assert client.get(path).status_code == 404


def test_accelerator_page_has_trust_features(client: TestClient, catalog: Catalog) -> None:
    soup = BeautifulSoup(client.get("/silicon/acme-a1").text, "lxml")
    assert soup.find("link", rel="canonical")["href"] == "http://127.0.0.1:8000/silicon/acme-a1"
    assert soup.find("meta", attrs={"name": "description"})["content"] == "Acme A1: A test part."
    assert soup.find("meta", property="og:title")["content"] == "Acme A1"
    cite = soup.find(id="cite")
    assert cite.select_one(".cite-text").get_text() == (
        f"Compute Atlas. “Acme A1”. Verified 2026-11-01; data version {catalog.version}. http://127.0.0.1:8000/silicon/acme-a1"
    )
    bibtex = cite.find("code").get_text()
    assert bibtex.startswith("@misc{computeatlas-acme-a1-2026,") and "month        = nov," in bibtex
    assert "\\url{http://127.0.0.1:8000/silicon/acme-a1}" in bibtex
    provenance = soup.select_one("p.provenance a")
    assert provenance["href"] == "/records/accelerators/acme-a1.toml"
    footer = soup.select_one("footer.site")
    assert catalog.version in footer.get_text() and footer.find("a", href="/records/")
    assert soup.find("link", rel="alternate", type="application/atom+xml")["href"] == "/feed.xml"


def test_citation_escapes_bibtex_but_not_the_url() -> None:
    found = citation("x-1", "R&D 50% _fast_", "https://h.example/a_b?x=1", dt.date(2026, 3, 5), "abc")
    assert "title        = {{R\\&D 50\\% \\_fast\\_}}," in found.bibtex
    assert "\\url{https://h.example/a_b?x=1}" in found.bibtex and "month        = mar," in found.bibtex
    assert found.key == "computeatlas-x-1-2026"
    assert bibtex_escape("{a}") == "\\{a\\}"


def test_every_html_page_has_title_description_and_canonical(built: site.BuildResult) -> None:
    for file in built.out_dir.rglob("index.html"):
        soup = BeautifulSoup(file.read_text(), "lxml")
        name = file.relative_to(built.out_dir).as_posix()
        if soup.find("meta", attrs={"http-equiv": "refresh"}) or name == "api/docs/index.html":
            continue  # a redirect page, or FastAPI's own API explorer
        assert soup.title and soup.title.get_text().strip(), name
        assert soup.find("meta", attrs={"name": "description"})["content"].strip(), name
        assert soup.find("link", rel="canonical")["href"].startswith(ORIGIN + "/sub/"), name


# --- CLI -------------------------------------------------------------------------------


def test_cli_build(data_dir: Path, tmp_path: Path) -> None:
    runner = CliRunner()
    out = tmp_path / "public"
    result = runner.invoke(
        app,
        ["build", str(out), "--data", str(data_dir), "--base-path", "/sub/", "--site-url", ORIGIN, "--live-url", LIVE],
        env={"COLUMNS": "200"},
    )
    assert result.exit_code == 0, result.output
    assert "Wrote" in result.output and f"for {ORIGIN}/sub/" in result.output
    assert "Every internal link leads to a file, every form to a page that answers it, and no page is blank." in result.output
    assert (out / "silicon" / "acme-a1" / "index.html").is_file()


@pytest.mark.parametrize(
    ("args", "message"), [(["--base-path", "http://x/"], "base path"), (["--site-url", "atlas.example.org"], "site URL")]
)
def test_cli_build_bad_input(data_dir: Path, tmp_path: Path, args: list[str], message: str) -> None:
    result = CliRunner().invoke(app, ["build", str(tmp_path / "o"), "--data", str(data_dir), *args])
    assert result.exit_code == 2 and message in result.output


def test_cli_build_has_help() -> None:
    result = CliRunner().invoke(app, ["build", "--help"])
    assert result.exit_code == 0 and "--base-path" in result.output


# --- --live-url is an http(s) address (tester finding) ----------------------------------


@pytest.mark.parametrize(
    "bad",
    [
        "javascript:alert(1)",
        "data:text/html,x",
        "//live.example.org",
        "live.example.org",
        "ftp://live.example.org",
        "https://",
        "https://live.example.org/?a=1",
        "https://live.example.org/#x",
        'https://live.example.org/"onmouseover="x',
    ],
)
def test_a_live_url_that_is_not_http_is_refused(bad: str, catalog: Catalog, data_dir: Path, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="live URL"):
        paths.normalise_live_url(bad)
    with pytest.raises(ValueError, match="live URL"):
        site.build(catalog, tmp_path / "lib", site_url=ORIGIN, live_url=bad)
    result = CliRunner().invoke(app, ["build", str(tmp_path / "cli"), "--data", str(data_dir), "--live-url", bad])
    # The message wraps at 80 columns (never inside a word): read it with its line breaks as spaces.
    assert result.exit_code == 2 and " ".join(result.stderr.split()).startswith(
        " ".join(f"live URL {bad!r}: write an absolute http(s) address".split())
    )
    assert not (tmp_path / "lib").exists() and not (tmp_path / "cli").exists()


@pytest.mark.parametrize(
    ("given", "expected"),
    [(None, None), ("", None), ("https://live.example.org/", "https://live.example.org"), ("HTTP://h:8000/atlas/", "HTTP://h:8000/atlas")],
)
def test_a_live_url_is_normalised(given: str | None, expected: str | None) -> None:
    assert paths.normalise_live_url(given) == expected


def test_a_build_runs_inside_a_running_event_loop(catalog: Catalog, tmp_path: Path) -> None:
    """A notebook or Playwright's sync API already runs a loop on the calling thread; the build renders on another.
    The loop runs on a thread of its own here, as this worker's thread may hold the browser tests' loop."""
    import asyncio
    from concurrent.futures import ThreadPoolExecutor

    async def inside() -> site.BuildResult:
        return site.build(catalog, tmp_path / "out", "/sub/", site_url=ORIGIN, paths=["/silicon/", "/silicon/acme-a1"])

    with ThreadPoolExecutor(1) as thread:
        result = thread.submit(asyncio.run, inside()).result()
    assert set(result.files) == {"/silicon/", "/silicon/acme-a1", "/404.html"}
    page = BeautifulSoup((tmp_path / "out" / "silicon" / "acme-a1" / "index.html").read_text(), "lxml")
    assert page.find("link", rel="canonical")["href"] == ORIGIN + "/sub/silicon/acme-a1/"

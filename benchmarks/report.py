"""Turn one ``make bench`` run (the dict :mod:`run` builds) into ``benchmarks/RESULTS.md``.

Every figure is shown beside the peer measured in the same run, as a ratio; the targets
of the performance work are checked here and, where one is missed, the section "Why" gives the
profile of the hot path from the same run.
"""

from __future__ import annotations

import math
import statistics
from typing import Any

ACCELERATOR_VS_DATASETTE = 50.0
TABLE_VS_DATASETTE = 50.0
ACCELERATOR_VS_NGINX = 0.10
LINEAR_MAX_EXPONENT = 1.15
OURS = ("ours-1w", "ours-2w")
SERVER_LABEL = {
    "ours-1w": "Compute Atlas, 1 worker",
    "ours-2w": "Compute Atlas, 2 workers",
    "ours-2w-nodelay": "Compute Atlas, 2 workers, TCP_NODELAY restored (what-if, not the product)",
    "datasette": "Datasette",
    "nginx": "nginx (static build)",
}
PAGE_LABEL = {
    "table": "table page",
    "accelerator": "accelerator page",
    "data": "the table as data",
    "data-json": "the table as data (JSON)",
}


def med(values: list[float]) -> float:
    return statistics.median(values)


def spread(values: list[float], digits: int = 0) -> str:
    return f"{min(values):,.{digits}f}–{max(values):,.{digits}f}"


def ratio_text(value: float | None) -> str:
    if value is None:
        return "—"
    return f"{value:.1%}" if value < 1 else f"{value:,.1f}×"


def exponent(small: float, large: float, size_ratio: float = 10.0) -> float:
    return math.log(large / small) / math.log(size_ratio)


def growth(by: dict[int, dict[str, Any]], key: str, small: int = 10, large: int = 100, pick=min) -> float:  # type: ignore[no-untyped-def]
    """Exponent k in cost ∝ size^k between two catalog sizes, from ``pick`` of each size's runs (a count: as it is)."""
    a, b = by[small][key], by[large][key]
    return exponent(a if pick is None else pick(a), b if pick is None else pick(b), large / small)


def _rps(http: dict[str, Any], server: str, page: str) -> float | None:
    entry = http.get("servers", {}).get(server, {}).get(page)
    return med([r["rps"] for r in entry["runs"]]) if entry and entry["runs"] else None


def _div(a: float | None, b: float | None) -> float | None:
    return a / b if a is not None and b else None


def _verdict(values: dict[str, float | None], target: float) -> tuple[str, bool | None]:
    """'met'/'missed' for each of our configurations; overall met if the better one meets it."""
    parts, best = [], None
    for name, value in values.items():
        if value is None:
            parts.append(f"{name}: not measured")
            continue
        parts.append(f"{name} {ratio_text(value)} ({'met' if value >= target else 'missed'})")
        best = value if best is None else max(best, value)
    return "; ".join(parts), None if best is None else best >= target


def _against_peer(http: dict[str, Any], peer: str, page: str, peer_page: str, label: str, goal: float) -> tuple[str, str, bool | None]:
    """One ratio target against ``peer``: not measured (verdict None) when the peer served
    nothing — a peer that answers 0 requests per second gives no ratio, never a 'met'."""
    theirs = _rps(http, peer, peer_page)
    if not theirs:
        answered = "was not run" if theirs is None else "answered 0 requests/s (every request failed or timed out)"
        return label, f"not measured: {peer} {answered}", None
    text, ok = _verdict({s: _div(_rps(http, s, page), theirs) for s in OURS}, goal)
    return label, text, ok


def targets(run: dict[str, Any]) -> list[tuple[str, str, bool | None]]:
    http = run.get("http", {})
    rows = []
    for page, peer_page, label, goal in (
        ("accelerator", "accelerator", "accelerator page ≥ 50× Datasette's row page (requests/s)", ACCELERATOR_VS_DATASETTE),
        ("table", "table", "table page ≥ 50× Datasette's table page (requests/s)", TABLE_VS_DATASETTE),
    ):
        rows.append(_against_peer(http, "datasette", page, peer_page, label, goal))
    rows.append(
        _against_peer(
            http,
            "nginx",
            "accelerator",
            "accelerator",
            "accelerator page ≥ 10% of nginx serving the static file (requests/s)",
            ACCELERATOR_VS_NGINX,
        )
    )
    scales = {s["factor"]: s for s in run.get("scale", {}).get("scales", [])}
    if not (10 in scales and 100 in scales):
        why = "not measured: the growth part did not run" + (f" ({run['failed']['scale']})" if "scale" in run.get("failed", {}) else "")
        rows += [("catalog load linear in catalog size", why, None), ("CSV export linear in catalog size", why, None)]
    else:
        for key, label in (("load", "catalog load linear in catalog size"), ("export", "CSV export linear in catalog size")):
            k = growth(scales, f"{key}_cpu_s")
            k0 = growth(scales, f"{key}_nogc_cpu_s")
            kc = growth(scales, f"{key}_calls", pick=None)
            rows.append(
                (
                    label,
                    f"CPU time ∝ size^{k:.2f} from 10× to 100× (linear: ≤ {LINEAR_MAX_EXPONENT}); {k0:.2f} with the "
                    f"garbage collector paused; Python calls ∝ size^{kc:.2f}",
                    k <= LINEAR_MAX_EXPONENT,
                )
            )
    return rows


def _machine(run: dict[str, Any]) -> list[str]:
    m, v = run["machine"], run["versions"]
    la = lambda t: f"{t[0]:.2f}"
    return [
        "| | |",
        "|---|---|",
        f"| date | {run['date']}; the whole run took {run['elapsed_s'] / 60:.1f} min |",
        f"| machine | {m['arch']}, nproc {m['nproc']}, {m['cpu']}, {m['memory_gib']} GiB RAM, Linux {m['kernel']} |",
        f"| load average (1 min) at start / after HTTP / end | {la(run['load_start'])} / {la(run.get('load_after_http', run['load_start']))} / {la(run['load_end'])} |",
        f"| Python | {v['python']} |",
        f"| computeatlas | {v['computeatlas']} |",
        f"| its server stack | uvicorn {v['uvicorn']}, FastAPI {v['fastapi']}, Starlette {v['starlette']}, h11 {v['h11']}; "
        f"uvloop {v['uvloop']}, httptools {v['httptools']}; Jinja2 {v['jinja2']}, pydantic {v['pydantic']} |",
        f"| Datasette | {v['datasette']} (in benchmarks/.peers/venv) |",
        f"| nginx | {v['nginx']} |",
        f"| wrk | {v['wrk']} |",
        f"| py-spy | {v['py-spy']} |",
        *(
            [
                "",
                f"The machine was busy with other work during this run (1-minute load average up to "
                f"{max(run['load_start'][0], run.get('load_after_http', run['load_start'])[0], run['load_end'][0]):.1f} on "
                f"{m['nproc']} cores): absolute figures are inflated; the ratios from interleaved rounds and the CPU-time "
                "figures are the steadier ones.",
            ]
            if max(run["load_start"][0], run.get("load_after_http", run["load_start"])[0], run["load_end"][0]) > (m["nproc"] or 1)
            else []
        ),
    ]


def _http(run: dict[str, Any]) -> list[str]:
    http = run.get("http", {})
    if "skipped" in http:
        return [f"Not measured: {http['skipped']}."]
    out = []
    if http.get("missing"):
        out += [f"Not measured (could not be installed): {', '.join(http['missing'])}.", ""]
    out += [
        "| page | server | URL | body | requests/s, median (min–max) | p50 ms | p99 ms | non-2xx / socket errors | ours ÷ Datasette | ours ÷ nginx |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    servers = http.get("servers", {})
    for page in ("table", "accelerator", "data", "data-json"):
        for name in ("ours-1w", "ours-2w", "ours-2w-nodelay", "datasette", "nginx"):
            entry = servers.get(name, {}).get(page)
            if not entry or not entry["runs"]:
                continue
            runs = entry["runs"]
            rps = [r["rps"] for r in runs]
            vs_ds = vs_ng = None
            if name.startswith("ours"):
                vs_ds = _div(med(rps), _rps(http, "datasette", "data" if page == "data" else page))
                vs_ng = _div(med(rps), _rps(http, "nginx", "data-json" if page == "data" else page))
            errors = f"{sum(r['non2xx'] for r in runs)} / {sum(r['socket_errors'] for r in runs)}"
            out.append(
                f"| {PAGE_LABEL[page]} | {SERVER_LABEL[name]} | `{entry['path']}` | {entry['bytes'] / 1024:,.1f} KiB {entry['type']} | "
                f"{med(rps):,.0f} ({spread(rps)}) | {med([r['p50_ms'] for r in runs]):,.1f} | {med([r['p99_ms'] for r in runs]):,.1f} | "
                f"{errors} | {ratio_text(vs_ds)} | {ratio_text(vs_ng)} |"
            )
    single = http.get("single_connection")
    if single:
        out += [
            "",
            "One request at a time: each server's accelerator page over a single keep-alive connection (`wrk -t1 -c1`, 3 s), "
            "so no queueing, only the time to answer:",
            "",
            "| server | p50 ms | p99 ms | requests/s on one connection |",
            "|---|---|---|---|",
        ]
        for name, r in single.items():
            out.append(f"| {SERVER_LABEL.get(name, name)} | {r['p50_ms']:,.2f} | {r['p99_ms']:,.2f} | {r['rps']:,.0f} |")
        if "bound_socket_proto" in http:
            out += [
                "",
                f"`proto` of the listening socket uvicorn binds for `--workers N` (`Config.bind_socket()`): "
                f"{http['bound_socket_proto']} (6 is TCP; with 0, asyncio does not set TCP_NODELAY on accepted connections).",
            ]
    return out


def _render(run: dict[str, Any]) -> list[str]:
    r = run.get("render")
    if not r:
        return ["Not measured."]
    floor = min(r["jinja_loop"]["cpu"])
    rows = [
        ("`site.build(paths=…)`: the static build of exactly these pages", r["static_subset"], r["pages"]),
        ("plain Jinja2 loop: build each context with the handlers' functions, render, write", r["jinja_loop"], r["pages"]),
        ("plain Jinja2 loop over contexts built beforehand: render and write only", r["jinja_render_only"], r["pages"]),
    ]
    out = [
        f"The {r['pages']} silicon pages (`/silicon/` and one page per accelerator); the loop's HTML was checked "
        f"byte for byte against the app's response for all {r['checked_identical']} before timing. "
        f"{len(r['jinja_loop']['cpu'])} runs each in one process after a warm-up. Ratios use the least CPU time of each "
        "(`time.process_time`, this process only: other processes on a shared machine cannot inflate it); wall time "
        "for reference.",
        "",
        "| way | pages | CPU, fastest (s) | wall, median (s) | wall, max (s) | ms CPU per page | CPU ÷ the Jinja2 loop's |",
        "|---|---|---|---|---|---|---|",
    ]
    for label, times, pages in rows:
        cpu = min(times["cpu"])
        out.append(
            f"| {label} | {pages} | {cpu:.3f} | {med(times['wall']):.3f} | {max(times['wall']):.3f} | "
            f"{1000 * cpu / pages:.1f} | {cpu / floor:.2f}× |"
        )
    full = r["static_full"]
    inputs = run.get("inputs", {})
    out += [
        "",
        f"For scale, the whole site (`site.build`, every layer): {r['static_full_files']} files in {min(full['cpu']):.2f} s of "
        f"CPU (fastest of {len(full['cpu'])}; wall {spread(full['wall'], 2)} s), {1000 * min(full['cpu']) / r['static_full_files']:.1f} "
        "ms per file. The CLI build nginx serves "
        f"(`computeatlas build OUT --no-check`, a fresh process: imports, catalog load, vl-convert start-up) took "
        f"{inputs.get('build_s', float('nan')):.1f} s; `computeatlas export --format sqlite` {inputs.get('export_sqlite_s', float('nan')):.1f} s "
        f"and `--format csv` {inputs.get('export_csv_s', float('nan')):.1f} s.",
    ]
    return out


def _scale(run: dict[str, Any]) -> list[str]:
    sc = run.get("scale")
    if not sc:
        return ["Not measured."]
    scales = sc["scales"]
    out = [
        f"Cold catalog load of the bundled data in a fresh interpreter (imports excluded): {med(sc['cold_load_ms']):.0f} ms median "
        f"({spread(sc['cold_load_ms'])}, {len(sc['cold_load_ms'])} runs).",
        "",
        'Seconds of CPU (`time.process_time`, the least of the runs), then the median wall time; "GC off" is the '
        'least CPU time with the cyclic garbage collector paused; "calls" counts Python function calls (cProfile), '
        "work that no other process can change.",
        "",
        "| catalog | accelerators | load: CPU / wall | load, GC off | load calls | µs CPU per accelerator | CSV export: CPU / wall | export, GC off | export calls | CSV size | pair page, median (ms) | 6-part page, median (ms) |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for s in scales:
        out.append(
            f"| {s['factor']}× | {s['accelerators']:,} | {min(s['load_cpu_s']):.3f} / {med(s['load_s']):.3f} | "
            f"{min(s['load_nogc_cpu_s']):.3f} | {s['load_calls']:,} | {1e6 * min(s['load_cpu_s']) / s['accelerators']:,.0f} | "
            f"{min(s['export_cpu_s']):.3f} / {med(s['export_s']):.3f} | {min(s['export_nogc_cpu_s']):.3f} | {s['export_calls']:,} | "
            f"{s['csv_bytes'] / 1024:,.0f} KiB | {med(s['pair_ms']):.1f} | {med(s['six_ms']):.1f} |"
        )
    by = {s["factor"]: s for s in scales}
    if 1 in by and 10 in by and 100 in by:
        out += [
            "",
            "Growth exponent k (cost ∝ size^k; 1 = linear; least CPU time for load and export, medians of "
            f"{len(by[1]['pair_ms'])} requests for the pages):",
            "",
            "| cost | 1× → 10× | 10× → 100× |",
            "|---|---|---|",
        ]
        for key, label, pick in (
            ("load_cpu_s", "catalog load, CPU", min),
            ("load_nogc_cpu_s", "catalog load, CPU, GC off", min),
            ("load_calls", "catalog load, Python calls", None),
            ("export_cpu_s", "CSV export, CPU", min),
            ("export_nogc_cpu_s", "CSV export, CPU, GC off", min),
            ("export_calls", "CSV export, Python calls", None),
            ("pair_ms", "pair comparison page, wall", med),
            ("six_ms", "6-part comparison page, wall", med),
        ):
            out.append(f"| {label} | {growth(by, key, 1, 10, pick):.2f} | {growth(by, key, 10, 100, pick):.2f} |")
    return out


def _profile_rows(profile: dict[str, Any]) -> list[str]:
    out = ["| where the samples are (self time, by layer) | share |", "|---|---|"]
    out += [f"| {name} | {share:.0%} |" for name, share in profile["layers"]]
    out += ["", "| hottest functions (self time) | share |", "|---|---|"]
    out += [f"| `{name}` | {share:.1%} |" for name, share in profile["functions"][:10]]
    return out


def verdict(run: dict[str, Any], rows: list[tuple[str, str, bool | None]]) -> str:
    """The run's one-line verdict: 'Every target was met' only when every part ran and every
    target was measured and met; otherwise what was missed, what was not measured, what failed."""
    missed = [label for label, _, ok in rows if ok is False]
    unmeasured = [label for label, _, ok in rows if ok is None]
    failed = list(run.get("failed", {}))
    if not (missed or unmeasured or failed):
        return "Every target was met in this run."
    parts = [
        f"missed: {'; '.join(missed)}" if missed else "",
        f"not measured: {'; '.join(unmeasured)}" if unmeasured else "",
        f"parts that failed: {', '.join(failed)}" if failed else "",
    ]
    return "Not every target was met in this run — " + " — ".join(p for p in parts if p) + "."


def _why(run: dict[str, Any], rows: list[tuple[str, str, bool | None]]) -> list[str]:
    http = run.get("http", {})
    missed = [label for label, _, ok in rows if ok is False]
    out: list[str] = []
    out += [verdict(run, rows), ""]
    prof = http.get("profile")
    if prof:
        ours_share = sum(share for name, share in prof["layers"] if name.startswith("Compute Atlas"))
        stack_share = 1 - ours_share - sum(share for name, share in prof["layers"] if name == "other")
        accel = _rps(http, "ours-1w", "accelerator") or 0.0
        out += [
            "### Serving a page: the hot path is the HTTP stack, not Compute Atlas",
            "",
            f"py-spy, 200 Hz for {http_profile_seconds(run)} s, on `computeatlas serve` (1 worker) while wrk loads "
            f"`{prof['path']}` with 32 connections ({prof['samples']:,} samples; raw stacks in "
            "`benchmarks/.peers/last-run/profile-ours-accelerator.txt`):",
            "",
            *_profile_rows(prof),
            "",
            f"The page is served from memory: the page cache (`computeatlas/web/cache.py`) holds the rendered bytes after "
            f"the first request, and Compute Atlas's own code is {ours_share:.0%} of the samples. About {stack_share:.0%} is "
            "the Python HTTP stack every request crosses: uvicorn's protocol (httptools and uvloop, from `uvicorn[standard]`), "
            "the event loop's socket transport, and FastAPI's and Starlette's routing and response objects around the "
            "site's plain-ASGI middleware (`SiteMiddleware` in `web/app.py`). "
            f"That caps one worker near {accel:,.0f} requests/s whatever a page costs to render. Datasette runs on "
            "the same kind of stack (uvicorn, asyncio) and renders its page on every request, so the ratio to it is "
            "Datasette's render time over this fixed cost per request; nginx answers the same bytes from C with sendfile.",
            "",
        ]
        single = http.get("single_connection", {})
        if all(name in single for name in ("ours-1w", "datasette", "nginx")):
            a, d, n = (single[name]["p50_ms"] for name in ("ours-1w", "datasette", "nginx"))
            out += [
                f"The one-request-at-a-time table above gives the same bound without queueing: Datasette's row page takes "
                f"{d:.2f} ms, our accelerator page {a:.2f} ms (a {d / a:,.0f}× ratio, against the 50× asked), nginx "
                f"{n:.2f} ms (ours at {n / a:.0%} of its speed). Under 32 connections the figures move with how the two "
                "cores are shared between the server and wrk, and with other work on the machine.",
                "",
            ]
    elif any("Datasette" in m or "nginx" in m for m in missed):
        out += [f"No profile: {http.get('profile_error', 'py-spy was not available')}.", ""]
    one, two, fixed = (_rps(http, name, "accelerator") for name in ("ours-1w", "ours-2w", "ours-2w-nodelay"))
    single = http.get("single_connection", {})
    if one and two and "ours-2w" in single and "ours-1w" in single:
        s1, s2 = single["ours-1w"]["p50_ms"], single["ours-2w"]["p50_ms"]
        out += ["### Two workers", ""]
        if two < 0.9 * one and s2 > 10 * s1:
            text = (
                f"`--workers 2` is slower than one worker here ({two:,.0f} against {one:,.0f} requests/s on the accelerator "
                f"page), and one request alone takes {s2:.1f} ms on a keep-alive connection against {s1:.2f} ms. With "
                "`--workers N` uvicorn binds the listening socket itself and leaves its `proto` at 0 (measured: "
                f"{http.get('bound_socket_proto', '?')}); accepted connections inherit it and asyncio sets TCP_NODELAY only "
                "when `proto` is TCP, so every response on a keep-alive connection waits for the client's delayed ACK "
                "(about 40 ms on Linux; reported upstream as Kludex/uvicorn#3149): the time goes to waiting, not to Python."
            )
            if fixed and "ours-2w-nodelay" in single:
                s3 = single["ours-2w-nodelay"]["p50_ms"]
                text += (
                    f" With the socket marked as TCP (`benchmarks/serve_nodelay.py`, the what-if rows) two workers answer "
                    f"one request in {s3:.2f} ms and serve {fixed:,.0f} requests/s under load "
                    + (
                        "— above one worker."
                        if fixed > one
                        else "— still not above one worker, because on 2 cores the two workers share the CPUs with each other and with wrk's two threads."
                    )
                )
            out += [text, ""]
        else:
            out += [
                f"Two workers: {two:,.0f} requests/s against one worker's {one:,.0f} on the accelerator page "
                f"(one request alone: {s2:.2f} ms against {s1:.2f} ms).",
                "",
            ]
    if prof or (one and two):
        out += [
            "What would move the serving figures (product changes, none made by this benchmark): the page cache and the "
            'security headers as a plain ASGI middleware instead of `@app.middleware("http")` (no task group per '
            "request); `uvicorn[standard]` (httptools parser, uvloop loop); until uvicorn fixes #3149, serve one worker "
            "per process behind a balancer, or pass uvicorn a socket created with `proto=IPPROTO_TCP`; for the ceiling, "
            "the static build behind nginx or a CDN (the nginx rows).",
            "",
        ]
    by = {s["factor"]: s for s in run.get("scale", {}).get("scales", [])}
    if 10 in by and 100 in by:
        out += ["### Catalog load and CSV export", ""]
        for key, label in (("load", "catalog load"), ("export", "CSV export")):
            k, k0 = growth(by, f"{key}_cpu_s"), growth(by, f"{key}_nogc_cpu_s")
            kc = growth(by, f"{key}_calls", pick=None)
            figures = (
                f"The {label}'s CPU time grows as size^{k:.2f} from 10× to 100×, size^{k0:.2f} with the garbage "
                f"collector paused, and the Python calls it makes as size^{kc:.2f}"
            )
            if k <= LINEAR_MAX_EXPONENT:
                out += [figures + ": linear.", ""]
            elif kc <= 1.05 and k0 <= LINEAR_MAX_EXPONENT:
                out += [
                    figures + ". The work is linear (the calls scale with the catalog) and the excess is CPython's cyclic "
                    "garbage collector, whose full collections walk every live object — a heap that grows with the catalog "
                    "(pydantic models, claims, units) — and come more often the more is allocated. A product change to try: "
                    "pause the collector around loading and exporting, or `gc.freeze()` the loaded catalog (it lives as "
                    "long as the process).",
                    "",
                ]
            elif kc <= 1.05:
                out += [
                    figures + ". The work is linear (the calls scale with the catalog); what grows is the time per call "
                    "even with the collector paused: a larger heap touches more memory per call (cache misses), and a "
                    "process sharing 2 cores with others loses cache to them. Not super-linear work in the code.",
                    "",
                ]
            else:
                out += [figures + ": the code does super-linear work; see the profile below.", ""]
    gp = run.get("growth_profile")
    if gp:
        for part, label in (("load", "catalog load"), ("export", "CSV export")):
            prof_part = gp.get(part)
            if not prof_part or not prof_part["samples"]:
                continue
            out += [
                f"Where the {label}'s time goes at {gp['factor']}× (py-spy, 200 Hz, over a fresh interpreter that loads the "
                f"{gp['factor']}× catalog and exports its CSV; {prof_part['samples']:,} samples in the {label}; raw stacks in "
                f"`benchmarks/.peers/last-run/{gp['file']}`):",
                "",
                *_profile_rows(prof_part),
                "",
            ]
    return out


def http_profile_seconds(run: dict[str, Any]) -> int:
    from http_bench import PROFILE_SECONDS

    return PROFILE_SECONDS


def markdown(run: dict[str, Any]) -> str:
    rows = targets(run)
    from http_bench import CONNECTIONS, REPS, SECONDS, THREADS, WARMUP

    reps = REPS

    lines = [
        "# Benchmark results",
        "",
        "Written by `make bench` (`benchmarks/run.py`); every figure below comes from the one run described here, and every "
        "ratio compares figures taken minutes apart on the same machine. Re-running overwrites this file. Method and "
        "fairness notes: [README.md](README.md).",
        "",
        "## Machine and versions",
        "",
        *_machine(run),
        "",
        "## Targets",
        "",
        *[f"**Part {name} failed in this run**: `{why}`\n" for name, why in run.get("failed", {}).items()],
        "| target | this run | verdict |",
        "|---|---|---|",
        *[f"| {label} | {text} | {'**not measured**' if ok is None else '**met**' if ok else '**missed**'} |" for label, text, ok in rows],
        "",
        "## 1. Serving: Compute Atlas vs Datasette vs nginx",
        "",
        f"wrk, {THREADS} threads, {CONNECTIONS} connections, on 127.0.0.1; per URL a {WARMUP} s warm-up, then {reps} rounds of "
        f"{SECONDS} s (longer for a URL whose single request takes over {SECONDS / (3 * CONNECTIONS):.2f} s: about three "
        f"requests per connection, at most 60 s; the server's queue is drained after every run), each round running every URL "
        "of every server in turn (interleaved). requests/s is the median of "
        "the rounds with their min–max; p50/p99 are medians of the rounds' percentiles. wrk shares the 2 cores with the "
        'server under test. "ours ÷ nginx" for the data row compares our `/api/accelerators` with the same JSON '
        'document served as a file by nginx; "ours ÷ Datasette" for that row compares our JSON with Datasette\'s full '
        "CSV (our live server gives the CSV only in answer to the `/data/` form post).",
        "",
        *_http(run),
        "",
        "## 2. Rendering: the static build vs a plain Jinja2 loop",
        "",
        *_render(run),
        "",
        "## 3. Growth: catalog load, CSV export and a comparison page at 1×, 10×, 100×",
        "",
        "Synthetic catalogs from `benchmarks/synthetic.py` (the bundled data, every accelerator cloned under new ids "
        "with renamed aliases and predecessors). Load is warm (pint's registry built); the CSV export is what "
        "`computeatlas export --format csv` does after loading (build the table, write the file); comparison pages go "
        "through the app in-process with the page cache off, so each request builds and renders the comparison.",
        "",
        *_scale(run),
        "",
        "## 4. Why: profiles of the hot paths",
        "",
        *_why(run, rows),
        "",
    ]
    return "\n".join(lines)

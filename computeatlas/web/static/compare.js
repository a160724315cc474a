/* Any comparison on a static copy of the site. The static host answers a pair that was not
 * built with the 404 page; when that page lists the parts' comparison columns (files of
 * /api/compare/parts/{id}, see computeatlas/pages/comparison_columns.py) and both sides of
 * the address are catalogued ids of an uncurated pair, this script fetches both columns and
 * lays out the comparison page as compare.html does: the same rows, cells, states, labels
 * and ratios, each one a string the server wrote into the columns; a pair named by aliases
 * goes to its one address (ids sorted), the names read from the prebuilt search index
 * (/api/search-index), as the server redirects it. It computes nothing and
 * formats no figure; it puts the server's words in place, adds a note that the page was put
 * together in the browser, and links to the live page when the build named a live server.
 * Without JavaScript, or when a file is missing, the 404 page (and static/notfound.js) says
 * the pair was not built and where to find it. */
(function () {
  "use strict";
  var box = document.getElementById("not-prebuilt");
  var listed = document.getElementById("compare-columns");
  if (!box || !listed || !window.fetch) return;
  var compare = box.getAttribute("data-compare"); // "/atlas/compare/"
  var path = window.location.pathname;
  if (path.indexOf(compare) !== 0) return;
  var pair = path.slice(compare.length).replace(/\/+$/, "");
  if (pair.indexOf("-vs-") <= 0 || pair.indexOf("/") >= 0) return;
  var files = JSON.parse(listed.textContent);
  var sides = null;
  var pieces = pair.split("-vs-");
  for (var n = 1; n < pieces.length && !sides; n++) { // an id could itself hold "-vs-"
    var a = pieces.slice(0, n).join("-vs-"), b = pieces.slice(n).join("-vs-");
    if (files.hasOwnProperty(a) && files.hasOwnProperty(b) && a !== b) sides = [a, b];
  }

  function get(url) {
    return fetch(url, { credentials: "same-origin" }).then(function (answer) {
      if (!answer.ok) throw new Error(url + ": HTTP " + answer.status);
      return answer.json();
    });
  }

  /* The normal form of a name, as resolve.normal in computeatlas/silicon/resolve.py (and static/search.js). */
  function normal(text) {
    return text.normalize("NFKC").replace(/\p{Cf}/gu, "").toLowerCase().replace(/[\s_\-]+/g, " ").trim();
  }

  /* The accelerator id a name means, as resolve.resolve_id reads it from the search index's
   * exact names (id, then alias, then name; a name several parts share means none), or null. */
  function resolved(index, text) {
    var name;
    try { name = decodeURIComponent(text); } catch (e) { name = text; }
    var hits = (index.exact[normal(name)] || []).filter(function (e) { return index.parts[e[0]].kind === "accelerator"; });
    if (!hits.length) return null;
    var best = Math.min.apply(null, hits.map(function (e) { return e[1]; }));
    var ids = [];
    hits.forEach(function (e) {
      var ident = index.parts[e[0]].id;
      if (e[1] === best && ids.indexOf(ident) < 0) ids.push(ident);
    });
    return ids.length === 1 ? ids[0] : null;
  }

  /* A pair named by aliases or names: go to the pair's one address (ids sorted), as the server
   * redirects; there the built page, or this script again, shows it. */
  function redirect(index) {
    for (var n = 1; n < pieces.length; n++) {
      var a = resolved(index, pieces.slice(0, n).join("-vs-")), b = resolved(index, pieces.slice(n).join("-vs-"));
      if (a && b && a !== b) {
        var target = compare + [a, b].sort().join("-vs-") + "/";
        if (target !== path) window.location.replace(target);
        box.setAttribute("data-redirect", target);
        return;
      }
    }
  }

  if (!sides) {
    var indexUrl = box.getAttribute("data-index");
    if (indexUrl) get(indexUrl).then(redirect).catch(function (error) { box.setAttribute("data-index-error", String(error && error.message || error)); });
    return;
  }

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (name) {
      if (attrs[name] !== null && attrs[name] !== undefined) node.setAttribute(name, attrs[name]);
    });
    (children || []).forEach(function (child) {
      if (child === null || child === undefined || child === "") return;
      node.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
    });
    return node;
  }

  function sourceLink(src) {
    var out = [el("a", { href: src.url, rel: "noopener", "class": "src", title: src.title + " (" + src.publisher + ", read " + src.accessed + ")" },
      [src.publisher + (src.kind === "vendor" ? " (vendor)" : "")])];
    if (src.where_read) out.push(" ", el("span", { "class": "copy", title: src.copy_of || "" }, [src.where_read]));
    return out;
  }

  /* One cell as compare.html's cell_body macro writes it. */
  function cellBody(cell, row, ratio, anyRatio, isReference) {
    var out = [];
    if (row.group === "price" && cell.state === "published") {
      out.push(el("a", { "class": "figure", href: cell.url, rel: "noopener" }, [cell.display]));
    } else if (cell.state === "published" || cell.state === "derived") {
      out.push(el("span", { "class": "figure" }, [cell.display]));
      if (cell.secondary) out.push(" ", el("span", { "class": "conv", title: "converted to the row's unit, three significant figures" }, [cell.secondary]));
      if (cell.memory_type) out.push(" ", el("span", { "class": "memtype" }, [cell.memory_type]));
      if (cell.basis) out.push(" ", el("span", { "class": "basis" }, ["per " + (cell.basis_label || cell.basis)]));
      if (cell.per_device) out.push(" ", el("span", { "class": "per-device" }, ["= " + cell.per_device]));
    } else {
      var text = cell.state === "published_as_text" ? cell.state_label : cell.display;
      out.push(el("span", { "class": "state state-" + cell.state }, [text]));
      if (cell.state === "published_as_text") out.push(": ", el("q", { "class": "published-text" }, [cell.display]));
      if (cell.state === "not_comparable" && cell.published_text) {
        out.push(" ", el("span", { "class": "basis" }, ["stated per " + (cell.basis || "other basis") + ":"]), " ",
          el("q", { "class": "published-text" }, [cell.published_text]));
      }
    }
    if (ratio && ratio.ratio_display) {
      out.push(" ", el("span", { "class": "ratio", title: cell.display + " against the first part's figure" }, [ratio.ratio_display]));
    } else if (isReference && anyRatio) {
      out.push(" ", el("span", { "class": "ratio ratio-ref" }, ["reference"]));
    }
    if (cell.sparse) out.push(" ", el("span", { "class": "sparse" }, ["· " + cell.sparse + " (shown, not compared)"]));
    if (cell.disputed) {
      if (cell.dispute_to_weigh) out.push(el("span", { "class": "disputed", title: "sources disagree: the maker against the maker, or no maker source" }, ["disputed"]));
      out.push(el("span", { "class": "note" }, ["also claimed: " + cell.other_claims.join("; ")]));
    }
    if (cell.source) out.push(" ", el("span", { "class": "cite" }, sourceLink(cell.source)));
    if (cell.worked) out.push(" ", el("span", { "class": "worked" }, [cell.worked]));
    if (cell.reason) out.push(" ", el("span", { "class": "note" }, [cell.reason]));
    if (ratio && ratio.ratio_reason) out.push(" ", el("span", { "class": "note" }, [ratio.ratio_reason]));
    if (row.group === "price" && cell.state === "published" && cell.note) out.push(" ", el("span", { "class": "note" }, [cell.note]));
    return out;
  }

  function rowTable(keys, caption, id, view) {
    var head = el("tr", {}, [el("th", { scope: "col" }, ["Spec"])].concat(view.parts.map(function (p) {
      return el("th", { scope: "col", "data-id": p.id }, [el("a", { href: p.url }, [p.name])]);
    })));
    var body = keys.map(function (key) {
      var row = view.rows[key];
      var ratio = view.pair.ratios[key] || null;
      var label = el("th", { scope: "row" }, [row.label,
        row.formula ? el("span", { "class": "formula" }, [row.formula]) : null,
        row.note ? el("span", { "class": "note" }, [row.note]) : null]);
      var cells = view.columns.map(function (column, i) {
        var cell = column.cells[key];
        var mine = i === 0 ? null : ratio;
        return el("td", { "data-id": cell.id, "data-state": cell.state, "data-ratio": mine && mine.ratio_data },
          cellBody(cell, row, mine, Boolean(ratio && ratio.ratio_display), i === 0));
      });
      return el("tr", { "data-key": key }, [label].concat(cells));
    });
    return el("div", { "class": "table-wrap", role: "region", "aria-label": caption + " (scrolls sideways)", tabindex: "0" }, [
      el("table", { "class": "compare", id: id }, [el("caption", {}, [caption]), el("thead", {}, [head]), el("tbody", {}, body)])
    ]);
  }

  function section(id, heading, children) {
    return el("section", { id: id }, [el("h2", {}, [heading])].concat(children));
  }

  function render(view, live) {
    var pairView = view.pair;
    var first = view.parts[0];
    var headline = [el("p", { "class": "headline-text" }, [pairView.headline.text])];
    var fmt = pairView.headline.number_format;
    if (fmt) {
      var key = "compute." + fmt;
      headline.push(el("ul", { "class": "headline-figures" }, view.columns.map(function (column, i) {
        var cell = column.cells[key];
        var ratio = i === 0 ? null : pairView.ratios[key];
        return el("li", { "data-id": cell.id }, [el("strong", {}, [view.parts[i].name]), ": ", el("span", { "class": "figure" }, [cell.display]), " ",
          el("span", { "class": "basis" }, ["per " + cell.basis + ", dense"]),
          ratio && ratio.ratio_display ? " " : null, ratio && ratio.ratio_display ? el("span", { "class": "ratio" }, [ratio.ratio_display]) : null]);
      })));
    }
    var note = [
      "This copy of the atlas holds no page for this pair, so your browser put it together from the comparison data built into it (data version ",
      el("code", {}, [view.version]), "): the same figures, states and ratios the atlas shows."
    ];
    if (live) note.push(" ", el("a", { href: live, "class": "live-page" }, ["The live page of this pair"]), ".");
    var article = el("article", { "class": "comparison", "data-ids": pairView.ids.join(","), "data-rendered": "browser" }, [
      el("p", { "class": "kicker" }, ["Layer 2 — Silicon · Comparison"]),
      el("h1", {}, [pairView.title]),
      el("p", { "class": "static-note" }, note),
      section("headline", "Headline compute", headline),
      section("specifications", "Side by side", [
        el("p", { "class": "hint" }, ["Ratios are against " + first.name + ", each as the atlas states it; a state in words never gets a ratio."]),
        rowTable(pairView.rows, "Specifications", "compare-table", view)
      ]),
      section("derived", "Derived figures", [
        el("p", { "class": "hint" }, [el("span", { "class": "derived-label" }, ["Derived from published figures"]), ": arithmetic on the figures above, shown with its formula."]),
        rowTable(pairView.derived, "Derived from published figures", "derived-table", view)
      ]),
      pairView.prices.length ? section("prices", "Price meets specs", [rowTable(pairView.prices, "Price and price-performance", "price-table", view)]) : null,
      section("provenance", "Where this comes from", [
        el("ul", { "class": "parts" }, view.parts.map(function (p) {
          return el("li", {}, [el("a", { href: p.url }, [p.name]), " (" + p.vendor + ", " + p.availability.replace(/-/g, " ") + ") — verified ",
            el("time", { datetime: p.verified }, [p.verified]), ", from ", el("code", {}, [p.data_file])]);
        })),
        el("p", { "class": "provenance" }, ["Built from the records at data version ", el("code", {}, [view.version]), ". ",
          el("a", { href: compare }, ["Other comparisons"]), "."])
      ])
    ]);
    var main = document.getElementById("main") || document.querySelector("main");
    while (main.firstChild) main.removeChild(main.firstChild);
    main.appendChild(article);
    document.title = pairView.title + " · Compute Atlas";
  }

  Promise.all([get(files[sides[0]]), get(files[sides[1]])]).then(function (columns) {
    var pairView = columns[0].pairs[sides[1]] || columns[1].pairs[sides[0]];
    if (!pairView) return; // a curated pair (its page is built) or no such pair: the 404 page says so
    var ordered = pairView.ids[0] === columns[0].part.id ? columns : [columns[1], columns[0]];
    var canonical = pairView.ids.join("-vs-");
    var liveBase = box.getAttribute("data-live");
    var view = {
      pair: pairView,
      columns: ordered,
      parts: ordered.map(function (c) { return c.part; }),
      rows: ordered[0].rows, // row headings as the reference's page shows them
      version: ordered[0].data_version
    };
    render(view, liveBase ? liveBase + canonical : null);
    if (canonical !== pair && window.history && window.history.replaceState) {
      window.history.replaceState(null, "", compare + canonical + (path.slice(-1) === "/" ? "/" : ""));
    }
  }).catch(function (error) {
    box.setAttribute("data-columns-error", String(error && error.message || error));
  });
})();

/* Search on a static copy of the site: reads ?q= and lists the matching hits (of every kind) from the
 * prebuilt index (/api/search-index), ranked as computeatlas/silicon/search.py ranks them.
 * It only lists names and links: it renders no figures. On the live site the server has
 * already answered (#results[data-rendered]) and this script does nothing. */
(function () {
  "use strict";
  var form = document.querySelector("form[data-index]");
  var out = document.getElementById("results");
  if (!form || !out || out.hasAttribute("data-rendered")) return;
  var q = new URLSearchParams(window.location.search).get("q");
  if (q === null || !q.trim()) return;
  form.querySelector("input[name=q]").value = q;

  function normal(text) {
    return text.normalize("NFKC").replace(/\p{Cf}/gu, "").toLowerCase().replace(/[\s_\-]+/g, " ").trim();
  }
  function words(text) {
    return normal(text).split(/[^\p{L}\p{N}\p{M}]+/u).filter(Boolean);
  }
  /* The same function as rank() in computeatlas/silicon/search.py. */
  function rank(index, query) {
    var tiers = ["id", "alias", "name"];
    var found = [];
    var entries = index.exact[normal(query)] || [];
    if (entries.length) {
      var best = Math.min.apply(null, entries.map(function (e) { return e[1]; }));
      entries.forEach(function (e) { if (e[1] === best) found.push([e[0], tiers[e[1]]]); });
    }
    var seen = found.map(function (f) { return f[0]; });
    var wanted = words(query);
    if (!wanted.length) return found;
    var start = normal(query) + " ";
    var prefixed = [];
    index.parts.forEach(function (part, pos) {
      if (seen.indexOf(pos) >= 0) return;
      if ((part.names || []).some(function (n) { return n.indexOf(start) === 0; })) prefixed.push(pos);
    });
    seen = seen.concat(prefixed);
    var scored = [];
    index.parts.forEach(function (part, pos) {
      if (seen.indexOf(pos) >= 0) return;
      var all = wanted.every(function (q) { return part.words.some(function (w) { return w.indexOf(q) === 0; }); });
      if (all) scored.push([-wanted.filter(function (q) { return part.words.indexOf(q) >= 0; }).length, pos]);
    });
    scored.sort(function (a, b) { return a[0] - b[0] || a[1] - b[1]; });
    return found
      .concat(prefixed.map(function (p) { return [p, "prefix"]; }))
      .concat(scored.map(function (s) { return [s[1], "words"]; }));
  }
  function el(tag, text, attrs) {
    var node = document.createElement(tag);
    if (text) node.textContent = text;
    Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    return node;
  }
  function show(index) {
    var matches = rank(index, q);
    var exact = matches.filter(function (m) { return m[1] !== "words" && m[1] !== "prefix"; }).length;
    if (matches.length === 1 && exact === 1) {
      window.location.replace(index.parts[matches[0][0]].url);
      return;
    }
    var status = matches.length === 0 ? "unknown" : exact > 1 ? "ambiguous" : exact === 1 ? "found" : "partial";
    out.setAttribute("data-status", status);
    out.textContent = "";
    var title = {
      unknown: "Nothing is called “" + q + "”",
      ambiguous: "“" + q + "” could mean " + exact + " things",
      found: "“" + q + "” is " + (matches.length ? index.parts[matches[0][0]].name : "") + ", and others go by these words",
      partial: matches.length + " hit" + (matches.length === 1 ? "" : "s") + " for “" + q + "”"
    }[status];
    out.appendChild(el("h2", title));
    if (!matches.length) {
      var none = el("p", "No part's words begin with these. ");
      var browse = form.getAttribute("data-browse");
      if (browse) none.appendChild(el("a", "Browse all accelerators", { href: browse }));
      out.appendChild(none);
      return;
    }
    if (status === "partial") out.appendChild(el("p", "Nothing is called exactly that; these are the names that begin with yours, or whose words do."));
    var list = el("ol", "", { class: "matches" });
    matches.forEach(function (m) {
      var part = index.parts[m[0]];
      var li = el("li", "", { "data-kind": part.kind, "data-id": part.id, "data-matched-by": m[1] });
      li.appendChild(el("span", part.kind, { class: "kind" }));
      li.appendChild(document.createTextNode(" "));
      li.appendChild(el("a", part.name, { href: part.url }));
      li.appendChild(document.createTextNode(" "));
      li.appendChild(el("code", part.id));
      li.appendChild(document.createTextNode(" "));
      var how = m[1] === "words" ? "name begins with these words" : m[1] === "prefix" ? "name begins with this" : "exact " + m[1];
      li.appendChild(el("span", how, { class: "how" }));
      list.appendChild(li);
    });
    out.appendChild(list);
  }
  out.textContent = "Searching…";
  fetch(form.getAttribute("data-index"))
    .then(function (response) {
      if (!response.ok) throw new Error("HTTP " + response.status);
      return response.json();
    })
    .then(show)
    .catch(function (error) {
      out.textContent = "The search index could not be read (" + error.message + ").";
    });
})();

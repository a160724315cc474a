/* The silicon table on a static copy of the site: a static host ignores the query string, so
 * this script reads the table's parameters (columns, sort, vendor, availability, workload,
 * form_factor, {column}_min / _max) from the address and filters and sorts the rows the
 * page already holds, by the rules of computeatlas/silicon/table.py (parse_query, rows):
 * - columns: the keys shown, comma-separated or once per column (the picker's checkboxes);
 *   the name always; every column but the vendor when not given;
 * - figures sort by number, ties by name; cells without a number sort after every number in
 *   both directions, by their text then name; text columns sort by text then name, reversed
 *   when descending;
 * - a range bound is a number in the column's display unit, or a number and a unit
 *   (core/amounts.py); a part without a number in that column does not match a range;
 * - a choice filter matches the cell's text exactly, several values separated by commas.
 * It shows no figure of its own: it reorders and hides the server's rows and columns and
 * says what it filtered in the words of computeatlas/pages/filter_statement.py. On the live site the server has already answered the query (the table's
 * data-query is the page's query string) and this script does nothing. */
(function () {
  "use strict";
  var table = document.getElementById("silicon-table");
  var specNode = document.getElementById("table-spec");
  if (!table || !specNode) return;
  var search = window.location.search.replace(/^\?/, "");
  if (table.getAttribute("data-query") === search) return;
  var spec = JSON.parse(specNode.textContent);
  var columns = spec.columns;
  var NUMBER = /^([+-]?(?:[0-9]{1,40}(?:\.[0-9]{0,40})?|\.[0-9]{1,40})(?:[eE][+-]?[0-9]{1,3})?) ?([A-Za-z\/]{0,12})$/;

  function QueryError(param, reason) {
    this.param = param;
    this.reason = reason;
  }

  /* A range bound as parse_amount reads it, in the column's display unit; null when blank. */
  function amount(param, text, col) {
    if (!text.trim()) return null;
    var clean = text.replace(/^ +| +$/g, "");
    if (clean.length > spec.max_amount) throw new QueryError(param, "value is too long (at most " + spec.max_amount + " characters)");
    var match = NUMBER.exec(clean);
    var units = Object.keys(col.units);
    var expected = "write a number in " + col.unit + ", or a number and one of: " + units.join(", ");
    if (!match) throw new QueryError(param, "cannot read '" + clean + "': " + expected);
    var word = match[2] || col.unit;
    var unit = col.units.hasOwnProperty(word) ? word : null;
    if (unit === null && col.fold) {
      unit = units.filter(function (u) { return u.toLowerCase() === word.toLowerCase(); })[0] || null;
    }
    if (unit === null) throw new QueryError(param, "cannot read '" + clean + "': unknown unit '" + word + "'; " + expected);
    var canonical = parseFloat(match[1]) * col.units[unit];
    if (!isFinite(canonical)) throw new QueryError(param, "'" + clean + "' is not a finite number");
    var number = canonical / col.scale;
    if (number < 0) throw new QueryError(param, "must not be negative");
    return number;
  }

  /* The query as parse_query reads it (unknown parameters ignored). */
  function parse(params, rows) {
    var seen = {};
    var declared = ["sort", "columns"].concat(spec.choices);
    Object.keys(columns).forEach(function (key) {
      if (columns[key].units) declared.push(key + "_min", key + "_max");
    });
    params.forEach(function (value, key) {
      if (declared.indexOf(key) < 0 || key === "columns") return;
      if (seen[key]) throw new QueryError(key, "given more than once; separate several values with commas");
      seen[key] = true;
      if (value.length > spec.max_value && key.slice(-4) !== "_min" && key.slice(-4) !== "_max") {
        throw new QueryError(key, "at most " + spec.max_value + " characters");
      }
    });
    var query = { sort: "name", descending: false, choices: {}, ranges: {}, columns: spec.shown };
    var picked = params.getAll("columns").join(",");
    if (picked.length > spec.max_value) throw new QueryError("columns", "at most " + spec.max_value + " characters");
    var asked = picked.split(",").map(function (v) { return v.trim(); }).filter(Boolean);
    if (asked.length) {
      var strange = asked.filter(function (v) { return !columns.hasOwnProperty(v); }).sort();
      strange = strange.filter(function (v, i) { return strange.indexOf(v) === i; });
      if (strange.length) {
        throw new QueryError("columns", "no column " + strange.map(function (v) { return "'" + v + "'"; }).join(", ") +
          "; choose from " + Object.keys(columns).join(", "));
      }
      query.columns = Object.keys(columns).filter(function (k) { return k === "name" || asked.indexOf(k) >= 0; });
    }
    var sort = (params.get("sort") || "").trim();
    if (sort) {
      query.descending = sort.charAt(0) === "-";
      query.sort = sort.replace(/^-+/, "");
      if (!columns.hasOwnProperty(query.sort)) {
        throw new QueryError("sort", "no column '" + query.sort + "'; choose one of " + Object.keys(columns).join(", "));
      }
    }
    spec.choices.forEach(function (key) {
      var values = (params.get(key) || "").split(",").map(function (v) { return v.trim(); }).filter(Boolean);
      if (!values.length) return;
      var known = {};
      rows.forEach(function (row) { known[text(row, key)] = true; });
      var unknown = values.filter(function (v) { return !known.hasOwnProperty(v); }).sort();
      if (unknown.length) {
        throw new QueryError(key, "no part has " + key + " " + unknown.map(function (v) { return "'" + v + "'"; }).join(", ") +
          "; known: " + Object.keys(known).sort().join(", "));
      }
      query.choices[key] = values;
    });
    Object.keys(columns).forEach(function (key) {
      var col = columns[key];
      if (!col.units) return;
      var low = params.has(key + "_min") ? amount(key + "_min", params.get(key + "_min"), col) : null;
      var high = params.has(key + "_max") ? amount(key + "_max", params.get(key + "_max"), col) : null;
      if (low === null && high === null) return;
      if (low !== null && high !== null && low > high) throw new QueryError(key + "_min", "is above " + key + "_max (" + low + " > " + high + ")");
      query.ranges[key] = [low, high];
    });
    return query;
  }

  function cell(row, key) {
    return row.querySelector('td[data-key="' + key + '"]');
  }
  function text(row, key) {
    if (key === "name") return row.getAttribute("data-name");
    if (key === "vendor") return row.getAttribute("data-vendor");
    var td = cell(row, key);
    return td ? td.getAttribute("data-text") : "";
  }
  function number(row, key) {
    var td = cell(row, key);
    return td && td.hasAttribute("data-number") ? parseFloat(td.getAttribute("data-number")) : null;
  }
  /* Python's tuple order on strings: by code point (UTF-16 units agree for every name here). */
  function compare(a, b) {
    for (var i = 0; i < a.length; i++) {
      if (a[i] < b[i]) return -1;
      if (a[i] > b[i]) return 1;
    }
    return 0;
  }

  /* The rows query selects, in its order: rows() of computeatlas/silicon/table.py. */
  function select(rows, query) {
    var kept = rows.filter(function (row) {
      var choices = Object.keys(query.choices).every(function (k) { return query.choices[k].indexOf(text(row, k)) >= 0; });
      return choices && Object.keys(query.ranges).every(function (k) {
        var n = number(row, k), low = query.ranges[k][0], high = query.ranges[k][1];
        return n !== null && (low === null || n >= low) && (high === null || n <= high);
      });
    });
    var key = query.sort;
    var name = function (row) { return row.getAttribute("data-name").toLowerCase(); };
    if (columns[key].by_number) {
      var sign = query.descending ? -1 : 1;
      var numbered = kept.filter(function (r) { return number(r, key) !== null; });
      var rest = kept.filter(function (r) { return number(r, key) === null; });
      numbered.sort(function (a, b) { return compare([sign * number(a, key), name(a)], [sign * number(b, key), name(b)]); });
      rest.sort(function (a, b) { return compare([text(a, key), name(a)], [text(b, key), name(b)]); });
      return numbered.concat(rest);
    }
    var order = kept.map(function (row, pos) { return [text(row, key).toLowerCase(), name(row), pos, row]; });
    order.sort(function (a, b) {
      var c = compare(a.slice(0, 2), b.slice(0, 2));
      return (query.descending ? -c : c) || a[2] - b[2]; // Python's reverse=True keeps ties in order
    });
    return order.map(function (o) { return o[3]; });
  }

  /* A bound as the server's form shows it ('%g': six significant figures, no trailing zeros). */
  function g(n) {
    return String(parseFloat(n.toPrecision(6)));
  }

  /* The filters in words, as silicon_statement says them: "vendor nvidia, memory ≥ 80 GB". */
  function filters(query) {
    var parts = [];
    spec.choices.forEach(function (key) {
      if (query.choices[key]) parts.push(key.replace("_", " ") + " " + query.choices[key].slice().sort(compareText).join(" or "));
    });
    Object.keys(query.ranges).forEach(function (key) {
      var col = columns[key], low = query.ranges[key][0], high = query.ranges[key][1];
      if (low !== null) parts.push(col.label.toLowerCase() + " ≥ " + g(low) + " " + col.unit);
      if (high !== null) parts.push(col.label.toLowerCase() + " ≤ " + g(high) + " " + col.unit);
    });
    return parts.join(", ");
  }
  function compareText(a, b) {
    return a < b ? -1 : a > b ? 1 : 0;
  }

  /* The sort in words: "sorted by memory, highest first" ('' for the table's own order). */
  function sorting(query) {
    if (query.sort === "name" && !query.descending) return "";
    var by = columns[query.sort];
    return "sorted by " + by.label.toLowerCase() + ", " + (by.by_number ? (query.descending ? "highest" : "lowest") : (query.descending ? "Z to A" : "A to Z")) + " first";
  }

  /* Show the columns query.columns names, hide the others (headings and cells). */
  function pick(query) {
    table.querySelectorAll("th[data-key], td[data-key]").forEach(function (node) {
      node.hidden = query.columns.indexOf(node.getAttribute("data-key")) < 0;
    });
    var form = document.querySelector("form.filters");
    if (!form) return;
    form.querySelectorAll('input[type="checkbox"][name="columns"]').forEach(function (box) {
      box.checked = query.columns.indexOf(box.value) >= 0;
    });
  }

  function reflect(params, query) {
    var form = document.querySelector("form.filters");
    if (form) {
      spec.choices.forEach(function (key) {
        var select = form.querySelector('select[name="' + key + '"]');
        if (select && query.choices[key]) select.value = query.choices[key][0];
      });
      Object.keys(query.ranges).forEach(function (key) {
        ["_min", "_max"].forEach(function (end) {
          var input = form.querySelector('input[name="' + key + end + '"]');
          if (input && params.has(key + end)) input.value = params.get(key + end);
        });
      });
      var sort = form.querySelector('input[name="sort"]');
      if (query.sort !== "name" || query.descending) {
        if (!sort) {
          sort = document.createElement("input");
          sort.type = "hidden";
          sort.name = "sort";
          form.querySelector("fieldset").appendChild(sort);
        }
        sort.value = (query.descending ? "-" : "") + query.sort;
      }
    }
    table.querySelectorAll("thead th[data-key]").forEach(function (th) {
      var key = th.getAttribute("data-key"), link = th.querySelector("a");
      var active = key === query.sort;
      if (active) th.setAttribute("aria-sort", query.descending ? "descending" : "ascending");
      else th.removeAttribute("aria-sort");
      if (!link) return;
      var label = link.textContent.replace(/ [▲▼]$/, "");
      link.textContent = active ? label + " " + (query.descending ? "▼" : "▲") : label;
      var next = new URLSearchParams(params.toString());
      next.set("sort", active && !query.descending ? "-" + key : key);
      link.setAttribute("href", link.getAttribute("href").split("?")[0] + "?" + next.toString());
    });
  }

  var body = table.tBodies[0];
  var rows = Array.prototype.slice.call(body.querySelectorAll("tr[data-id]"));
  var status = document.getElementById("table-status");
  var count = document.getElementById("table-count");
  var total = table.getAttribute("data-total");
  var params = new URLSearchParams(search);
  var query;
  try {
    query = parse(params, rows);
  } catch (error) {
    if (!(error instanceof QueryError)) throw error;
    status.textContent = "Not applied: parameter '" + error.param + "' " + error.reason + ". The whole table is shown.";
    status.setAttribute("data-error", error.param);
    status.hidden = false;
    return;
  }
  var shown = select(rows, query);
  rows.forEach(function (row) { row.hidden = shown.indexOf(row) < 0; });
  shown.forEach(function (row) { body.appendChild(row); });
  var empty = body.querySelector("tr.no-rows");
  if (!shown.length && !empty) {
    empty = document.createElement("tr");
    empty.className = "no-rows";
    var td = document.createElement("td");
    td.colSpan = query.columns.length;
    td.textContent = "No accelerator matches these filters. ";
    var clear = document.querySelector("form.filters a");
    if (clear) {
      var again = document.createElement("a");
      again.href = clear.getAttribute("href");
      again.textContent = "Clear them";
      td.appendChild(again);
      td.appendChild(document.createTextNode("."));
    }
    empty.appendChild(td);
    body.appendChild(empty);
  }
  pick(query);
  var said = filters(query);
  var line = said ? "Showing " + shown.length + " of " + total + " accelerators: " + said : "Showing all " + total + " accelerators";
  if (count) {
    count.textContent = line;
    var old = count.parentNode.querySelector("a.clear-filters");
    if (said && !old) {
      var kept = new URLSearchParams();
      if (params.get("sort")) kept.set("sort", params.get("sort"));
      if (query.columns.join(",") !== spec.shown.join(",")) kept.set("columns", query.columns.join(","));
      var clearing = document.createElement("a");
      clearing.className = "clear-filters";
      clearing.href = window.location.pathname + (kept.toString() ? "?" + kept.toString() : "");
      clearing.textContent = "Clear the filters";
      count.parentNode.appendChild(document.createTextNode(" "));
      count.parentNode.appendChild(clearing);
    }
  }
  var order = sorting(query);
  status.textContent = "Filtered and sorted in your browser, from the table as built: " + line + (order ? "; " + order : "") + ".";
  status.setAttribute("data-shown", String(shown.length));
  status.hidden = false;
  reflect(params, query);
})();

/* The price tables (offers on /cloud/ and a provider's page, a part's current prices on its
 * price page) on a static copy of the site: the server sorts them by the address's ``sort``
 * (computeatlas/pages/price_table.py, sort_rows), a static host cannot, so this script sorts
 * the rows the page holds by the values each row carries (data-sort-{key}: numbers for the
 * keys in the table's data-numeric, text otherwise), as sort_rows does: rows without a value
 * last in both directions, ties kept in the order listed. A table whose data-sorted is the
 * address's sort was sorted by the server, and is left alone. A table with a data-sort-param
 * (the history table of a price page: history_sort; /cloud/'s seen-before table: seen_sort)
 * is sorted by that parameter instead of sort. */
(function () {
  "use strict";
  var params = new URLSearchParams(window.location.search);

  function next(link, name, key, active, descending) {
    var query = new URLSearchParams(params.toString());
    query.set(name, active && !descending ? "-" + key : key);
    var hash = (link.getAttribute("href").split("#")[1] || "");
    link.setAttribute("href", "?" + query.toString() + (hash ? "#" + hash : ""));
    var label = link.textContent.replace(/ [▲▼]$/, "");
    link.textContent = active ? label + " " + (descending ? "▼" : "▲") : label;
  }

  document.querySelectorAll("table[data-sorted][data-keys]").forEach(function (table) {
    var name = table.getAttribute("data-sort-param") || "sort";
    var asked = (params.get(name) || "").trim();
    if (table.getAttribute("data-sorted") === asked) return;
    var keys = table.getAttribute("data-keys").split(" ");
    var key = asked.replace(/^-/, ""), descending = asked.charAt(0) === "-";
    if (keys.indexOf(key) < 0) {
      var status = document.createElement("p");
      status.className = "table-status";
      status.setAttribute("role", "status");
      status.setAttribute("data-error", name);
      status.textContent = "Not sorted: parameter '" + name + "' '" + asked + "' is not a column; sort by one of " + keys.join(", ") +
        " (a leading '-' sorts the other way). The table is shown as listed.";
      table.parentNode.insertBefore(status, table);
      return;
    }
    var numeric = (table.getAttribute("data-numeric") || "").split(" ").indexOf(key) >= 0;
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows).filter(function (row) { return !row.querySelector("td[colspan]"); });
    function value(row) {
      var v = row.getAttribute("data-sort-" + key);
      return v === null ? null : numeric ? parseFloat(v) : v;
    }
    var present = rows.filter(function (row) { return value(row) !== null; });
    var missing = rows.filter(function (row) { return value(row) === null; });
    var order = present.map(function (row, pos) { return [value(row), pos, row]; });
    order.sort(function (a, b) {
      var c = a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0;
      return (descending ? -c : c) || a[1] - b[1];
    });
    order.map(function (o) { return o[2]; }).concat(missing).forEach(function (row) { body.appendChild(row); });
    table.querySelectorAll("thead th[data-sort]").forEach(function (th) {
      var mine = th.getAttribute("data-sort"), active = mine === key, link = th.querySelector("a");
      if (active) th.setAttribute("aria-sort", descending ? "descending" : "ascending");
      else th.removeAttribute("aria-sort");
      if (link) next(link, name, mine, active, descending);
    });
    var wrap = table.closest(".table-wrap");
    var line = wrap && wrap.previousElementSibling;
    if (line && line.classList.contains("sort-links")) {
      line.querySelectorAll("a[data-sort]").forEach(function (link) {
        var mine = link.getAttribute("data-sort"), active = mine === key;
        if (active) link.setAttribute("aria-current", "true");
        else link.removeAttribute("aria-current");
        next(link, name, mine, active, descending);
      });
    }
    table.setAttribute("data-sorted", asked);
  });
})();

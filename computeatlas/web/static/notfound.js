/* The static site's 404 page: a static host serves it for any address it holds no file for.
 * When that address is a comparison (/compare/a-vs-b), the page says so plainly: this pair
 * was not built in advance; here are the comparisons that were; and, when the build named a
 * live server, this same pair there. Otherwise the page stays as it is. It shows no figure. */
(function () {
  "use strict";
  var box = document.getElementById("not-prebuilt");
  if (!box) return;
  var compare = box.getAttribute("data-compare"); // "/atlas/compare/"
  var path = window.location.pathname;
  if (path.indexOf(compare) !== 0) return;
  var pair = path.slice(compare.length).replace(/\/+$/, "");
  if (pair.indexOf("-vs-") <= 0 || pair.indexOf("/") >= 0) return;
  var sides = pair.split("-vs-").map(function (side) {
    try { return decodeURIComponent(side); } catch (e) { return side; }
  });
  var heading = document.querySelector("main h1");
  if (heading) heading.textContent = "This comparison was not pre-built";
  var status = document.querySelector("main .status");
  if (status) status.textContent = "Not in this static copy";
  var detail = status ? status.nextElementSibling : null;
  if (detail && detail.tagName === "P") {
    detail.textContent = "“" + sides.join("” vs “") + "” is not among the comparisons built into this copy of the atlas, which is a set of files with no server to build a page on demand.";
  }
  var live = box.getAttribute("data-live");
  box.querySelector("h2").textContent = "The comparisons built here";
  if (live) {
    var p = document.createElement("p");
    p.className = "live-pair";
    p.appendChild(document.createTextNode("The live atlas builds any comparison: "));
    var a = document.createElement("a");
    a.href = live + pair;
    a.textContent = "this pair on the live site";
    p.appendChild(a);
    p.appendChild(document.createTextNode("."));
    box.insertBefore(p, box.querySelector("ul"));
  }
  box.setAttribute("data-pair", sides.join(","));
})();

var mcptestReport = (function () {
  "use strict";
  // importHTML turns HTML the page's templates wrote (a packed case, or a
  // snapshot's whole page) into nodes, keeping only the elements and
  // attributes those templates write and copying text as text: a damaged
  // or forged piece can add no markup, link or style of its own.
  var tags = /^(a|code|dd|details|div|dl|dt|footer|h1|h2|h3|h4|header|input|kbd|label|li|main|nav|ol|p|pre|section|span|strong|summary|table|tbody|td|template|th|thead|tr|ul)$/;
  var attrs = /^(class|id|title|open|hidden|role|tabindex|scope|aria-[a-z]+|data-(case|verdict|search|pk)|type|value|checked|placeholder|autocomplete)$/;
  // keepHref decides a link as the browser will follow it: the URL parser
  // does the browser's own normalisation (tab, newline and carriage return
  // dropped anywhere, C0 controls and spaces trimmed at both ends, a
  // backslash read as a slash for http, https and file), then only a target
  // in this document (kept as its fragment) or, on a page served over http
  // or https, of this origin (kept as its path, query and fragment) is
  // written back; null leaves the attribute out. What is written is the
  // URL that was checked, not the text it came from.
  function keepHref(value) {
    var here, u;
    try { here = new URL(document.baseURI); u = new URL(value, here); } catch (e) { return null; }
    var hash = u.href.indexOf("#");
    if (u.href.split("#")[0] === here.href.split("#")[0]) { return hash < 0 ? "#" : u.href.slice(hash); }
    // After scheme:// the first slash starts the path of an http(s) URL
    // (neither user information nor a host holds one), so what follows is
    // the path, the query and the fragment, an empty ? or # included.
    if ((here.protocol === "http:" || here.protocol === "https:") && u.origin === here.origin) { return u.href.slice(u.href.indexOf("/", u.protocol.length + 2)); }
    return null;
  }
  function copy(from, to) {
    for (var n = from.firstChild; n; n = n.nextSibling) {
      if (n.nodeType === 3) { to.appendChild(document.createTextNode(n.data)); continue; }
      var tag = n.nodeType === 1 ? n.tagName.toLowerCase() : "";
      if (!tags.test(tag)) { continue; }
      var e = document.createElement(tag);
      for (var i = 0; i < n.attributes.length; i++) {
        var a = n.attributes[i], ok = attrs.test(a.name), value = a.value;
        if (a.name === "href") { value = keepHref(a.value); ok = value !== null; }
        if (a.name === "type") { ok = /^(search|checkbox)$/.test(a.value); }
        if (ok) { e.setAttribute(a.name, value); }
      }
      if (tag === "template") { e.content.appendChild(document.createTextNode(n.content.textContent)); } else { copy(n, e); }
      to.appendChild(e);
    }
  }
  function importHTML(html) {
    var doc = new DOMParser().parseFromString("<!DOCTYPE html><body>" + html, "text/html");
    var out = document.createDocumentFragment();
    copy(doc.body, out);
    return out;
  }
  function bytes(b64) {
    var bin = atob(b64.replace(/-/g, "+").replace(/_/g, "/").replace(/\s+/g, "")), out = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) { out[i] = bin.charCodeAt(i); }
    return out;
  }
  // inflate decodes base64 of compressed bytes ("gzip" or "deflate-raw")
  // to text.
  function inflate(b64, format) {
    return new Response(new Blob([bytes(b64)]).stream().pipeThrough(new DecompressionStream(format))).text();
  }
  // A packed piece (see annotate/htmlpack.go) is decoded the first time
  // its case or problem list opens; a chunk is decoded once.
  var chunks = {};
  function chunk(id) {
    if (!chunks[id]) {
      var t = document.getElementById("pk-" + id);
      chunks[id] = t && t.content ? inflate(t.content.textContent, "gzip").then(JSON.parse) : Promise.reject(new Error("no pack " + id));
    }
    return chunks[id];
  }
  function unpack(box) {
    var ref = box.getAttribute("data-pk");
    if (!ref || box.getAttribute("data-pk-state")) { return Promise.resolve(); }
    box.setAttribute("data-pk-state", "decoding");
    var at = ref.split(".");
    return chunk(at[0]).then(function (list) {
      var html = list[Number(at[1])];
      if (typeof html !== "string") { throw new Error("no piece " + ref); }
      box.appendChild(importHTML(html));
      box.setAttribute("data-pk-state", "done");
    }).catch(function (err) {
      box.textContent = "This part of the page could not be decoded (" + err.message + "); mcptest view shows it.";
      box.setAttribute("data-pk-state", "failed");
    });
  }
  function unpackIn(d) {
    if (!d.open) { return; }
    var box = d.querySelector(":scope > [data-pk]");
    if (box) { unpack(box); }
  }

  // enhance adds what needs the script: the filter, the keys, packed
  // pieces decoded on opening, every case opened for print.
  function enhance() {
    var box = document.querySelector(".filters");
    var input = document.getElementById("filter");
    var shown = document.getElementById("shown");
    var checks = Array.prototype.slice.call(document.querySelectorAll(".vf"));
    var rows = Array.prototype.slice.call(document.querySelectorAll("li.case"));
    document.addEventListener("toggle", function (e) { if (e.target.tagName === "DETAILS") { unpackIn(e.target); } }, true);
    if (!box || !input) { return; }
    box.hidden = false;
    function apply() {
      var q = input.value.toLowerCase().trim();
      var want = {};
      checks.forEach(function (c) { want[c.value] = c.checked; });
      var n = 0;
      rows.forEach(function (r) {
        var ok = want[r.getAttribute("data-verdict")] && (q === "" || r.getAttribute("data-search").indexOf(q) >= 0);
        r.classList.toggle("hide", !ok);
        if (ok) { n++; }
      });
      shown.textContent = n + " of " + rows.length + " cases shown";
    }
    function openCase(id) {
      var t = document.getElementById(id);
      if (!t) { return; }
      t.classList.remove("hide");
      var d = t.querySelector("details");
      if (d) { d.open = true; }
    }
    input.addEventListener("input", apply);
    checks.forEach(function (c) { c.addEventListener("change", apply); });
    if (location.hash.indexOf("#case-") === 0) { openCase(location.hash.slice(1)); }
    document.querySelectorAll('a[href^="#case-"]').forEach(function (a) {
      a.addEventListener("click", function () { openCase(a.getAttribute("href").slice(1)); });
    });
    // Keyboard: j and k move between the shown cases, o opens or closes
    // the focused one, / goes to the filter.
    function visible() { return rows.filter(function (r) { return !r.classList.contains("hide"); }); }
    document.addEventListener("keydown", function (e) {
      var tag = (e.target.tagName || "").toLowerCase();
      if (e.ctrlKey || e.metaKey || e.altKey || tag === "input" || tag === "textarea") { return; }
      var list = visible();
      var cur = e.target.closest ? e.target.closest("li.case") : null;
      var i = list.indexOf(cur);
      if (e.key === "j" || e.key === "k") {
        var next = list[e.key === "j" ? i + 1 : (i < 0 ? 0 : i - 1)];
        if (next) { next.querySelector("summary").focus(); e.preventDefault(); }
      } else if (e.key === "o" && cur) {
        var d = cur.querySelector("details");
        d.open = !d.open;
        e.preventDefault();
      } else if (e.key === "/") {
        input.focus();
        e.preventDefault();
      }
    });
    // Printing shows every case in full.
    window.addEventListener("beforeprint", function () {
      document.querySelectorAll("details").forEach(function (d) { d.open = true; });
    });
    apply();
  }
  if (document.getElementById("case-list")) { enhance(); }
  return { enhance: enhance, importHTML: importHTML, inflate: inflate, keepHref: keepHref };
})();

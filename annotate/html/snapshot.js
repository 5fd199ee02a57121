(function () {
  "use strict";
  // The snapshot viewer's loader: the page's address carries the run's
  // report page (annotate/snapshot.go); decode it, import it through the
  // report script's allow-list, and give it the report's script.
  function fail(msg) {
    document.getElementById("snapshot-status").textContent = msg;
  }
  var m = /^#(z|d[0-9a-f]{8})=([A-Za-z0-9_-]+)$/.exec(location.hash);
  if (!m) { fail("This address carries no run: a snapshot address ends in #d" + mcptestSnapshotDict.id + "= and the compressed run."); return; }
  if (m[1] !== "z" && m[1] !== "d" + mcptestSnapshotDict.id) { fail("This address was written by another mcptest (its dictionary is " + m[1].slice(1) + ", this viewer's " + mcptestSnapshotDict.id + "): open it with the viewer page that mcptest writes (mcptest view RUN.json --snapshot FILE)."); return; }
  if (typeof DecompressionStream === "undefined" || typeof TextEncoder === "undefined") { fail("This browser cannot decompress the snapshot (no DecompressionStream)."); return; }
  // An address compressed against the dictionary (d...=) is inflated
  // after the dictionary as a stored deflate block, whose output is then
  // cut off: the browser's own inflater with a preset dictionary.
  function unpack(key, b64) {
    var bin = atob(b64.replace(/-/g, "+").replace(/_/g, "/")), dict = key === "z" ? new Uint8Array(0) : new TextEncoder().encode(mcptestSnapshotDict.text);
    var head = dict.length ? 5 : 0, buf = new Uint8Array(head + dict.length + bin.length);
    if (head) {
      buf[1] = dict.length & 255; buf[2] = dict.length >> 8; buf[3] = ~dict.length & 255; buf[4] = (~dict.length >> 8) & 255;
      buf.set(dict, head);
    }
    for (var i = 0; i < bin.length; i++) { buf[head + dict.length + i] = bin.charCodeAt(i); }
    // Read at most 256 MiB past the dictionary, as the Go reader does: a
    // forged address of a few megabytes cannot inflate without bound.
    var reader = new Blob([buf]).stream().pipeThrough(new DecompressionStream("deflate-raw")).getReader(), parts = [], size = 0, limit = dict.length + (256 << 20);
    function next() {
      return reader.read().then(function (r) {
        if (r.done) {
          var all = new Uint8Array(size), at = 0;
          parts.forEach(function (p) { all.set(p, at); at += p.length; });
          return new TextDecoder("utf-8", { fatal: true }).decode(all.subarray(dict.length));
        }
        size += r.value.length;
        if (size > limit) { reader.cancel(); throw new Error("over 256 MiB decompressed"); }
        parts.push(r.value);
        return next();
      });
    }
    return next();
  }
  var load;
  try { load = unpack(m[1], m[2]); } catch (err) { fail("The snapshot is damaged: " + err.message); return; }
  load.then(function (text) {
    var snap = JSON.parse(text);
    if (typeof snap.page !== "string") {
      throw new Error(snap.schema_version ? "the address carries a run envelope without its page (an earlier mcptest made it): serve the envelope with mcptest view" : "no page in it");
    }
    var page = mcptestReport.importHTML(snap.page);
    if (!page.querySelector("#case-list")) { throw new Error("no report page in it"); }
    document.getElementById("snapshot").replaceWith(page);
    document.title = String(snap.title);
    if (/^[a-z]+$/.test(snap.verdict)) { document.body.className = "verdict-" + snap.verdict; }
    // The address is the record: a link within the page scrolls to its
    // target instead of replacing the address's #z= with its own.
    document.addEventListener("click", function (e) {
      var a = e.target.closest ? e.target.closest('a[href^="#"]') : null;
      if (!a) { return; }
      e.preventDefault();
      var t = document.getElementById(a.getAttribute("href").slice(1));
      if (t) { t.scrollIntoView(); }
    });
    mcptestReport.enhance();
  }).catch(function (err) { fail("The snapshot is damaged: " + err.message); });
})();

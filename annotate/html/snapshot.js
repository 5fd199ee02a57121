(function () {
  "use strict";
  // The snapshot viewer's loader: the page's address carries the run's
  // report page (annotate/snapshot.go); decode it, import it through the
  // report script's allow-list, and give it the report's script.
  function fail(msg) {
    document.getElementById("snapshot-status").textContent = msg;
  }
  var m = /^#z=([A-Za-z0-9_-]+)$/.exec(location.hash);
  if (!m) { fail("This address carries no run: a snapshot address ends in #z= and the compressed run."); return; }
  if (typeof DecompressionStream === "undefined") { fail("This browser cannot decompress the snapshot (no DecompressionStream)."); return; }
  var load;
  try { load = mcptestReport.inflate(m[1], "deflate-raw"); } catch (err) { fail("The snapshot is damaged: " + err.message); return; }
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

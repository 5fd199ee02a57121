(function () {
  "use strict";
  var box = document.querySelector(".filters");
  var input = document.getElementById("filter");
  var shown = document.getElementById("shown");
  var checks = Array.prototype.slice.call(document.querySelectorAll(".vf"));
  var rows = Array.prototype.slice.call(document.querySelectorAll("li.case"));
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
})();

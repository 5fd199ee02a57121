(function () {
  "use strict";
  var box = document.querySelector(".filters");
  var input = document.getElementById("filter");
  var shown = document.getElementById("shown");
  var checks = Array.prototype.slice.call(document.querySelectorAll(".vf"));
  var rows = Array.prototype.slice.call(document.querySelectorAll("tbody.case"));
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
  input.addEventListener("input", apply);
  checks.forEach(function (c) { c.addEventListener("change", apply); });
  if (location.hash.indexOf("#case-") === 0) {
    var t = document.getElementById(location.hash.slice(1));
    if (t) { var d = t.querySelector("details"); if (d) { d.open = true; } }
  }
  document.querySelectorAll('a[href^="#case-"]').forEach(function (a) {
    a.addEventListener("click", function () {
      var t = document.getElementById(a.getAttribute("href").slice(1));
      if (t) { t.classList.remove("hide"); var d = t.querySelector("details"); if (d) { d.open = true; } }
    });
  });
  apply();
})();

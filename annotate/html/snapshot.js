(function () {
  "use strict";
  var main = document.getElementById("main");
  function el(tag, attrs, kids) {
    var e = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { e.setAttribute(k, attrs[k]); });
    (kids || []).forEach(function (k) {
      if (k === null || k === undefined) { return; }
      e.appendChild(typeof k === "string" || typeof k === "number" ? document.createTextNode(String(k)) : k);
    });
    return e;
  }
  function pos(p) {
    if (!p || !p.file) { return ""; }
    return p.line ? p.file + ":" + p.line + ":" + (p.col || 0) : p.file;
  }
  function badge(v) { return el("span", { "class": "badge " + v }, [v]); }
  function fail(msg) {
    document.getElementById("totals").textContent = msg;
  }
  function b64(s) {
    s = s.replace(/-/g, "+").replace(/_/g, "/");
    while (s.length % 4) { s += "="; }
    var bin = atob(s), out = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) { out[i] = bin.charCodeAt(i); }
    return out;
  }
  function problems(c) {
    var out = [];
    if (c.verdict === "pass") { return out; }
    (c.assertions || []).forEach(function (a) {
      if (!a.passed) { out.push({ kind: "assertion", pos: pos(a.position) || pos(c.position), msg: a.message, actual: a.actual === undefined ? "" : JSON.stringify(a.actual) }); }
    });
    (c.floors || []).forEach(function (f) {
      if (!f.passed) { out.push({ kind: "floor", pos: pos(c.position), msg: f.name + ": " + f.message, lines: f.lines || [] }); }
    });
    (c.findings || []).forEach(function (f) {
      if (f.level === "error" || (c.verdict === "inconclusive" && f.level === "warning")) {
        out.push({ kind: c.verdict === "inconclusive" ? "inconclusive" : "finding", pos: pos(f.position) || pos(c.position), msg: f.message });
      }
    });
    return out;
  }
  function problemItem(p) {
    return el("li", { "class": "problem " + p.kind }, [
      el("span", { "class": "kind" }, [p.kind]), " ", el("span", { "class": "pos" }, [p.pos]), " ", el("span", { "class": "msg" }, [p.msg]),
      p.actual ? el("div", { "class": "actual" }, ["actual: ", el("code", {}, [p.actual])]) : null,
      p.lines && p.lines.length ? el("pre", { "class": "lines" }, [p.lines.join("\n")]) : null
    ]);
  }
  function render(env) {
    var t = env.totals || {};
    var v = document.getElementById("run-verdict");
    v.textContent = env.verdict; v.className = "badge " + env.verdict;
    document.getElementById("totals").textContent = t.passed + " passed, " + t.failed + " failed, " + t.inconclusive + " inconclusive (" + t.total + " cases)";
    var run = env.run || {}, src = env.source, e = env.environment, tool = env.tool || {}, suite = env.suite || {};
    var rows = [["run id", run.id || "not recorded"], ["mode", run.mode || "not recorded"], ["started", run.started_at || "not recorded"]];
    if (run.shard) { rows.push(["shard", run.shard]); }
    if (src) { rows.push(["repository", src.repo || "not recorded"], ["branch", src.branch || "not recorded"], ["commit", src.commit || "not recorded"]); } else { rows.push(["source", "not recorded"]); }
    rows.push(["suite", suite.path + " (sha256 " + suite.sha256 + ")"]);
    if (e) { rows.push(["environment", e.ci ? e.ci + (e.runner ? ", runner " + e.runner : "") : "local"], ["platform", e.platform]); } else { rows.push(["environment", "not recorded"]); }
    rows.push(["mcptest version", tool.name + " " + tool.version]);
    var dl = el("dl", { "class": "provenance" });
    rows.forEach(function (r) { dl.appendChild(el("dt", {}, [r[0]])); dl.appendChild(el("dd", {}, [String(r[1])])); });
    var servers = el("table", { "class": "servers" }, [el("thead", {}, [el("tr", {}, [el("th", {}, ["server"]), el("th", {}, ["transport"]), el("th", {}, ["auth"])])])]);
    var sb = el("tbody");
    (env.servers || []).forEach(function (s) {
      sb.appendChild(el("tr", {}, [el("td", {}, [s.name]), el("td", {}, [s.transport]), el("td", {}, [s.auth === "bearer" ? "bearer token from $" + s.token_env : s.auth])]));
    });
    servers.appendChild(sb);
    main.appendChild(el("section", { id: "audit", "class": "block" }, [el("h2", {}, ["Audit this run"]), dl, el("h3", {}, ["Servers"]),
      (env.servers || []).length ? servers : el("p", { "class": "muted" }, ["The suite declares no servers."])]));

    var cases = env.cases || [];
    var review = cases.filter(function (c) { return c.verdict !== "pass"; });
    if (review.length) {
      var ol = el("ol", { "class": "review" });
      review.forEach(function (c) {
        var ul = el("ul", { "class": "problems" });
        problems(c).forEach(function (p) { ul.appendChild(problemItem(p)); });
        var li = el("li", { "class": "review-case " + c.verdict }, [el("p", {}, [badge(c.verdict), " ", el("span", { "class": "case-name" }, [c.name]), " ", el("span", { "class": "pos" }, [pos(c.position)])]), ul]);
        li.dataset.case = c.name;
        ol.appendChild(li);
      });
      main.appendChild(el("section", { id: "review", "class": "block" }, [el("h2", {}, ["Review first"]), ol]));
    }

    var input = el("input", { type: "search", id: "filter", placeholder: "case name, kind or target", autocomplete: "off" });
    var shown = el("span", { id: "shown", "class": "muted" });
    var table = el("table", { "class": "cases", id: "case-table" }, [el("thead", {}, [el("tr", {}, ["#", "verdict", "case", "kind", "runs", "figures"].map(function (h) { return el("th", {}, [h]); }))])]);
    var bodies = [];
    cases.forEach(function (c, i) {
      var figs = Object.keys(c.targets || {}).sort();
      var detail = el("div", { "class": "detail" }, [el("p", { "class": "pos" }, [pos(c.position)])]);
      var as = el("ul", { "class": "assertions" });
      (c.assertions || []).forEach(function (a) {
        as.appendChild(el("li", { "class": a.passed ? "ok" : "bad" }, [badge(a.passed ? "pass" : "fail"), " ", el("code", {}, ["#" + a.index + " " + a.target]), " ",
          el("code", { "class": "matcher" }, [JSON.stringify(a.matcher)]), " ", el("span", { "class": "pos" }, [pos(a.position)]),
          a.passed ? null : el("div", { "class": "msg" }, [a.message]),
          a.actual === undefined ? null : el("div", { "class": "actual" }, ["actual: ", el("code", {}, [JSON.stringify(a.actual)])])]));
      });
      if ((c.assertions || []).length) { detail.appendChild(el("h4", {}, ["Assertions"])); detail.appendChild(as); }
      var fl = el("ul", { "class": "floors" });
      (c.floors || []).forEach(function (f) {
        fl.appendChild(el("li", { "class": f.passed ? "ok" : "bad" }, [badge(f.passed ? "pass" : "fail"), " " + f.name + ": " + f.message, (f.lines || []).length ? el("pre", { "class": "lines" }, [f.lines.join("\n")]) : null]));
      });
      if ((c.floors || []).length) { detail.appendChild(el("h4", {}, ["Floors"])); detail.appendChild(fl); }
      var fi = el("ul", { "class": "findings" });
      (c.findings || []).forEach(function (f) {
        fi.appendChild(el("li", { "class": "level-" + f.level }, [el("span", { "class": "kind" }, [f.level]), f.run ? " run " + f.run + " " : " ", f.message]));
      });
      if ((c.findings || []).length) { detail.appendChild(el("h4", {}, ["Findings"])); detail.appendChild(fi); }
      var ts = c.tool_selection;
      if (ts && ts.runs && ts.runs.length) {
        var ru = el("ul", { "class": "runs" });
        ts.runs.forEach(function (r) {
          var words = r.selected ? "selected `" + ts.expected_tool + "`" : "did not select `" + ts.expected_tool + "`, called " + ((r.called || []).join(", ") || "no tool");
          words += ", " + (r.tokens === undefined ? "tokens not recorded" : r.tokens + " tokens") + (r.within_budget ? "" : ", over budget");
          ru.appendChild(el("li", { "class": r.pass_k ? "ok" : "bad" }, [badge(r.pass_k ? "pass" : "fail"), " " + r.name + ": " + words]));
        });
        detail.appendChild(el("h4", {}, ["Runs"])); detail.appendChild(ru);
      }
      var figCell = el("td", { "class": "figures" });
      figs.forEach(function (k) { figCell.appendChild(el("span", { "class": "fig" }, [el("code", {}, [k]), " " + c.targets[k]])); figCell.appendChild(document.createTextNode(" ")); });
      var tb = el("tbody", { "class": "case " + c.verdict, id: "case-" + (i + 1) }, [el("tr", { "class": "row" }, [
        el("td", {}, [String(i + 1)]), el("td", {}, [badge(c.verdict)]),
        el("td", {}, [el("details", {}, [el("summary", { "class": "case-name" }, [c.name]), detail])]),
        el("td", {}, [c.kind]), el("td", { "class": "num" }, [String(c.runs)]), figCell])]);
      tb.dataset.verdict = c.verdict;
      tb.dataset.search = (c.name + " " + c.kind + " " + figs.join(" ")).toLowerCase();
      bodies.push(tb);
      table.appendChild(tb);
    });
    function apply() {
      var q = input.value.toLowerCase().trim(), n = 0;
      bodies.forEach(function (b) { var ok = q === "" || b.dataset.search.indexOf(q) >= 0; b.classList.toggle("hide", !ok); if (ok) { n++; } });
      shown.textContent = n + " of " + bodies.length + " cases shown";
    }
    input.addEventListener("input", apply);
    main.appendChild(el("section", { id: "cases", "class": "block" }, [el("h2", {}, ["All cases"]), el("div", { "class": "filters" }, [el("label", {}, ["Filter ", input]), shown]), table]));
    apply();
    document.title = "mcptest snapshot: " + String(env.verdict).toUpperCase() + ": " + suite.path;
  }
  var m = /^#z=([A-Za-z0-9_-]+)$/.exec(location.hash);
  if (!m) { fail("This address carries no run: a snapshot address ends in #z= and the compressed envelope."); return; }
  if (typeof DecompressionStream === "undefined") { fail("This browser cannot decompress the snapshot (no DecompressionStream)."); return; }
  var stream;
  try { stream = new Blob([b64(m[1])]).stream().pipeThrough(new DecompressionStream("deflate-raw")); } catch (err) { fail("The snapshot is damaged: " + err); return; }
  new Response(stream).text().then(function (text) {
    var env = JSON.parse(text);
    if (env.schema_version !== 1) { throw new Error("run envelope schema_version " + env.schema_version + ", this viewer reads 1"); }
    render(env);
  }).catch(function (err) { fail("The snapshot is damaged: " + err.message); });
})();

// Shared by the actions/cache stand-in's steps: its inputs, outputs and the
// local store, MCPTEST_ACT_CACHE/<key, URL-encoded>/<path, URL-encoded>.
const fs = require("fs");
const path = require("path");

// input is the input as the runner passes it to a node action.
function input(name) {
  return (process.env[`INPUT_${name.replace(/ /g, "_").toUpperCase()}`] || "").trim();
}

// output writes a step output to GITHUB_OUTPUT.
function output(name, value) {
  fs.appendFileSync(process.env.GITHUB_OUTPUT, `${name}=${value}\n`);
}

// paths are the path input's lines, absolute.
function paths() {
  return input("path").split("\n").map((s) => s.trim()).filter(Boolean).map((p) => path.resolve(p));
}

// entryDir is where the entry of key is stored.
function entryDir(key) {
  const root = process.env.MCPTEST_ACT_CACHE;
  if (!root) throw new Error("the act test sets MCPTEST_ACT_CACHE");
  return key ? path.join(root, encodeURIComponent(key)) : root;
}

module.exports = { entryDir, paths, input, output };

// The restore step of the actions/cache stand-in (see action.yml).
const fs = require("fs");
const path = require("path");
const { entryDir, paths, input, output } = require("./store.js");

const key = input("key");
let hit = "";
const tried = [key, ...input("restore-keys").split("\n").map((s) => s.trim()).filter(Boolean)];
for (const k of tried) {
  const dir = k === key ? entryDir(k) : prefixMatch(k);
  if (dir && fs.existsSync(dir)) {
    for (const p of paths()) {
      const from = path.join(dir, encodeURIComponent(p));
      if (fs.existsSync(from)) restore(from, p);
    }
    hit = k === key ? "true" : "false";
    console.log(`cache stand-in: restored ${k}`);
    break;
  }
}
if (hit === "") {
  console.log(`cache stand-in: no entry for ${key}`);
  hit = "false";
}
output("cache-hit", hit);
fs.appendFileSync(process.env.GITHUB_STATE, `hit=${hit}\n`);

// restore copies an entry's path into place by rename: on the host the jobs
// of a run (a matrix) share one tool cache, and copying over a binary another
// job is running fails ("text file busy"); a rename leaves that job its file.
function restore(from, p) {
  fs.mkdirSync(path.dirname(p), { recursive: true });
  const tmp = `${p}.restore${process.pid}`;
  fs.cpSync(from, tmp, { recursive: true });
  const old = `${p}.old${process.pid}`;
  try {
    fs.renameSync(p, old);
  } catch (e) {
    if (e.code !== "ENOENT") throw e;
  }
  try {
    fs.renameSync(tmp, p);
  } catch (e) {
    // Another job restored the same entry between the two renames: its copy
    // is the same bytes.
    if (e.code !== "ENOTEMPTY" && e.code !== "EEXIST") throw e;
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  fs.rmSync(old, { recursive: true, force: true });
}

// prefixMatch is the newest entry whose key starts with prefix.
function prefixMatch(prefix) {
  const root = entryDir("");
  if (!fs.existsSync(root)) return "";
  const names = fs.readdirSync(root).filter((n) => decodeURIComponent(n).startsWith(prefix));
  names.sort((a, b) => fs.statSync(path.join(root, b)).mtimeMs - fs.statSync(path.join(root, a)).mtimeMs);
  return names.length ? path.join(root, names[0]) : "";
}

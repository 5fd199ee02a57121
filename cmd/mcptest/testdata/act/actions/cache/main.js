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
      if (fs.existsSync(from)) {
        fs.mkdirSync(path.dirname(p), { recursive: true });
        fs.cpSync(from, p, { recursive: true });
      }
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

// prefixMatch is the newest entry whose key starts with prefix.
function prefixMatch(prefix) {
  const root = entryDir("");
  if (!fs.existsSync(root)) return "";
  const names = fs.readdirSync(root).filter((n) => decodeURIComponent(n).startsWith(prefix));
  names.sort((a, b) => fs.statSync(path.join(root, b)).mtimeMs - fs.statSync(path.join(root, a)).mtimeMs);
  return names.length ? path.join(root, names[0]) : "";
}

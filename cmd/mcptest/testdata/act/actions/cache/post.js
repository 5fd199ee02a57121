// The save step of the actions/cache stand-in (see action.yml): at the end
// of the job, path is stored under key unless the key was an exact hit.
const fs = require("fs");
const path = require("path");
const { entryDir, paths, input } = require("./store.js");

const key = input("key");
if (process.env.STATE_hit === "true") {
  console.log(`cache stand-in: ${key} was a hit, not saved again`);
} else {
  const dir = entryDir(key);
  const tmp = `${dir}.tmp${process.pid}`;
  fs.mkdirSync(tmp, { recursive: true });
  for (const p of paths()) {
    if (fs.existsSync(p)) fs.cpSync(p, path.join(tmp, encodeURIComponent(p)), { recursive: true });
  }
  fs.rmSync(dir, { recursive: true, force: true });
  fs.renameSync(tmp, dir);
  console.log(`cache stand-in: saved ${key}`);
}

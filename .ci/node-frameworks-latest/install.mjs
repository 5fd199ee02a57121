// Installs the framework sets of sets.json, each framework of each set into
// a folder of its own beside this file (newest/ai-sdk/, previous/langchain/,
// ...), at the versions the npm registry publishes now, and prints what it
// installed. .ci/run runs it; the folders are not committed (.gitignore),
// nor is any lock file.
//
// Usage: node .ci/node-frameworks-latest/install.mjs [SET/FRAMEWORK...]
// (all of sets.json when none is named)
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const { sets } = JSON.parse(readFileSync(join(here, 'sets.json'), 'utf8'));
const npm = (args, cwd) => execFileSync('npm', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });

// line is the major of a version (for 0.x, the minor): 7.0.173 -> "7",
// 0.20.0 -> "0.20".
const line = (v) => (v.startsWith('0.') ? v.split('.').slice(0, 2).join('.') : v.split('.')[0]);

// resolve is the version spec names for pkg: the dist-tag latest, or the
// newest stable version of the line before latest's.
function resolve(pkg, spec) {
  const latest = JSON.parse(npm(['view', pkg, 'dist-tags.latest', '--json']));
  if (spec === 'latest') {
    return latest;
  }
  if (spec !== 'previous') {
    throw new Error(`${pkg}: unknown spec ${JSON.stringify(spec)}: latest or previous`);
  }
  const stable = JSON.parse(npm(['view', pkg, 'versions', '--json'])).filter((v) => /^\d+\.\d+\.\d+$/.test(v));
  const lines = [...new Set(stable.map(line))];
  const before = lines[lines.indexOf(line(latest)) - 1];
  if (before === undefined) {
    throw new Error(`${pkg}: no line before ${line(latest)} among ${lines.join(', ')}`);
  }
  return stable.filter((v) => line(v) === before).at(-1);
}

const only = process.argv.slice(2);
for (const [set, frameworks] of Object.entries(sets)) {
  for (const [framework, pkgs] of Object.entries(frameworks)) {
    const name = `${set}/${framework}`;
    if (only.length > 0 && !only.includes(name)) {
      continue;
    }
    const dir = join(here, set, framework);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    const versions = Object.fromEntries(Object.entries(pkgs).map(([pkg, spec]) => [pkg, resolve(pkg, spec)]));
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: `mcptest-ci-${set}-${framework}`, private: true, dependencies: versions }, null, 2) + '\n');
    try {
      npm(['install', '--no-package-lock', '--no-audit', '--no-fund', '--prefer-offline'], dir);
    } catch {
      // A previous major can disagree with the newest of a package beside
      // it on a peer's range; the flows then say what runs.
      console.log(`${name}: npm install refused the peer ranges; installing with --legacy-peer-deps`);
      npm(['install', '--no-package-lock', '--no-audit', '--no-fund', '--prefer-offline', '--legacy-peer-deps'], dir);
    }
    const installed = Object.fromEntries(Object.keys(pkgs).map((pkg) => [pkg, JSON.parse(readFileSync(join(dir, 'node_modules', pkg, 'package.json'), 'utf8')).version]));
    writeFileSync(join(dir, 'versions.json'), JSON.stringify(installed, null, 2) + '\n');
    console.log(`${name}: ${Object.entries(installed).map(([p, v]) => `${p}@${v}`).join(' ')}`);
  }
}

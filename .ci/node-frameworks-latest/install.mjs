// Installs the framework sets of sets.json, each framework of each set into
// a folder of its own beside this file (newest/ai-sdk/, previous/langchain/,
// ...), at the versions the npm registry publishes now, and prints what it
// installed. .ci/run runs it; the folders are not committed (.gitignore),
// nor is any lock file.
//
// Usage: node .ci/node-frameworks-latest/install.mjs [SET/FRAMEWORK...]
// (all of sets.json when none is named)
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const { sets } = JSON.parse(readFileSync(join(here, 'sets.json'), 'utf8'));
const npm = (args, cwd) => execFileSync('npm', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
const npmAsync = (args, cwd) => promisify(execFile)('npm', args, { cwd, encoding: 'utf8', maxBuffer: 64 << 20 });

// line is the major of a version (for 0.x, the minor): 7.0.173 -> "7",
// 0.20.0 -> "0.20".
const line = (v) => (v.startsWith('0.') ? v.split('.').slice(0, 2).join('.') : v.split('.')[0]);

// resolve is the version spec names for pkg: the dist-tag latest, the
// newest stable version of the line before latest's, or the version spec is.
function resolve(pkg, spec) {
  const latest = JSON.parse(npm(['view', pkg, 'dist-tags.latest', '--json']));
  if (spec === 'latest') {
    return latest;
  }
  if (/^\d+\.\d+\.\d+$/.test(spec)) {
    return spec; // a version the framework's line needs beside it
  }
  if (spec !== 'previous') {
    throw new Error(`${pkg}: unknown spec ${JSON.stringify(spec)}: latest, previous or a version`);
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
const jobs = [];
for (const [set, frameworks] of Object.entries(sets)) {
  for (const [framework, pkgs] of Object.entries(frameworks)) {
    const name = `${set}/${framework}`;
    if (only.length === 0 || only.includes(name)) {
      jobs.push({ name, dir: join(here, set, framework), pkgs });
    }
  }
}
// The versions are resolved first, one package at a time; the installs,
// which wait on the network, run four at a time.
for (const job of jobs) {
  rmSync(job.dir, { recursive: true, force: true });
  mkdirSync(job.dir, { recursive: true });
  const versions = Object.fromEntries(Object.entries(job.pkgs).map(([pkg, spec]) => [pkg, resolve(pkg, spec)]));
  writeFileSync(join(job.dir, 'package.json'), JSON.stringify({ name: `mcptest-ci-${job.name.replace('/', '-')}`, private: true, dependencies: versions }, null, 2) + '\n');
}
async function install({ name, dir, pkgs }) {
  const args = ['install', '--no-package-lock', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'];
  let note = '';
  try {
    await npmAsync(args, dir);
  } catch {
    // A previous major can disagree with the newest of a package beside
    // it on a peer's range; the flows then say what runs.
    note = ' (npm refused the peer ranges: installed with --legacy-peer-deps)';
    await npmAsync([...args, '--legacy-peer-deps'], dir);
  }
  const installed = Object.fromEntries(Object.keys(pkgs).map((pkg) => [pkg, JSON.parse(readFileSync(join(dir, 'node_modules', pkg, 'package.json'), 'utf8')).version]));
  writeFileSync(join(dir, 'versions.json'), JSON.stringify(installed, null, 2) + '\n');
  return `${name}: ${Object.entries(installed).map(([p, v]) => `${p}@${v}`).join(' ')}${note}`;
}
const lines = [];
const queue = [...jobs];
await Promise.all(Array.from({ length: 4 }, async () => {
  for (let job = queue.shift(); job; job = queue.shift()) {
    lines.push(await install(job));
  }
}));
console.log(lines.sort().join('\n'));

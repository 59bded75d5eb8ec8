#!/usr/bin/env node
// Where the profiled time of a folder of V8 CPU profiles (.cpuprofile; tools/ci-time/jest-cpu-profile.cjs writes one
// per jest test file) went: sampled time by package or repository file (self time), then the time spent under each
// of a few groups of frames (inclusive: a sample counts once for a group when any frame of its stack matches), with
// the files that spent most of it (every test runs under jest's frames, so jest is read from the self time only).
// `(idle)` is left out of every figure; `spawn` is the time a test waited in
// spawnSync/execFileSync for a child process, whose own CPU is not in these profiles.
//   node tools/ci-time/cpu-profile-summary.js DIR
'use strict';
const { readdirSync, readFileSync } = require('node:fs');
const { join } = require('node:path');

const GROUPS = {
  'child processes waited for (spawnSync and the like)': /^(spawn|spawnSync|execFileSync|execSync) /,
  'requests to the test control planes (runtime/envtest/http.ts)': /runtime\/envtest\/http\.ts/,
  'the runtime client (runtime/client.ts)': /runtime\/client\.ts/,
  'YAML (yaml, js-yaml)': /node_modules\/(yaml|js-yaml)\//,
  'the TypeScript compiler (tests that compile)': /node_modules\/typescript\//,
  'TLS contexts and handshakes': /^(createSecureContext|addCACert|connect node:tls|TLSSocket)/,
  'generated test values (randexp, drange)': /node_modules\/(randexp|drange)\//,
  'garbage collection': /^\(garbage collector\) /,
};

const dir = process.argv[2];
if (!dir) throw new Error('usage: cpu-profile-summary.js DIR');
const short = (url) =>
  url
    .replace(/^file:\/\//, '')
    .replace(/.*node_modules\/((@[^/]+\/)?[^/]+).*/, '$1')
    .replace(/^\/.*?\/(lib|runtime|test|controllers|cli|apps)\//, '$1/');
let total = 0;
const bySource = new Map();
const groups = new Map(Object.keys(GROUPS).map((g) => [g, { total: 0, files: new Map() }]));
const files = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'));
for (const f of files) {
  const profile = JSON.parse(readFileSync(join(dir, f), 'utf8'));
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const self = new Map();
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const testFile = f.replace(/\.\d+\.cpuprofile$/, '');
  for (const [id, us] of self) {
    const frame = nodes.get(id).callFrame;
    if (frame.functionName === '(idle)') continue;
    total += us;
    const source = frame.url ? short(frame.url) : `(${frame.functionName})`;
    bySource.set(source, (bySource.get(source) ?? 0) + us);
    const stack = [];
    for (let cur = id; cur !== undefined; cur = parent.get(cur)) {
      const c = nodes.get(cur).callFrame;
      stack.push(`${c.functionName} ${c.url}`);
    }
    for (const [name, re] of Object.entries(GROUPS)) {
      if (!stack.some((s) => re.test(s))) continue;
      const g = groups.get(name);
      g.total += us;
      g.files.set(testFile, (g.files.get(testFile) ?? 0) + us);
    }
  }
}
const s = (us) => `${(us / 1e6).toFixed(1)} s`;
const pct = (us) => `${((100 * us) / total).toFixed(1)} %`;
console.log(`${files.length} profiles, ${s(total)} sampled (not idle)`);
console.log('\nby package or file (self time):');
for (const [k, v] of [...bySource].sort((a, b) => b[1] - a[1]).slice(0, 25))
  console.log(`  ${s(v).padStart(9)} ${pct(v).padStart(7)}  ${k}`);
console.log('\nby group (inclusive), with the three test files that spent most of it:');
for (const [name, g] of [...groups].sort((a, b) => b[1].total - a[1].total)) {
  const top = [...g.files]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 3)
    .map(([k, v]) => `${k} ${s(v)}`)
    .join(', ');
  console.log(`  ${s(g.total).padStart(9)} ${pct(g.total).padStart(7)}  ${name}: ${top}`);
}

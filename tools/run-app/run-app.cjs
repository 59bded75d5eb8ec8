// Runs a TypeScript cdk8s app from an esbuild bundle of it and of everything it imports, rebuilt only
// when one of those files changed: `node tools/run-app/run-app.cjs apps/main.ts` (what cdk8s.yaml runs).
//
// Why: through tsx every run resolves and transforms ~1,500 modules (our TypeScript sources and the
// packages they import) and loads them through ESM loader hooks in a worker thread, most of it before
// the app does any work. The bundle loads as one
// CommonJS file, same output byte for byte (times: bench/cli-synth-bench.ts).
//
// Guarantees:
// - A change to any input (a source or a package file: size or mtime differ), a deleted input or a
//   missing bundle rebuilds it before the run; the app always runs the code on disk.
// - Each TypeScript source keeps its own `__dirname` / `__filename` (apps read files next to them).
// - The bundle and its input list live in node_modules/.cache/ (never committed); a build writes to a
//   temporary file and renames it, so concurrent runs never load a half-written bundle.
//
// - The bundle is compiled with a V8 code cache (written after the first run of each bundle, beside it):
//   without it V8 parses and compiles the whole bundle and its functions on every run (what it saves:
//   bench/cli-synth-bench.ts, figures in bench/latest/cli-synth-results.json). The cache file is named after the bundle's size and mtime, so a
//   rebuilt bundle never meets a stale cache; V8
//   itself rejects a cache made by another Node/V8 version or flags, and then the run writes a new one.
//
// Caveats: stack traces point into the bundle; run with NODE_OPTIONS=--enable-source-maps for the
// TypeScript positions (the bundle has a source map). Plain JavaScript only: it must start without tsx.
'use strict';
const crypto = require('crypto');
const fs = require('fs');
const Module = require('module');
const path = require('path');
const vm = require('vm');

const ROOT = path.resolve(__dirname, '..', '..');
const CACHE_DIR = path.join(ROOT, 'node_modules', '.cache', 'cdk8s-operator-run-app');

/** Size and mtime: what tells a changed file. */
function stamp(file) {
  const s = fs.statSync(file);
  return `${s.size}:${s.mtimeMs}`;
}

/** True if the bundle exists and none of its recorded inputs changed. */
function isFresh(bundle, inputsFile) {
  try {
    const inputs = JSON.parse(fs.readFileSync(inputsFile, 'utf8'));
    return fs.existsSync(bundle) && Object.entries(inputs).every(([file, recorded]) => stamp(file) === recorded);
  } catch {
    return false;
  }
}

/** esbuild plugin: our TypeScript sources keep their own __dirname and __filename inside the bundle. */
const ownDirname = {
  name: 'own-dirname',
  setup(build) {
    build.onLoad({ filter: /\.[cm]?tsx?$/ }, (args) => {
      if (args.path.includes(`${path.sep}node_modules${path.sep}`)) return undefined;
      // Same line as the source's first: line numbers in the source map stay right.
      const prefix = `var __dirname = ${JSON.stringify(path.dirname(args.path))}, __filename = ${JSON.stringify(args.path)}; `;
      return { contents: prefix + fs.readFileSync(args.path, 'utf8'), loader: path.extname(args.path).endsWith('x') ? 'tsx' : 'ts' };
    });
  },
};

async function build(entry, bundle, inputsFile) {
  const esbuild = require('esbuild');
  fs.mkdirSync(CACHE_DIR, { recursive: true });
  const tmp = `${bundle}.${process.pid}.tmp`;
  const result = await esbuild.build({
    entryPoints: [entry], bundle: true, platform: 'node', format: 'cjs', target: `node${process.versions.node.split('.')[0]}`,
    outfile: tmp, sourcemap: true, metafile: true, absWorkingDir: ROOT, logLevel: 'warning', plugins: [ownDirname],
  });
  // This runner is an input too: a change of its build options must rebuild the bundle.
  const inputs = { [__filename]: stamp(__filename) };
  for (const input of Object.keys(result.metafile.inputs)) {
    const file = path.resolve(ROOT, input);
    if (fs.existsSync(file)) inputs[file] = stamp(file);
  }
  // The map's name is inside the bundle (sourceMappingURL): keep the pair together under the final name.
  const code = fs.readFileSync(tmp, 'utf8').replace(`sourceMappingURL=${path.basename(tmp)}.map`, `sourceMappingURL=${path.basename(bundle)}.map`);
  fs.renameSync(`${tmp}.map`, `${bundle}.map`);
  fs.writeFileSync(tmp, code);
  fs.renameSync(tmp, bundle);
  fs.writeFileSync(inputsFile, JSON.stringify(inputs));
}

async function main() {
  if (!process.argv[2]) throw new Error('usage: node tools/run-app/run-app.cjs <app entry .ts>');
  const entry = path.resolve(process.argv[2]);
  const id = crypto.createHash('sha256').update(entry).digest('hex').slice(0, 12);
  const bundle = path.join(CACHE_DIR, `${path.basename(entry).replace(/\.[cm]?tsx?$/, '')}-${id}.cjs`);
  const inputsFile = `${bundle}.inputs.json`;
  if (!isFresh(bundle, inputsFile)) await build(entry, bundle, inputsFile);
  runWithCodeCache(bundle);
}

/**
 * Loads `bundle` as CommonJS, as `require` would, but compiled with a V8 code cache: read when one
 * exists for this exact bundle, written (atomically) when there was none or V8 rejected it. The cache
 * is taken when the process exits, so it also holds the functions compiled while the app ran.
 */
function runWithCodeCache(bundle) {
  const cacheFile = `${bundle}.${stamp(bundle).replace(/[^0-9]+/g, '-')}.v8cache`;
  // RUN_APP_CODE_CACHE=0: compile without the cache and write none (how bench/cli-synth-bench.ts measures what it saves).
  const useCache = process.env.RUN_APP_CODE_CACHE !== '0';
  let cachedData;
  try { if (useCache) cachedData = fs.readFileSync(cacheFile); } catch { /* first run of this bundle */ }
  const script = new vm.Script(Module.wrap(fs.readFileSync(bundle, 'utf8')), {
    filename: bundle,
    cachedData,
    importModuleDynamically: vm.constants?.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  if (useCache && (!cachedData || script.cachedDataRejected)) {
    process.once('exit', () => writeCodeCache(bundle, cacheFile, script));
  }
  const mod = new Module(bundle, module);
  mod.filename = bundle;
  mod.paths = Module._nodeModulePaths(path.dirname(bundle));
  script.runInThisContext().call(mod.exports, mod.exports, Module.createRequire(bundle), mod, bundle, path.dirname(bundle));
  mod.loaded = true;
}

/** Replaces the bundle's code caches by one for its current content; a cache is an optimisation, never an error. */
function writeCodeCache(bundle, cacheFile, script) {
  try {
    for (const old of fs.readdirSync(CACHE_DIR)) {
      if (old.startsWith(`${path.basename(bundle)}.`) && old.endsWith('.v8cache')) fs.rmSync(path.join(CACHE_DIR, old), { force: true });
    }
    const tmp = `${cacheFile}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, script.createCachedData());
    fs.renameSync(tmp, cacheFile);
  } catch { /* read-only or full disk: the next run compiles without a cache */ }
}

main().catch((err) => {
  // esbuild has printed its diagnostics already; anything else is the app's own failure.
  if (!err.errors) console.error(err);
  process.exitCode = 1;
});

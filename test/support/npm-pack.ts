/**
 * `npm pack` of this repository, made once per content of its inputs and shared by every caller (the package test,
 * the tutorial test, the product node suite): each pack is a clean build of the whole package (`rm -rf build && tsc`,
 * about a minute of CPU), and the tarball of the same inputs is the same package.
 *
 * The cache entry is named after a hash of everything the tarball is made of (lib/, runtime/, cli/, docs/, the
 * READMEs, CHANGELOG, LICENSE, package.json, tsconfig.json, the prepack task in .projen/tasks.json, the TypeScript
 * and Node versions): a changed input is a new entry, so no tarball of older inputs is ever reused. It is written
 * under a temporary name and renamed into place, so a reader sees a whole entry or none.
 *
 * Packing is serialised by an flock(1) on a file named after the checkout: prepack removes build/, so two packs at
 * once (jest's workers, the node suites beside them) would remove each other's output. Before every real pack a stray
 * file is left in build/: the package test checks that the tarball never holds it (prepack builds from a clean build/).
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';

const ROOT = path.join(__dirname, '..', '..');
const CACHE = path.join(ROOT, 'node_modules', '.cache', 'cdk8s-operator-pack');
/** The file left in build/ before every real pack; never in the tarball. */
export const STRAY_BUILD_FILE = 'build/stray/left-over.js';

/** What `npm pack --json` reports of the one package packed. */
export interface PackedPackage {
  readonly filename: string;
  readonly entryCount: number;
  readonly files: readonly { readonly path: string }[];
}

/**
 * Under the lock: the cache entry is made when missing (a stray file left in build/, `npm pack` into a temporary
 * folder renamed into place), the entries beyond the newest few removed; then the tarball is copied to the
 * destination (when one is named) or extracted once into the entry's package/ (when `extract`). Prints the entry's
 * `npm pack --json` output. Arguments: entry folder, destination folder or '', stray file, 'extract' or ''.
 */
const LOOK_UP_OR_PACK = `
set -eu
entry=$1 destination=$2 stray=$3 extract=$4
if [ ! -f "$entry/pack.json" ]; then
  mkdir -p "$(dirname "$stray")" && echo '// from an earlier build' > "$stray"
  tmp="$entry.tmp-$$"
  rm -rf "$tmp" && mkdir -p "$tmp"
  npm pack --json --pack-destination "$tmp" > "$tmp/pack.json.part" || { rm -rf "$tmp"; exit 1; }
  mv "$tmp/pack.json.part" "$tmp/pack.json"
  mv -T "$tmp" "$entry"
  (cd "$(dirname "$entry")" && ls -1t | grep -v '[.]' | tail -n +5 | xargs -r rm -rf)
fi
touch "$entry"
if [ -n "$destination" ]; then cp "$entry"/*.tgz "$destination"/; fi
if [ -n "$extract" ] && [ ! -d "$entry/package" ]; then
  rm -rf "$entry/package.tmp" && mkdir "$entry/package.tmp"
  tar -xzf "$entry"/*.tgz -C "$entry/package.tmp" --strip-components=1
  mv -T "$entry/package.tmp" "$entry/package"
fi
cat "$entry/pack.json"
`;

/** The cache entry of the repository as it is now (packed when missing), its tarball copied or extracted. */
function lookUpOrPack(
  destination: string,
  extract: boolean,
  env: NodeJS.ProcessEnv,
): { entry: string; packed: PackedPackage } {
  fs.mkdirSync(CACHE, { recursive: true });
  const key = packInputsKey();
  const entry = path.join(CACHE, key);
  const locked = (args: string[]) =>
    spawnSync('flock', [path.join(CACHE, '.lock'), ...args], {
      cwd: ROOT,
      encoding: 'utf8',
      env,
      maxBuffer: 64 * 1024 * 1024,
    });
  const stray = path.join(ROOT, STRAY_BUILD_FILE);
  const packed = locked(['sh', '-c', LOOK_UP_OR_PACK, 'npm-pack', entry, destination, stray, extract ? 'extract' : '']);
  if (packed.status !== 0) throw new Error(`npm pack failed (${packed.status ?? packed.signal}):\n${packed.stderr}`);
  if (packInputsKey() !== key) {
    locked(['rm', '-rf', entry]);
    throw new Error('npm pack: the sources changed while they were packed; run again');
  }
  return { entry, packed: JSON.parse(packed.stdout)[0] };
}

/**
 * The tarball of the repository as it is now, copied into `destination`; packed when no pack of these inputs exists.
 * Throws with npm's output when packing fails, and when the inputs changed while it packed (its entry is removed).
 */
export function npmPack(destination: string, env: NodeJS.ProcessEnv = process.env): PackedPackage {
  return lookUpOrPack(destination, false, env).packed;
}

/**
 * The folder of the package as installed from that tarball (its package.json, build/, docs): shared by every caller
 * of these inputs, so read it, never write into it.
 */
export function packedPackageDir(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(lookUpOrPack('', true, env).entry, 'package');
}

/** A hash of every input of the tarball of the checkout at `root` (see above). */
export function packInputsKey(root: string = ROOT): string {
  const hash = createHash('sha256');
  const add = (rel: string) => {
    const content = fs.readFileSync(path.join(root, rel));
    hash.update(`${rel}\0${content.length}\0`);
    hash.update(content);
  };
  const walk = (rel: string) => {
    for (const entry of fs
      .readdirSync(path.join(root, rel), { withFileTypes: true })
      .sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const child = `${rel}/${entry.name}`;
      if (entry.isDirectory()) walk(child);
      else if (entry.isFile()) add(child);
    }
  };
  for (const dir of ['lib', 'runtime', 'cli', 'docs']) walk(dir);
  for (const file of [
    'package.json',
    'tsconfig.json',
    '.projen/tasks.json',
    '.npmignore',
    'README.md',
    'CHANGELOG.md',
    'LICENSE',
  ]) {
    if (fs.existsSync(path.join(root, file))) add(file);
  }
  hash.update(`node ${process.version}\0`);
  hash.update(
    `typescript ${JSON.parse(fs.readFileSync(path.join(root, 'node_modules', 'typescript', 'package.json'), 'utf8')).version}\0`,
  );
  return hash.digest('hex').slice(0, 32);
}

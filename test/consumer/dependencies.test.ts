/**
 * What installing the package installs: `dependencies` of package.json must be exactly the packages the
 * shipped code (lib/, runtime/, cli/: compiled into build/, the tarball's content) loads, so users never
 * install a package only our tests use, and never miss one the package needs. Peer dependencies
 * (cdk8s, constructs) are the user's. The npm pack test checks the same on the installed tarball.
 */
import * as fs from 'fs';
import * as path from 'path';
import { moduleUses, packageOf } from './module-uses';

const ROOT = path.join(__dirname, '..', '..');
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));

function shippedSources(): string[] {
  const walk = (dir: string): string[] =>
    fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) return walk(p);
      return e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') && !e.name.endsWith('.test.ts') ? [p] : [];
    });
  return ['lib', 'runtime', 'cli'].flatMap((d) => walk(path.join(ROOT, d)));
}

/** The dependencies of an installed package (what installing it brings along). */
function dependenciesOf(name: string): string[] {
  const file = path.join(ROOT, 'node_modules', name, 'package.json');
  return fs.existsSync(file) ? Object.keys(JSON.parse(fs.readFileSync(file, 'utf8')).dependencies ?? {}) : [];
}

describe('package.json dependencies', () => {
  const uses = shippedSources().flatMap((f) => moduleUses(f));
  const peers = new Set(Object.keys(pkg.peerDependencies ?? {}));
  const deps = new Set(Object.keys(pkg.dependencies ?? {}));

  test('the scanner sees value, type-only, require and dynamic imports, and nothing inside strings', () => {
    const scanned = moduleUses(
      'x.ts',
      [
        "import a from 'alpha';",
        "import type { B } from '@scope/beta/sub';",
        "export { c } from 'gamma';",
        "const d = require('delta/dist/x.js');",
        "type E = import('epsilon').E;",
        "const s = `import z from 'not-an-import';`;",
        "import * as fs from 'node:fs';",
      ].join('\n'),
    );
    expect(scanned.map((u) => [packageOf(u.specifier), u.typeOnly])).toStrictEqual([
      ['alpha', false],
      ['@scope/beta', true],
      ['gamma', false],
      ['delta', false],
      ['epsilon', true],
      [undefined, false],
    ]);
  });

  test('every package the shipped code loads at run time is a dependency or a peer', () => {
    const missing = uses
      .filter((u) => !u.typeOnly)
      .map((u) => ({ ...u, pkg: packageOf(u.specifier) }))
      .filter((u) => u.pkg && !deps.has(u.pkg) && !peers.has(u.pkg) && u.pkg !== pkg.name)
      .map((u) => `${path.relative(ROOT, u.file)}: ${u.specifier}`);
    expect(missing).toStrictEqual([]);
  });

  test('types the shipped declarations reference come with a dependency', () => {
    // A type-only import must resolve for a consumer's tsc: from a dependency, a peer, or what a dependency installs.
    const installed = new Set([...deps, ...peers, ...[...deps].flatMap(dependenciesOf)]);
    const unresolved = uses
      .filter((u) => u.typeOnly)
      .map((u) => ({ ...u, pkg: packageOf(u.specifier) }))
      .filter(
        (u) =>
          u.pkg &&
          u.pkg !== pkg.name &&
          !installed.has(u.pkg) &&
          !installed.has(`@types/${u.pkg.replace(/^@([^/]+)\//, '$1__')}`),
      )
      .map((u) => `${path.relative(ROOT, u.file)}: ${u.specifier}`);
    expect(unresolved).toStrictEqual([]);
  });

  test('every dependency is loaded by the shipped code: none is there only for tests or tools', () => {
    const loaded = new Set(uses.map((u) => packageOf(u.specifier)).filter((p): p is string => !!p));
    expect([...deps].filter((d) => !loaded.has(d)).sort()).toStrictEqual([]);
  });
});

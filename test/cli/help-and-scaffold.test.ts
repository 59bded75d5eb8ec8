import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { COMMAND_USAGE, main } from '../../cli/main';
import { SCAFFOLD_SCRIPTS, TESTED_TOOLCHAIN } from '../../cli/scaffold/templates';

const ROOT = join(__dirname, '..', '..');

describe('the CLI', () => {
  test.each(['types', 'bundle', 'image', 'run', 'scaffold', 'helm-template'])(
    '`%s --help` prints its usage and exits 0 (no command needs its arguments for that)',
    async (command) => {
      const lines: string[] = [];
      expect(await main([command, '--help'], (l) => lines.push(l))).toBe(0);
      expect(lines.join('\n')).toMatch(new RegExp(`^Usage: cdk8s-operator ${command}`));
      expect(await main([command, '-h'], () => undefined)).toBe(0);
    },
  );

  test('every command of the CLI has a usage (a new command cannot skip --help)', async () => {
    const source = readFileSync(join(ROOT, 'cli', 'main.ts'), 'utf8');
    const cases = [...source.matchAll(/^    case '([a-z-]+)': \{/gm)].map((m) => m[1]).sort();
    expect(cases.length).toBeGreaterThanOrEqual(5);
    expect(Object.keys(COMMAND_USAGE).sort()).toStrictEqual(cases);
  });
});

describe('scaffold', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'scaffold-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  test('pins exactly the TypeScript and @types/node this package is tested with (its package-lock.json)', async () => {
    const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8'));
    expect(TESTED_TOOLCHAIN).toStrictEqual({
      typescript: lock.packages['node_modules/typescript'].version,
      '@types/node': lock.packages['node_modules/@types/node'].version,
    });
    writeFileSync(
      join(dir, 'package.json'),
      JSON.stringify({ name: 'x', version: '1.0.0', scripts: { test: 'echo "Error: no test specified" && exit 1' } }),
    );
    await main(['scaffold', dir, '--kind', 'Gizmo', '--group', 'gizmo.example.com'], () => undefined);
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    expect({ typescript: pkg.devDependencies.typescript, node: pkg.devDependencies['@types/node'] }).toStrictEqual({
      typescript: TESTED_TOOLCHAIN.typescript,
      node: TESTED_TOOLCHAIN['@types/node'],
    });
  });

  test('the bundle lives outside dist/, which synth owns; image and an out-of-cluster run as the operator are scripts', async () => {
    await main(['scaffold', dir, '--kind', 'Gizmo', '--group', 'gizmo.example.com'], () => undefined);
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    expect(pkg.scripts.bundle).toBe('cdk8s-operator bundle src/main.ts --output bundle/controller.js');
    expect(pkg.scripts.bundle).not.toMatch(/dist\//);
    expect(pkg.scripts.image).toBe('cdk8s-operator image --bundle bundle/controller.js --chart dist');
    expect(pkg.scripts.local).toBe('cdk8s-operator run --chart dist --bundle bundle/controller.js');
    expect(pkg.scripts).toMatchObject(SCAFFOLD_SCRIPTS);
  });

  test("the reconciler logs each step at debug level; built-in kinds are typed; the test runs as the chart's ServiceAccount", async () => {
    await main(['scaffold', dir, '--kind', 'Gizmo', '--group', 'gizmo.example.com'], () => undefined);
    const reconciler = readFileSync(join(dir, 'src', 'reconciler.ts'), 'utf8');
    expect(reconciler.match(/log\.debug\(/g)?.length).toBeGreaterThanOrEqual(3);
    expect(readFileSync(join(dir, 'src', 'contract.ts'), 'utf8')).toMatch(/import \{ CONFIGMAP, defineContract/);
    const test = readFileSync(join(dir, 'test', 'reconciler.test.ts'), 'utf8');
    expect(test).toContain('await plane.applyObjects(objects);');
    expect(test).toContain('kubeConfig: plane.kubeConfig(operator)');
  });
});

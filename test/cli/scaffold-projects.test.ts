/**
 * Scaffolded projects built and tested for real, against this checkout's sources (not the packed tarball, which
 * test/consumer/tutorial.test.ts and the product node suite use): `cdk8s-operator` resolves to a package in the
 * project's node_modules whose entry points load lib/, runtime/ and runtime/envtest/ through tsx. The project's own
 * `node --test` then runs its chart tests and its reconciler test on a real kube-apiserver.
 */
import { spawnSync } from 'child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'fs';
import { join } from 'path';
import { main } from '../../cli/main';
import { findControlPlaneBinaries } from '../../runtime/envtest';

const ROOT = join(__dirname, '..', '..');
const binaries = findControlPlaneBinaries();
const missing = 'missing' in binaries ? binaries.missing : undefined;
if (missing && process.env.ENVTEST_REQUIRED) throw new Error(`ENVTEST_REQUIRED is set but ${missing}`);
const realTest = missing ? test.skip : test;
if (missing) console.log(`scaffold-projects: the reconciler tests are skipped: ${missing}`);

/**
 * The project's reconciler test got past its failed reconcile: a quota refusing the ConfigMap is Ready=False (reason
 * Forbidden) with exactly one Warning event on the object, written once however often the reconcile is retried, and
 * Ready=True once the quota goes (asserted inside the project's test, on the real apiserver).
 */
const FAILED_RECONCILE_PASSED =
  /^ok \d+ - the reconciler on a real kube-apiserver, .*; a failed reconcile \(a quota refuses its ConfigMap\) is Ready=False with one Warning event until the quota goes$/m;

/** A `cdk8s-operator` package in `project`'s node_modules that loads this checkout's TypeScript sources. */
function linkCheckout(project: string): void {
  const pkg = join(project, 'node_modules', 'cdk8s-operator');
  mkdirSync(pkg, { recursive: true });
  const entries: Record<string, string> = {
    index: 'lib/index',
    runtime: 'runtime/index',
    envtest: 'runtime/envtest/index',
  };
  const exports: Record<string, unknown> = { './package.json': './package.json' };
  for (const [file, source] of Object.entries(entries)) {
    writeFileSync(
      join(pkg, `${file}.js`),
      `require('tsx/cjs/api').register();\nmodule.exports = require(${JSON.stringify(join(ROOT, source))});\n`,
    );
    writeFileSync(join(pkg, `${file}.d.ts`), `export * from ${JSON.stringify(join(ROOT, source))};\n`);
    exports[file === 'index' ? '.' : `./${file}`] = { types: `./${file}.d.ts`, default: `./${file}.js` };
  }
  const own = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  writeFileSync(
    join(pkg, 'package.json'),
    JSON.stringify({ name: 'cdk8s-operator', version: own.version, exports, dependencies: own.dependencies }),
  );
}

function run(project: string, command: string, args: string[]): string {
  const r = spawnSync(command, args, {
    cwd: project,
    encoding: 'utf8',
    env: { ...process.env, NODE_OPTIONS: '', ENVTEST_REQUIRED: '1' },
    timeout: 300_000,
  });
  if (r.status !== 0) {
    throw new Error(
      `${command} ${args.join(' ')} (exit ${r.status}):\n${r.stdout.slice(-4000)}\n${r.stderr.slice(-4000)}`,
    );
  }
  return r.stdout;
}

describe('scaffolded projects, built and run', () => {
  let project: string;
  // inside the repository, so cdk8s, constructs and client-node resolve from its node_modules
  beforeEach(() => {
    project = mkdtempSync(join(ROOT, '.scaffold-'));
  });
  afterEach(() => rmSync(project, { recursive: true, force: true }));

  async function scaffold(...args: string[]): Promise<void> {
    expect(
      await main(['scaffold', project, '--kind', 'Tenant', '--group', 'tenancy.example.com', ...args], () => undefined),
    ).toBe(0);
    linkCheckout(project);
    // as the project's `npm run types` does, in a process of its own (the generator loads prettier, which jest's module system cannot)
    run(project, process.execPath, ['--import', 'tsx', join(ROOT, 'cli/main.ts'), 'types', 'src/crds.ts']);
  }

  realTest(
    "--scope Cluster: a cluster-scoped kind with one version; its chart tests and its reconciler test (real kube-apiserver, as the chart's ServiceAccount) pass",
    async () => {
      await scaffold('--scope', 'Cluster');
      const crds = readFileSync(join(project, 'src/crds.ts'), 'utf8');
      expect(crds).toContain('scope: ResourceScope.CLUSTER,');
      expect(crds.match(/\{ name: 'v\w+'/g)).toStrictEqual(["{ name: 'v1'"]);
      const out = run(project, process.execPath, [
        '--import',
        'tsx',
        '--test',
        'test/chart.test.ts',
        'test/reconciler.test.ts',
      ]);
      expect(out).toMatch(/^# pass 3\n# fail 0\n# cancelled 0\n# skipped 0\n/m);
      expect(out).toMatch(FAILED_RECONCILE_PASSED);
    },
    300_000,
  );

  realTest(
    'the default: a namespaced kind with one version, v1; --versions v1alpha1,v1 serves two',
    async () => {
      await scaffold();
      expect(readFileSync(join(project, 'src/crds.ts'), 'utf8').match(/\{ name: 'v\w+', storage: \w+/g)).toStrictEqual([
        "{ name: 'v1', storage: true",
      ]);
      expect(readFileSync(join(project, 'src/crds.ts'), 'utf8')).not.toContain('ResourceScope');
      const out = run(project, process.execPath, [
        '--import',
        'tsx',
        '--test',
        'test/chart.test.ts',
        'test/reconciler.test.ts',
      ]);
      expect(out).toMatch(/^# pass 3\n# fail 0\n/m);
      expect(out).toMatch(FAILED_RECONCILE_PASSED);
      rmSync(project, { recursive: true, force: true });
      mkdirSync(project);
      await scaffold('--versions', 'v1alpha1,v1');
      expect(readFileSync(join(project, 'src/crds.ts'), 'utf8').match(/\{ name: 'v\w+', storage: \w+/g)).toStrictEqual([
        "{ name: 'v1alpha1', storage: false",
        "{ name: 'v1', storage: true",
      ]);
    },
    300_000,
  );
});

describe('scaffold options', () => {
  test('--scope Cluster with --namespaces, an unknown scope and a bad version are refused, all in one report', async () => {
    await expect(
      main(
        [
          'scaffold',
          '/nonexistent-dir',
          '--kind',
          'Tenant',
          '--group',
          'tenancy.example.com',
          '--scope',
          'Cluster',
          '--namespaces',
          'a',
        ],
        () => undefined,
      ),
    ).rejects.toThrow(
      "--namespaces: a cluster-scoped kind is in no namespace, so the operator cannot watch it in a; drop --namespaces (its ConfigMaps go to the operator's namespace) or use --scope Namespaced",
    );
    const err = await main(
      [
        'scaffold',
        '/nonexistent-dir',
        '--kind',
        'Tenant',
        '--group',
        'tenancy.example.com',
        '--scope',
        'cluster',
        '--versions',
        'v1,1.0',
      ],
      () => undefined,
    ).catch((e: Error) => e.message);
    expect(err).toBe(
      "scaffold:\n  - --scope: must be Namespaced or Cluster, got 'cluster'\n  - --versions[1]: must be a Kubernetes version name (v1, v1beta1, v2alpha1), got '1.0'",
    );
  });

  test('--help explains every option the command accepts', async () => {
    const lines: string[] = [];
    await main(['scaffold', '--help'], (l) => lines.push(l));
    const help = lines.join('\n');
    const source = readFileSync(join(ROOT, 'cli', 'main.ts'), 'utf8');
    const accepted = JSON.parse(
      /case 'scaffold': \{\n\s+const args = parseArgs\(rest, (\[[^\]]*\])/.exec(source)![1].replace(/'/g, '"'),
    ) as string[];
    expect(accepted.length).toBeGreaterThanOrEqual(6);
    for (const option of accepted) {
      expect({ option, explained: new RegExp(`^\\s+--${option}: `, 'm').test(help) }).toStrictEqual({
        option,
        explained: true,
      });
    }
  });
});

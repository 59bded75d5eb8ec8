import { execFileSync, spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as yaml from 'yaml';
import { assetsFor, ORACLE_VERSIONS, REAL_APISERVER_TAG } from '../envtest';
import { moduleUses, packageOf } from './module-uses';
import { hostSlackMs } from '../runtime/support';
import { npmPack, STRAY_BUILD_FILE } from '../support/npm-pack';

const ROOT = path.join(__dirname, '..', '..');
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));

/** A chart written only against the public API, as a user of the npm package would. */
const CONSUMER_CHART = `
import { Chart } from 'cdk8s';
import { CustomResource, CustomResourceDefinition, Operator, OperatorApp, OutputLayout, Schema, ValidatingAdmissionPolicy } from '${pkg.name}';

// admissionregistration.k8s.io/v1 policies need Kubernetes 1.30 (synth fails for a range from 1.28, the default)
const app = new OperatorApp({ layout: OutputLayout.APPLY_ORDER, docs: true, kubernetesVersions: { min: '1.30' } });
const chart = new Chart(app, 'backup');
const crd = new CustomResourceDefinition(chart, 'BackupCrd', {
  group: 'backup.example.com',
  kind: 'Backup',
  versions: [{
    name: 'v1',
    spec: Schema.object({
      description: 'What to back up and when.',
      properties: {
        schedule: Schema.string({ description: 'Cron schedule.', maxLength: 64 }),
        keep: Schema.integer({ description: 'Backups to keep.', minimum: 1, default: 3 }),
      },
      required: ['schedule'],
    }),
    status: Schema.object({ description: 'Observed state.', properties: { last: Schema.string({ description: 'Last run.', format: 'date-time' }) } }),
  }],
});
new CustomResource(chart, 'nightly', { crd, metadata: { name: 'nightly', namespace: 'default' }, spec: { schedule: '0 2 * * *' } });
new Operator(chart, 'backup-operator', {
  crds: [crd],
  image: 'ghcr.io/acme/backup-operator:1.0.0',
  contract: { watches: [crd], owns: [{ apiVersion: 'batch/v1', kind: 'CronJob' }], status: true },
});
// type-checked at synth against the CRD, and against the built-in CronJob schema the package ships
new ValidatingAdmissionPolicy(chart, 'KeepLimit', {
  name: 'backup-keep-limit',
  matchConstraints: { resourceRules: ValidatingAdmissionPolicy.rulesFor(crd, ['CREATE', 'UPDATE']) },
  validations: [{ expression: 'object.spec.keep <= 30' }],
}).bind('Binding');
new ValidatingAdmissionPolicy(chart, 'CronJobs', {
  name: 'backup-cronjobs',
  matchConstraints: { resourceRules: [{ apiGroups: ['batch'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['cronjobs'] }] },
  validations: [{ expression: "object.spec.schedule != '* * * * *'" }],
}).bind('Binding');
app.synth();
`;

function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): string {
  try {
    return execFileSync(cmd, args, { cwd, env: { ...process.env, ...env }, encoding: 'utf8', stdio: 'pipe' });
  } catch (e: any) {
    throw new Error(`${cmd} ${args.join(' ')} failed in ${cwd}:\n${e.stdout ?? ''}${e.stderr ?? ''}`);
  }
}

/** A controller wiring written only against `cdk8s-operator/runtime`: type-checked, then loaded. */
const CONSUMER_CONTROLLER = `
import { ControllerBuilder, Manager, Reconciler, Request } from '${pkg.name}/runtime';

export function setup(manager: Manager): void {
  const reconciler: Reconciler = { reconcile: async (_request: Request) => undefined };
  new ControllerBuilder(manager, { name: 'backup' })
    .for({ apiVersion: 'backup.example.com/v1', kind: 'Backup', plural: 'backups' })
    .owns({ apiVersion: 'batch/v1', kind: 'CronJob' })
    .complete(reconciler);
}
`;

/** The files `tsc` emits for the package's sources: what the tarball must hold, and nothing else. */
function expectedPackageFiles(): string[] {
  const emitted: string[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
      const rel = `${dir}/${entry.name}`;
      if (entry.isDirectory()) {
        walk(rel);
      } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') && !entry.name.endsWith('.test.ts')) {
        emitted.push(`build/${rel.replace(/\.ts$/, '.js')}`, `build/${rel.replace(/\.ts$/, '.d.ts')}`);
      } else if (dir.startsWith('lib') && entry.name.endsWith('.json')) {
        emitted.push(`build/${rel}`); // data read at run time (the vendored built-in OpenAPI)
      }
    }
  };
  walk('lib');
  walk('runtime');
  walk('cli');
  const docs = fs
    .readdirSync(path.join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`);
  return [
    ...emitted,
    ...docs,
    'runtime/README.md',
    'runtime/envtest/README.md',
    'CHANGELOG.md',
    'LICENSE',
    'README.md',
    'package.json',
  ].sort();
}

/** Relative link targets of a markdown file (`[text](target)` outside code; anchors and URLs left out), resolved against it. */
export function relativeLinks(file: string, markdown: string): string[] {
  const targets = [
    ...markdown
      .replace(/^```[\s\S]*?^```$/gm, '')
      .replace(/`[^`\n]*`/g, '')
      .matchAll(/\[[^\]]*\]\(([^)\s]+)\)/g),
  ].map((m) => m[1]);
  return targets
    .filter((t) => !/^[a-z][a-z0-9+.-]*:/i.test(t) && !t.startsWith('#'))
    .map((t) => path.posix.normalize(path.posix.join(path.posix.dirname(file), t.split('#')[0])));
}

/** The `ts` code blocks of docs/API.md, each a standalone module. */
const docExamples = [
  ...fs.readFileSync(path.join(ROOT, 'docs', 'API.md'), 'utf8').matchAll(/^```ts\n([\s\S]*?)^```$/gm),
].map((m) => m[1]);

// Builds, packs and installs for real: slow, so it gets its own timeout.
jest.setTimeout(180_000);

describe('the npm package', () => {
  let tmp: string;
  /** The fresh project the tarball was installed into (by the install test, which the Tenant test builds on). */
  let installedProject: string | undefined;
  beforeAll(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'consumer-'));
  });
  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

  test('the construct library never imports the runtime or its dependencies', () => {
    const offenders: string[] = [];
    const walk = (dir: string) => {
      for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
        const file = path.join(dir, entry.name);
        if (entry.isDirectory()) {
          walk(file);
          continue;
        }
        if (!entry.name.endsWith('.ts')) continue;
        for (const m of fs.readFileSync(file, 'utf8').matchAll(/(?:from|require\(|import\()\s*['"]([^'"]+)['"]/g)) {
          if (/^(@kubernetes\/client-node|prom-client)(\/|$)/.test(m[1]) || /(^|\/)runtime(\/|$)/.test(m[1])) {
            offenders.push(`${path.relative(ROOT, file)}: ${m[1]}`);
          }
        }
      }
    };
    walk(path.join(ROOT, 'lib'));
    expect(offenders).toStrictEqual([]);
    // The runtime's dependencies are real dependencies of the package, not dev-only.
    expect(Object.keys(pkg.dependencies)).toEqual(expect.arrayContaining(['@kubernetes/client-node', 'prom-client']));
    expect(Object.keys(pkg.devDependencies ?? {})).not.toEqual(expect.arrayContaining(['@kubernetes/client-node']));
  });

  test('installs into a fresh TypeScript project, where a chart written against the public API synthesizes', () => {
    // GIVEN the package packed the way it is published (prepack builds it from a clean build/: npmPack leaves a stray
    // file in build/ before it packs), once for these sources and shared with the tutorial test and the product suite
    expect(docExamples.length).toBeGreaterThanOrEqual(4);
    const packed = npmPack(tmp);
    const files: string[] = packed.files.map((f: { path: string }) => f.path);
    // exactly the compiled lib/, runtime/ and cli/ (not empty, no stale or stray file, no sources)
    expect(files.length).toBeGreaterThan(100);
    expect(files).not.toContain(STRAY_BUILD_FILE);
    expect(files.sort()).toStrictEqual(expectedPackageFiles());
    // the docs ship, and every relative link in a shipped doc resolves to a file inside the tarball
    const shippedDocs = files.filter((f) => f.endsWith('.md'));
    expect(shippedDocs).toEqual(
      expect.arrayContaining([
        'README.md',
        'docs/README.md',
        'docs/tutorial.md',
        'docs/runtime-guide.md',
        'docs/benchmarks.md',
        'docs/chaos.md',
        'runtime/README.md',
        'runtime/envtest/README.md',
      ]),
    );
    const links = shippedDocs.flatMap((doc) =>
      relativeLinks(doc, fs.readFileSync(path.join(ROOT, doc), 'utf8')).map((target) => ({ doc, target })),
    );
    expect(links.length).toBeGreaterThanOrEqual(8);
    expect(links.filter(({ target }) => !files.includes(target))).toStrictEqual([]);

    // WHEN a fresh project depends on the tarball and compiles a chart with tsc
    const project = path.join(tmp, 'project');
    fs.mkdirSync(project);
    fs.writeFileSync(
      path.join(project, 'package.json'),
      JSON.stringify(
        {
          name: 'consumer',
          version: '1.0.0',
          private: true,
          dependencies: {
            [pkg.name]: `file:${path.join(tmp, packed.filename)}`,
            cdk8s: pkg.dependencies.cdk8s,
            constructs: pkg.dependencies.constructs,
            typescript: pkg.devDependencies.typescript,
            '@types/node': pkg.devDependencies['@types/node'],
          },
        },
        null,
        2,
      ),
    );
    fs.writeFileSync(
      path.join(project, 'tsconfig.json'),
      JSON.stringify(
        {
          compilerOptions: {
            target: 'ES2022',
            module: 'CommonJS',
            strict: true,
            outDir: 'out',
            types: ['node'],
            lib: ['ES2022'],
            skipLibCheck: true,
          },
          files: ['main.ts', 'controller.ts', ...docExamples.map((_, i) => `api-example-${i}.ts`)],
        },
        null,
        2,
      ),
    );
    fs.writeFileSync(path.join(project, 'main.ts'), CONSUMER_CHART);
    fs.writeFileSync(path.join(project, 'controller.ts'), CONSUMER_CONTROLLER);
    // The examples of docs/API.md compile too (type-checked against the package, not run).
    docExamples.forEach((code, i) => fs.writeFileSync(path.join(project, `api-example-${i}.ts`), code));
    run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund'], project);
    run(path.join(project, 'node_modules', '.bin', 'tsc'), ['-p', 'tsconfig.json'], project);
    installedProject = project;
    // what installing the tarball installs: exactly the packages its JavaScript requires (no test-only package), peers apart
    const installed = path.join(project, 'node_modules', pkg.name);
    const installedPkg = JSON.parse(fs.readFileSync(path.join(installed, 'package.json'), 'utf8'));
    const jsFiles = (dir: string): string[] =>
      fs
        .readdirSync(dir, { withFileTypes: true })
        .flatMap((e) =>
          e.isDirectory() ? jsFiles(path.join(dir, e.name)) : e.name.endsWith('.js') ? [path.join(dir, e.name)] : [],
        );
    const required = new Set(
      jsFiles(path.join(installed, 'build'))
        .flatMap((f) => moduleUses(f))
        .map((u) => packageOf(u.specifier))
        .filter((p): p is string => !!p && p !== pkg.name && !(p in (installedPkg.peerDependencies ?? {}))),
    );
    expect(Object.keys(installedPkg.dependencies).sort()).toStrictEqual([...required].sort());
    // the installed CLI: every command answers --help with its usage and exit code 0
    for (const command of ['types', 'bundle', 'image', 'run', 'scaffold']) {
      const help = spawnSync(path.join(project, 'node_modules', '.bin', 'cdk8s-operator'), [command, '--help'], {
        cwd: project,
        encoding: 'utf8',
      });
      expect({
        command,
        status: help.status,
        usage: help.stdout.startsWith(`Usage: cdk8s-operator ${command}`),
      }).toStrictEqual({ command, status: 0, usage: true });
    }
    // the runtime loads from the installed package, and the construct library alone does not pull it in
    const probe = spawnSync(
      process.execPath,
      [
        '-e',
        `
      const lib = require('${pkg.name}');
      const loaded = Object.keys(require.cache).filter(f => /client-node|prom-client|[\\\\/]build[\\\\/]runtime[\\\\/]/.test(f));
      const runtime = require('${pkg.name}/runtime');
      const { setup } = require('./out/controller.js');
      const envtest = require('${pkg.name}/envtest');
      console.log(JSON.stringify({ lib: typeof lib.Operator, loaded, runtime: [typeof runtime.Manager, typeof runtime.ControllerBuilder], setup: typeof setup, envtest: typeof envtest.ControlPlane.start }));
    `,
      ],
      { cwd: project, encoding: 'utf8' },
    );
    expect(probe.stderr).toBe('');
    expect(JSON.parse(probe.stdout)).toStrictEqual({
      lib: 'function',
      loaded: [],
      runtime: ['function', 'function'],
      setup: 'function',
      envtest: 'function',
    });
    const synth = spawnSync(process.execPath, ['out/main.js'], {
      cwd: project,
      encoding: 'utf8',
      env: { ...process.env, CDK8S_OPERATOR_QUIET: '' },
    });

    // THEN the synth report is printed, and the manifests, apply guide and docs are written from the installed package
    expect({ status: synth.status, stdout: synth.stdout }).toStrictEqual({ status: 0, stdout: '' });
    expect(synth.stderr).toMatch(/^Synth report: dist\/\n/);
    expect(synth.stderr).toContain('backups.backup.example.com');
    expect(synth.stderr).toContain('Warnings: none');
    const dist = path.join(project, 'dist');
    expect(fs.readdirSync(dist).sort()).toStrictEqual([
      '0-namespaces.yaml',
      '1-crds.yaml',
      '2-cluster-resources.yaml',
      '3-namespaced-resources.yaml',
      '4-custom-resources.yaml',
      'APPLY.md',
      'backup-operator.rbac-report.md',
      'docs',
    ]);
    const load = (f: string) =>
      yaml.parseAllDocuments(fs.readFileSync(path.join(dist, f), 'utf8')).map((d) => d.toJS());
    const [crd] = load('1-crds.yaml');
    expect(crd.metadata.name).toBe('backups.backup.example.com');
    expect(crd.spec.versions[0].schema.openAPIV3Schema.properties.spec.required).toStrictEqual(['schedule']);
    expect(load('4-custom-resources.yaml')).toStrictEqual([
      {
        apiVersion: 'backup.example.com/v1',
        kind: 'Backup',
        metadata: { name: 'nightly', namespace: 'default' },
        spec: { schedule: '0 2 * * *' },
      },
    ]);
    const clusterRole = load('2-cluster-resources.yaml').find((o) => o.kind === 'ClusterRole');
    expect(clusterRole.rules).toContainEqual({
      apiGroups: ['batch'],
      resources: ['cronjobs'],
      verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'],
    });
    expect(fs.readFileSync(path.join(dist, 'docs', 'backups.backup.example.com.md'), 'utf8')).toContain(
      '| `.spec.keep` | `integer` |  | `3` | value ≥ 1 | Backups to keep. |',
    );
  });
  // the oldest supported, the default and the newest Kubernetes (ENVTEST_VERSIONS narrows, as for every real suite)
  const only = process.env.ENVTEST_VERSIONS?.split(',').map((v) => v.trim());
  const versions = ORACLE_VERSIONS.filter((v) => !only || only.includes(v)).map((version) => {
    const assets = assetsFor(version);
    return 'missing' in assets
      ? { version, missing: assets.missing, dir: undefined }
      : { version, missing: undefined, dir: assets.dir };
  });
  describe(`a cluster-scoped, role-granting Tenant operator from the tarball ${REAL_APISERVER_TAG}`, () => {
    /** The Tenant operator's sources (test/consumer/tenant-operator), written against the public entry points only, compiled in the installed project. */
    const compiled = (() => {
      let done = false;
      return () => {
        if (done) return;
        if (!installedProject) throw new Error('the install test above did not leave an installed project');
        const sources = path.join(__dirname, 'tenant-operator');
        const dir = path.join(installedProject, 'tenant');
        fs.mkdirSync(dir, { recursive: true });
        for (const f of fs.readdirSync(sources).filter((n) => n.endsWith('.mts'))) {
          fs.copyFileSync(path.join(sources, f), path.join(dir, f.replace(/\.mts$/, '.ts')));
        }
        fs.writeFileSync(
          path.join(installedProject, 'tsconfig.tenant.json'),
          JSON.stringify({
            compilerOptions: {
              target: 'ES2022',
              module: 'CommonJS',
              strict: true,
              outDir: 'out-tenant',
              types: ['node'],
              lib: ['ES2022'],
              skipLibCheck: true,
            },
            files: ['tenant/e2e.ts'],
          }),
        );
        run(
          path.join(installedProject, 'node_modules', '.bin', 'tsc'),
          ['-p', 'tsconfig.tenant.json'],
          installedProject,
        );
        done = true;
      };
    })();
    for (const { version, missing, dir } of versions) {
      (missing && !process.env.ENVTEST_REQUIRED ? test.skip : test)(
        `on Kubernetes ${version}: built from the installed package alone, run under its ServiceAccount with role aggregation and GC, the tenants' namespace prefixes reserved to it by a ValidatingAdmissionPolicy (1.30+), a failed reconcile recorded as Ready=False and a Warning event, a tenant deleted with --cascade=foreground while a pod runs`,
        () => {
          if (missing) throw new Error(`ENVTEST_REQUIRED is set but ${missing}`);
          compiled();
          // WHEN it runs: synth, ControlPlane.start() (defaults), applyObjects(dist), the manager as operatorIdentity, the scenario
          const e2e = spawnSync(process.execPath, ['out-tenant/e2e.js'], {
            cwd: installedProject,
            encoding: 'utf8',
            // scaled as jest's own timeouts are (rehearsal OD: killed at 150 s with jest starved beside the node suites)
            timeout: hostSlackMs(150_000),
            env: { ...process.env, KUBEBUILDER_ASSETS: dir, CDK8S_OPERATOR_QUIET: '1' },
          });
          if (e2e.status !== 0) throw new Error(`the Tenant scenario failed (${e2e.status}):\n${e2e.stderr}`);
          const out = JSON.parse(e2e.stdout);
          const ns = 'tenant-acme';
          // THEN the control plane behaved like a cluster, and the operator did its job with exactly its chart's RBAC
          expect(out.controllers).toEqual(
            expect.arrayContaining([
              'clusterrole-aggregation-controller',
              'garbage-collector-controller',
              'namespace-controller',
            ]),
          );
          expect(out.identity).toBe('system:serviceaccount:tenant-operator-system:tenant-operator');
          expect(out.badName).toEqual([
            422,
            expect.stringContaining('a tenant name must be a DNS label of at most 56 characters'),
          ]);
          // a namespace of its name that someone else made is not adopted: the error is Ready=False with one Warning
          // event (recordReconcileError), and deleting that tenant leaves the namespace alone
          const taken = "Namespace tenant-beta exists and is not tenant beta's: rename or remove it";
          expect(out.takenNamespace).toEqual({
            condition: { reason: 'ReconcileError', message: taken, observedGeneration: 1 },
            events: [['Warning', 'ReconcileError', taken, 'Tenant']],
            namespaceAfterTenantDeleted: { exists: true, deleting: false, ownerLabel: null },
          });
          const readyCondition = {
            type: 'Ready',
            status: 'True',
            reason: 'Reconciled',
            message: `namespace ${ns}`,
            observedGeneration: 1,
            lastTransitionTime: expect.any(String),
          };
          expect(out.ready).toEqual({
            finalizers: ['tenancy.example.com/namespace-empty'],
            status: { phase: 'Ready', message: `namespace ${ns}`, conditions: [readyCondition] },
          });
          expect([out.namespaceOwnerReferences, out.namespaceOwnerLabel]).toEqual([null, true]);
          expect(out.quota).toEqual({ hard: { pods: '5' } });
          // bound under its ServiceAccount: contract.binds gave it bind on admin, and admin is aggregated (alice gets real rights)
          expect(out.roleRef).toEqual({ apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'admin' });
          expect(out.aliceMayCreateDeployments).toBe(true);
          expect(out.networkPolicy).toEqual({ podSelector: {}, policyTypes: ['Ingress', 'Egress'] });
          expect(out.version).toBe(version);
          // the chart's ValidatingAdmissionPolicy (every Tenant a parameter): acme- is the operator's prefix; below 1.30,
          // which does not serve admissionregistration.k8s.io/v1, its file is left out as dist/APPLY.md says
          const policyFile = (out.files as string[]).filter((f) => /requires-1\.30/.test(f));
          if (version === '1.28') {
            expect([policyFile, out.adminCreatesAcmeX]).toEqual([[], undefined]);
          } else {
            expect(policyFile).toHaveLength(1);
            expect([out.adminCreatesAcmeX, out.adminCreatesOtherX, out.operatorCreatesAcmeX]).toEqual([
              [
                403,
                'Forbidden',
                expect.stringContaining(
                  'namespace acme-x has the prefix of tenant acme: only the tenant operator creates it',
                ),
              ],
              201,
              201,
            ]);
          }
          expect(out.podCreated).toBe(201);
          // deleted with --cascade=foreground while the pod runs: held, namespace and its contents untouched
          expect(out.deletingFinalizers).toEqual(['tenancy.example.com/namespace-empty', 'foregroundDeletion']);
          expect(out.whileHeld).toEqual({
            namespaceDeleting: false,
            podPhase: 'Running',
            rolebinding: 200,
            tenantFinalizers: ['tenancy.example.com/namespace-empty'],
            tenantStatus: {
              phase: 'Terminating',
              message: `waiting for 1 pod(s) in ${ns}`,
              conditions: [readyCondition],
            },
          });
          // and once the pod ended, the tenant and its namespace went
          expect(out.finished).toBe(true);
        },
        200_000,
      );
    }
  });
});

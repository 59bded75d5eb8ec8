/**
 * The files of a scaffolded operator project, from its kind and group. Every file is written
 * against the published entry points (`cdk8s-operator`, `cdk8s-operator/runtime`) only.
 */

/** What the templates are filled with. */
export interface ScaffoldNames {
  /** `Website` */
  readonly kind: string;
  /** `example.com` */
  readonly group: string;
  /** `websites` */
  readonly plural: string;
  /** `website` */
  readonly lower: string;
  /** `website-operator` */
  readonly operator: string;
  /** Watched namespaces, or undefined for cluster-wide. */
  readonly namespaces?: readonly string[];
  /** Whether the kind is cluster-scoped (its ConfigMaps then live in the operator's namespace). @default false */
  readonly cluster?: boolean;
  /** Versions, oldest first; the last is stored. @default ['v1'] */
  readonly versions?: readonly string[];
}

/** path → content */
export function scaffoldFiles(n: ScaffoldNames): Record<string, string> {
  const exampleNamespace = n.namespaces?.[0] ?? 'default';
  const versions = n.versions ?? ['v1'];
  const stored = versions[versions.length - 1];
  const cluster = n.cluster ?? false;
  const versionsComment =
    versions.length > 1
      ? `// One schema for every version: ${versions.slice(0, -1).join(', ')} still served, ${stored} stored (conversion "None" only\n// rewrites apiVersion, so the schemas must agree).`
      : `// One version to start with; add a new one (and a conversion) when the schema must change incompatibly.`;
  // where each object's ConfigMap goes: beside a namespaced object, in the operator's own namespace for a cluster-scoped one
  const cmNamespace = cluster ? 'this.deps.namespace' : `${n.lower}.metadata.namespace`;
  const watchNamespaces = n.namespaces
    ? `\n  // One informer and one Role per namespace; the chart sets WATCH_NAMESPACE from the same list.\n  watchNamespaces: ${JSON.stringify(n.namespaces).replace(/"/g, "'").replace(/,/g, ', ')},`
    : '';
  return {
    'src/crds.ts': `import { Construct } from 'constructs';
import { conditionsSchema, CustomResourceDefinition, ${cluster ? 'ResourceScope, ' : ''}Schema } from 'cdk8s-operator';

${versionsComment}
const spec = () => Schema.object({
  description: 'Desired state of a ${n.kind}.',
  properties: {
    message: Schema.string({ description: 'Text the operator publishes in the ${n.kind}\\'s ConfigMap.', minLength: 1, maxLength: 256 }),
  },
  required: ['message'],
});
const status = () => Schema.object({
  description: 'Observed state, written by the operator.',
  properties: {
    configMap: Schema.string({ description: 'Name of the ConfigMap holding the message.' }),
    observedGeneration: Schema.integer({ description: 'The generation last reconciled.' }),
    // Ready: True once the ConfigMap holds the message; False, with the error's reason, while a reconcile fails
    conditions: conditionsSchema(),
  },
});

/** The ${n.kind} CRD: \`${n.group}\`, ${cluster ? 'cluster-scoped, ' : ''}${versions.length > 1 ? `versions ${versions.join(', ')} (${stored} stored)` : `version ${stored}`}. */
export function ${n.lower}Crd(scope: Construct): CustomResourceDefinition {
  return new CustomResourceDefinition(scope, '${n.kind}Crd', {
    group: '${n.group}',
    kind: '${n.kind}',${cluster ? '\n    scope: ResourceScope.CLUSTER,' : ''}
    description: 'A ${n.kind}: the operator publishes its message in a ConfigMap${cluster ? ' in its own namespace' : ''}.',
    versions: [
${versions.map((v) => `      { name: '${v}', storage: ${v === stored}, spec: spec(), status: status(), subresources: { status: true } },`).join('\n')}
    ],
  });
}

/** Every CRD of this project: \`npx cdk8s-operator types src/crds.ts\` generates imports/ from these. */
export function defineCrds(scope: Construct): CustomResourceDefinition[] {
  return [${n.lower}Crd(scope)];
}
`,
    'src/contract.ts': `/**
 * What the controller does against the API, declared once: the controller is wired from it (the
 * runtime refuses anything beyond it at start-up) and the chart derives RBAC, WATCH_NAMESPACE and
 * the NetworkPolicy from the very same object.
 */
import { CONFIGMAP, defineContract, KubeObject, resourceRef } from 'cdk8s-operator/runtime';
import type { ${n.kind}Spec, ${n.kind}Status } from '../imports/${n.group}';

// Built-in kinds come typed from the runtime (the Kubernetes API's own types): a misspelt ConfigMap field
// is a compile error, not a field the apiserver silently drops.
export { CONFIGMAP };
export type { ConfigMap } from 'cdk8s-operator/runtime';

/** A ${n.kind} object, typed from the CRD (imports/ is generated: \`npm run types\`). */
export interface ${n.kind} extends KubeObject {
  spec: ${n.kind}Spec;
  status?: ${n.kind}Status;
}

export const ${n.kind.toUpperCase()} = resourceRef<${n.kind}>({ apiVersion: '${n.group}/${stored}', kind: '${n.kind}', plural: '${n.plural}' });

export const CONTRACT = defineContract({
  watches: [${n.kind.toUpperCase()}],
  owns: [CONFIGMAP],
  status: true,
  // a failed reconcile is a Warning event beside the Ready=False condition (recordReconcileError)
  events: true,
  leaderElection: true,${watchNamespaces}
});
`,
    'src/reconciler.ts': `/**
 * The business logic: each ${n.kind} gets a ConfigMap \`<name>-content\`${cluster ? " in the operator's namespace" : ''} holding its message, and its
 * status names that ConfigMap, with the condition Ready=True. A reconcile that fails is shown on the ${n.kind}
 * (Ready=False with the error's reason, one Warning event) and retried with backoff.
 * Level-triggered and idempotent: in steady state it writes nothing.
 */
import {
  applyOwned, controllerReference, EventRecorder, KubeClient, Logger, Reconciler, recordReconcileError, Request, setCondition, silentLogger,
  Store, Stored, updateStatus,
} from 'cdk8s-operator/runtime';
import { ConfigMap, CONFIGMAP, ${n.kind}, ${n.kind.toUpperCase()} } from './contract';

export interface ${n.kind}ReconcilerDeps {
  /** Writes return once the informer shows them (the manager's readYourWritesClient). */
  readonly client: KubeClient;
  readonly ${n.plural}: Store<${n.kind}>;
  readonly configMaps: Store<ConfigMap>;
  /** The Warning event of a failed reconcile (the manager's eventRecorder; CONTRACT grants \`events\`). */
  readonly recorder: EventRecorder;
  readonly fieldManager: string;${
    cluster
      ? `
  /** Where the ConfigMaps go (a ${n.kind} is cluster-scoped): the operator's own namespace. */
  readonly namespace: string;`
      : ''
  }
  /** Each step at debug level (\`LOG_LEVEL=debug\`). @default - silent */
  readonly logger?: Logger;
}

export class ${n.kind}Reconciler implements Reconciler {
  private readonly log: Logger;

  constructor(private readonly deps: ${n.kind}ReconcilerDeps) {
    this.log = deps.logger ?? silentLogger;
  }

  async reconcile(request: Request): Promise<void> {
    const log = this.log.child({ ${n.lower}: ${cluster ? 'request.name' : '\`\${request.namespace}/\${request.name}\`'} });
    const ${n.lower} = this.deps.${n.plural}.get(request);
    if (!${n.lower} || ${n.lower}.metadata.deletionTimestamp) {
      log.debug('gone or being deleted: nothing to do (its ConfigMap goes with it, by ownerReference)');
      return;
    }
    try {
      await this.publish(${n.lower}, log);
    } catch (err) {
      // where \`kubectl get\` and \`kubectl describe\` look: Ready=False with the error's reason (Forbidden, Invalid…) and
      // its first line, and one Warning event; written only when that changes, so a retried failure writes once
      const recorded = await recordReconcileError(this.deps.client, this.deps.recorder, ${n.lower}, err,
        { resource: ${n.kind.toUpperCase()}, fieldManager: this.deps.fieldManager });
      log.debug(recorded.changed ? 'failure recorded: Ready=False and a Warning event' : 'failure already recorded, not written',
        { reason: recorded.reason, statusError: recorded.statusError });
      throw err; // retried with backoff: Ready=True again once the cause is gone
    }
  }

  private async publish(${n.lower}: Stored<${n.kind}>, log: Logger): Promise<void> {
    const name = \`\${${n.lower}.metadata.name}-content\`;
    const live = this.deps.configMaps.get({ namespace: ${cmNamespace}, name });
    // typed by CONFIGMAP: the desired object is checked against the Kubernetes API's ConfigMap type
    const applied = await applyOwned(this.deps.client, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name, namespace: ${cmNamespace}, ownerReferences: [controllerReference(${n.lower})] },
      data: { message: ${n.lower}.spec.message },
    }, { fieldManager: this.deps.fieldManager, live, resource: CONFIGMAP });
    log.debug(applied.changed ? 'applied the ConfigMap' : 'ConfigMap up to date, not written', { configMap: name });
    const observedGeneration = ${n.lower}.metadata.generation;
    // setCondition keeps lastTransitionTime while Ready stays True, so an unchanged ${n.kind} gets no status write
    const conditions = setCondition(${n.lower}.status?.conditions,
      { type: 'Ready', status: 'True', reason: 'Reconciled', message: \`ConfigMap \${name} holds the message\`, observedGeneration });
    const written = await updateStatus(this.deps.client, ${n.lower}, { configMap: name, observedGeneration, conditions },
      { fieldManager: this.deps.fieldManager, resource: ${n.kind.toUpperCase()} });
    log.debug(written ? 'status written' : 'status up to date, not written', { configMap: name, observedGeneration });
  }
}
`,
    'src/controller.ts': `import { Controller, ControllerBuilder, Manager } from 'cdk8s-operator/runtime';
import { CONFIGMAP, ${n.kind.toUpperCase()} } from './contract';
import { ${n.kind}Reconciler } from './reconciler';

/**
 * Wires the reconciler: for(${n.kind}), owns(ConfigMap) — what CONTRACT grants. Workers: the binary's
 * \`--concurrency\` (the manager's default for every controller that sets none).
 */
export function setup${n.kind}Controller(manager: Manager${cluster ? ', options: { readonly namespace: string }' : ''}): Controller {
  const reconciler = new ${n.kind}Reconciler({${cluster ? '\n    namespace: options.namespace,' : ''}
    client: manager.readYourWritesClient,
    ${n.plural}: manager.getStore(${n.kind.toUpperCase()}),
    configMaps: manager.getStore(CONFIGMAP),
    recorder: manager.eventRecorder('${n.group}/${n.operator}'),
    fieldManager: '${n.operator}',
    logger: manager.logger.child({ controller: '${n.lower}' }),
  });
  return new ControllerBuilder(manager, { name: '${n.lower}' })
    .for(${n.kind.toUpperCase()})
    .owns(CONFIGMAP)
    .complete(reconciler);
}
`,
    'src/main.ts': `/**
 * The controller binary (\`npm run bundle\` → bundle/controller.js, outside dist/, which synth owns).
 * Flags: --leader-elect, --leader-election-namespace, --metrics-bind-address, --health-probe-bind-address,
 * --concurrency; env WATCH_NAMESPACE, POD_NAMESPACE (the Lease's namespace${cluster ? ', and where the ConfigMaps go' : ''}), LOG_LEVEL.
 */
import { ${cluster ? 'leaderElectionNamespace, ' : ''}runControllerBinary } from 'cdk8s-operator/runtime';
import { CONTRACT } from './contract';
import { setup${n.kind}Controller } from './controller';

runControllerBinary({
  name: '${n.lower}',
  leaseName: '${n.operator}-leader',
  contract: CONTRACT,
  setup: (manager) => { setup${n.kind}Controller(manager${cluster ? ', { namespace: leaderElectionNamespace() }' : ''}); },
});
`,
    'src/chart.ts': `import { Chart, ChartProps } from 'cdk8s';
import { Construct } from 'constructs';
import { Operator } from 'cdk8s-operator';
import { ${n.kind} } from '../imports/${n.group}';
import { CONTRACT } from './contract';
import { ${n.lower}Crd } from './crds';

export interface ${n.kind}OperatorChartProps extends ChartProps {
  /** @default 'ghcr.io/example/${n.operator}:0.1.0' */
  readonly image?: string;
}

/** The CRD, the operator (RBAC, Deployment, NetworkPolicy derived from CONTRACT) and an example ${n.kind}. */
export class ${n.kind}OperatorChart extends Chart {
  constructor(scope: Construct, id: string, props: ${n.kind}OperatorChartProps = {}) {
    super(scope, id, props);
    const crd = ${n.lower}Crd(this);
    new Operator(this, '${n.operator}', {
      crds: [crd],
      image: props.image ?? 'ghcr.io/example/${n.operator}:0.1.0',
      contract: CONTRACT,
    });
    // Checked against the CRD at synth.
    new ${n.kind}(this, 'example', { metadata: { name: 'example'${cluster ? '' : `, namespace: '${exampleNamespace}'`} }, spec: { message: 'Hello from ${n.operator}' } });
  }
}
`,
    'src/app.ts': `import { OperatorApp, OutputLayout } from 'cdk8s-operator';
import { ${n.kind}OperatorChart } from './chart';

// \`npm run synth\`: dist/0-namespaces.yaml … dist/APPLY.md (apply order), RBAC report, API docs.
const app = new OperatorApp({ layout: OutputLayout.APPLY_ORDER });
new ${n.kind}OperatorChart(app, '${n.operator}');
app.synth();
`,
    'test/chart.test.ts': `import assert from 'node:assert/strict';
import test from 'node:test';
import { Testing } from 'cdk8s';
import { ${n.kind}OperatorChart } from '../src/chart';

test('the chart grants exactly what the controller contract declares', () => {
  const out = Testing.synth(new ${n.kind}OperatorChart(Testing.app(), 'test'));
  const roles = out.filter((o) => o.kind === '${n.namespaces ? 'Role' : 'ClusterRole'}' && o.metadata.name === '${n.operator}-manager');
  assert.deepEqual(roles.map((r) => r.metadata.namespace), ${JSON.stringify(n.namespaces ?? [undefined])
    .replace(/"/g, "'")
    .replace(/null/g, 'undefined')});
  for (const role of roles) {
    assert.deepEqual(role.rules.find((r: { resources: string[] }) => r.resources.includes('configmaps')).verbs,
      ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete']);
    assert.deepEqual(role.rules.find((r: { resources: string[] }) => r.resources.includes('${n.plural}/status')).verbs, ['get', 'update', 'patch']);
  }
  const env = out.find((o) => o.kind === 'Deployment').spec.template.spec.containers[0].env;
  assert.equal(env.find((e: { name: string }) => e.name === 'WATCH_NAMESPACE').value, '${(n.namespaces ?? []).join(',')}');
});

test('an invalid example ${n.kind} fails synth, naming the field', () => {
  assert.throws(() => {
    const chart = new ${n.kind}OperatorChart(Testing.app(), 'bad');
    const { ${n.kind} } = require('../imports/${n.group}');
    new ${n.kind}(chart, 'empty', { metadata: { name: 'empty'${cluster ? '' : ", namespace: 'default'"} }, spec: { message: '' } });
    Testing.synth(chart);
  }, /message/);
});
`,
    'test/reconciler.test.ts': `import assert from 'node:assert/strict';
import test from 'node:test';
import { Testing } from 'cdk8s';
import { ControlPlane, findControlPlaneBinaries } from 'cdk8s-operator/envtest';
import { createLogger, Event, EVENT, Manager, RESOURCEQUOTA, RestClient } from 'cdk8s-operator/runtime';
import type { ${n.kind}Spec } from '../imports/${n.group}';
import { ${n.kind}OperatorChart } from '../src/chart';
import { CONFIGMAP, CONTRACT, ${n.kind.toUpperCase()} } from '../src/contract';
import { setup${n.kind}Controller } from '../src/controller';

// @ts-expect-error a field the CRD does not have is a compile error (imports/ is generated from src/crds.ts)
export const typo: ${n.kind}Spec = { message: 'hello', mesage: 'hello' };

// A real kube-apiserver and etcd from KUBEBUILDER_ASSETS (the folder \`setup-envtest use -p path\` prints;
// etcd there or on PATH). Without them this test is skipped, unless ENVTEST_REQUIRED is set (CI).
const binaries = findControlPlaneBinaries();
const skip = 'missing' in binaries && !process.env.ENVTEST_REQUIRED ? \`envtest: \${binaries.missing}\` : false;

/** Polls until \`probe\` returns (or resolves to) a value, not undefined, or fails after \`timeoutMs\`. */
async function eventually<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; await new Promise((r) => setTimeout(r, 100))) {
    const value = await probe();
    if (value !== undefined) return value;
  }
  throw new Error(\`timed out waiting for \${what}\`);
}

test('the reconciler on a real kube-apiserver, as the chart\\'s ServiceAccount: a ${n.kind} gets its ConfigMap and status, and follows a change; a failed reconcile (a quota refuses its ConfigMap) is Ready=False with one Warning event until the quota goes', { skip }, async () => {
  const plane = await ControlPlane.start();
  let manager: Manager | undefined;
  try {
    // everything the chart synthesizes (namespaces, CRD, RBAC, Deployment, the example ${n.kind}), applied in
    // dist/APPLY.md's order; then the manager runs as the chart's ServiceAccount, with exactly its RBAC
    const objects = Testing.synth(new ${n.kind}OperatorChart(Testing.app(), 'test'));
    await plane.applyObjects(objects);
    const operator = await plane.operatorIdentity(objects);
    // errors only: the quota's refusal below is retried, each retry logged at warn; the test reads it from the ${n.kind}
    manager = new Manager({ kubeConfig: plane.kubeConfig(operator), contract: CONTRACT, logger: createLogger({ level: 'error' }) });
    setup${n.kind}Controller(manager${cluster ? ', { namespace: operator.namespace! }' : ''});
    const ${n.plural} = manager.getStore(${n.kind.toUpperCase()});
    const configMaps = manager.getStore(CONFIGMAP);
    await manager.start();

    // the example of the chart is reconciled, and one created by a user (an admin) too
${
  cluster
    ? `    // ${n.kind}s are cluster-scoped; their ConfigMaps live in the operator's namespace
    const namespace = operator.namespace!;
    const at = (name: string) => ({ name });`
    : `    const namespace = '${exampleNamespace}';
    const at = (name: string) => ({ namespace, name });`
}
    assert.equal(await eventually('the example\\'s status', () => ${n.plural}.get(at('example'))?.status?.configMap), 'example-content');
    const admin = RestClient.fromKubeConfig(plane.kubeConfig());
    await admin.create({ apiVersion: '${n.group}/${stored}', kind: '${n.kind}', metadata: { name: 'hello'${cluster ? '' : ', namespace'} }, spec: { message: 'Hello, world' } });
    const reconciled = await eventually('status.configMap', () => ${n.plural}.get(at('hello'))?.status?.configMap);
    assert.equal(reconciled, 'hello-content');
    assert.equal(configMaps.get({ namespace, name: 'hello-content' })?.data?.message, 'Hello, world');

    await admin.patch(${n.kind.toUpperCase()}, 'hello', ${cluster ? 'undefined' : 'namespace'}, { type: 'merge', body: { spec: { message: 'changed' } } });
    await eventually('the changed message', () => configMaps.get({ namespace, name: 'hello-content' })?.data?.message === 'changed' || undefined);

    // a reconcile that fails shows on the ${n.kind}: a ResourceQuota of no more ConfigMaps in ${cluster ? "the operator's namespace" : exampleNamespace} makes the
    // apiserver refuse the next one (403 Forbidden, exceeded quota). Waiting until the apiserver refuses a ConfigMap of the
    // admin for it (its usage counted: no "status unknown for quota" any more) makes every retry get the same refusal.
    await admin.create({ apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'no-more-configmaps', namespace }, spec: { hard: { 'count/configmaps': '0' } } });
    const refusal = () => admin.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'probe', namespace } }).then(() => '', (e: Error) => e.message);
    await eventually('the quota in force', async () => /exceeded quota: no-more-configmaps/.test(await refusal()) || undefined);
    await admin.create({ apiVersion: '${n.group}/${stored}', kind: '${n.kind}', metadata: { name: 'refused'${cluster ? '' : ', namespace'} }, spec: { message: 'after the quota' } });
    const failed = await eventually('Ready=False', () => ${n.plural}.get(at('refused'))?.status?.conditions?.find((c) => c.type === 'Ready'));
    assert.deepEqual([failed.status, failed.reason, failed.observedGeneration], ['False', 'Forbidden', 1]);
    assert.match(failed.message, /refused-content.*exceeded quota: no-more-configmaps/);
    // the quota goes: a retry (backoff) publishes the message and sets Ready=True
    await admin.delete(RESOURCEQUOTA, 'no-more-configmaps', namespace);
    const ready = await eventually('Ready=True', () => ${n.plural}.get(at('refused'))?.status?.conditions?.find((c) => c.type === 'Ready' && c.status === 'True'), 60_000);
    assert.deepEqual([ready.reason, ready.message], ['Reconciled', 'ConfigMap refused-content holds the message']);
    assert.equal(configMaps.get({ namespace, name: 'refused-content' })?.data?.message, 'after the quota');
    // every retry failed the same way, and only the first wrote: one Warning event${cluster ? " (a cluster-scoped object's events are in default)" : ''}, no series
    const events = (await admin.list(EVENT, { ${cluster ? "namespace: 'default'" : 'namespace'} })).items as Event[];
    assert.deepEqual(events.filter((e) => e.regarding?.name === 'refused').map((e) => [e.type, e.reason, e.note, e.series]),
      [['Warning', 'Forbidden', failed.message, undefined]]);
  } finally {
    await manager?.stop();
    await plane.stop();
  }
});
`,
    'tsconfig.json':
      JSON.stringify(
        {
          compilerOptions: {
            target: 'ES2022',
            module: 'commonjs',
            lib: ['ES2022'],
            types: ['node'],
            strict: true,
            esModuleInterop: true,
            skipLibCheck: true,
            outDir: 'out',
            rootDir: '.',
            declaration: false,
          },
          include: ['src/**/*.ts', 'test/**/*.ts', 'imports/**/*.ts'],
        },
        null,
        2,
      ) + '\n',
    'README.md': `# ${n.operator}

An operator for \`${n.kind}\` (\`${n.group}\`), built with [cdk8s-operator](https://www.npmjs.com/package/cdk8s-operator).

| file | what |
|---|---|
| \`src/crds.ts\` | the CRD (${cluster ? 'cluster-scoped, ' : ''}${versions.length > 1 ? `versions ${versions.join(', ')}` : `version ${stored}`}), built with the schema builder |
| \`imports/${n.group}.ts\` | generated types (\`npm run types\`; never edit) |
| \`src/contract.ts\` | what the controller reads and writes — the controller and the chart both use it |
| \`src/reconciler.ts\` | the business logic; a reconcile that fails shows on the ${n.kind} (below) |
| \`src/controller.ts\`, \`src/main.ts\` | wiring and the controller binary |
| \`src/chart.ts\`, \`src/app.ts\` | the cdk8s chart: CRD, Operator (RBAC, Deployment, NetworkPolicy), an example ${n.kind} |
| \`test/chart.test.ts\` | the chart grants what the contract declares; a bad example fails synth |
| \`test/reconciler.test.ts\` | the reconciler on a real kube-apiserver as the chart's ServiceAccount (\`cdk8s-operator/envtest\`; needs \`KUBEBUILDER_ASSETS\`), a failed reconcile included |

\`\`\`sh
npm run types     # imports/${n.group}.ts from src/crds.ts
npm run build     # tsc
npm test          # node --test; the reconciler test starts kube-apiserver + etcd from KUBEBUILDER_ASSETS
npm run bundle    # bundle/controller.js: the controller in one file (outside dist/, which synth owns)
npm run synth     # dist/: apply-ordered manifests, APPLY.md, RBAC report

# apply as dist/APPLY.md says (it lists exactly the files your output has), then either
npm run local     # the controller on this machine as the chart's ServiceAccount (a short-lived token)
# or in the cluster: the image, without Docker, on a distroless Node base saved as a tarball
BASE_IMAGE_TAR=base.tar npm run image   # images/${n.operator}.tar, tagged as src/chart.ts says
\`\`\`

Get a base tarball with \`skopeo copy docker://gcr.io/distroless/nodejs20-debian12:nonroot docker-archive:base.tar\`
(or \`docker save\`, \`crane pull\`). Load the image with \`ctr -n k8s.io images import images/${n.operator}.tar\`
(or \`kind load image-archive\`, \`docker load -i\`), or push it with \`skopeo copy docker-archive:images/${n.operator}.tar docker://<registry>/${n.operator}:0.1.0\`;
the tag is the chart's \`image\` (src/chart.ts): change it there and rebuild.

A ${n.kind}'s status says how its last reconcile went: the condition \`Ready\` is \`True\` (reason \`Reconciled\`)
once its ConfigMap holds the message. A reconcile that fails (the apiserver refuses the ConfigMap: RBAC, a quota, an
admission policy) sets \`Ready\` to \`False\` with the error's reason (\`Forbidden\`, \`Invalid\`…) and its first line, and
records one Warning event on the ${n.kind} (\`kubectl describe ${n.lower} <name>\`); the controller retries with backoff
and sets \`Ready\` back to \`True\` once the cause is gone. Both are written only when they change, so a failure
retried a hundred times writes once, and a ${n.kind} already up to date gets no write at all. The runtime guide's
"When a reconcile fails" explains \`recordReconcileError\`, which does this.
`,
  };
}

/** npm scripts the project gets. */
export const SCAFFOLD_SCRIPTS: Record<string, string> = {
  types: 'cdk8s-operator types src/crds.ts',
  build: 'tsc -p tsconfig.json',
  test: 'node --test out/test/',
  synth: 'node out/src/app.js',
  bundle: 'cdk8s-operator bundle src/main.ts --output bundle/controller.js',
  // the image of bundle/controller.js, tagged as the chart's Deployment says (dist/): BASE_IMAGE_TAR or --base
  image: 'cdk8s-operator image --bundle bundle/controller.js --chart dist',
  // out of cluster, as the chart's ServiceAccount (TokenRequest), with the chart's namespace and args
  local: 'cdk8s-operator run --chart dist --bundle bundle/controller.js',
  start: 'node bundle/controller.js',
};

/**
 * The TypeScript and @types/node the scaffold is tested with (this package's own, from its package-lock.json;
 * a test keeps them equal): a scaffolded project pins them exactly.
 */
export const TESTED_TOOLCHAIN: Readonly<Record<'typescript' | '@types/node', string>> = {
  typescript: '5.9.3',
  '@types/node': '20.19.43',
};

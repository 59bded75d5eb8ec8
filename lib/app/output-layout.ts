import * as fs from 'fs';
import * as path from 'path';
import { Chart, Yaml } from 'cdk8s';
import { knownKind, parseApiVersion } from '../apimachinery/kinds';
import { objectKey } from '../synth-metadata/served-apis-check';

/** How `OperatorApp` writes its manifests. */
export enum OutputLayout {
  /** One `<chart>.k8s.yaml` per chart (cdk8s' default). */
  PER_CHART = 'per-chart',
  /**
   * Numbered files in apply order (namespaces, CRDs, cluster objects, namespaced objects,
   * custom resources) plus an `APPLY.md` with the exact commands for a fresh cluster.
   */
  APPLY_ORDER = 'apply-order',
  /**
   * A Helm chart: CRDs in `crds/` (Helm installs them first), everything else in `templates/`, `Chart.yaml`,
   * and the operator's image, replicas, watch namespaces and resources as values (`values.yaml`, checked at
   * synth against `values.schema.json`). One operator per app. See `OperatorAppProps.helm`.
   */
  HELM = 'helm',
}

/** One apply stage: its file and what goes in it. @internal */
export interface ApplyStage {
  readonly file: string;
  readonly description: string;
  /** A stage applied only where the cluster serves these APIs (`apiVersion`, `kind`): Kubernetes `version` and newer. */
  readonly requires?: {
    readonly version: string;
    readonly apis: ReadonlyArray<{ readonly apiVersion: string; readonly kind: string }>;
  };
}

/** The stages, in apply order. @internal */
export const APPLY_STAGES = {
  namespaces: { file: '0-namespaces.yaml', description: 'Namespaces (first: everything namespaced goes into them)' },
  crds: {
    file: '1-crds.yaml',
    description: 'CustomResourceDefinitions (must be Established before any custom resource)',
  },
  cluster: {
    file: '2-cluster-resources.yaml',
    description: 'other cluster-scoped objects (ClusterRoles, ClusterRoleBindings, …)',
  },
  namespaced: {
    file: '3-namespaced-resources.yaml',
    description: 'namespaced built-in objects (ServiceAccount, Roles, Deployment, Service, …)',
  },
  customResources: { file: '4-custom-resources.yaml', description: 'custom resources of the CRDs in 1-crds.yaml' },
  external: {
    file: '5-external-custom-resources.yaml',
    description:
      "custom resources of CRDs installed by others (e.g. prometheus-operator's ServiceMonitor); apply once those CRDs exist",
  },
} as const;

/** One file of the apply-order layout. @internal */
export interface LayoutFile {
  readonly stage: ApplyStage;
  readonly objects: readonly any[];
}

/**
 * Splits manifests into apply stages, keeping their order within a stage (deterministic);
 * empty stages are left out. `conditional`: objects (by `objectKey`) that go to a file of their own per Kubernetes
 * version they need (`6-requires-1.30.yaml`, after every other stage), applied only where the cluster serves them.
 *
 * @internal
 */
export function layoutForApply(
  manifests: readonly any[],
  conditional: ReadonlyMap<string, string> = new Map(),
): LayoutFile[] {
  const crdKinds = new Set(
    manifests
      .filter((m) => m?.kind === 'CustomResourceDefinition')
      .map((m) => `${m.spec?.group}/${m.spec?.names?.kind}`),
  );
  const order = Object.values(APPLY_STAGES) as ApplyStage[];
  const buckets = new Map<ApplyStage, any[]>(order.map((s) => [s, []]));
  const byVersion = new Map<string, any[]>();
  for (const m of manifests) {
    const needs = conditional.get(objectKey(m));
    if (needs) byVersion.set(needs, [...(byVersion.get(needs) ?? []), m]);
    else buckets.get(stageOf(m, crdKinds))!.push(m);
  }
  const versions = [...byVersion.keys()].sort((a, b) => Number(a.split('.')[1]) - Number(b.split('.')[1]));
  const conditionalFiles = versions.map((version, i): LayoutFile => {
    const objects = byVersion.get(version)!;
    const apis = [
      ...new Map(
        objects.map((o) => [`${o.apiVersion}/${o.kind}`, { apiVersion: String(o.apiVersion), kind: String(o.kind) }]),
      ).values(),
    ];
    return {
      stage: {
        file: `${order.length + i}-requires-${version}.yaml`,
        description: `objects Kubernetes ${version} and newer serve (${apis.map((a) => `${a.apiVersion} ${a.kind}`).join(', ')}): applied only where the cluster serves them`,
        requires: { version, apis },
      },
      objects,
    };
  });
  return [
    ...order.filter((s) => buckets.get(s)!.length > 0).map((stage) => ({ stage, objects: buckets.get(stage)! })),
    ...conditionalFiles,
  ];
}

/** The stage of one manifest, given the `group/Kind` of every CRD in the output. @internal */
export function stageOf(m: any, crdKinds: ReadonlySet<string>): ApplyStage {
  if (m.kind === 'Namespace' && m.apiVersion === 'v1') return APPLY_STAGES.namespaces;
  if (m.kind === 'CustomResourceDefinition') return APPLY_STAGES.crds;
  const { group } = parseApiVersion(String(m.apiVersion));
  if (crdKinds.has(`${group}/${m.kind}`)) return APPLY_STAGES.customResources;
  const builtIn = knownKind(group, m.kind);
  // Built-in groups have no dot or end in .k8s.io; anything else is someone's CRD.
  if (!builtIn && group.includes('.') && !group.endsWith('.k8s.io')) return APPLY_STAGES.external;
  const namespaced = builtIn ? builtIn.namespaced : m.metadata?.namespace !== undefined;
  return namespaced ? APPLY_STAGES.namespaced : APPLY_STAGES.cluster;
}

/** The commands that apply a layout to a fresh cluster, one per line, paths relative to `dir`. @internal */
export function applyCommands(files: readonly LayoutFile[], dir = 'dist'): string[] {
  const has = (s: ApplyStage) => files.some((f) => f.stage === s);
  const p = (s: ApplyStage) => `${dir}/${s.file}`;
  const cmds: string[] = [];
  if (has(APPLY_STAGES.namespaces)) cmds.push(`kubectl apply -f ${p(APPLY_STAGES.namespaces)}`);
  if (has(APPLY_STAGES.crds)) {
    cmds.push(`kubectl apply --server-side -f ${p(APPLY_STAGES.crds)}`);
    cmds.push(`kubectl wait --for condition=established --timeout=60s -f ${p(APPLY_STAGES.crds)}`);
  }
  const servers = webhookServers(files);
  if (servers.length > 0 && has(APPLY_STAGES.customResources)) {
    // Admission webhooks intercept the custom resources: their server must be Ready first (its readiness
    // includes a serving certificate whose CA is injected), or a failurePolicy Fail webhook refuses them.
    const before = [APPLY_STAGES.cluster, APPLY_STAGES.namespaced].filter(has);
    if (before.length > 0) cmds.push(`kubectl apply ${before.map((s) => `-f ${p(s)}`).join(' ')}`);
    for (const d of servers) cmds.push(`kubectl rollout status --timeout=300s -n ${d.namespace} deployment/${d.name}`);
    cmds.push(`kubectl apply -f ${p(APPLY_STAGES.customResources)}`);
    return [...cmds, ...conditionalCommands(files, dir)];
  }
  const rest = [APPLY_STAGES.cluster, APPLY_STAGES.namespaced, APPLY_STAGES.customResources].filter(has);
  if (rest.length > 0) cmds.push(`kubectl apply ${rest.map((s) => `-f ${p(s)}`).join(' ')}`);
  return [...cmds, ...conditionalCommands(files, dir)];
}

/**
 * One line per conditional file: applied only when the cluster's discovery lists every API it needs (an older
 * cluster skips it, and says nothing). A shell `if`, so that the block stays one list of commands to run in order.
 */
function conditionalCommands(files: readonly LayoutFile[], dir: string): string[] {
  return files
    .filter((f) => f.stage.requires)
    .map((f) => {
      const served = f.stage.requires!.apis.map(
        (a) =>
          `kubectl get --raw /${a.apiVersion.includes('/') ? 'apis' : 'api'}/${a.apiVersion} | grep '"kind":"${a.kind}"' >/dev/null`,
      );
      return `if ${served.join(' && ')}; then kubectl apply -f ${dir}/${f.stage.file}; fi`;
    });
}

/** Deployments serving admission webhooks (a container port named `webhook`), when the output has webhook configurations. */
function webhookServers(files: readonly LayoutFile[]): { namespace: string; name: string }[] {
  const objects = files.flatMap((f) => f.objects);
  if (!objects.some((o) => /^(Validating|Mutating)WebhookConfiguration$/.test(o?.kind))) return [];
  return objects
    .filter(
      (o) =>
        o?.kind === 'Deployment' &&
        (o.spec?.template?.spec?.containers ?? []).some((c: any) =>
          (c.ports ?? []).some((port: any) => port.name === 'webhook'),
        ),
    )
    .map((o) => ({ namespace: o.metadata?.namespace ?? 'default', name: o.metadata?.name }));
}

/** `APPLY.md`: what each file holds and the commands to run, in order. @internal */
export function renderApplyGuide(files: readonly LayoutFile[], dir = 'dist'): string {
  const lines = [
    '# Applying these manifests',
    '',
    'Files are numbered in apply order. Run, from the folder that holds `' + dir + '/`:',
    '',
    '```sh',
    ...applyCommands(files, dir),
    '```',
    '',
    'Why in steps: a custom resource can only be applied once its CRD is Established and kubectl has',
    'rediscovered the API ("no matches for kind" or NotFound otherwise), and namespaced objects need their Namespace.',
    'CRDs use server-side apply, which has no 262144-byte `last-applied-configuration` annotation limit.',
    ...(webhookServers(files).length > 0
      ? [
          'Operators that serve admission webhooks must be Ready (`kubectl rollout status`) before the custom resources their',
          "webhooks intercept are applied; they fill their webhook certificate Secret and the configurations' caBundle themselves.",
        ]
      : []),
    'Re-running the same commands is safe (apply is idempotent).',
    '',
    '| file | objects | holds |',
    '|---|---|---|',
    ...files.map((f) => `| ${f.stage.file} | ${f.objects.length} | ${f.stage.description} |`),
    '',
  ];
  for (const f of files.filter((x) => x.stage.requires)) {
    lines.push(
      `\`${f.stage.file}\` needs Kubernetes ${f.stage.requires!.version} or newer (${f.stage.requires!.apis.map((a) => `${a.apiVersion} ${a.kind}`).join(', ')}): ` +
        `apply it on ${f.stage.requires!.version} and newer; its line above applies it only where the cluster serves these APIs, and on an older cluster ` +
        'the rest works without it.',
      '',
    );
  }
  if (files.some((f) => f.stage === APPLY_STAGES.external)) {
    lines.push(
      `\`${APPLY_STAGES.external.file}\` needs CRDs this output does not install; once they exist:`,
      '',
      '```sh',
      `kubectl apply -f ${dir}/${APPLY_STAGES.external.file}`,
      '```',
      '',
    );
  }
  return lines.join('\n');
}

/** Writes the apply-order layout of `charts` (in order) and `APPLY.md` into `outdir`. @internal */
export function writeApplyOrderLayout(
  outdir: string,
  charts: readonly Chart[],
  guideDir = 'dist',
  conditional: ReadonlyMap<string, string> = new Map(),
): LayoutFile[] {
  const manifests = charts.flatMap((c) => Object.values(c.toJson()));
  const files = layoutForApply(manifests, conditional);
  for (const f of files) Yaml.save(path.join(outdir, f.stage.file), [...f.objects]);
  fs.writeFileSync(path.join(outdir, 'APPLY.md'), renderApplyGuide(files, guideDir));
  return files;
}

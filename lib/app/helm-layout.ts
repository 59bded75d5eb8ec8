/**
 * The Helm chart layout of `OperatorApp` (`OutputLayout.HELM`): the app's output as a chart Helm installs as is.
 *
 * - `crds/<name>.yaml`: every CustomResourceDefinition, one per file. Helm installs `crds/` before anything else
 *   and waits until they are established, so custom resources in `templates/` find their kinds; `templates/` holds
 *   no CRD (cdk8s' own `synth --format helm` puts them there, and a chart with a CRD and its custom resources in
 *   `templates/` fails to install).
 * - `templates/`: everything else, in the files of the apply-order layout (`0-namespaces.yaml`, …,
 *   `4-custom-resources.yaml`); Helm sorts by kind on install (Namespaces first, unknown kinds, i.e. custom
 *   resources, last).
 * - `Chart.yaml` (`apiVersion: v2`, `version`, `appVersion`), `values.yaml` and `values.schema.json`: the operator's
 *   image, replicas, watch namespaces and resources are values, wired into the templates (the Deployment's image,
 *   replicas, `WATCH_NAMESPACE` and resources; one Role and RoleBinding per watched namespace). Helm validates values
 *   against the schema on install and upgrade; synth validates the default values against it (ajv), so a chart never
 *   ships defaults its own schema refuses.
 *
 * - The operator's namespace is the release's (`{{ .Release.Namespace }}`: `helm install -n <ns> --create-namespace`),
 *   in every template: the objects in it, RoleBinding subjects, Service DNS names. The chart does not create it.
 * - Example custom resources are behind `examples.enabled` (default false): `helm install` does not create a real
 *   custom resource unless asked.
 * - `templates/NOTES.txt`: what was installed and how to check it, printed by `helm install`.
 * - The operator's NetworkPolicy follows the values too: its egress to the `connectsTo` pods names the
 *   `watchNamespaces` value's namespaces, and `networkPolicy.extraEgress` adds egress rules (an object store for
 *   backups, a proxy).
 *
 * Caveats: one operator per Helm chart. A cluster-wide operator (no watch namespaces) has a ClusterRole: it has no
 * `watchNamespaces` value (the schema refuses one, as it refuses every value the contract cannot apply). CRDs in
 * `crds/` are not templated by Helm: a conversion webhook's Service namespace stays the synthesized one.
 *
 * @see https://helm.sh/docs/chart_best_practices/custom_resource_definitions/
 * @see https://helm.sh/docs/topics/charts/#schema-files
 */
import * as fs from 'fs';
import * as path from 'path';
import Ajv from 'ajv';
import { Yaml } from 'cdk8s';
import { layoutForApply } from './output-layout';

/** Chart metadata of the Helm layout. */
export interface HelmChartOptions {
  /** Chart name. @default - the operator's name */
  readonly name?: string;
  /** Chart version (SemVer 2). @default '0.1.0' */
  readonly version?: string;
  /** Version of the operator the chart deploys. @default - the tag of the operator's image */
  readonly appVersion?: string;
  /** @default - the operator's name and what it manages */
  readonly description?: string;
}

/** The values a Helm chart of an operator takes. @internal */
export interface HelmValues {
  image: { repository: string; tag: string };
  replicas: number;
  /** Only for an operator that watches given namespaces. */
  watchNamespaces?: string[];
  resources: Record<string, unknown>;
  /** Only when the app has example custom resources. */
  examples?: { enabled: boolean };
  /** Only when the operator has its NetworkPolicy. */
  networkPolicy?: { extraEgress: unknown[] };
}

const PLACEHOLDER = {
  image: '__HELM_VALUES_IMAGE__',
  replicas: 987654321,
  watchNamespace: '__HELM_VALUES_WATCH_NAMESPACE__',
  resources: '__HELM_VALUES_RESOURCES__',
  namespace: '__HELM_RANGE_NAMESPACE__',
  releaseNamespace: '__HELM_RELEASE_NAMESPACE__',
  extraEgress: '__HELM_VALUES_EXTRA_EGRESS__',
  /** `to:` of an egress rule whose peers are the watched namespaces' pods; followed by the rule's index. */
  watchedPeers: '__HELM_WATCHED_PEERS_',
} as const;

/** Writes the Helm chart of `manifests` into `outdir`; throws with every problem found. @internal */
export function writeHelmLayout(outdir: string, manifests: readonly any[], options: HelmChartOptions = {}): HelmValues {
  const problems: string[] = [];
  const operators = manifests.filter(
    (m) =>
      m?.kind === 'Deployment' && (m.spec?.template?.spec?.containers ?? []).some((c: any) => c.name === 'manager'),
  );
  if (operators.length !== 1) {
    throw new Error(
      `helm layout: a Helm chart holds one operator (a Deployment with a 'manager' container), found ${operators.length}${operators.length ? `: ${operators.map((o) => o.metadata.name).join(', ')}` : ''}`,
    );
  }
  const deployment = structuredClone(operators[0]);
  const name: string = deployment.metadata.name;
  const container = deployment.spec.template.spec.containers.find((c: any) => c.name === 'manager');
  const image: string = container.image;
  const at = image.lastIndexOf(':');
  const slash = image.lastIndexOf('/');
  const [repository, tag] = image.includes('@') || at < slash ? [image, ''] : [image.slice(0, at), image.slice(at + 1)];
  const watchEnv = (container.env ?? []).find((e: any) => e.name === 'WATCH_NAMESPACE');
  const watchNamespaces: string[] = String(watchEnv?.value ?? '')
    .split(',')
    .filter(Boolean);
  const leaderElection = (container.args ?? []).includes('--leader-elect');
  const operatorNamespace: string = deployment.metadata.namespace;
  const crdKinds = new Set(
    manifests.filter((m) => m?.kind === 'CustomResourceDefinition').map((m) => `${m.spec.group}/${m.spec.names.kind}`),
  );
  const isExample = (m: any) => crdKinds.has(`${String(m?.apiVersion ?? '').split('/')[0]}/${m?.kind}`);
  const values: HelmValues = {
    image: { repository, tag },
    replicas: deployment.spec.replicas ?? 1,
    ...(watchNamespaces.length ? { watchNamespaces } : {}),
    resources: container.resources ?? {},
    ...(manifests.some(isExample) ? { examples: { enabled: false } } : {}),
  };

  // the Deployment reads its settings from the values
  container.image = PLACEHOLDER.image;
  deployment.spec.replicas = PLACEHOLDER.replicas;
  if (watchEnv && watchNamespaces.length) watchEnv.value = PLACEHOLDER.watchNamespace;
  container.resources = PLACEHOLDER.resources;

  // one Role and RoleBinding (and Namespace, when the chart creates them) per watched namespace, from the values
  const perNamespace = (m: any) =>
    watchNamespaces.length > 0 &&
    (((m.kind === 'Role' || m.kind === 'RoleBinding') &&
      m.metadata?.name === `${name}-manager` &&
      watchNamespaces.includes(m.metadata.namespace)) ||
      (m.kind === 'Namespace' && watchNamespaces.includes(m.metadata?.name)));
  const ranged = new Map<string, any>();
  for (const m of manifests.filter(perNamespace)) {
    const copy = inReleaseNamespace(m, operatorNamespace);
    if (copy.kind === 'Namespace') copy.metadata.name = PLACEHOLDER.namespace;
    else copy.metadata.namespace = PLACEHOLDER.namespace;
    const key = JSON.stringify(copy);
    if (!ranged.has(key)) ranged.set(key, copy);
  }
  const rangedKinds = new Set([...ranged.values()].map((r) => r.kind));
  for (const kind of ['Role', 'RoleBinding']) {
    const count = [...ranged.values()].filter((r) => r.kind === kind).length;
    if (watchNamespaces.length && count !== 1) {
      problems.push(
        `the ${kind}s '${name}-manager' differ between the watched namespaces; they cannot come from one template`,
      );
    }
  }

  // the operator's NetworkPolicy: egress to the watched namespaces' pods follows the values, and extraEgress is added
  const policyOf = (m: any) =>
    m?.kind === 'NetworkPolicy' && m.metadata?.name === name && m.metadata?.namespace === deployment.metadata.namespace;
  const policy = structuredClone(manifests.find(policyOf));
  const peersByRule = new Map<string, unknown>();
  if (policy) {
    values.networkPolicy = { extraEgress: [] };
    (policy.spec.egress ?? []).forEach((rule: any, i: number) => {
      const peer = watchedNamespacesPeer(rule.to ?? [], watchNamespaces);
      if (peer === undefined) return;
      rule.to = `${PLACEHOLDER.watchedPeers}${i}`;
      peersByRule.set(rule.to, peer);
    });
    policy.spec.egress = [...(policy.spec.egress ?? []), PLACEHOLDER.extraEgress];
  }

  // the release's namespace is the operator's: Helm (--create-namespace) makes it, the chart does not
  const ownNamespace = (m: any) => m?.kind === 'Namespace' && m.metadata?.name === operatorNamespace;
  const rest = manifests
    .filter((m) => m !== operators[0] && !perNamespace(m) && !policyOf(m) && !ownNamespace(m))
    .concat(policy ? [deployment, policy] : [deployment]);
  const crds = rest.filter((m) => m?.kind === 'CustomResourceDefinition');
  const templates = rest
    .filter((m) => m?.kind !== 'CustomResourceDefinition')
    .map((m) => inReleaseNamespace(m, operatorNamespace));
  const schema = valuesSchema(values, {
    clusterWide: watchNamespaces.length === 0,
    leaderElection,
    networkPolicy: policy !== undefined,
    examples: values.examples !== undefined,
  });
  const ajv = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true });
  const validate = ajv.compile(schema);
  if (!validate(values)) {
    for (const e of validate.errors ?? []) {
      problems.push(
        `values.yaml${e.instancePath.replace(/\//g, '.')}: ${e.message} (got ${JSON.stringify(valueAt(values, e.instancePath))})`,
      );
    }
  }
  if (watchNamespaces.length && rangedKinds.size === 0) problems.push('no Role per watched namespace found');
  if (problems.length) throw new Error(`helm layout:\n${problems.map((p) => `  - ${p}`).join('\n')}`);

  fs.mkdirSync(path.join(outdir, 'crds'), { recursive: true });
  fs.mkdirSync(path.join(outdir, 'templates'), { recursive: true });
  for (const crd of crds) fs.writeFileSync(path.join(outdir, 'crds', `${crd.metadata.name}.yaml`), Yaml.stringify(crd));
  // the stages of the apply-order layout, without 1-crds.yaml: CRDs only tell custom resources from the rest
  const texts = new Map<string, string>();
  for (const file of layoutForApply([...crds, ...templates])) {
    if (file.stage.file === '1-crds.yaml') continue;
    const text = templateText(Yaml.stringify(...file.objects), peersByRule);
    // examples (custom resources of the chart's own CRDs) only when asked for
    const examples = file.objects.every(isExample);
    texts.set(file.stage.file, examples ? `{{- if .Values.examples.enabled }}\n${text}{{- end }}\n` : text);
  }
  if (
    templates.some(isExample) &&
    !templates.filter(isExample).every((e) => layoutForApply([e])[0].stage.file === '4-custom-resources.yaml')
  ) {
    problems.push(
      'an example custom resource is outside 4-custom-resources.yaml; it cannot be put behind examples.enabled',
    );
  }
  for (const r of ranged.values()) {
    const file = r.kind === 'Namespace' ? '0-namespaces.yaml' : '3-namespaced-resources.yaml';
    texts.set(
      file,
      `${texts.get(file) ?? ''}{{- range $ns := .Values.watchNamespaces }}\n---\n${templateText(Yaml.stringify(r), peersByRule)}{{- end }}\n`,
    );
  }
  for (const [file, text] of [...texts].sort()) fs.writeFileSync(path.join(outdir, 'templates', file), text);
  fs.writeFileSync(path.join(outdir, 'templates', 'NOTES.txt'), notes(name, crds, values));

  const chart = {
    apiVersion: 'v2',
    name: options.name ?? name,
    description:
      options.description ?? `${name}: its CustomResourceDefinitions (crds/) and the operator that manages them`,
    type: 'application',
    version: options.version ?? '0.1.0',
    appVersion: options.appVersion ?? (tag || '0.1.0'),
  };
  fs.writeFileSync(path.join(outdir, 'Chart.yaml'), Yaml.stringify(chart));
  fs.writeFileSync(path.join(outdir, 'values.yaml'), Yaml.stringify(values));
  fs.writeFileSync(path.join(outdir, 'values.schema.json'), JSON.stringify(schema, null, 2) + '\n');
  return values;
}

/**
 * The one peer that `to` repeats per watched namespace (same pod selector, namespaces selected by name, exactly the
 * watched ones), as a template of it, or undefined when `to` is anything else.
 */
function watchedNamespacesPeer(to: readonly any[], watchNamespaces: readonly string[]): unknown {
  if (watchNamespaces.length === 0 || to.length !== watchNamespaces.length) return undefined;
  const NAME = 'kubernetes.io/metadata.name';
  const named = to.map((p) =>
    Object.keys(p).sort().join() === 'namespaceSelector,podSelector' &&
    Object.keys(p.namespaceSelector).join() === 'matchLabels' &&
    Object.keys(p.namespaceSelector.matchLabels).join() === NAME
      ? p.namespaceSelector.matchLabels[NAME]
      : undefined,
  );
  if ([...named].sort().join() !== [...watchNamespaces].sort().join()) return undefined;
  if (new Set(to.map((p) => JSON.stringify(p.podSelector))).size !== 1) return undefined;
  return { namespaceSelector: { matchLabels: { [NAME]: PLACEHOLDER.namespace } }, podSelector: to[0].podSelector };
}

/** The manifest YAML with the placeholders turned into Helm template expressions. */
function templateText(yaml: string, peersByRule: ReadonlyMap<string, unknown> = new Map()): string {
  const indented = (text: string, indent: string) =>
    text
      .trimEnd()
      .split('\n')
      .map((l) => indent + l)
      .join('\n');
  return (
    yaml
      // one peer per watched namespace, from the values
      .replace(
        new RegExp(`^(\\s*)(- )?to: (${PLACEHOLDER.watchedPeers}\\d+)$`, 'gm'),
        (_m, indent: string, dash: string | undefined, key: string) =>
          `${indent}${dash ?? ''}to:\n{{- range $ns := .Values.watchNamespaces }}\n${indented(Yaml.stringify([peersByRule.get(key)]), `${indent}${dash ? '    ' : '  '}`)}\n{{- end }}`,
      )
      .replace(
        new RegExp(`^(\\s*)- ${PLACEHOLDER.extraEgress}$`, 'gm'),
        (_m, indent: string) =>
          `{{- range $rule := .Values.networkPolicy.extraEgress }}\n${indent}- {{- toYaml $rule | nindent ${indent.length + 2} }}\n{{- end }}`,
      )
      .replace(
        new RegExp(PLACEHOLDER.image, 'g'),
        '{{ printf "%s:%s" .Values.image.repository .Values.image.tag | quote }}',
      )
      .replace(new RegExp(`^(\\s*)replicas: ${PLACEHOLDER.replicas}$`, 'gm'), '$1replicas: {{ .Values.replicas }}')
      .replace(new RegExp(PLACEHOLDER.watchNamespace, 'g'), '{{ join "," .Values.watchNamespaces | quote }}')
      .replace(
        new RegExp(`^(\\s*)resources: ${PLACEHOLDER.resources}$`, 'gm'),
        (_m, indent: string) => `${indent}resources: {{- toYaml .Values.resources | nindent ${indent.length + 2} }}`,
      )
      .replace(new RegExp(PLACEHOLDER.namespace, 'g'), '{{ $ns }}')
      .replace(new RegExp(PLACEHOLDER.releaseNamespace, 'g'), '{{ .Release.Namespace }}')
  );
}

/**
 * A copy of `m` with the operator's namespace as the release's: every string equal to it (metadata.namespace,
 * subjects, a Service reference) and every DNS name under it (`<service>.<namespace>.svc`).
 */
function inReleaseNamespace(m: unknown, namespace: string): any {
  const within = new RegExp(`\\.${namespace.replace(/[.-]/g, '\\$&')}(?=\\.svc\\b)`, 'g');
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') {
      return v === namespace ? PLACEHOLDER.releaseNamespace : v.replace(within, `.${PLACEHOLDER.releaseNamespace}`);
    }
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  return walk(m);
}

/** templates/NOTES.txt: printed by `helm install`/`upgrade` (rendered, in the subset cli/helm/render-template.ts covers). */
function notes(name: string, crds: readonly any[], values: HelmValues): string {
  const kinds = crds.map((c) =>
    `  kubectl get ${c.spec.names.plural}.${c.spec.group} ${c.spec.scope === 'Cluster' ? '' : '-A'}`.trimEnd(),
  );
  return [
    `{{ .Chart.Name }} is installed in {{ .Release.Namespace }} (release {{ .Release.Name }}).`,
    '',
    `The operator: kubectl -n {{ .Release.Namespace }} rollout status deployment/${name}`,
    `Its logs:     kubectl -n {{ .Release.Namespace }} logs deployment/${name}`,
    '',
    values.watchNamespaces
      ? 'It watches the namespaces {{ join ", " .Values.watchNamespaces }} (a Role in each).'
      : 'It watches every namespace (a ClusterRole).',
    '',
    'Its custom resources:',
    ...kinds,
    ...(values.examples
      ? [
          '{{- if .Values.examples.enabled }}',
          'The example custom resources were created (examples.enabled).',
          '{{- end }}',
          'Example custom resources are not installed unless --set examples.enabled=true.',
        ]
      : []),
    '',
  ].join('\n');
}

/** values.schema.json (JSON Schema draft 7, as Helm reads it). */
function valuesSchema(
  values: HelmValues,
  scope: { clusterWide: boolean; leaderElection: boolean; networkPolicy: boolean; examples: boolean },
): object {
  const quantity = { type: ['string', 'number'], pattern: '^[0-9.]+([eE][-+]?[0-9]+|[mkMGTPE]i?|[KMGTPE]i)?$' };
  const resourceList = {
    type: 'object',
    additionalProperties: false,
    properties: { cpu: quantity, memory: quantity, 'ephemeral-storage': quantity },
  };
  const labelSelector = {
    type: 'object',
    additionalProperties: false,
    properties: {
      matchLabels: { type: 'object', additionalProperties: { type: 'string' } },
      matchExpressions: {
        type: 'array',
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['key', 'operator'],
          properties: {
            key: { type: 'string' },
            operator: { enum: ['In', 'NotIn', 'Exists', 'DoesNotExist'] },
            values: { type: 'array', items: { type: 'string' } },
          },
        },
      },
    },
  };
  const networkPolicyPeer = {
    type: 'object',
    additionalProperties: false,
    minProperties: 1,
    properties: {
      ipBlock: {
        type: 'object',
        additionalProperties: false,
        required: ['cidr'],
        properties: { cidr: { type: 'string', minLength: 1 }, except: { type: 'array', items: { type: 'string' } } },
      },
      namespaceSelector: labelSelector,
      podSelector: labelSelector,
    },
  };
  const networkPolicyPort = {
    type: 'object',
    additionalProperties: false,
    properties: {
      protocol: { enum: ['TCP', 'UDP', 'SCTP'] },
      port: { type: ['integer', 'string'], minimum: 1, maximum: 65535, minLength: 1 },
      endPort: { type: 'integer', minimum: 1, maximum: 65535 },
    },
  };
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    title: 'Values of the operator chart',
    type: 'object',
    additionalProperties: false,
    required: ['image', 'replicas', 'resources', ...(scope.clusterWide ? [] : ['watchNamespaces'])],
    properties: {
      image: {
        description: 'The controller image (built with `npx cdk8s-operator image`).',
        type: 'object',
        additionalProperties: false,
        required: ['repository', 'tag'],
        properties: {
          repository: { type: 'string', minLength: 1 },
          tag: {
            description: 'Pinned: not `latest`.',
            type: 'string',
            pattern: '^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$',
            not: { const: 'latest' },
          },
        },
      },
      replicas: {
        description: scope.leaderElection
          ? 'Controller replicas; one leads (leader election).'
          : 'Without leader election only one replica may run.',
        type: 'integer',
        minimum: 1,
        ...(scope.leaderElection ? {} : { maximum: 1 }),
      },
      // a cluster-wide operator (a ClusterRole) offers no watchNamespaces: additionalProperties refuses one
      ...(scope.clusterWide
        ? {}
        : {
            watchNamespaces: {
              description: 'Namespaces the operator watches: a Role and RoleBinding in each, and WATCH_NAMESPACE.',
              type: 'array',
              minItems: 1,
              uniqueItems: true,
              items: { type: 'string', pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$', maxLength: 63 },
            },
          }),
      ...(scope.examples
        ? {
            examples: {
              description:
                "The app's example custom resources: created only when enabled (a real custom resource is reconciled).",
              type: 'object',
              additionalProperties: false,
              required: ['enabled'],
              properties: { enabled: { type: 'boolean' } },
            },
          }
        : {}),
      resources: {
        description: "The controller container's resources.",
        type: 'object',
        additionalProperties: false,
        properties: { requests: resourceList, limits: resourceList },
      },
      ...(scope.networkPolicy
        ? {
            networkPolicy: {
              description:
                "The operator's NetworkPolicy (default deny; the apiserver, DNS and the pods it manages allowed).",
              type: 'object',
              additionalProperties: false,
              required: ['extraEgress'],
              properties: {
                extraEgress: {
                  description:
                    'More egress rules (NetworkPolicyEgressRule), e.g. an object store for backups or a proxy.',
                  type: 'array',
                  items: {
                    type: 'object',
                    additionalProperties: false,
                    properties: {
                      to: { type: 'array', items: networkPolicyPeer },
                      ports: { type: 'array', items: networkPolicyPort },
                    },
                  },
                },
              },
            },
          }
        : {}),
    },
    // defaults documented where editors show them
    default: values,
  };
}

function valueAt(values: unknown, pointer: string): unknown {
  return pointer
    .split('/')
    .filter(Boolean)
    .reduce((v: any, k) => v?.[k], values);
}

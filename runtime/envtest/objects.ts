/**
 * Applies a chart's objects (cdk8s `Testing.synth`, or the YAML of `dist/`) to a control plane in the order a
 * fresh cluster needs, the order of `dist/APPLY.md` (and of Helm: CRDs before everything else): Namespaces,
 * CRDs (waited for until Established), other cluster-scoped objects, namespaced objects, then custom
 * resources. Each object is server-side applied (fieldManager `envtest`), so applying twice is a no-op.
 * Then a test runs its controller as the chart's own ServiceAccount (`ControlPlane.operatorIdentity`),
 * under exactly the RBAC the chart grants, instead of as an admin who is never denied anything.
 */
import { builtinKindInfo, parseApiVersion } from '../resource';
import { installCrds } from './crds';
import { HttpTarget, request } from './http';
import { Manifest } from './manifest-files';

interface Placed {
  readonly object: Manifest;
  readonly stage: number;
  readonly path: string;
}

/** Plural and scope of a kind the apiserver serves, from its discovery (one request per group version). */
async function discoverKinds(
  target: HttpTarget,
  apiVersions: readonly string[],
): Promise<Map<string, { plural: string; namespaced: boolean }>> {
  const found = new Map<string, { plural: string; namespaced: boolean }>();
  for (const apiVersion of new Set(apiVersions)) {
    const r = await request(target, 'GET', apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`);
    if (r.code !== 200) continue;
    for (const res of r.body.resources as Array<{ name: string; kind: string; namespaced: boolean }>) {
      if (!res.name.includes('/')) {
        found.set(`${apiVersion}/${res.kind}`, { plural: res.name, namespaced: res.namespaced });
      }
    }
  }
  return found;
}

/**
 * See module docs. Every object that cannot be placed (a kind neither built in, nor a CRD among the objects, nor
 * served by the apiserver) is reported at once, before any write. `afterCrds` runs once the objects' CRDs are
 * Established, before their custom resources are applied.
 */
export async function applyObjects(
  target: HttpTarget,
  objects: readonly Manifest[],
  timeoutMs = 30_000,
  afterCrds?: (crds: readonly object[]) => Promise<void>,
): Promise<void> {
  const crds = objects.filter((o) => o.kind === 'CustomResourceDefinition') as Array<
    Manifest & { spec: { group: string; names: { kind: string; plural: string }; scope: string } }
  >;
  const custom = new Map(
    crds.map((c) => [
      `${c.spec.group}/${c.spec.names.kind}`,
      { plural: c.spec.names.plural, namespaced: c.spec.scope === 'Namespaced' },
    ]),
  );
  const problems: string[] = [];
  const placed: Placed[] = [];
  const unlisted = objects.filter(
    (o) =>
      o.kind !== 'CustomResourceDefinition' &&
      !custom.has(`${parseApiVersion(o.apiVersion).group}/${o.kind}`) &&
      !builtinKindInfo(o.apiVersion, o.kind),
  );
  const served = unlisted.length
    ? await discoverKinds(
        target,
        unlisted.map((o) => o.apiVersion),
      )
    : new Map();
  for (const object of objects) {
    if (object.kind === 'CustomResourceDefinition') continue;
    const { group, version } = parseApiVersion(object.apiVersion);
    const cr = custom.get(`${group}/${object.kind}`);
    const info =
      cr ?? builtinKindInfo(object.apiVersion, object.kind) ?? served.get(`${object.apiVersion}/${object.kind}`);
    if (!info) {
      problems.push(
        `${object.apiVersion} ${object.kind} ${object.metadata?.name}: unknown kind (neither built in, nor a CRD among the objects, nor served by the apiserver)`,
      );
      continue;
    }
    const prefix = group ? `/apis/${group}/${version}` : `/api/${version}`;
    const ns = info.namespaced ? `/namespaces/${object.metadata.namespace ?? 'default'}` : '';
    const stage = object.kind === 'Namespace' && !group ? 0 : cr ? 4 : info.namespaced ? 3 : 2;
    placed.push({ object, stage, path: `${prefix}${ns}/${info.plural}/${object.metadata.name}` });
  }
  if (problems.length) throw new Error(`envtest: cannot apply:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  const applyStage = async (stage: number) => {
    for (const p of placed.filter((x) => x.stage === stage)) {
      const r = await request(target, 'PATCH', `${p.path}?fieldManager=envtest&force=true`, p.object, {
        contentType: 'application/apply-patch+yaml',
      });
      if (r.code >= 300) {
        throw new Error(
          `envtest: applying ${p.object.kind} ${p.object.metadata.namespace ? `${p.object.metadata.namespace}/` : ''}${p.object.metadata.name} failed (${r.code}): ${r.body?.message ?? JSON.stringify(r.body)}`,
        );
      }
    }
  };
  await applyStage(0);
  if (crds.length) {
    await installCrds(target, crds, timeoutMs);
    await afterCrds?.(crds);
  }
  for (const stage of [2, 3, 4]) await applyStage(stage);
}

/**
 * The ServiceAccount the chart's operator runs as: that of the Deployment whose container is named `manager`
 * (the `Operator` construct's), else of the only Deployment.
 */
export function operatorServiceAccount(objects: readonly Manifest[]): { namespace: string; name: string } {
  const deployments = objects.filter((o) => o.kind === 'Deployment') as any[];
  const operators = deployments.filter((d) =>
    (d.spec?.template?.spec?.containers ?? []).some((c: { name: string }) => c.name === 'manager'),
  );
  const candidates = operators.length ? operators : deployments;
  if (candidates.length !== 1) {
    throw new Error(
      `envtest: expected one operator Deployment (a container named 'manager') among the objects, found ${candidates.length}`,
    );
  }
  const d = candidates[0];
  return { namespace: d.metadata.namespace ?? 'default', name: d.spec.template.spec.serviceAccountName ?? 'default' };
}

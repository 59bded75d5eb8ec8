/**
 * Installs CustomResourceDefinitions and waits until they are Established, like envtest.InstallCRDs: from
 * manifests, or from synth output (`dist/` YAML files or folders; every CRD in them, other kinds ignored).
 */
import { HttpTarget, request } from './http';
import { readManifests } from './manifest-files';

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

/** Every CustomResourceDefinition in manifest files or folders (see {@link readManifests}); other kinds ignored. */
export function readCrds(paths: readonly string[]): object[] {
  return readManifests(paths).filter((o) => o.kind === 'CustomResourceDefinition');
}

/**
 * Creates (or server-side applies over an existing one) each CRD and waits for Established=True.
 * Raw JSON on purpose: client-node's typed serializer drops `x-kubernetes-*` keys of the schema.
 */
export async function installCrds(target: HttpTarget, crds: readonly object[], timeoutMs = 30_000): Promise<void> {
  for (const crd of crds as Array<{ metadata?: { name?: string } }>) {
    const name = crd.metadata?.name;
    const r = await request(target, 'PATCH', `${CRDS}/${name}?fieldManager=envtest&force=true`, crd, {
      contentType: 'application/apply-patch+yaml',
    });
    if (r.code >= 300) {
      throw new Error(
        `envtest: installing CRD ${name} failed (${r.code}): ${r.body?.message ?? JSON.stringify(r.body)}`,
      );
    }
  }
  await waitEstablished(target, crds, timeoutMs);
}

/** Waits until each CRD is Established. */
export async function waitEstablished(target: HttpTarget, crds: readonly object[], timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (const crd of crds as Array<{ metadata: { name: string } }>) {
    for (;;) {
      const got = await request(target, 'GET', `${CRDS}/${crd.metadata.name}`);
      const conditions: Array<{ type: string; status: string }> = got.body?.status?.conditions ?? [];
      if (conditions.some((c) => c.type === 'Established' && c.status === 'True')) break;
      if (Date.now() > deadline) {
        throw new Error(
          `envtest: CRD ${crd.metadata.name} not Established after ${timeoutMs} ms: ${JSON.stringify(conditions)}`,
        );
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

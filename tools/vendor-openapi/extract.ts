/**
 * What the ValidatingAdmissionPolicy type checker needs of a real kube-apiserver's built-in API: the OpenAPI v3
 * component schemas of every served group-version (`/openapi/v3/<api|apis/group>/<version>`) and, from discovery,
 * which kind each resource holds. Descriptions are dropped (types only); everything else is kept as served.
 * Shared by `main.ts` (writes the vendored file) and the test that compares the vendored file with a live server.
 */
export interface VendoredOpenApi {
  /** `gitVersion` of the server the schemas were read from. */
  readonly serverVersion: string;
  /** Resources of each group-version (`apps/v1`, `v1` for the core group): plural → kind and scope. */
  readonly groupVersions: {
    readonly [groupVersion: string]: {
      readonly [resource: string]: { readonly kind: string; readonly namespaced: boolean };
    };
  };
  /** Component schemas by name (`io.k8s.api.apps.v1.Deployment`), merged over every group-version document. */
  readonly schemas: { readonly [name: string]: unknown };
}

/** GET of a JSON document from the apiserver. */
export type GetJson = (path: string) => Promise<any>;

/** {@link GetJson} from a control plane (anything with envtest's `request`): a reply other than 200 throws. */
export function getJsonFrom(plane: {
  request(method: string, path: string): Promise<{ readonly code: number; readonly body: any }>;
}): GetJson {
  return async (path) => {
    const reply = await plane.request('GET', path);
    if (reply.code !== 200) throw new Error(`GET ${path}: HTTP ${reply.code}`);
    return reply.body;
  };
}

export async function extractOpenApi(get: GetJson): Promise<VendoredOpenApi> {
  const version = await get('/version');
  const index = await get('/openapi/v3');
  const docs = Object.keys(index.paths)
    .filter((p) => /^(api\/v1|apis\/[^/]+\/[^/]+)$/.test(p))
    .sort();
  const groupVersions: Record<string, Record<string, { kind: string; namespaced: boolean }>> = {};
  const schemas: Record<string, unknown> = {};
  for (const doc of docs) {
    const groupVersion = doc === 'api/v1' ? 'v1' : doc.slice('apis/'.length);
    const discovery = await get(`/${doc}`);
    const resources: Record<string, { kind: string; namespaced: boolean }> = {};
    for (const r of [...discovery.resources].sort((a: any, b: any) => (a.name < b.name ? -1 : 1))) {
      if (r.name.includes('/')) continue; // subresources are never type-checked
      resources[r.name] = { kind: r.kind, namespaced: r.namespaced };
    }
    groupVersions[groupVersion] = resources;
    const openapi = await get(`/openapi/v3/${doc}`);
    for (const [name, schema] of Object.entries(openapi.components?.schemas ?? {})) {
      const stripped = withoutDescriptions(schema);
      const known = schemas[name];
      if (known !== undefined && JSON.stringify(known) !== JSON.stringify(stripped)) {
        throw new Error(`schema ${name} differs between group-version documents (${doc})`);
      }
      schemas[name] = stripped;
    }
  }
  const sorted: Record<string, unknown> = {};
  for (const name of Object.keys(schemas).sort()) sorted[name] = schemas[name];
  return { serverVersion: version.gitVersion, groupVersions, schemas: sorted };
}

/** A schema without its `description`s (a property named `description` stays). */
export function withoutDescriptions(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withoutDescriptions);
  if (typeof schema !== 'object' || schema === null) return schema;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema)) {
    if (k === 'description' && typeof v === 'string') continue;
    if (k === 'properties' && typeof v === 'object' && v !== null) {
      out[k] = Object.fromEntries(Object.entries(v).map(([p, s]) => [p, withoutDescriptions(s)]));
    } else {
      out[k] = withoutDescriptions(v);
    }
  }
  return out;
}

/** The vendored file's text: one schema per line, so a regeneration diffs readably. */
export function renderVendored(v: VendoredOpenApi): string {
  const lines = [
    '{',
    `"serverVersion": ${JSON.stringify(v.serverVersion)},`,
    `"groupVersions": ${JSON.stringify(v.groupVersions)},`,
    '"schemas": {',
    Object.entries(v.schemas)
      .map(([name, s]) => `${JSON.stringify(name)}: ${JSON.stringify(s)}`)
      .join(',\n'),
    '}',
    '}',
  ];
  return `${lines.join('\n')}\n`;
}

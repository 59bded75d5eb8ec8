/**
 * Minimal OpenAPI v3 documents: enough for kubectl to learn that the server supports the `fieldValidation`
 * query parameter (so it validates server-side instead of downloading full schemas), and CR schemas for explain-like use.
 */
import { createHash } from 'node:crypto';
import { ResourceCatalog, ResourceInfo } from './resources';

function gvPath(group: string, version: string): string {
  return group ? `apis/${group}/${version}` : `api/${version}`;
}

function groupVersions(catalog: ResourceCatalog): Array<{ group: string; version: string }> {
  const seen = new Map<string, { group: string; version: string }>();
  for (const r of catalog.all()) seen.set(gvPath(r.group, r.version), { group: r.group, version: r.version });
  return [...seen.values()];
}

function hashOf(catalog: ResourceCatalog, group: string, version: string): string {
  const rs = catalog.all().filter((r) => r.group === group && r.version === version);
  return createHash('sha512').update(JSON.stringify(rs)).digest('hex').slice(0, 64).toUpperCase();
}

/** GET /openapi/v3 */
export function openApiRoot(catalog: ResourceCatalog): any {
  const paths: Record<string, any> = {};
  for (const { group, version } of groupVersions(catalog)) {
    const p = gvPath(group, version);
    paths[p] = { serverRelativeURL: `/openapi/v3/${p}?hash=${hashOf(catalog, group, version)}` };
  }
  return { paths };
}

const QUERY_PARAMS = ['dryRun', 'fieldManager', 'fieldValidation', 'force', 'pretty'].map((name) => ({
  name, in: 'query', description: name, schema: { type: name === 'force' ? 'boolean' : 'string', uniqueItems: true },
}));

function schemaName(r: ResourceInfo): string {
  const g = r.group ? r.group.split('.').reverse().join('.') : 'io.k8s.api.core';
  return `${g}.${r.version}.${r.kind}`;
}

/** GET /openapi/v3/apis/<group>/<version> (or api/v1) */
export function openApiGroupVersion(catalog: ResourceCatalog, p: string): any | undefined {
  const gv = groupVersions(catalog).find((x) => gvPath(x.group, x.version) === p);
  if (!gv) return undefined;
  const paths: Record<string, any> = {};
  const schemas: Record<string, any> = {};
  for (const r of catalog.all().filter((x) => x.group === gv.group && x.version === gv.version)) {
    const gvk = { group: r.group, version: r.version, kind: r.kind };
    const base = `/${gvPath(r.group, r.version)}${r.namespaced ? '/namespaces/{namespace}' : ''}/${r.plural}`;
    const op = (action: string) => ({
      'operationId': `${action}${r.kind}`,
      'parameters': QUERY_PARAMS,
      'x-kubernetes-action': action,
      'x-kubernetes-group-version-kind': gvk,
      'responses': { 200: { description: 'OK', content: { 'application/json': { schema: { $ref: `#/components/schemas/${schemaName(r)}` } } } } },
    });
    paths[base] = { get: op('list'), post: op('post') };
    paths[`${base}/{name}`] = { get: op('get'), put: op('put'), patch: op('patch'), delete: op('delete') };
    schemas[schemaName(r)] = {
      ...(r.schema ?? { type: 'object' }),
      'x-kubernetes-group-version-kind': [{ group: r.group, kind: r.kind, version: r.version }],
    };
  }
  return { openapi: '3.0.0', info: { title: 'Kubernetes', version: 'v1.32.0' }, paths, components: { schemas } };
}

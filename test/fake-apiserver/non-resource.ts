/** Non-resource endpoints: health, version, discovery documents and OpenAPI v3. */
import { IncomingMessage, ServerResponse } from 'node:http';
import { writeJson } from './http-io';
import { openApiGroupVersion, openApiRoot } from './openapi';
import { ResourceCatalog } from './resources';
import { notFoundPath } from './status';

/** Answers a non-resource request; false when the path is a resource path. */
export function serveNonResource(catalog: ResourceCatalog, port: number, req: IncomingMessage, res: ServerResponse, url: URL): boolean {
  const p = url.pathname.replace(/\/+$/, '') || '/';
  if (p === '/healthz' || p === '/readyz' || p === '/livez') {
    res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' }).end('ok');
    return true;
  }
  if (p === '/version') {
    writeJson(res, 200, {
      major: '1', minor: '32', gitVersion: 'v1.32.0-fake', gitCommit: '0000000000000000000000000000000000000000', gitTreeState: 'clean',
      buildDate: '2026-01-01T00:00:00Z', goVersion: 'go1.23.0', compiler: 'gc', platform: 'linux/amd64',
    });
    return true;
  }
  if (req.method !== 'GET') return false;
  if (p === '/api') {
    writeJson(res, 200, catalog.apiVersions(`127.0.0.1:${port}`));
    return true;
  }
  if (p === '/apis') {
    writeJson(res, 200, catalog.apiGroupList());
    return true;
  }
  if (p === '/api/v1') {
    writeJson(res, 200, catalog.apiResourceList('', 'v1'));
    return true;
  }
  let m = /^\/apis\/([^/]+)$/.exec(p);
  if (m) {
    const g = catalog.apiGroup(m[1]);
    if (!g) throw notFoundPath();
    writeJson(res, 200, g);
    return true;
  }
  m = /^\/apis\/([^/]+)\/([^/]+)$/.exec(p);
  if (m) {
    const l = catalog.apiResourceList(m[1], m[2]);
    if (!l) throw notFoundPath();
    writeJson(res, 200, l);
    return true;
  }
  if (p === '/openapi/v3') {
    writeJson(res, 200, openApiRoot(catalog));
    return true;
  }
  if (p.startsWith('/openapi/v3/')) {
    const doc = openApiGroupVersion(catalog, p.slice('/openapi/v3/'.length));
    if (!doc) throw notFoundPath();
    writeJson(res, 200, doc);
    return true;
  }
  if (p.startsWith('/openapi')) throw notFoundPath();
  return false;
}

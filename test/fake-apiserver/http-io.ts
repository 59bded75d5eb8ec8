/** Request/response plumbing of the fake apiserver. */
import { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseYaml } from 'yaml';
import { ResourceInfo } from './resources';
import { badRequest } from './status';

export function parseJsonBody(body: string, r: ResourceInfo): any {
  if (!body) throw badRequest('the body of the request was empty');
  try {
    return JSON.parse(body);
  } catch {
    try {
      return parseYaml(body);
    } catch (e) {
      throw badRequest(`${r.kind} in version "${r.version}" cannot be handled as a ${r.kind}: ${(e as Error).message}`);
    }
  }
}

export function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

export function writeJson(res: ServerResponse, code: number, payload: any, headers: Record<string, string | string[]> = {}): void {
  const text = JSON.stringify(payload);
  res.writeHead(code, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private', ...headers, 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}


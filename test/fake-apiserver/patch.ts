/** PATCH: merge, JSON (with `test`), strategic (built-ins only) and server-side apply, incl. /status and /scale. */
import { applyPatch as applyJsonPatch } from 'fast-json-patch';
import { parse as parseYaml } from 'yaml';
import { clone, isObject, mergePatch } from './json-util';
import { FieldValidation, Registry, WriteResult } from './registry';
import { ResourceInfo } from './resources';
import { ApiError, badRequest, unsupportedMediaType } from './status';
import { strategicMergePatch } from './strategic-merge';

export interface PatchOptions {
  readonly manager: string;
  readonly dryRun: boolean;
  readonly fieldValidation?: FieldValidation;
}

export function patchResource(registry: Registry, r: ResourceInfo, namespace: string | undefined, name: string, subresource: string | undefined,
contentTypeHeader: string | undefined, body: string, q: URLSearchParams, opts: PatchOptions): WriteResult {
  const contentType = (contentTypeHeader ?? '').split(';')[0].trim();
  const accepted = ['application/json-patch+json', 'application/merge-patch+json', 'application/apply-patch+yaml'];
  if (!r.custom) accepted.push('application/strategic-merge-patch+json');
  if (!accepted.includes(contentType)) throw unsupportedMediaType(accepted);

  if (contentType === 'application/apply-patch+yaml') {
    if (!q.get('fieldManager')) throw badRequest('PATCH, application/apply-patch+yaml requests require the fieldManager query parameter');
    let applied: any;
    try {
      applied = parseYaml(body);
    } catch (e) {
      throw badRequest(`error decoding YAML: ${(e as Error).message}`);
    }
    if (subresource === 'scale') throw unsupportedMediaType(accepted.filter((a) => a !== 'application/apply-patch+yaml'));
    return registry.apply(r, namespace, name, applied, { ...opts, subresource, force: q.get('force') === 'true' });
  }

  const isScale = subresource === 'scale';
  const current = isScale ? registry.getScale(r, namespace, name) : registry.get(r, namespace, name);
  let patchBody: any;
  try {
    patchBody = JSON.parse(body);
  } catch (e) {
    throw badRequest(`error decoding patch: ${(e as Error).message}`);
  }
  let patched: any;
  if (contentType === 'application/json-patch+json') {
    if (!Array.isArray(patchBody)) throw badRequest('json: cannot unmarshal object into Go value of type jsonpatch.Patch');
    try {
      patched = applyJsonPatch(clone(current), patchBody, true, false).newDocument;
    } catch {
      throw new ApiError(422, 'Invalid', 'the server rejected our request due to an error in our request', {});
    }
  } else if (contentType === 'application/merge-patch+json') {
    patched = mergePatch(current, patchBody);
  } else {
    patched = strategicMergePatch(current, patchBody);
  }
  if (isScale) {
    const result = registry.updateScale(r, namespace, name, patched, opts);
    return { ...result, created: false };
  }
  if (!isObject(patched.metadata)) patched.metadata = {};
  if (patched.metadata.resourceVersion === undefined) patched.metadata.resourceVersion = current.metadata.resourceVersion;
  return { ...registry.applyWrite(r, current, patched, { ...opts, subresource }), created: false };
}

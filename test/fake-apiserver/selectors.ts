/** Label and field selectors as parsed by apimachinery (`=`, `==`, `!=`, `in`, `notin`, exists, `!key`). */
import { badRequest } from './status';

type Requirement = (labels: Record<string, string>) => boolean;

export type Matcher = (obj: any) => boolean;

export function parseLabelSelector(selector: string | undefined): Matcher {
  if (!selector) return () => true;
  const reqs: Requirement[] = splitTopLevel(selector).map(parseRequirement);
  return (obj) => {
    const labels = obj?.metadata?.labels ?? {};
    return reqs.every((r) => r(labels));
  };
}

function splitTopLevel(s: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of s) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (ch === ',' && depth === 0) {
      parts.push(cur.trim());
      cur = '';
    } else cur += ch;
  }
  if (cur.trim()) parts.push(cur.trim());
  return parts;
}

function parseRequirement(r: string): Requirement {
  let m = /^(\S+)\s+(in|notin)\s+\(([^)]*)\)$/.exec(r);
  if (m) {
    const key = m[1];
    const values = m[3].split(',').map((v) => v.trim());
    return m[2] === 'in'
      ? (l) => key in l && values.includes(l[key])
      : (l) => !(key in l) || !values.includes(l[key]);
  }
  m = /^([^=!\s]+)\s*(==|=|!=)\s*(\S*)$/.exec(r);
  if (m) {
    const [, key, op, value] = m;
    return op === '!=' ? (l) => l[key] !== value : (l) => l[key] === value;
  }
  m = /^!\s*(\S+)$/.exec(r);
  if (m) {
    const key = m[1];
    return (l) => !(key in l);
  }
  if (/^[A-Za-z0-9._\-/]+$/.test(r)) return (l) => r in l;
  throw badRequest(`unable to parse requirement: found '${r}', expected: identifier`);
}

/** Field labels each built-in kind supports besides metadata.name/metadata.namespace (the apiserver's GetAttrs). */
const BUILTIN_FIELD_LABELS: Record<string, string[]> = {
  '/pods': ['spec.nodeName', 'spec.restartPolicy', 'spec.schedulerName', 'spec.serviceAccountName', 'spec.hostNetwork', 'status.phase', 'status.podIP', 'status.podIPs', 'status.nominatedNodeName'],
  '/events': ['involvedObject.kind', 'involvedObject.namespace', 'involvedObject.name', 'involvedObject.uid', 'involvedObject.apiVersion', 'involvedObject.resourceVersion',
    'involvedObject.fieldPath', 'reason', 'reportingComponent', 'source', 'type',
    'regarding.kind', 'regarding.namespace', 'regarding.name', 'regarding.uid', 'regarding.apiVersion', 'regarding.resourceVersion', 'regarding.fieldPath', 'reportingController'],
  '/secrets': ['type'],
  '/namespaces': ['status.phase'],
  '/services': ['spec.clusterIP', 'spec.type'],
  'batch/jobs': ['status.successful'],
};

/** Which field labels a resource accepts: metadata.name/namespace plus built-in attrs or a CRD's selectableFields. */
export function allowedFieldLabels(storageKey: string, selectableFields: string[] = []): Set<string> {
  return new Set(['metadata.name', 'metadata.namespace', ...(BUILTIN_FIELD_LABELS[storageKey] ?? []), ...selectableFields]);
}

/** Field selectors (`=`, `==`, `!=`, comma = AND); `allowed` rejects unsupported labels like the apiserver (400). */
export function parseFieldSelector(selector: string | undefined, allowed?: Set<string>): Matcher {
  if (!selector) return () => true;
  const reqs = selector.split(',').map((term) => {
    const m = /^([^=!]+)(==|=|!=)(.*)$/.exec(term.trim());
    if (!m) throw badRequest(`invalid selector: '${selector}'; can't understand '${term}'`);
    const [, path, op, value] = m;
    if (allowed && !allowed.has(path)) throw badRequest(`field label not supported: ${path}`);
    const segs = path.split('.');
    return (obj: any) => {
      let cur: any = obj;
      for (const s of segs) cur = cur?.[s];
      const actual = cur === undefined || cur === null ? '' : String(cur);
      return op === '!=' ? actual !== value : actual === value;
    };
  });
  return (obj) => reqs.every((r) => r(obj));
}

/**
 * The decoding errors a typed (built-in) kind produces before any validation runs — classic operator bugs:
 * non-string label/annotation/ConfigMap values, Secret data that is not base64, numbers sent as strings.
 * Each becomes a 400 `<Kind> in version "v" cannot be handled as a <Kind>: ...` like the apiserver's JSON decoder.
 */
import { isObject } from './json-util';
import { ResourceInfo } from './resources';
import { badRequest } from './status';

function jsonType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'object') return 'object';
  return typeof v === 'boolean' ? 'bool' : typeof v;
}

function fail(res: ResourceInfo, detail: string): never {
  throw badRequest(`${res.kind} in version "${res.version}" cannot be handled as a ${res.kind}: ${detail}`);
}

function stringMap(res: ResourceInfo, m: unknown, goField: string): void {
  if (m === undefined || m === null) return;
  if (!isObject(m)) fail(res, `json: cannot unmarshal ${jsonType(m)} into Go struct field ${goField} of type map[string]string`);
  for (const v of Object.values(m)) {
    if (typeof v !== 'string' && v !== null) fail(res, `json: cannot unmarshal ${jsonType(v)} into Go struct field ${goField} of type string`);
  }
}

function int32(res: ResourceInfo, v: unknown, goField: string): void {
  if (v === undefined || v === null) return;
  if (typeof v !== 'number' || !Number.isInteger(v)) fail(res, `json: cannot unmarshal ${typeof v === 'number' ? 'number ' + v : jsonType(v)} into Go struct field ${goField} of type int32`);
}

/** Go's base64.StdEncoding: the offset of the first illegal byte, or -1. */
function base64Error(s: string): number {
  const bad = s.search(/[^A-Za-z0-9+/=]/);
  if (bad >= 0) return bad;
  const pad = s.indexOf('=');
  if (pad >= 0 && !/^=*$/.test(s.slice(pad))) return pad;
  if (s.length % 4 !== 0) return s.length - (s.length % 4);
  return -1;
}

const MICRO_LAYOUT = '2006-01-02T15:04:05.000000Z07:00';

/** metav1.MicroTime parses with RFC3339Micro: exactly six fractional digits (JS toISOString() has three). */
function microTime(res: ResourceInfo, v: unknown): void {
  if (v === undefined || v === null) return;
  if (typeof v !== 'string') fail(res, `json: cannot unmarshal ${jsonType(v)} into Go value of type string`);
  if (/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}(Z|[+-]\d\d:\d\d)$/.test(v)) return;
  const base = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/.exec(v);
  if (!base) fail(res, `parsing time ${JSON.stringify(v)} as ${JSON.stringify(MICRO_LAYOUT)}: cannot parse ${JSON.stringify(v)} as "2006"`);
  const rest = v.slice(base[0].length);
  const frac = /^\.\d{6}/.test(rest);
  fail(res, `parsing time ${JSON.stringify(v)} as ${JSON.stringify(MICRO_LAYOUT)}: cannot parse ${JSON.stringify(frac ? rest.slice(7) : rest)} as ${frac ? '"Z07:00"' : '".000000"'}`);
}

export function checkTypedDecoding(res: ResourceInfo, obj: any): void {
  if (res.custom) return;
  const meta = obj.metadata ?? {};
  stringMap(res, meta.labels, 'ObjectMeta.metadata.labels');
  stringMap(res, meta.annotations, 'ObjectMeta.metadata.annotations');
  switch (res.kind) {
    case 'ConfigMap':
      stringMap(res, obj.data, 'ConfigMap.data');
      break;
    case 'Secret':
      stringMap(res, obj.stringData, 'Secret.stringData');
      if (isObject(obj.data)) {
        for (const v of Object.values(obj.data)) {
          if (typeof v !== 'string') fail(res, `json: cannot unmarshal ${jsonType(v)} into Go struct field Secret.data of type []uint8`);
          const at = base64Error(v);
          if (at >= 0) fail(res, `illegal base64 data at input byte ${at}`);
        }
      }
      break;
    case 'Deployment':
    case 'StatefulSet':
      int32(res, obj.spec?.replicas, `${res.kind}Spec.spec.replicas`);
      break;
    case 'Lease':
      microTime(res, obj.spec?.acquireTime);
      microTime(res, obj.spec?.renewTime);
      int32(res, obj.spec?.leaseDurationSeconds, 'LeaseSpec.spec.leaseDurationSeconds');
      break;
    case 'Event':
      microTime(res, obj.eventTime);
      microTime(res, obj.series?.lastObservedTime);
      break;
    case 'Service':
      for (const p of obj.spec?.ports ?? []) int32(res, p?.port, 'ServicePort.spec.ports.port');
      break;
    default:
      break;
  }
}

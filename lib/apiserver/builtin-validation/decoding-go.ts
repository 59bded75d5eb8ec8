import { RawSchema, refOf } from './decoding-schemas';

/**
 * The words of Go's `encoding/json` (the apiserver decodes with sigs.k8s.io/json, its case-sensitive fork) for a
 * value of the wrong JSON type: `json: cannot unmarshal string into Go struct field ServicePort.spec.ports.port of
 * type int32` (measured on 1.28, 1.32 and 1.36: the struct holding the field, the field's JSON path without list
 * indices, the Go type).
 */
export function unmarshalTypeError(what: string, struct: string, goPath: readonly string[], goType: string): string {
  return `json: cannot unmarshal ${what} into Go struct field ${struct}.${goPath.join('.')} of type ${goType}`;
}

/** The JSON type of a value as Go names it (`string`, `number`, `bool`, `array`, `object`). */
export function jsonKind(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'boolean') return 'bool';
  if (typeof value === 'number') return 'number';
  return typeof value === 'string' ? 'string' : 'object';
}

/** `v1.ServicePort` for the schema `io.k8s.api.core.v1.ServicePort`: Go's package-qualified type name. */
export function goTypeOfRef(name: string): string {
  const parts = name.split('.');
  return `${parts[parts.length - 2]}.${parts[parts.length - 1]}`;
}

/** The Go struct's name for the schema `name` (`ServicePort`), as `Go struct field ServicePort.…` shows it. */
export function goStructOf(name: string): string {
  return name.slice(name.lastIndexOf('.') + 1);
}

/**
 * The Go type a schema is decoded into, as the error names it. Named types (`v1.ServiceType`, `v1.ResourceList`) are
 * not in the OpenAPI: their underlying type is named instead (`string`, `map[string]resource.Quantity`).
 */
export function goTypeOf(schema: RawSchema): string {
  const ref = refOf(schema);
  if (ref) return goTypeOfRef(ref);
  if (schema.type === 'array') return `[]${schema.items ? goTypeOf(schema.items) : 'interface {}'}`;
  if (schema.type === 'object' && typeof schema.additionalProperties === 'object') {
    return `map[string]${goTypeOf(schema.additionalProperties)}`;
  }
  if (schema.type === 'string') return schema.format === 'byte' ? '[]uint8' : 'string';
  if (schema.type === 'boolean') return 'bool';
  if (schema.type === 'integer') return schema.format === 'int32' ? 'int32' : 'int64';
  if (schema.type === 'number') return 'float64';
  return 'interface {}';
}

/**
 * What Go refuses of a JSON number for an integer of `bits` bits (`strconv.ParseInt` of its text, then the overflow
 * check): `number 80.5`, `number 4294967297` (Go quotes the number here, not where it expected no number at all).
 */
export function intOutOfRange(value: number, bits: 32 | 64): string | undefined {
  const text = JSON.stringify(value);
  if (!/^-?\d+$/.test(text)) return `number ${text}`;
  const big = BigInt(text);
  const max = (1n << BigInt(bits - 1)) - 1n;
  return big > max || big < -max - 1n ? `number ${text}` : undefined;
}

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/**
 * Where Go's `base64.StdEncoding.Decode` (padded, newlines skipped) refuses `text`: `illegal base64 data at input
 * byte 3`, the offset in its UTF-8 bytes as Go's `CorruptInputError`; undefined when it decodes.
 */
export function base64Error(text: string): string | undefined {
  const src = Buffer.from(text, 'utf8');
  const at = (n: number) => `illegal base64 data at input byte ${n}`;
  const isNewline = (b: number) => b === 0x0a || b === 0x0d;
  let si = 0;
  while (si < src.length) {
    // one quantum of four characters (Go's decodeQuantum)
    let j = 0;
    for (; j < 4; j++) {
      if (si === src.length) {
        if (j === 0) return undefined;
        return at(si - j);
      }
      const c = src[si++];
      if (BASE64.includes(String.fromCharCode(c))) continue;
      if (isNewline(c)) {
        j--;
        continue;
      }
      if (c !== 0x3d) return at(si - 1);
      // padding: `=` ends the input (two of them after two characters)
      if (j === 0 || j === 1) return at(si - 1);
      if (j === 2) {
        while (si < src.length && isNewline(src[si])) si++;
        if (si === src.length) return at(src.length);
        if (src[si] !== 0x3d) return at(si - 1);
        si++;
      }
      while (si < src.length && isNewline(src[si])) si++;
      return si < src.length ? at(si) : undefined;
    }
  }
  return undefined;
}

/**
 * Whether Go's `time.Parse(layout, text)` accepts `text`: for a `metav1.Time` the layout `time.RFC3339`, for a
 * `metav1.MicroTime` (a Lease's `spec.renewTime`, an Event's `eventTime`) `metav1.RFC3339Micro`
 * (`2006-01-02T15:04:05.000000Z07:00`, six digits of fraction: `2026-01-01T00:00:00Z` refused, measured on 1.28, 1.32
 * and 1.36). Go's parser walks the layout's elements in order and stops at the first it cannot parse (`parsing time
 * "…" as "…": cannot parse …`, whose tail we do not word) or whose value is out of range (`parsing time "…": hour out
 * of range`); the day is checked against its month last.
 */
export function rfc3339Error(text: string, micro = false): string | undefined {
  const layout = micro ? '2006-01-02T15:04:05.000000Z07:00' : '2006-01-02T15:04:05Z07:00';
  const bad = `parsing time ${JSON.stringify(text)} as ${JSON.stringify(layout)}`;
  const range = (what: string) => `parsing time ${JSON.stringify(text)}: ${what} out of range`;
  const digit = (i: number) => i < text.length && text[i] >= '0' && text[i] <= '9';
  let i = 0;
  // Go's getnum: two digits, or one where the element is not zero-padded (the hour `15`)
  const num = (fixed: boolean): number | undefined => {
    if (!digit(i)) return undefined;
    if (!digit(i + 1)) {
      if (fixed) return undefined;
      return Number(text[i++]);
    }
    i += 2;
    return Number(text.slice(i - 2, i));
  };
  const literal = (c: string) => text[i] === c && ++i > 0;
  if (![0, 1, 2, 3].every(digit)) return bad;
  const year = Number(text.slice(0, 4));
  i = 4;
  if (!literal('-')) return bad;
  const month = num(true);
  if (month === undefined) return bad;
  if (month < 1 || month > 12) return range('month');
  if (!literal('-')) return bad;
  const day = num(true);
  if (day === undefined || !literal('T')) return bad;
  const hour = num(false);
  if (hour === undefined) return bad;
  if (hour > 23) return range('hour');
  if (!literal(':')) return bad;
  const minute = num(true);
  if (minute === undefined) return bad;
  if (minute > 59) return range('minute');
  if (!literal(':')) return bad;
  const second = num(true);
  if (second === undefined) return bad;
  if (second > 59) return range('second');
  const fraction = (c: string | undefined) => c === '.' || c === ',';
  if (micro) {
    // `.000000`: a period or comma and six digits
    if (!fraction(text[i]) || ![1, 2, 3, 4, 5, 6].every((k) => digit(i + k))) return bad;
    i += 7;
  } else if (fraction(text[i]) && digit(i + 1)) {
    // a fraction the layout does not have is taken after the seconds, of any length
    i += 2;
    while (digit(i)) i++;
  }
  // `Z07:00`: Z, or a signed hh:mm offset (Go allows up to 24 hours and 60 minutes)
  if (!literal('Z')) {
    const zone = text.slice(i, i + 6);
    if (zone.length < 6 || zone[3] !== ':' || !/^\d\d$/.test(zone.slice(1, 3)) || !/^\d\d$/.test(zone.slice(4, 6))) {
      return bad;
    }
    if (Number(zone.slice(1, 3)) > 24) return range('time zone offset hour');
    if (Number(zone.slice(4, 6)) > 60) return range('time zone offset minute');
    if (zone[0] !== '+' && zone[0] !== '-') return bad;
    i += 6;
  }
  if (i < text.length) return `parsing time ${JSON.stringify(text)}: extra text: ${JSON.stringify(text.slice(i))}`;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = month === 2 ? (leap ? 29 : 28) : [31, 0, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1];
  if (day < 1 || day > days) return range('day');
  return undefined;
}

/** Go structs embedded inline in a built-in type, by the schema that flattens them: the fields each brings. */
const EMBEDDED: ReadonlyArray<{
  readonly schema: RegExp;
  readonly chain: (field: string) => readonly string[];
}> = [
  {
    schema: /^io\.k8s\.api\.core\.v1\.Probe$/,
    chain: only(['exec', 'httpGet', 'tcpSocket', 'grpc'], ['ProbeHandler']),
  },
  { schema: /^io\.k8s\.api\.core\.v1\.Volume$/, chain: (f) => (f === 'name' ? [] : ['VolumeSource']) },
  {
    schema: /^io\.k8s\.api\.core\.v1\.PersistentVolumeSpec$/,
    chain: only(
      [
        'awsElasticBlockStore',
        'azureDisk',
        'azureFile',
        'cephfs',
        'cinder',
        'csi',
        'fc',
        'flexVolume',
        'flocker',
        'gcePersistentDisk',
        'glusterfs',
        'hostPath',
        'iscsi',
        'local',
        'nfs',
        'photonPersistentDisk',
        'portworxVolume',
        'quobyte',
        'rbd',
        'scaleIO',
        'storageos',
        'vsphereVolume',
      ],
      ['PersistentVolumeSource'],
    ),
  },
  {
    schema: /^io\.k8s\.api\.core\.v1\.EphemeralContainer$/,
    chain: (f) => (f === 'targetContainerName' ? [] : ['EphemeralContainerCommon']),
  },
  { schema: /^io\.k8s\.api\.networking\.v1\.IngressRule$/, chain: only(['http'], ['IngressRuleValue']) },
  {
    schema: /^io\.k8s\.api\.admissionregistration\.v\w+\.RuleWithOperations$/,
    chain: only(['apiGroups', 'apiVersions', 'resources', 'scope'], ['Rule']),
  },
  {
    // RuleWithOperations inline, itself holding Rule inline (by the same rule; not measured)
    schema: /^io\.k8s\.api\.admissionregistration\.v\w+\.NamedRuleWithOperations$/,
    chain: (f) =>
      f === 'resourceNames' ? [] : f === 'operations' ? ['RuleWithOperations'] : ['RuleWithOperations', 'Rule'],
  },
];

function only(fields: readonly string[], chain: readonly string[]): (field: string) => readonly string[] {
  return (f) => (fields.includes(f) ? chain : []);
}

/**
 * The names of the embedded Go structs between the struct of schema `name` and its JSON field `field`, as Go 1.24's
 * `encoding/json` puts them in an error's field path (`livenessProbe.ProbeHandler.httpGet.port` on 1.36,
 * `livenessProbe.httpGet.port` on 1.28 and 1.32, measured; Kubernetes is built with Go 1.24 from 1.33 on, upstream's
 * release notes' word); empty before.
 */
export function embeddedChain(name: string, field: string, minor: number): readonly string[] {
  if (minor < 33) return [];
  return EMBEDDED.find((e) => e.schema.test(name))?.chain(field) ?? [];
}

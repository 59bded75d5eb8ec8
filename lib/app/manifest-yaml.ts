import { Yaml } from 'cdk8s';
import * as YAML from 'yaml';

/**
 * The YAML cdk8s writes for a manifest (`Yaml.stringify`: the yaml package with `{ keepUndefined: true, lineWidth: 0,
 * version: '1.1' }`), byte for byte, about six times faster: cdk8s builds a document tree of every node before
 * printing it, which dominates the synth of large CRDs (a 1.4 MB CRD took over a second). Plain data only (objects,
 * arrays, strings, finite numbers, booleans, null); anything rarer (control characters, multi-line keys, -0…) is
 * handed to the yaml package. test/app/manifest-yaml.test.ts compares both writers on every real-world CRD and on
 * generated strings.
 */
export function stringifyManifest(doc: unknown): string {
  try {
    if (!isCollection(doc)) throw new Unsupported(); // a scalar document has rules of its own
    return write(doc, '', false) + '\n';
  } catch (e) {
    if (e instanceof Unsupported) return CDK8S_STRINGIFY(doc);
    throw e;
  }
}

/**
 * Runs `synth` (a cdk8s synth and whatever else writes manifests with cdk8s' `Yaml`) with `Yaml.stringify` replaced by
 * `stringifyManifest`, which writes the same bytes faster; the original is restored afterwards.
 */
export function withFastManifestYaml<T>(synth: () => T): T {
  const original = Yaml.stringify;
  Yaml.stringify = (...docs: any[]) => docs.map((d) => (d === undefined ? '\n' : stringifyManifest(d))).join('---\n');
  try {
    return synth();
  } finally {
    Yaml.stringify = original;
  }
}

/** Thrown for what this writer leaves to the yaml package. */
class Unsupported extends Error {}

/** cdk8s' own writer, as loaded (before any replacement). */
const CDK8S_STRINGIFY = Yaml.stringify.bind(Yaml);

/** cdk8s' options (cdk8s/lib/yaml.js), for the schema whose implicit types force quotes. */
const OPTIONS = { keepUndefined: true, lineWidth: 0, version: '1.1' } as const;
/** What the yaml package would read as something other than a string (YAML 1.1: yes, 0777, 1:20…) is quoted. */
const SCHEMA = new YAML.Document(null, OPTIONS).schema as unknown as {
  tags: Array<{ default?: boolean; tag: string; test?: RegExp }>;
  compat?: Array<{ default?: boolean; tag: string; test?: RegExp }> | null;
};
const NON_STRING_TESTS: RegExp[] = [...SCHEMA.tags, ...(SCHEMA.compat ?? [])]
  .filter((t) => t.default && t.tag !== 'tag:yaml.org,2002:str' && t.test)
  .map((t) => t.test!);

const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u{D800}-\u{DFFF}]/u;
const NOT_PLAIN = /^[\n\t ,[\]{}#&*!|>'"%@`]|^[?-]$|^[?-][ \t]|[\n:][ \t]|[ \t]\n|[\n\t ]#|[\n\t :]$/;
const DOCUMENT_MARKER = /^(%|---|\.\.\.)/m;

function write(v: unknown, indent: string, isKey: boolean): string {
  if (v === null || v === undefined) return 'null';
  switch (typeof v) {
    case 'string':
      return isKey ? key(v, indent) : str(v, indent);
    case 'boolean':
      return v ? 'true' : 'false';
    case 'number':
      if (!Number.isFinite(v) || Object.is(v, -0)) throw new Unsupported();
      return Number.isInteger(v) ? v.toString(10) : JSON.stringify(v);
    case 'object':
      if (Array.isArray(v)) return seq(v, indent);
      if (Object.getPrototypeOf(v) !== Object.prototype && Object.getPrototypeOf(v) !== null) throw new Unsupported();
      return map(v as Record<string, unknown>, indent);
  }
  throw new Unsupported();
}

function isCollection(v: unknown): v is object {
  return typeof v === 'object' && v !== null;
}

function isEmptyCollection(v: object): boolean {
  return Array.isArray(v) ? v.length === 0 : Object.keys(v).length === 0;
}

function map(m: Record<string, unknown>, indent: string): string {
  const keys = Object.keys(m);
  if (keys.length === 0) return '{}';
  const inner = indent + '  ';
  let out = '';
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i];
    const value = m[k];
    const ks = write(k, inner, true);
    if (ks.length > 1024) throw new Unsupported();
    let line: string;
    if (isCollection(value)) {
      line = isEmptyCollection(value)
        ? `${ks}: ${Array.isArray(value) ? '[]' : '{}'}`
        : `${ks}:\n${inner}${write(value, inner, false)}`;
    } else {
      const vs = write(value, inner, false);
      line = vs === '' || vs[0] === '\n' ? `${ks}:${vs}` : `${ks}: ${vs}`;
    }
    out += i === 0 ? line : `\n${indent}${line}`;
  }
  return out;
}

function seq(s: readonly unknown[], indent: string): string {
  if (s.length === 0) return '[]';
  const inner = indent + '  ';
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const item = s[i];
    const line = `- ${isCollection(item) && isEmptyCollection(item) ? (Array.isArray(item) ? '[]' : '{}') : write(item, inner, false)}`;
    out += i === 0 ? line : `\n${indent}${line}`;
  }
  return out;
}

/**
 * Every one of NON_STRING_TESTS is anchored (`^…$`) and matches only the empty string or strings starting with one of
 * these characters (null `~`/`null`, bools `y`/`yes`/`on`/`true`/`n`/`no`/`off`/`false`, numbers, `e3`, `.inf`, `<<`):
 * the other strings, most of a CRD (names, types, descriptions), skip the dozen tests.
 */
const OTHER_TYPE_START = /^(?:$|[-+.0-9~<EeNnYyTtOoFf])/;

function looksLikeOtherType(s: string): boolean {
  if (!OTHER_TYPE_START.test(s)) return false;
  for (const t of NON_STRING_TESTS) if (t.test(s)) return true;
  return false;
}

/**
 * Keys and short values written plain whatever their indent: a CRD repeats a few hundred distinct keys (type,
 * description, properties…) and short values (string, object, int64…) hundreds of thousands of times, so each is
 * tested once. Bounded, in case of a document with endless distinct ones; long values (descriptions) are not kept.
 */
const PLAIN_KEYS = new Set<string>();
const PLAIN_VALUES = new Set<string>();
const PLAIN_LIMIT = 10_000;
const PLAIN_VALUE_MAX_LENGTH = 40;

function key(s: string, indent: string): string {
  if (PLAIN_KEYS.has(s)) return s;
  if (CONTROL.test(s) || s.includes('\n')) throw new Unsupported();
  if (NOT_PLAIN.test(s)) return quoted(s, indent);
  if (DOCUMENT_MARKER.test(s) && indent === '  ') return quoted(s, indent);
  if (looksLikeOtherType(s)) return quoted(s, indent);
  if (!DOCUMENT_MARKER.test(s) && PLAIN_KEYS.size < PLAIN_LIMIT) PLAIN_KEYS.add(s);
  return s;
}

function str(s: string, indent: string): string {
  const short = s.length <= PLAIN_VALUE_MAX_LENGTH;
  if (short && PLAIN_VALUES.has(s)) return s;
  if (CONTROL.test(s)) throw new Unsupported();
  if (NOT_PLAIN.test(s)) return s.includes('\n') ? block(s, indent) : quoted(s, indent);
  if (s.includes('\n')) return block(s, indent);
  if (looksLikeOtherType(s)) return quoted(s, indent);
  if (short && PLAIN_VALUES.size < PLAIN_LIMIT) PLAIN_VALUES.add(s);
  return s;
}

function quoted(s: string, indent: string): string {
  const hasDouble = s.includes('"');
  const hasSingle = s.includes("'");
  if (hasDouble && !hasSingle) {
    if (/[ \t]\n|\n[ \t]/.test(s)) return doubleQuoted(s);
    const ind = indent || (DOCUMENT_MARKER.test(s) ? '  ' : '');
    return "'" + s.replace(/'/g, "''").replace(/\n+/g, `$&\n${ind}`) + "'";
  }
  return doubleQuoted(s);
}

function doubleQuoted(s: string): string {
  const json = JSON.stringify(s);
  // escapes the yaml package rewrites (\u00XX forms, folded newlines) are left to it
  if (json.includes('\\u') || json.includes('\\n') || json.includes(' \\n')) throw new Unsupported();
  return json;
}

function block(value: string, indent0: string): string {
  if (/\n[\t ]+$/.test(value)) {
    if (value.includes('\n')) throw new Unsupported(); // quoted multi-line: left to the yaml package
    return quoted(value, indent0);
  }
  const indent = indent0 || (DOCUMENT_MARKER.test(value) ? '  ' : '');
  if (!value) return '|\n';
  let endStart: number;
  for (endStart = value.length; endStart > 0; --endStart) {
    const ch = value[endStart - 1];
    if (ch !== '\n' && ch !== '\t' && ch !== ' ') break;
  }
  let end = value.substring(endStart);
  const endNlPos = end.indexOf('\n');
  let chomp: string;
  if (endNlPos === -1) chomp = '-';
  else if (value === end || endNlPos !== end.length - 1) chomp = '+';
  else chomp = '';
  if (end) {
    value = value.slice(0, -end.length);
    if (end[end.length - 1] === '\n') end = end.slice(0, -1);
    end = end.replace(/(^|(?<!\n))\n+(?!\n|$)/g, `$&${indent}`);
  }
  let startWithSpace = false;
  let startEnd: number;
  let startNlPos = -1;
  for (startEnd = 0; startEnd < value.length; ++startEnd) {
    const ch = value[startEnd];
    if (ch === ' ') startWithSpace = true;
    else if (ch === '\n') startNlPos = startEnd;
    else break;
  }
  let start = value.substring(0, startNlPos < startEnd ? startNlPos + 1 : startEnd);
  if (start) {
    value = value.substring(start.length);
    start = start.replace(/\n+/g, `$&${indent}`);
  }
  const header = (startWithSpace ? (indent ? '2' : '1') : '') + chomp;
  value = value.replace(/\n+/g, `$&${indent}`);
  return `|${header}\n${indent}${start}${value}${end}`;
}

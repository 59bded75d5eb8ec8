/**
 * A JSON patch applied as kube-apiserver applies a mutating policy's (gopkg.in/evanphx/json-patch.v4, whose rules
 * differ from RFC 6902 in places, kept here): `replace` of an absent object key adds it, a negative array index counts
 * from the end, `-` appends; the errors are that library's, word for word. A failed `test` is not an error: the
 * apiserver then leaves the object as it was (`testFailed`).
 */
export type JsonPatchOutcome =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly testFailed: true }
  | { readonly ok: false; readonly testFailed?: false; readonly error: string };

export interface JsonPatchOperation {
  readonly op?: string;
  readonly path?: string;
  readonly from?: string;
  readonly value?: unknown;
}

type Container = Record<string, unknown> | unknown[];

class PatchError extends Error {
  constructor(
    message: string,
    readonly testFailed = false,
  ) {
    super(message);
  }
}

const MISSING = 'missing value';
const INVALID_INDEX = 'invalid index referenced';

export function applyJsonPatch(document: unknown, operations: readonly JsonPatchOperation[]): JsonPatchOutcome {
  const doc = structuredClone(document) as Container;
  try {
    for (const op of operations) apply(doc, op);
    return { ok: true, value: doc };
  } catch (e) {
    if (e instanceof PatchError && e.testFailed) return { ok: false, testFailed: true };
    return { ok: false, error: (e as Error).message };
  }
}

function apply(doc: Container, op: JsonPatchOperation): void {
  const path = op.path ?? '';
  switch (op.op) {
    case 'add': {
      const [con, key] = find(doc, path, `add operation does not apply: doc is missing path: "${path}"`);
      wrap(() => add(con, key, structuredClone(op.value)), `error in add for path: '${path}'`);
      return;
    }
    case 'remove': {
      const [con, key] = find(doc, path, `remove operation does not apply: doc is missing path: "${path}"`);
      wrap(() => remove(con, key), `error in remove for path: '${path}'`);
      return;
    }
    case 'replace': {
      const [con, key] = find(doc, path, `replace operation does not apply: doc is missing path: ${path}`);
      wrap(() => get(con, key), `replace operation does not apply: doc is missing key: ${path}`, MISSING);
      if (Array.isArray(con)) con[index(key)] = structuredClone(op.value);
      else con[key] = structuredClone(op.value);
      return;
    }
    case 'move':
    case 'copy': {
      const from = op.from ?? '';
      const [src, srcKey] = find(doc, from, `${op.op} operation does not apply: doc is missing from path: ${from}`);
      const value = wrap(
        () => get(src, srcKey),
        op.op === 'move' ? `error in move for path: '${srcKey}'` : `error in copy for from: '${from}'`,
      );
      if (op.op === 'move') wrap(() => remove(src, srcKey), `error in move for path: '${srcKey}'`);
      const [con, key] = find(doc, path, `${op.op} operation does not apply: doc is missing destination path: ${path}`);
      wrap(
        () => add(con, key, structuredClone(value)),
        op.op === 'move' ? `error in move for path: '${path}'` : 'error while adding value during copy',
      );
      return;
    }
    case 'test': {
      const [con, key] = find(doc, path, `test operation does not apply: is missing path: ${path}`);
      const value = wrap(() => get(con, key), `error in test for path: '${path}'`);
      if (JSON.stringify(canonical(value)) !== JSON.stringify(canonical(op.value))) {
        throw new PatchError(`testing value ${path} failed: test failed`, true);
      }
      return;
    }
    default:
      throw new PatchError(`Unexpected kind: ${op.op ?? 'unknown'}`);
  }
}

/** The container of the path's last token and that token (unescaped); `missing` when a step does not exist. */
function find(doc: Container, path: string, missing: string): [Container, string] {
  const split = path.split('/');
  if (split.length < 2) throw new PatchError(`${missing}: ${MISSING}`);
  let con: unknown = doc;
  for (const part of split.slice(1, -1)) {
    let next: unknown;
    try {
      next = get(con as Container, decode(part));
    } catch {
      next = undefined;
    }
    if (next === undefined || next === null || typeof next !== 'object') throw new PatchError(`${missing}: ${MISSING}`);
    con = next;
  }
  return [con as Container, decode(split[split.length - 1])];
}

function decode(token: string): string {
  return token.replace(/~1/g, '/').replace(/~0/g, '~');
}

function index(key: string): number {
  if (!/^-?\d+$/.test(key)) throw new Error(`strconv.Atoi: parsing ${JSON.stringify(key)}: invalid syntax`);
  return Number(key);
}

function get(con: Container, key: string): unknown {
  if (!Array.isArray(con)) return con[key];
  const i = index(key);
  if (i >= con.length) throw new Error(`Unable to access invalid index: ${i}: ${INVALID_INDEX}`);
  return con.at(i);
}

function add(con: Container, key: string, value: unknown): void {
  if (!Array.isArray(con)) {
    con[key] = value;
    return;
  }
  if (key === '-') {
    con.push(value);
    return;
  }
  let i: number;
  try {
    i = index(key);
  } catch (e) {
    throw new Error(`value was not a proper array index: '${key}': ${(e as Error).message}`);
  }
  const size = con.length + 1;
  if (i >= size || i < -size) throw new Error(`Unable to access invalid index: ${i}: ${INVALID_INDEX}`);
  con.splice(i < 0 ? i + size : i, 0, value);
}

function remove(con: Container, key: string): void {
  if (!Array.isArray(con)) {
    if (!(key in con)) throw new Error(`Unable to remove nonexistent key: ${key}: ${MISSING}`);
    delete con[key];
    return;
  }
  const i = index(key);
  if (i >= con.length || i < -con.length) throw new Error(`Unable to access invalid index: ${i}: ${INVALID_INDEX}`);
  con.splice(i < 0 ? i + con.length : i, 1);
}

function wrap<T>(fn: () => T, context: string, replacement?: string): T {
  try {
    return fn();
  } catch (e) {
    throw new PatchError(`${context}: ${replacement ?? (e as Error).message}`);
  }
}

/** A JSON value with sorted object keys (the library compares documents structurally). */
function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (v && typeof v === 'object') {
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, canonical((v as Record<string, unknown>)[k])]),
    );
  }
  return v;
}

/** Small JSON helpers shared by the fake apiserver (plain JSON values only). */

export function clone<T>(v: T): T {
  return v === undefined ? v : JSON.parse(JSON.stringify(v));
}

export function isObject(v: unknown): v is Record<string, any> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function deepEqual(a: any, b: any): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  }
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a).filter((k) => a[k] !== undefined);
    const kb = Object.keys(b).filter((k) => b[k] !== undefined);
    return ka.length === kb.length && ka.every((k) => deepEqual(a[k], b[k]));
  }
  return false;
}

/** RFC 7386 JSON merge patch. */
export function mergePatch(target: any, patch: any): any {
  if (!isObject(patch)) return clone(patch);
  const out: Record<string, any> = isObject(target) ? clone(target) : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

/** Reads `.a.b[0].c` style JSON paths (as used by CRD scale and printer columns), incl. `[?(@.k=="v")]`. */
export function getJsonPath(obj: any, path: string): any {
  const tokens = tokenizeJsonPath(path);
  let cur: any = obj;
  for (const t of tokens) {
    if (cur === undefined || cur === null) return undefined;
    if (typeof t === 'number') cur = Array.isArray(cur) ? cur[t] : undefined;
    else if (typeof t === 'string') cur = isObject(cur) ? cur[t] : undefined;
    else cur = Array.isArray(cur) ? cur.find((x) => isObject(x) && String(x[t.key]) === t.value) : undefined;
  }
  return cur;
}

/** Writes a simple dotted path (`.spec.replicas`), creating intermediate objects. */
export function setJsonPath(obj: any, path: string, value: any): void {
  const tokens = tokenizeJsonPath(path).filter((t): t is string => typeof t === 'string');
  let cur = obj;
  tokens.forEach((t, i) => {
    if (i === tokens.length - 1) cur[t] = value;
    else {
      if (!isObject(cur[t])) cur[t] = {};
      cur = cur[t];
    }
  });
}

type PathToken = string | number | { key: string; value: string };

function tokenizeJsonPath(path: string): PathToken[] {
  const p = path.replace(/^\{|\}$/g, '').replace(/^\$/, '');
  const out: PathToken[] = [];
  const re = /\.([^.[\]]+)|\[(\d+)\]|\[\?\(@\.([^=!]+)==["']?([^"'\]]*)["']?\)\]|\[['"]([^'"]+)['"]\]/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(p))) {
    if (m[1] !== undefined) out.push(m[1]);
    else if (m[2] !== undefined) out.push(Number(m[2]));
    else if (m[3] !== undefined) out.push({ key: m[3], value: m[4] });
    else if (m[5] !== undefined) out.push(m[5]);
  }
  return out;
}

/** RFC 3339 with second precision, like metav1.Time. */
export function nowTimestamp(date = new Date()): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

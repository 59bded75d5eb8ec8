import { readdirSync, readFileSync, statSync } from 'fs';
import { dirname, join, relative, resolve } from 'path';

/** One relative import between two files of a source tree (paths relative to the tree root, without `.ts`). */
export interface ImportEdge {
  readonly from: string;
  readonly to: string;
  /** `import type …`: erased at compile time, so it cannot make a load-order cycle. */
  readonly typeOnly: boolean;
}

/** Every relative `import`/`export … from` between the `.ts` files below `root`. */
export function importGraph(root: string): ImportEdge[] {
  const edges: ImportEdge[] = [];
  for (const file of tsFiles(root)) {
    const src = readFileSync(file, 'utf8');
    for (const m of src.matchAll(/^(import type\b|import|export)\b[^;]*?\bfrom\s+'(\.[^']*)'/gms)) {
      edges.push({
        from: moduleId(root, file),
        to: moduleId(root, resolveModule(resolve(dirname(file), m[2]))),
        typeOnly: m[1] === 'import type',
      });
    }
  }
  return edges;
}

/** The package names (not relative paths) a file imports. */
export function packageImports(file: string): string[] {
  const src = readFileSync(file, 'utf8');
  return [...src.matchAll(/^(?:import|export)\b[^;]*?\bfrom\s+'([^.'][^']*)'/gms)].map((m) => m[1]);
}

/** The cycles of a graph: every strongly connected component with more than one member (Tarjan). */
export function cycles(edges: readonly { from: string; to: string }[]): string[][] {
  const next = new Map<string, string[]>();
  for (const e of edges) next.set(e.from, [...(next.get(e.from) ?? []), e.to]);
  const index = new Map<string, number>(),
    low = new Map<string, number>(),
    stack: string[] = [],
    onStack = new Set<string>();
  const found: string[][] = [];
  let counter = 0;
  const visit = (v: string): void => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
    }
    if (low.get(v) === index.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1 || (next.get(v) ?? []).includes(v)) found.push(scc.sort());
    }
  };
  for (const v of next.keys()) if (!index.has(v)) visit(v);
  return found;
}

export function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return tsFiles(p);
    return name.endsWith('.ts') && !name.endsWith('.d.ts') ? [p] : [];
  });
}

function resolveModule(p: string): string {
  for (const candidate of [`${p}.ts`, join(p, 'index.ts')]) {
    try {
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      /* try the next form */
    }
  }
  return p;
}

function moduleId(root: string, file: string): string {
  return relative(root, file).replace(/\.ts$/, '');
}

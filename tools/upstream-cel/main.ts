/**
 * Writes lib/apiserver/cel/upstream-base-env.ts: the CEL environment a Kubernetes release offers, as upstream's
 * k8s.io/apiserver `pkg/cel/environment/base.go` declares it (each option with the version that introduces it and
 * the one that removes it), and what changed in CEL cost estimation since the newest release measured here (1.36):
 * the cost cases k8s.io/apiserver's `pkg/cel/library/cost.go` adds, and whether the cel-go release the tag vendors
 * (go.mod) changes cel-go's own estimator (`checker/cost.go`).
 *
 * Read from git directories (the `fetch` tool's mirrors of kubernetes/apiserver and google/cel-go, under
 * `UPSTREAM_MIRRORS`, default /work/.mirror) with `git show`: nothing is downloaded.
 * `npx tsx tools/upstream-cel/main.ts [tag]` (default: `v0.37.0-beta.0`, the newest 1.37 tag the mirror holds).
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const UPSTREAM_BASE_ENV = join(__dirname, '../../lib/apiserver/cel/upstream-base-env.ts');

/** The release tag the environment is compared with: the newest with an apiserver here. */
const MEASURED_TAG = 'v0.36.3';

/** One `VersionedOptions` of base.go: the CEL options it adds, from `introduced` and until `removed`. */
export interface UpstreamOptions {
  readonly introduced: string;
  readonly removed?: string;
  readonly options: readonly string[];
}

/** The `EnvOptions` of each entry of base.go's `baseOpts`, each option as one line of Go. */
export function parseBaseOpts(source: string): UpstreamOptions[] {
  const start = source.indexOf('var baseOpts = []VersionedOptions{');
  if (start < 0) throw new Error('base.go: no baseOpts');
  const body = source.slice(start, source.indexOf('\n}\n', start));
  const blocks = body.split(/\n\t\{\n/).slice(1);
  return blocks.map((block) => {
    const version = (field: string) => {
      const m = new RegExp(`${field}:\\s*version\\.MajorMinor\\((\\d+), (\\d+)\\)`).exec(block);
      return m ? `${m[1]}.${m[2]}` : undefined;
    };
    const introduced = version('IntroducedVersion');
    if (!introduced) throw new Error(`base.go: an entry without IntroducedVersion:\n${block}`);
    const env = /EnvOptions: \[\]cel\.EnvOption\{([\s\S]*?)\n\t\t\},/.exec(block)?.[1] ?? '';
    const removed = version('RemovedVersion');
    return { introduced, ...(removed ? { removed } : {}), options: topLevelCalls(env) };
  });
}

/** The comma-separated top-level expressions of a Go composite literal's body, comments dropped, whitespace joined. */
function topLevelCalls(body: string): string[] {
  const text = body
    .split('\n')
    .filter((l) => !l.trim().startsWith('//'))
    .join(' ');
  const calls: string[] = [];
  let depth = 0;
  let current = '';
  for (const ch of text) {
    if (ch === ',' && depth === 0) {
      if (current.trim()) calls.push(oneLine(current));
      current = '';
      continue;
    }
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    current += ch;
  }
  if (current.trim()) calls.push(oneLine(current));
  return calls;
}

/** A Go expression on one line: `f( a(), b(), )` → `f(a(), b())`. */
function oneLine(go: string): string {
  return go
    .trim()
    .replace(/\s+/g, ' ')
    .replace(/\(\s+/g, '(')
    .replace(/,\s*\)/g, ')');
}

function git(dir: string, ...args: string[]): string {
  return execFileSync('git', ['-C', dir, ...args], { encoding: 'utf8', maxBuffer: 1 << 26 });
}

/** The cel-go version a k8s.io/apiserver tag's go.mod requires. */
function celGoOf(apiserver: string, tag: string): string {
  const m = /github\.com\/google\/cel-go (v[\w.-]+)/.exec(git(apiserver, 'show', `${tag}:go.mod`));
  if (!m) throw new Error(`${tag}: go.mod requires no cel-go`);
  return m[1];
}

function main(tag: string): void {
  const mirrors = process.env.UPSTREAM_MIRRORS ?? '/work/.mirror';
  const apiserver = join(mirrors, 'kubernetes+apiserver/repo');
  const celGo = join(mirrors, 'google+cel-go/repo');
  const path = 'pkg/cel/environment/base.go';
  const costPath = 'pkg/cel/library/cost.go';
  const [measuredCelGo, celGoVersion] = [celGoOf(apiserver, MEASURED_TAG), celGoOf(apiserver, tag)];
  // the function names of the `case "…":` lines the cost estimator gains since the measured release
  const costDiff = git(apiserver, 'diff', MEASURED_TAG, tag, '--', costPath);
  const caseNames = (sign: string) =>
    new Set(
      costDiff
        .split('\n')
        .filter((l) => l.startsWith(sign) && /\bcase "/.test(l))
        .flatMap((l) => [...l.matchAll(/"([^"]+)"/g)].map((m) => m[1])),
    );
  const [removedCases, addedCases] = [caseNames('-'), caseNames('+')];
  const data = {
    source: `kubernetes/apiserver ${path}`,
    tag,
    commit: git(apiserver, 'rev-list', '-n', '1', tag).trim(),
    baseOpts: parseBaseOpts(git(apiserver, 'show', `${tag}:${path}`)),
    cost: {
      comparedWith: MEASURED_TAG,
      kubernetesCostCasesAdded: [...addedCases].filter((n) => !removedCases.has(n)).sort(),
      celGo: { measured: measuredCelGo, [tag]: celGoVersion },
      celGoCheckerCostChanged:
        git(celGo, 'diff', '--stat', measuredCelGo, celGoVersion, '--', 'checker/cost.go').trim() !== '',
    },
  };
  writeFileSync(
    UPSTREAM_BASE_ENV,
    [
      '// Generated by tools/upstream-cel/main.ts from the git mirrors of kubernetes/apiserver and google/cel-go: do not edit.',
      '',
      '/** @internal */',
      `export const UPSTREAM_CEL_ENVIRONMENT = ${JSON.stringify(data, null, 2)} as const;`,
      '',
    ].join('\n'),
  );
  console.log(`${UPSTREAM_BASE_ENV}: ${data.baseOpts.length} entries of ${tag} (${data.commit})`);
}

if (require.main === module) main(process.argv[2] ?? 'v0.37.0-beta.0');

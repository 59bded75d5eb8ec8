/**
 * The properties of Kubernetes' built-in schemas read from the Go types they are generated from, for a release that
 * has neither an apiserver here nor a reachable OpenAPI document: upstream's OpenAPI (`io.k8s.api.apps.v1.Deployment`)
 * is generated from the Go structs of the staging repositories (k8s.io/api, apimachinery, apiextensions-apiserver,
 * kube-aggregator), one property per JSON field tag, embedded `json:",inline"` structs merged in.
 *
 * The repositories are read from git directories (the `fetch` tool's mirrors, or any clone) at a tag, with
 * `git show`: nothing is downloaded. `version-fields.ts` checks this reader against the vendored v1.32.13 OpenAPI
 * (the same properties for every schema, read from k8s.io/api v0.32.13) before it believes it for another tag.
 */
import { execFileSync } from 'node:child_process';

/** Where each schema-name prefix's Go package lives: the repository's mirror name and the package's directory. */
const PACKAGES: ReadonlyArray<{ prefix: string; repo: string; dir: (rest: string) => string }> = [
  { prefix: 'io.k8s.api.', repo: 'kubernetes+api', dir: (rest) => rest.replace('.', '/') },
  { prefix: 'io.k8s.apimachinery.', repo: 'kubernetes+apimachinery', dir: (rest) => rest.replace(/\./g, '/') },
  {
    prefix: 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1',
    repo: 'kubernetes+apiextensions-apiserver',
    dir: () => 'pkg/apis/apiextensions/v1',
  },
  {
    prefix: 'io.k8s.kube-aggregator.pkg.apis.apiregistration.v1',
    repo: 'kubernetes+kube-aggregator',
    dir: () => 'pkg/apis/apiregistration/v1',
  },
];

/** A Go struct: its JSON fields, and the structs it embeds inline (by their Go type, `metav1.TypeMeta`). */
interface GoStruct {
  readonly fields: string[];
  readonly inline: string[];
}

/** The structs of one Go package, by name. */
export function parseGoStructs(sources: readonly string[]): Map<string, GoStruct> {
  const structs = new Map<string, GoStruct>();
  for (const source of sources) {
    const lines = source.split('\n');
    for (let i = 0; i < lines.length; i++) {
      const open = /^type (\w+) struct ?\{(\})?/.exec(lines[i]);
      if (!open) continue;
      const struct: GoStruct = { fields: [], inline: [] };
      structs.set(open[1], struct);
      if (open[2]) continue;
      for (i++; i < lines.length && lines[i] !== '}'; i++) {
        const line = lines[i].trim();
        if (line.startsWith('//')) continue;
        const tag = /`[^`]*\bjson:"([^"]*)"/.exec(line);
        if (!tag) continue;
        const name = tag[1].split(',')[0];
        const goField = line.slice(0, line.indexOf('`')).trim().split(/\s+/);
        // an embedded struct without a JSON name is merged in, as encoding/json does (`json:",inline"` until 1.36,
        // `json:""` in 1.37's k8s.io/api)
        if (name === '' && goField.length === 1) struct.inline.push(goField[0]);
        else if (name !== '' && name !== '-') struct.fields.push(name);
      }
    }
  }
  return structs;
}

/** The Go sources of `dir` in the git directory `gitDir` at `tag` (without tests and generated code). */
function packageSources(gitDir: string, tag: string, dir: string): string[] {
  const git = (...args: string[]) =>
    execFileSync('git', ['-C', gitDir, ...args], { encoding: 'utf8', maxBuffer: 1 << 28 });
  return git('ls-tree', '--name-only', `${tag}:${dir}`)
    .split('\n')
    .filter(
      (f) =>
        f.endsWith('.go') && !f.endsWith('_test.go') && !f.startsWith('zz_generated') && !f.startsWith('generated'),
    )
    .map((f) => git('show', `${tag}:${dir}/${f}`));
}

/** The commit `tag` names in `gitDir`. */
export function commitOf(gitDir: string, tag: string): string {
  return execFileSync('git', ['-C', gitDir, 'rev-list', '-n', '1', tag], { encoding: 'utf8' }).trim();
}

/** The tag to read each repository at (`kubernetes+api`: `v0.37.0-beta.0`); `default` for the others. */
export type RepoTags = { readonly default: string } & { readonly [repo: string]: string };

/** The repositories (mirror names) `goSchemasOf` reads for `names`. */
export function reposOf(names: readonly string[]): string[] {
  return [...new Set(names.flatMap((n) => PACKAGES.filter((p) => n.startsWith(p.prefix)).map((p) => p.repo)))].sort();
}

/**
 * The properties of each schema of `names` at `tags`, `{ properties: { name: true } }` as `version-fields.ts` compares
 * them; a schema whose Go struct is not found is left out (a version without it lacks it). `mirrors` is the directory
 * holding `kubernetes+api/repo` and the others.
 */
export function goSchemasOf(mirrors: string, tags: RepoTags, names: readonly string[]): Record<string, any> {
  const packages = new Map<string, Map<string, GoStruct>>();
  const packageOf = (name: string): { key: string; structs: Map<string, GoStruct> } | undefined => {
    const at = PACKAGES.find((p) => name.startsWith(p.prefix));
    if (!at) return undefined;
    const key = name.slice(0, name.lastIndexOf('.'));
    let structs = packages.get(key);
    if (!structs) {
      const dir = at.dir(key.slice(at.prefix.length).replace(/^\./, ''));
      structs = parseGoStructs(packageSources(`${mirrors}/${at.repo}/repo`, tags[at.repo] ?? tags.default, dir));
      packages.set(key, structs);
    }
    return { key, structs };
  };
  const fieldsOf = (name: string): string[] | undefined => {
    const pkg = packageOf(name);
    const struct = pkg?.structs.get(name.slice(name.lastIndexOf('.') + 1));
    if (!pkg || !struct) return undefined;
    // an inline struct is the same package's, or (qualified: `metav1.TypeMeta`) meta/v1's
    const inlined = struct.inline.flatMap((goType) => {
      const local = goType.replace(/^\*/, '');
      const target = local.includes('.')
        ? `io.k8s.apimachinery.pkg.apis.meta.v1.${local.split('.')[1]}`
        : `${pkg.key}.${local}`;
      const fields = fieldsOf(target);
      if (!fields) throw new Error(`${name}: inline ${goType} not found (as ${target})`);
      return fields;
    });
    return [...struct.fields, ...inlined];
  };
  const schemas: Record<string, any> = {};
  for (const name of names) {
    const fields = fieldsOf(name);
    if (fields) schemas[name] = { properties: Object.fromEntries(fields.map((f) => [f, true])) };
  }
  return schemas;
}

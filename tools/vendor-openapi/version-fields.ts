/**
 * Writes lib/apiserver/admission-policy/builtin-fields-by-version.ts: for every supported version but 1.32, the
 * properties of the built-in schemas vendored from 1.32 (builtin-openapi.json) that the version's OpenAPI does not
 * have (the fields a version does not know: server-side apply and kubectl's strict validation refuse them there).
 * 1.28 and 1.36 are read from the real apiservers that ../shared/k8s/install.sh --version 1.28|1.36 unpacks; the
 * versions between, which have no apiserver here, from upstream's OpenAPI at their release tag
 * (kubernetes/kubernetes api/openapi-spec/swagger.json at v1.N.0; `UPSTREAM_OPENAPI_DIR` may hold local copies as
 * v1.N.0.json, e.g. cdk8s-team/cdk8s kubernetes-schemas/v1.N.0/_definitions.json, the same definitions). Upstream's
 * answer for 1.28 and 1.36 must equal their apiservers' or nothing is written: `npx projen vendor-openapi-versions`.
 *
 * 1.37 has neither an apiserver here nor a reachable OpenAPI document: its properties are read from the Go types
 * upstream's OpenAPI is generated from (`go-types.ts`: k8s.io/api, apimachinery, apiextensions-apiserver and
 * kube-aggregator at `GO_TYPES_1_37`'s tags, from the `fetch` tool's mirrors in `UPSTREAM_MIRRORS`, default
 * /work/.mirror). The reader must first give the vendored v1.32.13 schemas' exact properties from the v0.32.13 Go
 * types, and 1.36.3's apiserver's answer from the v0.36.3 Go types. `--only 1.37` rewrites that entry alone and keeps
 * the others (no apiserver started, nothing downloaded).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { getJsonFrom } from './extract';
import { commitOf, goSchemasOf, RepoTags, reposOf } from './go-types';
import { VENDORED_OPENAPI } from './main';
import { BUILTIN_FIELDS_MISSING } from '../../lib/apiserver/admission-policy/builtin-fields-by-version';
import { ControlPlane } from '../../runtime/envtest';

export const FIELDS_BY_VERSION = join(__dirname, '../../lib/apiserver/admission-policy/builtin-fields-by-version.ts');

async function schemasOf(version: string): Promise<{ serverVersion: string; schemas: Record<string, any> }> {
  const out = execFileSync('bash', [join(__dirname, '../../../shared/k8s/install.sh'), '--version', version], {
    encoding: 'utf8',
  })
    .trim()
    .split('\n');
  const plane = await ControlPlane.start({ assetsDir: out[out.length - 1] });
  try {
    const get = getJsonFrom(plane);
    // every group-version document's component schemas, their properties merged (1.28's documents do not agree on
    // every shared schema's details, only the property names matter here)
    const schemas: Record<string, { properties: Record<string, true> }> = {};
    const index = await get('/openapi/v3');
    for (const doc of Object.keys(index.paths).filter((p) => /^(api\/v1|apis\/[^/]+\/[^/]+)$/.test(p))) {
      for (const [name, schema] of Object.entries<any>((await get(`/openapi/v3/${doc}`)).components?.schemas ?? {})) {
        const merged = (schemas[name] ??= { properties: {} });
        for (const p of Object.keys(schema.properties ?? {})) merged.properties[p] = true;
      }
    }
    return { serverVersion: (await get('/version')).gitVersion, schemas };
  } finally {
    await plane.stop();
  }
}

/** The definitions of upstream's OpenAPI (swagger 2.0) at the release tag `v${version}.0`. */
async function upstreamSchemasOf(version: string): Promise<{ serverVersion: string; schemas: Record<string, any> }> {
  const tag = `v${version}.0`;
  const dir = process.env.UPSTREAM_OPENAPI_DIR;
  const url = `https://raw.githubusercontent.com/kubernetes/kubernetes/${tag}/api/openapi-spec/swagger.json`;
  const text = dir ? readFileSync(join(dir, `${tag}.json`), 'utf8') : await (await fetch(url)).text();
  const definitions = JSON.parse(text).definitions;
  if (!definitions) throw new Error(`${dir ? join(dir, `${tag}.json`) : url}: no definitions`);
  return { serverVersion: `${tag} (upstream api/openapi-spec)`, schemas: definitions };
}

/**
 * The tags 1.37 is read at. v1.37.0 (2026-08-26) is newer than the mirrors' snapshots (July 2026): k8s.io/api,
 * apimachinery and apiextensions-apiserver are read at v0.37.0-beta.0 (code freeze), kube-aggregator, whose mirror
 * stops earlier, at v0.37.0-alpha.2.
 */
const GO_TYPES_1_37: RepoTags = { default: 'v0.37.0-beta.0', 'kubernetes+kube-aggregator': 'v0.37.0-alpha.2' };

/** The properties of `names` read from the Go types at `tags`, and where they were read. */
function goTypesSchemasOf(tags: RepoTags, names: readonly string[]) {
  const mirrors = process.env.UPSTREAM_MIRRORS ?? '/work/.mirror';
  const sources = reposOf(names).map((repo) => {
    const tag = tags[repo] ?? tags.default;
    return `${repo.replace('+', '/')}@${tag} (${commitOf(`${mirrors}/${repo}/repo`, tag).slice(0, 12)})`;
  });
  return { serverVersion: `Go types: ${sources.join(', ')}`, schemas: goSchemasOf(mirrors, tags, names) };
}

/** 1.37's entry, after checking the Go-types reader against 1.32.13's vendored schemas and 1.36.3's apiserver. */
function goTypesEntry(base: Record<string, any>, apiserver136: Record<string, string[]>) {
  const names = Object.keys(base);
  const at132 = goTypesSchemasOf({ default: 'v0.32.13' }, names).schemas;
  const differing = names.filter((n) => {
    const want = Object.keys(base[n]?.properties ?? {}).sort();
    const got = Object.keys(at132[n]?.properties ?? {}).sort();
    return JSON.stringify(want) !== JSON.stringify(got);
  });
  if (differing.length > 0) throw new Error(`the Go types at v0.32.13 differ from the vendored OpenAPI: ${differing}`);
  const at136 = missingFrom(
    base,
    goTypesSchemasOf({ default: 'v0.36.3', 'kubernetes+kube-aggregator': 'v0.36.2' }, names).schemas,
  );
  if (JSON.stringify(at136) !== JSON.stringify(apiserver136)) {
    throw new Error(
      `1.36: the Go types and the apiserver differ:\n${JSON.stringify({ goTypes: at136, apiserver: apiserver136 })}`,
    );
  }
  const at137 = goTypesSchemasOf(GO_TYPES_1_37, names);
  return { serverVersion: at137.serverVersion, missing: missingFrom(base, at137.schemas) };
}

function missingFrom(base: Record<string, any>, other: Record<string, any>): Record<string, string[]> {
  const missing: Record<string, string[]> = {};
  for (const [name, schema] of Object.entries(base).sort(([a], [b]) => (a < b ? -1 : 1))) {
    const theirs = other[name];
    const props = Object.keys(schema?.properties ?? {});
    const lacking = theirs === undefined ? ['*'] : props.filter((p) => !(p in (theirs.properties ?? {})));
    if (lacking.length > 0) missing[name] = lacking.sort();
  }
  return missing;
}

async function main(only: readonly string[]): Promise<void> {
  const base = JSON.parse(readFileSync(VENDORED_OPENAPI, 'utf8')) as {
    serverVersion: string;
    schemas: Record<string, any>;
  };
  const result: Record<string, { serverVersion: string; missing: Record<string, string[]> }> = {};
  if (only.length > 0) {
    if (only.some((v) => v !== '1.37')) throw new Error(`--only: 1.37 alone can be rewritten alone, not ${only}`);
    Object.assign(result, JSON.parse(JSON.stringify(BUILTIN_FIELDS_MISSING)));
    result['1.37'] = goTypesEntry(base.schemas, result['1.36'].missing);
    return write(base.serverVersion, result);
  }
  for (const version of ['1.28', '1.36']) {
    const other = await schemasOf(version);
    const missing = missingFrom(base.schemas, other.schemas);
    // upstream's definitions must say what the apiserver says, where both are known
    const upstream = missingFrom(base.schemas, (await upstreamSchemasOf(version)).schemas);
    if (JSON.stringify(upstream) !== JSON.stringify(missing)) {
      throw new Error(
        `${version}: upstream's OpenAPI and the apiserver's differ:\n${JSON.stringify({ upstream, apiserver: missing })}`,
      );
    }
    result[version] = { serverVersion: other.serverVersion, missing };
  }
  for (const version of ['1.29', '1.30', '1.31', '1.33', '1.34', '1.35']) {
    const other = await upstreamSchemasOf(version);
    result[version] = { serverVersion: other.serverVersion, missing: missingFrom(base.schemas, other.schemas) };
  }
  result['1.37'] = goTypesEntry(base.schemas, result['1.36'].missing);
  write(base.serverVersion, result);
}

function write(
  baseVersion: string,
  result: Record<string, { serverVersion: string; missing: Record<string, string[]> }>,
): void {
  const ordered = Object.fromEntries(
    Object.entries(result).sort(([a], [b]) => Number(a.split('.')[1]) - Number(b.split('.')[1])),
  );
  writeFileSync(
    FIELDS_BY_VERSION,
    [
      '// Generated by tools/vendor-openapi/version-fields.ts (npx projen vendor-openapi-versions): do not edit. 1.28 and 1.36 from the',
      "// real apiservers (upstream's OpenAPI agrees with them), the versions between from upstream's OpenAPI at their release tag,",
      "// 1.37 from the Go types upstream's OpenAPI is generated from (the tags and commits in its serverVersion).",
      `// The properties of the built-in schemas of ${baseVersion} (builtin-openapi.json) that another version's OpenAPI v3 lacks ('*': the whole schema).`,
      '',
      '/** @internal */',
      `export const BUILTIN_FIELDS_MISSING: { readonly [version: string]: { readonly serverVersion: string; readonly missing: { readonly [schema: string]: readonly string[] } } } = ${JSON.stringify(
        ordered,
        null,
        2,
      )
        .replace(/"([A-Za-z_$][\w$]*)":/g, '$1:')
        .replace(/"/g, "'")};`,
      '',
    ].join('\n'),
  );
  console.log(FIELDS_BY_VERSION);
}

if (require.main === module) {
  const at = process.argv.indexOf('--only');
  main(at >= 0 ? process.argv.slice(at + 1) : []).catch((e) => {
    console.error(e);
    process.exit(1);
  });
}

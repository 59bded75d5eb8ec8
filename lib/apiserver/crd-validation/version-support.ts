import { decodingKey } from './crd-decoding';
import { SchemaCheckMemo } from './schema-check-memo';
import { child, forbidden, index, isObject } from '../../apimachinery/field';
import { errorsOf, Issue } from '../../apimachinery/issue';
import {
  costModelOf,
  DEFAULT_KUBERNETES_VERSION,
  firstVersionWith,
  KUBERNETES_VERSIONS,
  KubernetesVersion,
  since,
} from '../../apimachinery/kubernetes-versions';
import { missingCelLibraries } from '../cel/check-rules';
import { CEL_LIBRARIES, celEnvironment, CelLibrary, firstVersionWithCel } from '../cel/environment';
import { CrdManifest } from '../crd-manifest';
import { JSONSchemaProps } from '../schema/json-schema-props';

/**
 * What a CRD needs of the Kubernetes versions it targets: fields older apiservers do not know (`selectableFields`,
 * `optionalOldSelf`), CEL functions and syntax outside an older version's environment for new rules, and rules over
 * an older version's CEL cost budget (1.28 estimates higher: see the cost changes of `APISERVER_CHANGES`). Each
 * finding is an error naming the versions of `versions` it fails on and the first version that has the feature.
 *
 * The CEL environments are `celEnvironment`'s (lib/apiserver/cel/environment.ts): the one type checker compiles each
 * rule with each environment of the range. `memo`: one for the manifest shared by the calls of one caller (and
 * `validateCrdManifest`'s), so that each schema is checked and each version's rules compiled once.
 *
 * @internal
 */
export function checkCrdForVersions(
  manifest: CrdManifest,
  versions: readonly KubernetesVersion[],
  memo = new SchemaCheckMemo(),
): Issue[] {
  return versionFindings(manifest, versions, memo).map(issueOf);
}

/**
 * The problems of a CRD across the app's range: `newest` (what the newest version reports of it, in its words) and
 * what {@link checkCrdForVersions} finds that the newest does not, one mistake counted once. Where versions word a
 * newest version's error otherwise (a higher cost figure for the same rule or schema; another compile error at the
 * same place of an expression, such as `undeclared reference` where a library is missing), its line names the older
 * wording after it (`(on Kubernetes 1.28 worded: …)`) instead of a second line.
 *
 * @internal
 */
export function crdIssuesForVersions(
  manifest: CrdManifest,
  versions: readonly KubernetesVersion[],
  memo: SchemaCheckMemo,
  newest: readonly Issue[],
): Issue[] {
  // the errors of the newest version a finding may reword, by key; each gets the older wordings in range order
  const reworded = new Map<string, string[]>();
  for (const i of errorsOf(newest)) for (const key of rewordKeys(i)) reworded.set(key, []);
  const rest: Issue[] = [];
  for (const f of versionFindings(manifest, versions, memo)) {
    if (f.kind === 'cost') {
      const key = costKey(f.issue);
      if (reworded.has(key)) {
        reworded.get(key)!.push(`on Kubernetes ${f.versions.join(', ')} worded: ${withoutAdvice(f.issue.message)}`);
      } else {
        rest.push(issueOf(f));
      }
    } else if (f.kind === 'compile') {
      const own = f.errors.filter((e) => !reworded.has(compileKey(f.path, e)));
      // what the versions lack goes with their own line, or with the wording when they have none
      const needs = own.length === 0 ? libraryNeeds(f.missing) : [];
      for (const e of f.errors.filter((x) => !own.includes(x))) {
        const also = needs.map((n) => `; ${n}`).join('');
        reworded.get(compileKey(f.path, e))!.push(`on Kubernetes ${f.versions.join(', ')} worded: ${e}${also}`);
      }
      if (own.length > 0) rest.push(issueOf({ ...f, errors: own }));
    } else if (!newest.some((i) => i.path === f.issue.path && i.message === f.issue.message)) {
      // a range of one older version: its decoding's findings are the check's own
      rest.push(issueOf(f));
    }
  }
  const merged = newest.map((i) => {
    const wordings = rewordKeys(i).flatMap((k) => ((i.severity ?? 'error') === 'error' ? (reworded.get(k) ?? []) : []));
    return wordings.length === 0 ? i : { ...i, message: `${i.message} (${wordings.join('; ')})` };
  });
  return [...merged, ...rest];
}

/** What the range adds to a CRD's check, before it becomes issues. */
type VersionFinding =
  | { readonly kind: 'other'; readonly issue: Issue }
  /** A cost refusal the default version's estimate does not make, as the versions' shared cost model words it. */
  | { readonly kind: 'cost'; readonly issue: Issue; readonly versions: readonly KubernetesVersion[] }
  /** Compile errors of one expression the newest version does not make. */
  | {
      readonly kind: 'compile';
      readonly path: string;
      readonly value: unknown;
      readonly errors: readonly string[];
      readonly missing: ReadonlySet<CelLibrary>;
      readonly versions: readonly KubernetesVersion[];
    };

function issueOf(f: VersionFinding): Issue {
  if (f.kind === 'other') return f.issue;
  if (f.kind === 'cost') {
    return {
      ...f.issue,
      message: `Forbidden: fails on Kubernetes ${f.versions.join(', ')}, whose CEL cost estimate is higher: ${f.issue.message.replace(/^Forbidden: /, '')}`,
    };
  }
  const needs = libraryNeeds(f.missing);
  return {
    path: f.path,
    message:
      `Invalid value: ${JSON.stringify(f.value)}: compilation fails on Kubernetes ${f.versions.join(', ')}: ${f.errors.join('; ')}` +
      (needs.length > 0 ? ` (${needs.join('; ')})` : ''),
    value: f.value,
  };
}

function libraryNeeds(missing: ReadonlySet<CelLibrary>): string[] {
  return [...missing].map(
    (l) => `${CEL_LIBRARIES[l].what} is in the CEL environment of new expressions from ${firstVersionWithCel(l)}`,
  );
}

/** A cost message without the apiserver's advice, which the newest version's line already gives. */
function withoutAdvice(message: string): string {
  return message.replace(/ \(try simplifying[^)]*\)$/, '');
}

/** A cost refusal's field and kind, without its figure. */
function costKey(issue: Issue): string {
  return `cost\u0000${issue.path}\u0000${issue.message.replace(/by factor of (more than 100x|[\d.]+x)/, '')}`;
}

/** A compile error's expression and place (`<input>:line:column`); the whole error when it names none. */
function compileKey(path: string, error: string): string {
  return `compile\u0000${path}\u0000${/<input>:\d+:\d+/.exec(error)?.[0] ?? error}`;
}

/** The keys under which a newest-version error can be reworded by an older version. */
function rewordKeys(issue: Issue): string[] {
  if (isCostIssue(issue)) return [costKey(issue)];
  const compiled = /^Invalid value: (?:messageExpression )?compilation failed: ([\s\S]*)$/.exec(issue.message);
  return compiled ? [compileKey(issue.path, compiled[1])] : [];
}

function versionFindings(
  manifest: CrdManifest,
  versions: readonly KubernetesVersion[],
  memo: SchemaCheckMemo,
): VersionFinding[] {
  const findings: VersionFinding[] = [];
  // what the apiserver cannot decode it answers before any of this (validateCrdManifest reports it); the rest is
  // checked as decoded (a `default: null` is no default)
  const { decoded, issues: decoding } = memo.decodedCrd(manifest);
  if (decoding.length > 0) return findings;
  // versions whose types lack a field refuse it as unknown, or drop it where decoding is lenient (crd-decoding.ts):
  // their rules are checked as they decode them
  const decodedBy = new Map<KubernetesVersion, CrdManifest>();
  for (const [typesKey, members] of groupVersions(versions, decodingKey)) {
    if (typesKey === '') continue;
    const older = memo.decodedCrd(manifest, members);
    findings.push(...[...older.issues, ...older.ignored].map((issue) => ({ kind: 'other' as const, issue })));
    for (const v of members) decodedBy.set(v, older.decoded);
  }
  const crdVersions: any[] = Array.isArray(decoded.spec?.versions) ? decoded.spec.versions : [];
  crdVersions.forEach((version, i) => {
    if (!isObject(version)) return;
    const base = index('spec.versions', i);
    if (Array.isArray(version.selectableFields) && version.selectableFields.length > 0) {
      const failing = versions.filter((v) => !since(v, 'selectableFields'));
      if (failing.length > 0) {
        findings.push({
          kind: 'other',
          issue: {
            path: child(base, 'selectableFields'),
            message:
              `Forbidden: fails on Kubernetes ${failing.join(', ')}: selectableFields needs ${firstVersionWith('selectableFields')} or newer ` +
              '(1.30 has it only behind the CustomResourceFieldSelectors feature gate; older apiservers refuse it in server-side apply: field not declared in schema)',
          },
        });
      }
    }
    const schema = version.schema?.openAPIV3Schema;
    if (isObject(schema)) {
      const schemaPath = child(base, 'schema', 'openAPIV3Schema');
      const refusingFalse = versions.filter((v) => !since(v, 'additionalPropertiesFalseInJunctors'));
      if (refusingFalse.length > 0) {
        for (const at of junctorAdditionalPropertiesFalse(schema, schemaPath, false)) {
          findings.push({
            kind: 'other',
            issue: forbidden(
              at,
              `must be undefined to be structural on Kubernetes ${refusingFalse.join(', ')} (${firstVersionWith('additionalPropertiesFalseInJunctors')} accepts additionalProperties: false in allOf, anyOf, oneOf and not)`,
            ),
          });
        }
      }
      const refusingDocs = versions.filter((v) => since(v, 'metadataDocKeywordsRefused'));
      const metadata = (schema as any).properties?.metadata;
      const docKeywords = isObject(metadata) ? ['example', 'externalDocs'].filter((k) => metadata[k] != null) : [];
      if (refusingDocs.length > 0 && docKeywords.length > 0) {
        findings.push({
          kind: 'other',
          issue: forbidden(
            `${schemaPath}.properties[metadata]`,
            `must not specify anything other than name and generateName, but metadata is implicitly specified (found ${docKeywords.join(', ')}) on Kubernetes ${refusingDocs.join(', ')} (1.32 and older accept it)`,
          ),
        });
      }
      const schemaOf = (v: KubernetesVersion) =>
        ((decodedBy.get(v) ?? decoded).spec?.versions?.[i]?.schema?.openAPIV3Schema ?? schema) as JSONSchemaProps;
      findings.push(...celEnvironmentsFor(schemaOf, schemaPath, versions, memo));
      findings.push(...costsForVersions(schemaOf, schemaPath, versions, memo));
    }
  });
  return findings;
}

/**
 * The CEL cost limits as each version estimates them: the rules are costed once per cost model of the range
 * (`costModelOf`: versions whose estimates are equal share one), and each refusal the default version's estimate does
 * not make is reported with the versions that make it, in their wording. Only for schemas whose rules the apiserver
 * checks at all (no structural errors: `validateCrdManifest` reports those).
 */
function costsForVersions(
  schemaOf: (v: KubernetesVersion) => JSONSchemaProps,
  schemaPath: string,
  versions: readonly KubernetesVersion[],
  memo: SchemaCheckMemo,
): VersionFinding[] {
  const schema = schemaOf(DEFAULT_KUBERNETES_VERSION);
  // versions that decode the schema otherwise are costed apart
  const modelOf = (v: KubernetesVersion) =>
    schemaOf(v) === schema ? costModelOf(v) : `${costModelOf(v)}, decoded otherwise`;
  const others = versions.filter((v) => modelOf(v) !== costModelOf(DEFAULT_KUBERNETES_VERSION));
  if (others.length === 0) return [];
  if (errorsOf(memo.structuralIssues(schema, schemaPath)).length > 0) return [];
  const key = (i: Issue) => `${i.path}\n${i.message}`;
  const byDefault = new Set(errorsOf(memo.celRuleIssues(schema, schemaPath, DEFAULT_KUBERNETES_VERSION)).map(key));
  const found = new Map<string, { issue: Issue; versions: KubernetesVersion[] }>();
  for (const members of groupVersions(others, modelOf).values()) {
    for (const issue of errorsOf(memo.celRuleIssues(schemaOf(members[0]), schemaPath, members[0]))) {
      if (byDefault.has(key(issue)) || !isCostIssue(issue)) continue;
      const entry = found.get(key(issue)) ?? { issue, versions: [] };
      entry.versions.push(...members);
      found.set(key(issue), entry);
    }
  }
  return [...found.values()].map(({ issue, versions: failing }) => ({ kind: 'cost', issue, versions: failing }));
}

function isCostIssue(issue: Issue): boolean {
  return /estimated (rule|messageExpression) cost|rule cost total/.test(issue.message);
}

/** The paths of `additionalProperties: false` inside a junctor (allOf, anyOf, oneOf, not) of a schema. */
function junctorAdditionalPropertiesFalse(s: any, path: string, inJunctor: boolean): string[] {
  if (!isObject(s)) return [];
  const out: string[] =
    inJunctor && (s as any).additionalProperties === false ? [child(path, 'additionalProperties')] : [];
  for (const [name, sub] of Object.entries((s as any).properties ?? {})) {
    out.push(...junctorAdditionalPropertiesFalse(sub, `${path}.properties[${name}]`, inJunctor));
  }
  if (isObject((s as any).items)) {
    out.push(...junctorAdditionalPropertiesFalse((s as any).items, `${path}.items`, inJunctor));
  }
  if (isObject((s as any).additionalProperties)) {
    out.push(
      ...junctorAdditionalPropertiesFalse((s as any).additionalProperties, `${path}.additionalProperties`, inJunctor),
    );
  }
  for (const junctor of ['allOf', 'anyOf', 'oneOf'] as const) {
    const subs = (s as any)[junctor];
    if (Array.isArray(subs)) {
      subs.forEach((sub, i) =>
        out.push(...junctorAdditionalPropertiesFalse(sub, index(child(path, junctor), i), true)),
      );
    }
  }
  if ((s as any).not !== undefined) {
    out.push(...junctorAdditionalPropertiesFalse((s as any).not, child(path, 'not'), true));
  }
  return out;
}

/**
 * The CEL environment of each version (`celEnvironment`): the rules are compiled once per environment of the range
 * by the one type checker, and each expression with compile errors the newest version does not make is reported with
 * the versions that make them, the errors in cel-go's wording (the newest failing version's), and the libraries the
 * versions lack (`CEL_LIBRARIES`). Only for schemas whose rules the
 * apiserver checks at all (no structural errors).
 */
function celEnvironmentsFor(
  schemaOf: (v: KubernetesVersion) => JSONSchemaProps,
  schemaPath: string,
  versions: readonly KubernetesVersion[],
  memo: SchemaCheckMemo,
): VersionFinding[] {
  const newest = KUBERNETES_VERSIONS[KUBERNETES_VERSIONS.length - 1];
  const schema = schemaOf(newest);
  // versions that decode the schema otherwise are compiled apart
  const envOf = (v: KubernetesVersion) =>
    schemaOf(v) === schema ? celEnvironment(v).key : `${celEnvironment(v).key}, decoded otherwise`;
  const others = versions.filter((v) => envOf(v) !== celEnvironment(newest).key);
  if (others.length === 0) return [];
  if (errorsOf(memo.structuralIssues(schema, schemaPath)).length > 0) return [];
  const key = (i: Issue) => `${i.path}\n${i.message}`;
  const byNewest = new Set(errorsOf(memo.celRuleIssues(schema, schemaPath, newest)).map(key));
  // per expression: the versions it fails on, their errors and what they lack
  const found = new Map<
    string,
    { path: string; value: unknown; errors: string[]; missing: Set<CelLibrary>; versions: KubernetesVersion[] }
  >();
  for (const members of groupVersions(others, envOf).values()) {
    const byPath = new Map<string, { value: unknown; errors: string[]; missing: Set<CelLibrary> }>();
    for (const issue of errorsOf(memo.celRuleIssues(schemaOf(members[0]), schemaPath, members[0]))) {
      if (byNewest.has(key(issue)) || !/compilation failed: /.test(issue.message)) continue;
      const entry = byPath.get(issue.path) ?? { value: issue.value, errors: [], missing: new Set<CelLibrary>() };
      entry.errors.push(issue.message.replace(/^Invalid value: (messageExpression )?compilation failed: /, ''));
      missingCelLibraries(issue).forEach((l) => entry.missing.add(l));
      byPath.set(issue.path, entry);
    }
    // one issue per expression, with every version it fails on and the errors of the newest of them (the versions'
    // groups come oldest first)
    for (const [path, entry] of byPath) {
      const known = found.get(path) ?? { path, ...entry, versions: [] };
      known.versions.push(...members);
      known.errors = entry.errors;
      entry.missing.forEach((l) => known.missing.add(l));
      found.set(path, known);
    }
  }
  return [...found.values()].map((f) => ({ kind: 'compile', ...f }));
}

/** `versions` grouped by `keyOf`, each group in the order of `versions` (oldest first). */
function groupVersions(
  versions: readonly KubernetesVersion[],
  keyOf: (v: KubernetesVersion) => string,
): Map<string, KubernetesVersion[]> {
  const groups = new Map<string, KubernetesVersion[]>();
  for (const v of versions) groups.set(keyOf(v), [...(groups.get(keyOf(v)) ?? []), v]);
  return groups;
}

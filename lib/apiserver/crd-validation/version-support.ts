import { costModelOf, DEFAULT_KUBERNETES_VERSION, firstVersionWith, KubernetesVersion, minorOf, since } from '../../apimachinery/kubernetes-versions';
import { child, index, isObject } from '../../apimachinery/field';
import { errorsOf, Issue } from '../../apimachinery/issue';
import { checkCelRules } from '../cel/check-rules';
import { CrdManifest } from '../crd-manifest';
import { JSONSchemaProps } from '../schema/json-schema-props';
import { checkListAndMapTypes } from './list-map-types';
import { checkStructuralSchema } from './structural-schema';

/**
 * What a CRD needs of the Kubernetes versions it targets: fields older apiservers do not know (`selectableFields`,
 * `optionalOldSelf`), CEL functions and syntax outside an older version's environment for new rules, and rules over
 * an older version's CEL cost budget (1.28 estimates higher: see the cost changes of `APISERVER_CHANGES`). Each
 * finding is an error naming the versions of `versions` it fails on and the first version that has the feature.
 *
 * The CEL environment for new expressions of Kubernetes 1.N is the one of 1.(N-1) (compatibility version): a library
 * introduced in 1.N is accepted in new rules from 1.(N+1). Measured on the real apiservers (1.28 refuses
 * `quantity()`, `sets.*`, `format.*`, optional syntax, `strings.quote`, but accepts `ip()`/`cidr()`; 1.32 accepts them but refuses two-variable
 * comprehensions, `semver` and the `lists` extension, which 1.36 accepts). Where between 1.29 and 1.35 a library
 * arrives follows upstream's `staging/src/k8s.io/apiserver/pkg/cel/environment/base.go` as far as known here; those
 * versions have no real apiserver in the suites.
 *
 * @internal
 */
export function checkCrdForVersions(manifest: CrdManifest, versions: readonly KubernetesVersion[]): Issue[] {
  const issues: Issue[] = [];
  const crdVersions: any[] = Array.isArray(manifest.spec?.versions) ? manifest.spec.versions : [];
  crdVersions.forEach((version, i) => {
    if (!isObject(version)) return;
    const base = index('spec.versions', i);
    if (Array.isArray(version.selectableFields) && version.selectableFields.length > 0) {
      const failing = versions.filter(v => !since(v, 'selectableFields'));
      if (failing.length > 0) {
        issues.push({
          path: child(base, 'selectableFields'),
          message: `Forbidden: fails on Kubernetes ${failing.join(', ')}: selectableFields needs ${firstVersionWith('selectableFields')} or newer `
            + '(1.30 has it only behind the CustomResourceFieldSelectors feature gate; older apiservers refuse it in server-side apply: field not declared in schema)',
        });
      }
    }
    const schema = version.schema?.openAPIV3Schema;
    if (isObject(schema)) {
      const schemaPath = child(base, 'schema', 'openAPIV3Schema');
      walkRules(schema as JSONSchemaProps, schemaPath, issues, versions);
      issues.push(...costsForVersions(schema as JSONSchemaProps, schemaPath, versions));
    }
  });
  return issues;
}

/**
 * The CEL cost limits as each version estimates them: the rules are costed once per cost model of the range
 * (`costModelOf`: versions whose estimates are equal share one), and each refusal the default version's estimate does
 * not make is reported with the versions that make it, in their wording. Only for schemas whose rules the apiserver
 * checks at all (no structural errors: `validateCrdManifest` reports those).
 */
function costsForVersions(schema: JSONSchemaProps, schemaPath: string, versions: readonly KubernetesVersion[]): Issue[] {
  const others = versions.filter(v => costModelOf(v) !== costModelOf(DEFAULT_KUBERNETES_VERSION));
  if (others.length === 0) return [];
  if (errorsOf([...checkStructuralSchema(schema, schemaPath), ...checkListAndMapTypes(schema, schemaPath)]).length > 0) return [];
  const key = (i: Issue) => `${i.path}\n${i.message}`;
  const byDefault = new Set(errorsOf(checkCelRules(schema, schemaPath)).map(key));
  const found = new Map<string, { issue: Issue; versions: KubernetesVersion[] }>();
  const models = new Map<string, KubernetesVersion[]>();
  for (const v of others) models.set(costModelOf(v), [...(models.get(costModelOf(v)) ?? []), v]);
  for (const members of models.values()) {
    for (const issue of errorsOf(checkCelRules(schema, schemaPath, members[0]))) {
      if (byDefault.has(key(issue)) || !isCostIssue(issue)) continue;
      const entry = found.get(key(issue)) ?? { issue, versions: [] };
      entry.versions.push(...members);
      found.set(key(issue), entry);
    }
  }
  return [...found.values()].map(({ issue, versions: failing }) => ({
    ...issue,
    message: `Forbidden: fails on Kubernetes ${failing.join(', ')}, whose CEL cost estimate is higher: ${issue.message.replace(/^Forbidden: /, '')}`,
  }));
}

function isCostIssue(issue: Issue): boolean {
  return /estimated (rule|messageExpression) cost|rule cost total/.test(issue.message);
}

function walkRules(s: JSONSchemaProps, path: string, issues: Issue[], versions: readonly KubernetesVersion[]): void {
  const rules = s['x-kubernetes-validations'];
  if (Array.isArray(rules)) {
    rules.forEach((rule, i) => {
      if (!isObject(rule)) return;
      const at = `${path}.x-kubernetes-validations[${i}]`;
      if (rule.optionalOldSelf === true) {
        const failing = versions.filter(v => !since(v, 'optionalOldSelf'));
        if (failing.length > 0) {
          issues.push({
            path: `${at}.optionalOldSelf`,
            message: `Forbidden: fails on Kubernetes ${failing.join(', ')}: optionalOldSelf needs ${firstVersionWith('optionalOldSelf')} or newer (an unknown field before)`,
          });
        }
      }
      for (const expression of [rule.rule, rule.messageExpression]) {
        if (typeof expression !== 'string') continue;
        for (const use of celFeaturesOf(expression)) {
          const failing = versions.filter(v => minorOf(v) < use.from);
          if (failing.length === 0) continue;
          const field = expression === rule.rule ? 'rule' : 'messageExpression';
          issues.push({
            path: `${at}.${field}`,
            message: `Invalid value: ${JSON.stringify(expression)}: compilation fails on Kubernetes ${failing.join(', ')}: ${use.error} `
              + `(${use.feature} is in the CEL environment of new CRD rules from 1.${use.from})`,
            value: expression,
          });
        }
      }
    });
  }
  for (const [key, sub] of Object.entries(s.properties ?? {})) if (isObject(sub)) walkRules(sub, `${path}.properties[${key}]`, issues, versions);
  if (isObject(s.items)) walkRules(s.items as JSONSchemaProps, `${path}.items`, issues, versions);
  if (isObject(s.additionalProperties)) walkRules(s.additionalProperties as JSONSchemaProps, `${path}.additionalProperties`, issues, versions);
  for (const key of ['allOf', 'anyOf', 'oneOf'] as const) {
    (s[key] ?? []).forEach((sub, i) => isObject(sub) && walkRules(sub, `${path}.${key}[${i}]`, issues, versions));
  }
  if (isObject(s.not)) walkRules(s.not as JSONSchemaProps, `${path}.not`, issues, versions);
}

/** A CEL library or syntax, the first version whose new CRD rules accept it, and how the older ones refuse it. */
interface CelFeature {
  readonly feature: string;
  readonly pattern: RegExp;
  readonly from: number;
  readonly error: string;
}

const undeclared = (name: string) => `undeclared reference to '${name}' (in container '')`;
const noOverload = (name: string) => `found no matching overload for '${name}'`;

/** Introduced versions from base.go (a library introduced in 1.N is usable in new rules from 1.(N+1)). */
const CEL_FEATURES: readonly CelFeature[] = [
  { feature: 'the quantity library (quantity(), isQuantity())', pattern: /(?<![\w.])(quantity|isQuantity)\s*\(/, from: 29, error: undeclared('quantity') },
  { feature: 'optional syntax and values (x.?f, x[?k], optional.*)', pattern: /\.\?|\[\?|(?<![\w.])optional\.(of|none|ofNonZeroValue)\s*\(/, from: 29, error: 'unsupported syntax \'?\'' },
  { feature: 'the sets extension (sets.contains, sets.equivalent, sets.intersects)', pattern: /(?<![\w.])sets\.(contains|equivalent|intersects)\s*\(/, from: 30, error: undeclared('sets') },
  { feature: 'the strings extension v2 (strings.quote, format)', pattern: /(?<![\w.])strings\.quote\s*\(|\.format\s*\(\s*\[/, from: 30, error: undeclared('strings.quote') },
  { feature: 'the format library (format.*)', pattern: /(?<![\w.])format\.[a-zA-Z0-9]+\s*\(/, from: 32, error: undeclared('format') },
  { feature: 'two-variable comprehensions (all(i, v, …), transformList, transformMap)', pattern: /\.(all|exists|existsOne|exists_one)\s*\(\s*[A-Za-z_]\w*\s*,\s*[A-Za-z_]\w*\s*,|\.(transformList|transformMap|transformMapEntry)\s*\(/, from: 34, error: noOverload('all') },
  { feature: 'the semver library (semver(), isSemver())', pattern: /(?<![\w.])(semver|isSemver)\s*\(/, from: 34, error: undeclared('semver') },
  { feature: 'the lists extension (lists.range, slice, flatten, distinct, sort, sortBy, first, last)', pattern: /(?<![\w.])lists\.range\s*\(|\.(slice|flatten|distinct|sort|sortBy|first|last)\s*\(/, from: 35, error: undeclared('lists.range') },
];

/** The features an expression uses, read from its text with string literals blanked out. */
function celFeaturesOf(expression: string): CelFeature[] {
  const code = expression.replace(/'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"/g, '""');
  return CEL_FEATURES.filter(f => f.pattern.test(code));
}

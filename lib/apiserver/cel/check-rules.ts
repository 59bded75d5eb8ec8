import { CelType, MAX_REQUEST_SIZE_BYTES, opaque, schemaCelType, typeName } from './cel-types';
import { estimateCost } from './cost-estimate';
import { MAX_UINT64, multiplyWithOverflowGuard } from './cost-units';
import { celEnvironment, CelLibrary } from './environment';
import { resolveFieldPath } from './field-path';
import { SchemaNode, walkSchema } from './schema-walk';
import { CheckedExpression, checkExpression } from './type-checker';
import { typeIdentity } from './type-identity';
import { Issue } from '../../apimachinery/issue';
import { DEFAULT_KUBERNETES_VERSION, KubernetesVersion } from '../../apimachinery/kubernetes-versions';
import { JSONSchemaProps, ValidationRule } from '../schema/json-schema-props';

/** Per-expression limit of the apiserver's static cost estimate (`StaticEstimatedCostLimit`). */
export const RULE_COST_LIMIT = 10_000_000n;
/** Limit for the sum over all rules of one schema (`StaticEstimatedCRDCostLimit`). */
export const SCHEMA_COST_LIMIT = 100_000_000n;

const REASONS = ['FieldValueDuplicate', 'FieldValueForbidden', 'FieldValueInvalid', 'FieldValueRequired'];
const NEWLINES = /[\n\r]/;

/**
 * Static checks of every `x-kubernetes-validations` entry in a CRD version's schema.
 * `basePath` is the field path of `schema` (e.g. `spec.versions[0].schema.openAPIV3Schema`).
 *
 * Each rule is parsed and type-checked against `self` (and `oldSelf` where old and new values can
 * be correlated) typed from the schema, must evaluate to bool, and must stay within the cost
 * budget once multiplied by how often it can run (enclosing lists and maps). Rules calling
 * Kubernetes functions the local CEL library lacks get a warning instead of passing silently.
 * `version`: whose CEL environment (`CEL_LIBRARIES`), cost estimate and sizes apply (they differ between Kubernetes
 * versions, see `APISERVER_CHANGES`).
 */
export function checkCelRules(
  schema: JSONSchemaProps,
  basePath: string,
  version: KubernetesVersion = DEFAULT_KUBERNETES_VERSION,
): Issue[] {
  const issues: Issue[] = [];
  const total = new TotalCost();
  const hasRules = (s: JSONSchemaProps) => s['x-kubernetes-validations'] !== undefined;
  const rulesAt = (path: string) => `${path}.x-kubernetes-validations`;
  // first the entries' own errors (no CEL), every node's
  const entryErrorsAt: string[] = [];
  walkSchema(
    schema,
    basePath,
    (node) => {
      const rules = node.schema['x-kubernetes-validations'];
      if (!rules) return;
      if (!Array.isArray(rules)) {
        issues.push({ path: rulesAt(node.path), message: 'must be a list of validation rules', value: rules });
        return;
      }
      const entries = rules.flatMap((rule: ValidationRule, i: number) =>
        entryIssues(rule, `${rulesAt(node.path)}[${i}]`, node),
      );
      if (entries.length) entryErrorsAt.push(node.path);
      issues.push(...entries);
    },
    hasRules,
  );
  // then the rules compiled, of the nodes with no entry error at or below them: the apiserver skips CEL there
  // (`validateOpenAPISchema`: "If any schema related validation errors have been found at this level or deeper")
  const below = (path: string) => entryErrorsAt.some((p) => p === path || p.startsWith(`${path}.`));
  walkSchema(
    schema,
    basePath,
    (node) => {
      const rules = node.schema['x-kubernetes-validations'];
      if (!Array.isArray(rules) || below(node.path)) return;
      if (!hasCelType(node.schema, node.isRoot)) {
        issues.push({
          path: rulesAt(node.path),
          message: `Internal error: internal error: failed to construct type information for x-kubernetes-validations rules: unable to convert structural schema to CEL declarations`,
        });
        return;
      }
      const self = schemaCelType(
        node.schema,
        node.isRoot || node.schema['x-kubernetes-embedded-resource'] === true,
        version,
      );
      rules.forEach((rule: ValidationRule, i: number) => {
        issues.push(...checkRule(rule, `${rulesAt(node.path)}[${i}]`, node, self, total, version));
      });
    },
    hasRules,
  );
  if (total.total > SCHEMA_COST_LIMIT) {
    for (const expensive of total.mostExpensive) {
      issues.push({
        path: expensive.path,
        message: 'Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema',
      });
    }
    issues.push({
      path: basePath,
      message: `Forbidden: ${costMessage('x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema', total.total, SCHEMA_COST_LIMIT)}`,
    });
  }
  return issues;
}

/**
 * The estimated cost of one expression as the apiserver limits it: its static cost times how often it can run,
 * the product of the enclosing bounds, or when one is missing, as many times as the smallest serialization of
 * `self` fits in a request (`getExpressionCost`, `maxCardinality`).
 */
export function expressionCost(
  checked: CheckedExpression,
  node: SchemaNode,
  self: CelType,
  version: KubernetesVersion = DEFAULT_KUBERNETES_VERSION,
): bigint {
  if (!checked.ast || checked.errors.length > 0) return 0n;
  const cost = staticCost(checked, self, version);
  const cardinality = node.maxCardinality ?? BigInt(Math.floor(MAX_REQUEST_SIZE_BYTES / ((self.minSize ?? 0) + 1)));
  return multiplyWithOverflowGuard(cost, cardinality);
}

/**
 * A rule's type check and static cost depend on its text and the types of its variables only, and CRDs repeat rules
 * on equal types (every version of a schema, shared types): each (rule, type of self, optionalOldSelf) is checked
 * and costed once. What depends on the node (cardinality, oldSelf pairing, fieldPath) is not cached.
 * Entries are found by rule text first and types are compared (`typeIdentity`) only when a text repeats: naming a
 * type walks all of it, which for the rules of a large schema (a 2.7 MB CRD) cost as much as checking them.
 */
const checkedRules = new Map<string, CheckedRule[]>();
interface CheckedRule {
  readonly self: CelType;
  readonly optionalOldSelf: boolean;
  readonly env: string;
  readonly checked: CheckedExpression;
}
let checkedRulesCount = 0;
const staticCosts = new WeakMap<
  CheckedExpression,
  { readonly self: CelType; readonly version: KubernetesVersion; readonly cost: bigint }
>();
const CHECKED_RULES_LIMIT = 10_000;

function checkedRule(
  source: string,
  self: CelType,
  optionalOldSelf: boolean,
  version: KubernetesVersion,
): CheckedExpression {
  const env = celEnvironment(version).key;
  const sameText = checkedRules.get(source);
  const known = sameText?.find((e) => e.optionalOldSelf === optionalOldSelf && e.env === env && sameType(e.self, self));
  if (known) return known.checked;
  const checked = checkExpression(source, { self, oldSelf: optionalOldSelf ? opaque('Optional') : self }, { version });
  if (checkedRulesCount >= CHECKED_RULES_LIMIT) {
    checkedRules.clear();
    checkedRulesCount = 0;
  }
  const entries = checkedRules.get(source) ?? [];
  entries.push({ self, optionalOldSelf, env, checked });
  checkedRules.set(source, entries);
  checkedRulesCount++;
  return checked;
}

function sameType(a: CelType, b: CelType): boolean {
  return a === b || typeIdentity(a) === typeIdentity(b);
}

/** `estimateCost(checked.ast, self).max`, once per checked expression, type of self and version. */
function staticCost(checked: CheckedExpression, self: CelType, version: KubernetesVersion): bigint {
  const known = staticCosts.get(checked);
  if (known && known.version === version && sameType(known.self, self)) return known.cost;
  const cost = estimateCost(checked.ast!, self, undefined, version).max;
  staticCosts.set(checked, { self, version, cost });
  return cost;
}

/** `TotalCost`: the sum over a schema's expressions, and the four most expensive of those above 1% of the limit. */
class TotalCost {
  public total = 0n;
  public mostExpensive: Array<{ path: string; cost: bigint }> = [];

  public observe(path: string, cost: bigint): void {
    this.total = MAX_UINT64 - this.total < cost ? MAX_UINT64 : this.total + cost;
    if (cost < SCHEMA_COST_LIMIT / 100n) return;
    this.mostExpensive.push({ path, cost });
    this.mostExpensive.sort((a, b) => (a.cost > b.cost ? -1 : a.cost < b.cost ? 1 : 0));
    this.mostExpensive.length = Math.min(this.mostExpensive.length, 4);
  }
}

/**
 * Whether CEL can type a node (`SchemaDeclType` is not nil): it has a type, or is an int-or-string, or is the root.
 * An untyped node (`x-kubernetes-preserve-unknown-fields` alone) has none, so its rules cannot be compiled whatever
 * they say: the apiserver refuses them with an internal error at the node's `x-kubernetes-validations` (measured on
 * 1.28, 1.32 and 1.36).
 */
function hasCelType(schema: JSONSchemaProps, isRoot: boolean): boolean {
  return isRoot || !!schema.type || schema['x-kubernetes-int-or-string'] === true;
}

/**
 * The checks of one entry that need no CEL (`validateOpenAPISchema`'s loop over the entries): rule given, message and
 * fieldPath well-formed, reason known.
 */
function entryIssues(rule: ValidationRule, path: string, node: SchemaNode): Issue[] {
  const issues: Issue[] = [];
  // the entry checks, in the apiserver's order and wording (`validateOpenAPISchema`)
  const trimmedRule = typeof rule.rule === 'string' ? rule.rule.trim() : '';
  const message = rule.message ?? '';
  const trimmedMsg = message.trim();
  const at = (field: string) => `${path}.${field}`;
  if (trimmedRule === '') {
    issues.push({ path: at('rule'), message: 'Required value: rule is not specified' });
    return issues;
  } else if (message.length > 0 && trimmedMsg === '') {
    issues.push({
      path: at('message'),
      message: 'Invalid value: message must be non-empty if specified',
      value: message,
    });
  } else if (NEWLINES.test(trimmedMsg)) {
    issues.push({
      path: at('message'),
      message: 'Invalid value: message must not contain line breaks',
      value: message,
    });
  } else if (NEWLINES.test(trimmedRule) && trimmedMsg === '') {
    issues.push({
      path: at('message'),
      message: 'Required value: message must be specified if rule contains line breaks',
    });
  }
  // an empty one is as good as none (measured)
  if (typeof rule.messageExpression === 'string' && rule.messageExpression.trim() === '' && rule.messageExpression) {
    issues.push({
      path: at('messageExpression'),
      message: 'Required value: messageExpression must be non-empty if specified',
    });
  }
  if (rule.reason !== undefined && !REASONS.includes(rule.reason)) {
    issues.push({
      path: at('reason'),
      message: `Unsupported value: ${JSON.stringify(rule.reason)}: supported values: "${REASONS.join('", "')}"`,
      value: rule.reason,
    });
  }
  if (rule.fieldPath !== undefined && rule.fieldPath.length > 0) {
    if (rule.fieldPath.trim() === '') {
      issues.push({
        path: at('fieldPath'),
        message: 'Invalid value: fieldPath must be non-empty if specified',
        value: rule.fieldPath,
      });
    } else if (NEWLINES.test(rule.fieldPath)) {
      issues.push({
        path: at('fieldPath'),
        message: 'Invalid value: fieldPath must not contain line breaks',
        value: rule.fieldPath,
      });
    } else {
      const problem = resolveFieldPath(node.schema, rule.fieldPath).error;
      if (problem) {
        issues.push({
          path: at('fieldPath'),
          message: `Invalid value: fieldPath must be a valid path: ${problem}`,
          value: rule.fieldPath,
        });
      }
    }
  }
  return issues;
}

/** Compiles one entry's rule (and messageExpression) against `self`: types, cost, oldSelf use. */
function checkRule(
  rule: ValidationRule,
  path: string,
  node: SchemaNode,
  self: CelType,
  total: TotalCost,
  version: KubernetesVersion,
): Issue[] {
  const issues: Issue[] = [];
  // with optionalOldSelf, oldSelf is optional (none on create)
  const vars = { self, oldSelf: rule.optionalOldSelf === true ? opaque('Optional') : self };
  const checked = checkedRule(rule.rule, self, rule.optionalOldSelf === true, version);
  for (const error of checked.errors) {
    issues.push(
      withMissing(
        { path: `${path}.rule`, message: `Invalid value: compilation failed: ${error}`, value: rule.rule },
        checked,
      ),
    );
  }
  if (checked.errors.length === 0 && checked.literalError) {
    issues.push(
      withMissing(
        {
          path: `${path}.rule`,
          message: `Invalid value: program instantiation failed: ${checked.literalError}`,
          value: rule.rule,
        },
        checked,
      ),
    );
  }
  if (checked.errors.length === 0 && !['bool', 'dyn'].includes(checked.type.kind)) {
    issues.push({
      path: `${path}.rule`,
      message: `Invalid value: cel expression must evaluate to a bool, got ${typeName(checked.type)}`,
      value: rule.rule,
    });
  }
  if (checked.usesOldSelf && node.uncorrelatablePath !== undefined) {
    issues.push({
      path: `${path}.rule`,
      message: `Invalid value: oldSelf cannot be used on the uncorrelatable portion of the schema within ${node.uncorrelatablePath} (old and new values pair up only through properties, additionalProperties and items of x-kubernetes-list-type: map lists)`,
      value: rule.rule,
    });
  }
  // set at all, false too (measured on 1.32 and 1.36)
  if (rule.optionalOldSelf != null && !checked.usesOldSelf) {
    issues.push({
      path: `${path}.optionalOldSelf`,
      message: 'Invalid value: may not be set if oldSelf is not used in rule',
      value: rule.optionalOldSelf,
    });
  }
  for (const fn of checked.unsupported) {
    issues.push({
      path: `${path}.rule`,
      severity: 'warning',
      message: `not checked locally: function ${fn} is not supported by the local CEL library`,
      value: rule.rule,
    });
  }

  const ruleCost = expressionCost(checked, node, self, version);
  if (ruleCost > RULE_COST_LIMIT) {
    issues.push({
      path: `${path}.rule`,
      message: `Forbidden: ${costMessage('estimated rule cost', ruleCost, RULE_COST_LIMIT)}`,
      value: rule.rule,
    });
  }
  total.observe(`${path}.rule`, ruleCost);
  if (rule.messageExpression !== undefined) {
    if (rule.messageExpression.trim() !== '') {
      const msg = checkExpression(rule.messageExpression, vars, { version });
      for (const error of msg.errors) {
        issues.push(
          withMissing(
            {
              path: `${path}.messageExpression`,
              message: `Invalid value: messageExpression compilation failed: ${error}`,
              value: rule.messageExpression,
            },
            msg,
          ),
        );
      }
      const isString = ['string', 'dyn'].includes(msg.type.kind);
      if (msg.errors.length === 0 && !isString) {
        issues.push({
          path: `${path}.messageExpression`,
          message: `Invalid value: messageExpression must evaluate to a string, got ${typeName(msg.type)}`,
          value: rule.messageExpression,
        });
      }
      for (const fn of msg.unsupported) {
        issues.push({
          path: `${path}.messageExpression`,
          severity: 'warning',
          message: `not checked locally: function ${fn} is not supported by the local CEL library`,
        });
      }
      if (msg.errors.length === 0 && isString) {
        // unlike the rule's, the apiserver does not multiply this cost by the cardinality
        const msgCost = estimateCost(msg.ast!, self, undefined, version).max;
        if (msgCost > RULE_COST_LIMIT) {
          issues.push({
            path: `${path}.messageExpression`,
            message: `Forbidden: ${costMessage('estimated messageExpression cost', msgCost, RULE_COST_LIMIT)}`,
          });
        }
        total.observe(`${path}.messageExpression`, msgCost);
      }
    }
  }
  return issues;
}

const missingLibraries = new WeakMap<Issue, readonly CelLibrary[]>();

function withMissing(issue: Issue, checked: CheckedExpression): Issue {
  if (checked.missing && checked.missing.length > 0) missingLibraries.set(issue, checked.missing);
  return issue;
}

/**
 * The libraries of `CEL_LIBRARIES` whose absence from the checked version's environment made a compile error of
 * `checkCelRules` (empty for other issues).
 */
export function missingCelLibraries(issue: Issue): readonly CelLibrary[] {
  return missingLibraries.get(issue) ?? [];
}

/** The apiserver's wording (`getCostErrorMessage`), with Go's `%f` / `%.1f` rounding. */
export function costMessage(what: string, cost: bigint, limit: bigint): string {
  const factor = Number(cost) / Number(limit);
  const shown = factor > 100 ? 'more than 100x' : factor < 1.5 ? `${formatGo(factor, 6)}x` : `${formatGo(factor, 1)}x`;
  return `${what} exceeds budget by factor of ${shown} (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`;
}

/**
 * Go's fixed-point formatting of a float64: the exact binary value correctly rounded, like toFixed, except that a
 * value exactly halfway rounds to even (toFixed rounds it up). toFixed with many digits shows the exact expansion.
 */
function formatGo(x: number, digits: number): string {
  const exact = x.toFixed(100);
  const dot = exact.indexOf('.');
  if (/^50*$/.test(exact.slice(dot + 1 + digits))) {
    const kept = exact.slice(0, dot + 1 + digits);
    const last = Number(kept[kept.length - 1] === '.' ? kept[kept.length - 2] : kept[kept.length - 1]);
    if (last % 2 === 0) return digits === 0 ? kept.slice(0, -1) : kept;
  }
  return x.toFixed(digits);
}

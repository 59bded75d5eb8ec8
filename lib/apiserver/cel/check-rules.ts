import { JSONSchemaProps, ValidationRule } from '../schema/json-schema-props';
import { Issue } from '../../apimachinery/issue';
import { CelType, opaque, schemaCelType, typeName } from './cel-types';
import { resolveFieldPath } from './field-path';
import { SchemaNode, walkSchema } from './schema-walk';
import { checkExpression } from './type-checker';

/** Per-expression limit of the apiserver's static cost estimate (`StaticEstimatedCostLimit`). */
export const RULE_COST_LIMIT = 10_000_000;
/** Limit for the sum over all rules of one schema (`StaticEstimatedCRDCostLimit`). */
export const SCHEMA_COST_LIMIT = 100_000_000;

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
 */
export function checkCelRules(schema: JSONSchemaProps, basePath: string): Issue[] {
  const issues: Issue[] = [];
  let total = 0;
  walkSchema(schema, basePath, node => {
    const rules = node.schema['x-kubernetes-validations'];
    if (!rules) return;
    if (!Array.isArray(rules)) {
      issues.push({ path: `${node.path}.x-kubernetes-validations`, message: 'must be a list of validation rules', value: rules });
      return;
    }
    const self = schemaCelType(node.schema, node.isRoot);
    rules.forEach((rule: ValidationRule, i: number) => {
      const found = checkRule(rule, `${node.path}.x-kubernetes-validations[${i}]`, node, self);
      issues.push(...found.issues);
      total += found.cost;
    });
  });
  if (total > SCHEMA_COST_LIMIT) {
    issues.push({ path: basePath, message: `Forbidden: ${costMessage('x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema', total, SCHEMA_COST_LIMIT)}` });
  }
  return issues;
}

function checkRule(rule: ValidationRule, path: string, node: SchemaNode, self: CelType): { issues: Issue[]; cost: number } {
  const issues: Issue[] = [];
  // with optionalOldSelf, oldSelf is optional (none on create)
  const vars = { self, oldSelf: rule.optionalOldSelf === true ? opaque('Optional') : self };
  // the entry checks, in the apiserver's order and wording (`validateOpenAPISchema`)
  const trimmedRule = typeof rule.rule === 'string' ? rule.rule.trim() : '';
  const message = rule.message ?? '';
  const trimmedMsg = message.trim();
  const at = (field: string) => `${path}.${field}`;
  if (trimmedRule === '') {
    issues.push({ path: at('rule'), message: 'Required value: rule is not specified' });
    return { issues, cost: 0 };
  } else if (message.length > 0 && trimmedMsg === '') {
    issues.push({ path: at('message'), message: 'Invalid value: message must be non-empty if specified', value: message });
  } else if (message.length > 2048) {
    issues.push({ path: at('message'), message: 'Invalid value: message must have a maximum length of 2048 characters', value: `${message.slice(0, 10)}...` });
  } else if (NEWLINES.test(trimmedMsg)) {
    issues.push({ path: at('message'), message: 'Invalid value: message must not contain line breaks', value: message });
  } else if (NEWLINES.test(trimmedRule) && trimmedMsg === '') {
    issues.push({ path: at('message'), message: 'Required value: message must be specified if rule contains line breaks' });
  }
  if (rule.reason !== undefined && !REASONS.includes(rule.reason)) {
    issues.push({ path: at('reason'), message: `Unsupported value: ${JSON.stringify(rule.reason)}: supported values: "${REASONS.join('", "')}"`, value: rule.reason });
  }
  if (rule.fieldPath !== undefined && rule.fieldPath.length > 0) {
    if (rule.fieldPath.trim() === '') {
      issues.push({ path: at('fieldPath'), message: 'Invalid value: fieldPath must be non-empty if specified', value: rule.fieldPath });
    } else if (NEWLINES.test(rule.fieldPath)) {
      issues.push({ path: at('fieldPath'), message: 'Invalid value: fieldPath must not contain line breaks', value: rule.fieldPath });
    } else {
      const problem = resolveFieldPath(node.schema, rule.fieldPath).error;
      if (problem) issues.push({ path: at('fieldPath'), message: `Invalid value: fieldPath must be a valid path: ${problem}`, value: rule.fieldPath });
    }
  }

  const checked = checkExpression(rule.rule, vars);
  for (const error of checked.errors) {
    issues.push({ path: `${path}.rule`, message: `Invalid value: compilation failed: ${error}`, value: rule.rule });
  }
  if (checked.errors.length === 0 && !['bool', 'dyn'].includes(checked.type.kind)) {
    issues.push({ path: `${path}.rule`, message: `Invalid value: cel expression must evaluate to a bool, got ${typeName(checked.type)}`, value: rule.rule });
  }
  if (checked.usesOldSelf && node.uncorrelatablePath !== undefined) {
    issues.push({
      path: `${path}.rule`,
      message: `Invalid value: oldSelf cannot be used on the uncorrelatable portion of the schema within ${node.uncorrelatablePath} (old and new values pair up only through properties, additionalProperties and items of x-kubernetes-list-type: map lists)`,
      value: rule.rule,
    });
  }
  if (rule.optionalOldSelf === true && !checked.usesOldSelf) {
    issues.push({ path: `${path}.optionalOldSelf`, message: 'Invalid value: may not be set if oldSelf is not used in rule', value: true });
  }
  for (const fn of checked.unsupported) {
    issues.push({ path: `${path}.rule`, severity: 'warning', message: `not checked locally: function ${fn} is not supported by the local CEL library`, value: rule.rule });
  }

  let cost = checked.cost * node.cardinality;
  if (rule.messageExpression !== undefined) {
    if (rule.messageExpression.trim() === '') {
      issues.push({ path: `${path}.messageExpression`, message: 'Required value: messageExpression must be non-empty if specified' });
    } else {
      const msg = checkExpression(rule.messageExpression, vars);
      for (const error of msg.errors) {
        issues.push({ path: `${path}.messageExpression`, message: `Invalid value: messageExpression compilation failed: ${error}`, value: rule.messageExpression });
      }
      if (msg.errors.length === 0 && !['string', 'dyn'].includes(msg.type.kind)) {
        issues.push({ path: `${path}.messageExpression`, message: `Invalid value: messageExpression must evaluate to a string, got ${typeName(msg.type)}`, value: rule.messageExpression });
      }
      for (const fn of msg.unsupported) {
        issues.push({ path: `${path}.messageExpression`, severity: 'warning', message: `not checked locally: function ${fn} is not supported by the local CEL library` });
      }
      const msgCost = msg.cost * node.cardinality;
      if (msgCost > RULE_COST_LIMIT) {
        issues.push({ path: `${path}.messageExpression`, message: `Forbidden: ${costMessage('estimated messageExpression cost', msgCost, RULE_COST_LIMIT)}` });
      }
      cost += msgCost;
    }
  }
  if (checked.cost * node.cardinality > RULE_COST_LIMIT) {
    issues.push({ path: `${path}.rule`, message: `Forbidden: ${costMessage('estimated rule cost', checked.cost * node.cardinality, RULE_COST_LIMIT)}`, value: rule.rule });
  }
  return { issues, cost };
}

/** The apiserver's wording (`getCostErrorMessage`). */
export function costMessage(what: string, cost: number, limit: number): string {
  const factor = cost / limit;
  const shown = factor > 100 ? 'more than 100x' : factor < 1.5 ? `${factor.toFixed(6)}x` : `${factor.toFixed(1)}x`;
  return `${what} exceeds budget by factor of ${shown} (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`;
}

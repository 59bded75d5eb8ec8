import { JSONSchemaProps, ValidationRule } from '../schema/json-schema-props';
import { Issue } from '../validation/issue';
import { CelType, schemaCelType, typeName } from './cel-types';
import { resolveFieldPath } from './field-path';
import { SchemaNode, walkSchema } from './schema-walk';
import { checkExpression } from './type-checker';

/** Per-expression limit of the apiserver's static cost estimate (`StaticEstimatedCostLimit`). */
export const RULE_COST_LIMIT = 10_000_000;
/** Limit for the sum over all rules of one schema (`StaticEstimatedCRDCostLimit`). */
export const SCHEMA_COST_LIMIT = 100_000_000;

const REASONS = ['FieldValueRequired', 'FieldValueForbidden', 'FieldValueInvalid', 'FieldValueDuplicate'];

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
    issues.push({ path: basePath, message: costMessage('x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema', total, SCHEMA_COST_LIMIT) });
  }
  return issues;
}

function checkRule(rule: ValidationRule, path: string, node: SchemaNode, self: CelType): { issues: Issue[]; cost: number } {
  const issues: Issue[] = [];
  const vars = { self, oldSelf: self };
  if (typeof rule.rule !== 'string' || rule.rule.trim() === '') {
    issues.push({ path: `${path}.rule`, message: 'Required value' });
    return { issues, cost: 0 };
  }
  if (rule.reason !== undefined && !REASONS.includes(rule.reason)) {
    issues.push({ path: `${path}.reason`, message: `Unsupported value: supported values: "${REASONS.join('", "')}"`, value: rule.reason });
  }
  if (rule.message !== undefined) {
    if (rule.message.trim() === '') issues.push({ path: `${path}.message`, message: 'message must be non-empty if specified', value: rule.message });
    if (/[\r\n]/.test(rule.message)) issues.push({ path: `${path}.message`, message: 'message must not contain line breaks', value: rule.message });
  }
  if (/[\r\n]/.test(rule.rule) && !rule.message) {
    issues.push({ path: `${path}.message`, message: 'message must be specified if rule contains line breaks' });
  }
  if (rule.fieldPath !== undefined) {
    const problem = resolveFieldPath(node.schema, rule.fieldPath).error;
    if (problem) issues.push({ path: `${path}.fieldPath`, message: `fieldPath must be a valid path: ${problem}`, value: rule.fieldPath });
  }

  const checked = checkExpression(rule.rule, vars);
  for (const error of checked.errors) {
    issues.push({ path: `${path}.rule`, message: `compilation failed: ${error}`, value: rule.rule });
  }
  if (checked.errors.length === 0 && !['bool', 'dyn'].includes(checked.type.kind)) {
    issues.push({ path: `${path}.rule`, message: `cel expression must evaluate to a bool, got ${typeName(checked.type)}`, value: rule.rule });
  }
  if (checked.usesOldSelf && !node.correlatable) {
    issues.push({
      path: `${path}.rule`,
      message: `oldSelf cannot be used on the uncorrelatable portion of the schema within ${node.path} (only through properties, additionalProperties and items of x-kubernetes-list-type: map lists)`,
      value: rule.rule,
    });
  }
  if (rule.optionalOldSelf === true && !checked.usesOldSelf) {
    issues.push({ path: `${path}.optionalOldSelf`, message: 'may not be set if oldSelf is not used in rule', value: true });
  }
  for (const fn of checked.unsupported) {
    issues.push({ path: `${path}.rule`, severity: 'warning', message: `not checked locally: function ${fn} is not supported by the local CEL library`, value: rule.rule });
  }

  let cost = checked.cost * node.cardinality;
  if (rule.messageExpression !== undefined) {
    if (rule.messageExpression.trim() === '') {
      issues.push({ path: `${path}.messageExpression`, message: 'must be non-empty if specified', value: rule.messageExpression });
    } else {
      const msg = checkExpression(rule.messageExpression, vars);
      for (const error of msg.errors) {
        issues.push({ path: `${path}.messageExpression`, message: `messageExpression compilation failed: ${error}`, value: rule.messageExpression });
      }
      if (msg.errors.length === 0 && !['string', 'dyn'].includes(msg.type.kind)) {
        issues.push({ path: `${path}.messageExpression`, message: `must evaluate to a string, got ${typeName(msg.type)}`, value: rule.messageExpression });
      }
      for (const fn of msg.unsupported) {
        issues.push({ path: `${path}.messageExpression`, severity: 'warning', message: `not checked locally: function ${fn} is not supported by the local CEL library` });
      }
      const msgCost = msg.cost * node.cardinality;
      if (msgCost > RULE_COST_LIMIT) {
        issues.push({ path: `${path}.messageExpression`, message: costMessage('estimated messageExpression cost', msgCost, RULE_COST_LIMIT) });
      }
      cost += msgCost;
    }
  }
  if (checked.cost * node.cardinality > RULE_COST_LIMIT) {
    issues.push({ path: `${path}.rule`, message: costMessage('estimated rule cost', checked.cost * node.cardinality, RULE_COST_LIMIT), value: rule.rule });
  }
  return { issues, cost };
}

/** The apiserver's wording (`getCostErrorMessage`). */
export function costMessage(what: string, cost: number, limit: number): string {
  const factor = cost / limit;
  const shown = factor > 100 ? 'more than 100x' : factor < 1.5 ? `${factor.toFixed(6)}x` : `${factor.toFixed(1)}x`;
  return `${what} exceeds budget by factor of ${shown} (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`;
}

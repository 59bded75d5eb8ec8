import { fieldValue } from '../../apimachinery/field-value';
import { Issue } from '../../apimachinery/issue';
import { DEFAULT_KUBERNETES_VERSION, KubernetesVersion, since } from '../../apimachinery/kubernetes-versions';
import { DYN } from '../cel/cel-types';
import { evaluateExpression } from '../cel/evaluate';
import { joinFieldPath, resolveFieldPath } from '../cel/field-path';
import { checkExpression } from '../cel/type-checker';
import { JSONSchemaProps } from '../schema/json-schema-props';

const USES_OLD_SELF = /\boldSelf\b/;

/**
 * Evaluates the `x-kubernetes-validations` rules of one schema node against its value, the way
 * the apiserver's CEL validator reports them:
 * - a failing rule yields its `messageExpression` result, else its `message`, else `failed rule: <rule>`;
 * - the cause follows `reason` (`Invalid value: "object": …`, `Forbidden: …`, `Required value: …`, `Duplicate value: …`),
 *   with the schema type as the value up to 1.34, and from 1.35 the value itself (omitted for objects and lists);
 * - an evaluation error reads as cel-go's (`no such key: x evaluating rule: …`), with the schema type as the value;
 * - the path is the node's path plus the rule's `fieldPath`;
 * - transition rules (reading `oldSelf`) run only when an old value is given (an update).
 */
export function evaluateRules(
  schema: JSONSchemaProps,
  value: unknown,
  oldValue: unknown,
  path: string,
  version: KubernetesVersion = DEFAULT_KUBERNETES_VERSION,
): Issue[] {
  const issues: Issue[] = [];
  const typeText = schema.type ?? ''; // the apiserver shows the schema type as the value (of evaluation errors always)
  // a failed rule's value: the schema type, or from 1.35 the value itself, omitted for objects and lists
  const shownValue = !since(version, 'celMessageWithoutType')
    ? `"${typeText}"`
    : typeText === 'object' || typeText === 'array'
      ? undefined
      : fieldValue(value, version);
  for (const rule of schema['x-kubernetes-validations'] ?? []) {
    const transition = USES_OLD_SELF.test(rule.rule);
    const optionalOldSelf = transition && rule.optionalOldSelf === true;
    // transition rules run only on updates, except with optionalOldSelf (then oldSelf is optional.none() on create)
    if (transition && !optionalOldSelf && (oldValue === undefined || oldValue === null)) continue;
    const evalOptions = { optionalOldSelf, version };
    const result = evaluateExpression(rule.rule, schema, value, transition ? oldValue : undefined, evalOptions);
    let at = path;
    if (rule.fieldPath) {
      const resolved = resolveFieldPath(schema, rule.fieldPath);
      if (!resolved.error) at = joinFieldPath(path === '<root>' ? '' : path, resolved.steps) || '<root>';
    }
    if (!result.ok) {
      const unsupported = checkExpression(rule.rule, { self: DYN, oldSelf: DYN }).unsupported;
      if (unsupported.length > 0) {
        issues.push({
          path,
          severity: 'warning',
          message: `rule not evaluated locally: ${unsupported.join(', ')} not supported by the local CEL library: ${rule.rule}`,
        });
      } else {
        const ruleText = rule.message?.trim() || rule.rule.trim();
        // cel-go reports a runtime type mismatch (int-or-string, dyn) as 'no such overload'
        const detail = /no (such|matching) overload/.test(result.error)
          ? `'no such overload': call arguments did not match a supported operator, function or macro signature for rule: ${ruleText}`
          : `${celGoError(result.error)} evaluating rule: ${ruleText}`;
        issues.push({ path, message: `Invalid value: "${typeText}": ${detail}`, value: scalarOnly(value) });
      }
      continue;
    }
    if (result.value === true) continue;
    if (typeof result.value !== 'boolean') {
      issues.push({
        path,
        message: `Invalid value: "${typeText}": rule did not evaluate to a bool: ${rule.rule}`,
        value: scalarOnly(value),
      });
      continue;
    }
    let detail = rule.message && rule.message.trim() !== '' ? rule.message.trim() : `failed rule: ${rule.rule.trim()}`;
    if (rule.messageExpression) {
      // a failing, empty or multi-line messageExpression falls back to the message, like the apiserver
      const msg = evaluateExpression(
        rule.messageExpression,
        schema,
        value,
        transition ? oldValue : undefined,
        evalOptions,
      );
      const text = msg.ok && typeof msg.value === 'string' ? msg.value.trim() : '';
      if (text !== '' && !/\n/.test(text)) detail = text;
    }
    issues.push({ path: at, message: causeFor(rule.reason, shownValue, detail), value: scalarOnly(value) });
  }
  return issues;
}

/** `fieldErrorForReason`: the field error type follows the rule's reason (Duplicate carries no detail). */
function causeFor(reason: string | undefined, shown: string | undefined, detail: string): string {
  const withValue = (type: string) => (shown === undefined ? type : `${type}: ${shown}`);
  switch (reason) {
    case 'FieldValueForbidden':
      return `Forbidden: ${detail}`;
    case 'FieldValueRequired':
      return `Required value: ${detail}`;
    case 'FieldValueDuplicate':
      return withValue('Duplicate value');
    default:
      return `${withValue('Invalid value')}: ${detail}`;
  }
}

/** An evaluation error in cel-go's words where the local CEL library words it otherwise. */
function celGoError(error: string): string {
  return error.replace(/^field not found: /, 'no such key: ');
}

/**
 * The value a rule's issue shows: a scalar as it is; an object or list (a rule on `spec` or on the whole object) is
 * named by the issue's path, which leads the line, not dumped as `(got {…})`.
 */
function scalarOnly(value: unknown): unknown {
  return typeof value === 'object' && value !== null ? undefined : value;
}

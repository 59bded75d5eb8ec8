/**
 * Value validation of custom resources through the project's own apiserver-equivalent validator
 * (lib/validation/value-validator: OpenAPI keywords, formats, list types and CEL incl. transition rules),
 * with the apiserver's ordering: CEL rules are skipped when a "blocking" error exists.
 */
import { Issue } from '../../lib/apimachinery/issue';
import { validateValue } from '../../lib/apiserver/value-validation/value-validator';
import { StatusCause } from './status';

const BLOCKING = new Set(['FieldValueNotSupported', 'FieldValueRequired', 'FieldValueTooLong', 'FieldValueTooMany', 'FieldValueTypeInvalid']);

function reasonOf(message: string): string {
  if (/^Invalid value: [^:]*: .* in body must be of type /.test(message)) return 'FieldValueTypeInvalid';
  if (message.startsWith('Required value')) return 'FieldValueRequired';
  if (message.startsWith('Unsupported value')) return 'FieldValueNotSupported';
  if (message.startsWith('Too long')) return 'FieldValueTooLong';
  if (message.startsWith('Too many')) return 'FieldValueTooMany';
  if (message.startsWith('Duplicate value')) return 'FieldValueDuplicate';
  if (message.startsWith('Forbidden')) return 'FieldValueForbidden';
  return 'FieldValueInvalid';
}

/** An Issue from the project's validators as a Status cause. */
export function issueToCause(i: Issue): StatusCause {
  return { reason: reasonOf(i.message), message: i.message, field: i.path };
}

/** Causes for an (already pruned and defaulted) custom resource; `old` enables transition rules on update. */
export function validateCustomResource(obj: any, old: any | undefined, schema: any): StatusCause[] {
  const toCauses = (withRules: boolean): StatusCause[] => validateValue(schema, obj, { oldValue: old, applyDefaults: false, evaluateRules: withRules })
    .issues.filter((i) => (i.severity ?? 'error') === 'error')
    .map(issueToCause);
  const basic = toCauses(false);
  if (basic.some((c) => BLOCKING.has(c.reason))) {
    return [...basic, {
      reason: 'FieldValueInvalid',
      message: 'Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
      field: '<nil>',
    }];
  }
  return toCauses(true);
}

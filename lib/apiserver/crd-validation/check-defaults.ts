import { Issue } from '../../apimachinery/issue';
import { walkSchema } from '../cel/schema-walk';
import { JSONSchemaProps } from '../schema/json-schema-props';
import { RULES_SKIPPED, validateValue } from '../value-validation/value-validator';

const UNCHECKED_EFFECT =
  'a default of a property there is written into every map entry that lacks the property, which then fails validation';

const NEVER_APPLIED = 'a default of the map values themselves is never applied: an entry exists only with its value';

/** The root's default is a whole object, whose apiVersion and kind the apiserver requires (measured on 1.32). */
function rootDefaultTypeMeta(value: unknown, at: string): Issue[] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return [];
  return (['apiVersion', 'kind'] as const)
    .filter((k) => !(value as Record<string, unknown>)[k])
    .map((k) => ({ path: `${at}.${k}`, message: 'Required value: must not be empty' }));
}

/** Whether a node's path passes through an additionalProperties (map keys, in brackets, do not count). */
function belowAdditionalProperties(path: string): boolean {
  return path.replace(/\[[^\]]*\]/g, '[]').includes('.additionalProperties');
}

/**
 * Checks every `default` in a schema the way the apiserver does: valid against its own subschema
 * (including CEL rules), no unknown fields, never under root `metadata`, `apiVersion` or `kind`.
 */
export function checkDefaults(schema: JSONSchemaProps, basePath: string): Issue[] {
  const issues: Issue[] = [];
  const forbiddenRoots = ['metadata', 'apiVersion', 'kind'].map((k) => ({
    key: k,
    path: `${basePath}.properties[${k}]`,
  }));
  walkSchema(
    schema,
    basePath,
    (node) => {
      if (node.schema.default === undefined) return;
      const at = `${node.path}.default`;
      const root = forbiddenRoots.find((r) => node.path === r.path || node.path.startsWith(`${r.path}.`));
      if (root) {
        issues.push({
          path: at,
          message: `Forbidden: must not be set in top-level ${root.key}`,
          value: node.schema.default,
        });
        return;
      }
      if (node.isRoot) issues.push(...rootDefaultTypeMeta(node.schema.default, at));
      const found = validateValue(node.schema, node.schema.default, {
        path: at,
        // the root's default is a whole object: apiVersion and kind required (measured on 1.32)
        resourceRoot: node.isRoot,
        applyDefaults: true,
        isDefault: true,
      });
      // the apiserver does not follow additionalProperties when it checks defaults: it accepts any default there,
      // and applies those of properties below it to every map entry that lacks them
      const unchecked = belowAdditionalProperties(node.path);
      const effect = /\.additionalProperties$/.test(node.path) ? NEVER_APPLIED : UNCHECKED_EFFECT;
      for (const issue of found.issues.filter((i) => !i.message.endsWith(RULES_SKIPPED))) {
        const unknown = issue.message.startsWith('unknown field');
        const message = unknown ? `must not have unknown fields: ${issue.message}` : issue.message;
        issues.push(
          unchecked
            ? {
                ...issue,
                severity: 'warning',
                message: `${message} (kube-apiserver does not check defaults below additionalProperties and accepts the CRD; ${effect})`,
              }
            : { ...issue, message },
        );
      }
    },
    (s) => s.default !== undefined,
  );
  return issues;
}

import { Issue } from '../../apimachinery/issue';
import { walkSchema } from '../cel/schema-walk';
import { JSONSchemaProps } from '../schema/json-schema-props';
import { RULES_SKIPPED, validateValue } from '../value-validation/value-validator';

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
      const found = validateValue(node.schema, node.schema.default, {
        path: at,
        resourceRoot: false,
        applyDefaults: true,
      });
      for (const issue of found.issues.filter((i) => !i.message.endsWith(RULES_SKIPPED))) {
        const unknown = issue.message.startsWith('unknown field');
        issues.push({ ...issue, message: unknown ? `must not have unknown fields: ${issue.message}` : issue.message });
      }
    },
    (s) => s.default !== undefined,
  );
  return issues;
}

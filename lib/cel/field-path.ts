import { JSONSchemaProps } from '../schema/json-schema-props';

/**
 * Resolves a rule's `fieldPath` (`.spec.replicas`, `.labels['app.kubernetes.io/name']`) against the
 * schema of the node holding the rule. Only child selection is allowed (no list indexes), and each
 * step must exist: a declared property, or any key of an additionalProperties map.
 */
export function resolveFieldPath(schema: JSONSchemaProps, fieldPath: string): { segments: string[]; error?: string } {
  const segments: string[] = [];
  let rest = fieldPath;
  if (rest === '') return { segments, error: 'must not be empty' };
  while (rest.length > 0) {
    let m = /^\.([A-Za-z_][A-Za-z0-9_-]*)/.exec(rest);
    if (!m) m = /^\['((?:[^'\\]|\\.)*)'\]/.exec(rest);
    if (!m) {
      const index = /^\[[0-9]+\]/.test(rest);
      return { segments, error: index ? 'numeric index of a list is not supported' : `expected '.name' or "['name']" at '${rest}'` };
    }
    segments.push(m[1].replace(/\\(.)/g, '$1'));
    rest = rest.slice(m[0].length);
  }
  let node: JSONSchemaProps | undefined = schema;
  for (const seg of segments) {
    const ap: JSONSchemaProps['additionalProperties'] = node?.additionalProperties;
    if (node?.properties?.[seg]) node = node.properties[seg];
    else if (ap && typeof ap === 'object') node = ap;
    else if (ap === true || node?.['x-kubernetes-preserve-unknown-fields'] === true) node = {};
    else return { segments, error: `does not exist in the schema: '${seg}'` };
  }
  return { segments };
}

/** `spec.x` + `['a', 'b.c']` → `spec.x.a[b.c]`: field paths as the apiserver prints them. */
export function joinFieldPath(base: string, segments: readonly string[]): string {
  let path = base;
  for (const s of segments) {
    path = /^[A-Za-z_][A-Za-z0-9_-]*$/.test(s) ? (path ? `${path}.${s}` : s) : `${path}[${s}]`;
  }
  return path;
}

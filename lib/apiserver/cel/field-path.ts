import { JSONSchemaProps } from '../schema/json-schema-props';

/** One step of a resolved `fieldPath`: a declared property, or a key of an additionalProperties map. */
export interface FieldPathStep {
  readonly name: string;
  /** A declared property (printed `.name`); false for a map key (printed `[name]`). */
  readonly isProperty: boolean;
}

/**
 * Resolves a rule's `fieldPath` (`.spec.replicas`, `.labels['app.kubernetes.io/name']`) against the
 * schema of the node holding the rule, like the apiserver's `ValidFieldPath`: only `.name` and
 * `['name']` steps (no list indexes), each naming a declared property, or any key of a map.
 * Errors use its wording ("does not refer to a valid field", "expected single quoted string but got 0").
 */
export function resolveFieldPath(
  schema: JSONSchemaProps,
  fieldPath: string,
): { steps: FieldPathStep[]; error?: string } {
  const steps: FieldPathStep[] = [];
  let node: JSONSchemaProps | undefined = schema;
  let rest = fieldPath;
  const step = (name: string): string | undefined => {
    const ap: JSONSchemaProps['additionalProperties'] = node?.additionalProperties;
    if (node?.properties) {
      node = node.properties[name];
      if (!node) return 'does not refer to a valid field';
      steps.push({ name, isProperty: true });
    } else if (ap && typeof ap === 'object') {
      node = ap;
      steps.push({ name, isProperty: false });
    } else {
      return 'does not refer to a valid field';
    }
    return undefined;
  };
  while (rest.length > 0) {
    let error: string | undefined;
    if (rest.startsWith('.')) {
      const m = /^\.([^.[\]]*)/.exec(rest)!;
      if (m[1] === '') return { steps, error: 'unexpected end of JSON path' };
      error = step(m[1]);
      rest = rest.slice(m[0].length);
    } else if (rest.startsWith('[')) {
      const m = /^\['((?:[^'\\]|\\.)*)'\]/.exec(rest);
      if (!m) return { steps, error: `expected single quoted string but got ${/^\[([^\]]*)/.exec(rest)?.[1] ?? rest}` };
      error = step(m[1].replace(/\\(.)/g, '$1'));
      rest = rest.slice(m[0].length);
    } else {
      return { steps, error: `expected [ or . but got: ${/^[^.[\]]*/.exec(rest)![0] || rest}` };
    }
    if (error) return { steps, error };
  }
  return { steps };
}

/** `spec.x` + steps → `spec.x.a[b.c]`: properties as children, map keys in brackets, as the apiserver prints them. */
export function joinFieldPath(base: string, steps: readonly FieldPathStep[]): string {
  let path = base;
  for (const s of steps) path = s.isProperty ? (path ? `${path}.${s.name}` : s.name) : `${path}[${s.name}]`;
  return path;
}

import { JSONSchemaProps } from '../schema/json-schema-props';
import { multiplyWithOverflowGuard } from './cost-units';

/** One schema node reached by `walkSchema`, with what rules at that node depend on. */
export interface SchemaNode {
  readonly schema: JSONSchemaProps;
  /** Field path of the node inside the CRD, e.g. `….openAPIV3Schema.properties[spec]`. */
  readonly path: string;
  /** Whether this is the resource root (the rules there see apiVersion, kind and metadata.name). */
  readonly isRoot: boolean;
  /**
   * Where old and new values stopped pairing up on update, if they did (then `oldSelf` is not allowed here):
   * they pair through additionalProperties, properties of non-atomic objects and items of
   * `x-kubernetes-list-type: map` lists only; this is the path of the first other list or atomic object above.
   */
  readonly uncorrelatablePath?: string;
  /**
   * How many times a rule here can run per object when every enclosing list and map is bounded: the product of
   * their maxItems / maxProperties (`CELSchemaContext.MaxCardinality`). Undefined when one of them is unbounded.
   */
  readonly maxCardinality?: bigint;
}

/**
 * Visits every node of a structural schema (properties, additionalProperties, items; not the
 * allOf/anyOf/oneOf/not value-validation branches, which carry no rules).
 */
export function walkSchema(root: JSONSchemaProps, basePath: string, visit: (node: SchemaNode) => void): void {
  const go = (schema: JSONSchemaProps, path: string, isRoot: boolean, uncorrelatablePath: string | undefined, maxCardinality: bigint | undefined): void => {
    visit({ schema, path, isRoot, uncorrelatablePath, maxCardinality });
    const bound = maxElements(schema);
    const childCardinality = maxCardinality === undefined || bound === undefined ? undefined : multiplyWithOverflowGuard(maxCardinality, bound);
    // the properties of an atomic map are replaced as a whole: no pairing below it
    const propsLost = uncorrelatablePath ?? (schema['x-kubernetes-map-type'] === 'atomic' ? path : undefined);
    for (const [name, prop] of Object.entries(schema.properties ?? {})) {
      go(prop, `${path}.properties[${name}]`, false, propsLost, childCardinality);
    }
    const ap = schema.additionalProperties;
    if (ap && typeof ap === 'object') go(ap, `${path}.additionalProperties`, false, uncorrelatablePath, childCardinality);
    if (schema.items) {
      const isMapList = schema['x-kubernetes-list-type'] === 'map';
      const lost = uncorrelatablePath ?? (isMapList ? undefined : path);
      go(schema.items, `${path}.items`, false, lost, childCardinality);
    }
  };
  go(root, basePath, true, undefined, 1n);
}

/**
 * `extractMaxElements`: how many children a value of this schema has at most (1 for objects with
 * properties and scalars), or undefined for a list or map without maxItems / maxProperties.
 */
function maxElements(schema: JSONSchemaProps): bigint | undefined {
  const nonNegative = (n: number) => BigInt(Math.max(0, n));
  switch (schema.type) {
    case 'object':
      if (schema.additionalProperties !== undefined) return schema.maxProperties !== undefined ? nonNegative(schema.maxProperties) : undefined;
      return 1n;
    case 'array':
      return schema.maxItems !== undefined ? nonNegative(schema.maxItems) : undefined;
    default:
      return 1n;
  }
}

import { JSONSchemaProps } from '../schema/json-schema-props';
import { estimateMaxAdditionalProperties, estimateMaxArrayItems, MAX_REQUEST_SIZE_BYTES, schemaCelType } from './cel-types';

/** One schema node reached by `walkSchema`, with what rules at that node depend on. */
export interface SchemaNode {
  readonly schema: JSONSchemaProps;
  /** Field path of the node inside the CRD, e.g. `….openAPIV3Schema.properties[spec]`. */
  readonly path: string;
  /** Whether this is the resource root (the rules there see apiVersion, kind and metadata.name). */
  readonly isRoot: boolean;
  /**
   * Whether old and new values of this node can be paired on update (so `oldSelf` is allowed):
   * through properties and additionalProperties, and through the items of `x-kubernetes-list-type: map` lists only.
   */
  readonly correlatable: boolean;
  /** The largest number of times a rule here can run per object: the product of enclosing list/map bounds. */
  readonly cardinality: number;
}

/**
 * Visits every node of a structural schema (properties, additionalProperties, items; not the
 * allOf/anyOf/oneOf/not value-validation branches, which carry no rules).
 */
export function walkSchema(root: JSONSchemaProps, basePath: string, visit: (node: SchemaNode) => void): void {
  const go = (schema: JSONSchemaProps, path: string, isRoot: boolean, correlatable: boolean, cardinality: number): void => {
    visit({ schema, path, isRoot, correlatable, cardinality });
    for (const [name, prop] of Object.entries(schema.properties ?? {})) {
      go(prop, `${path}.properties[${name}]`, false, correlatable, cardinality);
    }
    const ap = schema.additionalProperties;
    if (ap && typeof ap === 'object') {
      const minSize = schemaCelType(ap).minSize ?? 1;
      const bound = schema.maxProperties ?? estimateMaxAdditionalProperties(minSize);
      go(ap, `${path}.additionalProperties`, false, correlatable, capped(cardinality * bound));
    }
    if (schema.items) {
      const minSize = schemaCelType(schema.items).minSize ?? 1;
      const bound = schema.maxItems ?? estimateMaxArrayItems(minSize);
      const isMapList = schema['x-kubernetes-list-type'] === 'map';
      go(schema.items, `${path}.items`, false, correlatable && isMapList, capped(cardinality * bound));
    }
  };
  go(root, basePath, true, true, 1);
}

/** Cardinality can never exceed the number of bytes in a request. */
function capped(n: number): number {
  return Math.min(n, MAX_REQUEST_SIZE_BYTES);
}

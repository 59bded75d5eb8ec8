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
   * Where old and new values stopped pairing up on update, if they did (then `oldSelf` is not allowed here):
   * they pair through additionalProperties, properties of non-atomic objects and items of
   * `x-kubernetes-list-type: map` lists only; this is the path of the first other list or atomic object above.
   */
  readonly uncorrelatablePath?: string;
  /** The largest number of times a rule here can run per object: the product of enclosing list/map bounds. */
  readonly cardinality: number;
}

/**
 * Visits every node of a structural schema (properties, additionalProperties, items; not the
 * allOf/anyOf/oneOf/not value-validation branches, which carry no rules).
 */
export function walkSchema(root: JSONSchemaProps, basePath: string, visit: (node: SchemaNode) => void): void {
  const go = (schema: JSONSchemaProps, path: string, isRoot: boolean, uncorrelatablePath: string | undefined, cardinality: number): void => {
    visit({ schema, path, isRoot, uncorrelatablePath, cardinality });
    // the properties of an atomic map are replaced as a whole: no pairing below it
    const propsLost = uncorrelatablePath ?? (schema['x-kubernetes-map-type'] === 'atomic' ? path : undefined);
    for (const [name, prop] of Object.entries(schema.properties ?? {})) {
      go(prop, `${path}.properties[${name}]`, false, propsLost, cardinality);
    }
    const ap = schema.additionalProperties;
    if (ap && typeof ap === 'object') {
      const minSize = schemaCelType(ap).minSize ?? 1;
      const bound = schema.maxProperties ?? estimateMaxAdditionalProperties(minSize);
      go(ap, `${path}.additionalProperties`, false, uncorrelatablePath, capped(cardinality * bound));
    }
    if (schema.items) {
      const minSize = schemaCelType(schema.items).minSize ?? 1;
      const bound = schema.maxItems ?? estimateMaxArrayItems(minSize);
      const isMapList = schema['x-kubernetes-list-type'] === 'map';
      const lost = uncorrelatablePath ?? (isMapList ? undefined : path);
      go(schema.items, `${path}.items`, false, lost, capped(cardinality * bound));
    }
  };
  go(root, basePath, true, undefined, 1);
}

/** Cardinality can never exceed the number of bytes in a request. */
function capped(n: number): number {
  return Math.min(n, MAX_REQUEST_SIZE_BYTES);
}

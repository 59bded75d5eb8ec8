import { multiplyWithOverflowGuard } from './cost-units';
import { JSONSchemaProps } from '../schema/json-schema-props';

/** One schema node reached by `walkSchema`, with what rules at that node depend on. */
export interface SchemaNode {
  readonly schema: JSONSchemaProps;
  /** Field path of the node inside the CRD, e.g. `….openAPIV3Schema.properties[spec]`. */
  readonly path: string;
  /** Whether this is the resource root (the rules there see apiVersion, kind and metadata.name). */
  readonly isRoot: boolean;
  /**
   * Where old and new values stopped pairing up on update, if they did (then `oldSelf` is not allowed here):
   * they pair through additionalProperties, properties of objects (granular and atomic alike: upstream's
   * `MapIsCorrelatable`) and items of `x-kubernetes-list-type: map` lists only; this is the path of the first other
   * list, or object of an unknown map type, above.
   */
  readonly uncorrelatablePath?: string;
  /**
   * How many times a rule here can run per object when every enclosing list and map is bounded: the product of
   * their maxItems / maxProperties (`CELSchemaContext.MaxCardinality`). Undefined when one of them is unbounded.
   */
  readonly maxCardinality?: bigint;
}

/**
 * Visits every node (that `wants` selects) of a structural schema (properties, additionalProperties, items; not the
 * allOf/anyOf/oneOf/not value-validation branches, which carry no rules).
 */
export function walkSchema(
  root: JSONSchemaProps,
  basePath: string,
  visit: (node: SchemaNode) => void,
  wants: (schema: JSONSchemaProps) => boolean = () => true,
): void {
  const go = (
    schema: JSONSchemaProps,
    path: Path,
    isRoot: boolean,
    uncorrelated: Path | undefined,
    maxCardinality: bigint | undefined,
  ): void => {
    // only the nodes a visitor wants (e.g. those with rules) are materialized, their paths joined when read:
    // most nodes of a large schema are just passed through
    if (wants(schema)) {
      visit({
        schema,
        isRoot,
        maxCardinality,
        get path() {
          return joinPath(path);
        },
        get uncorrelatablePath() {
          return uncorrelated && joinPath(uncorrelated);
        },
      });
    }
    const bound = maxElements(schema);
    const childCardinality =
      maxCardinality === undefined || bound === undefined
        ? undefined
        : bound === 1n
          ? maxCardinality
          : multiplyWithOverflowGuard(maxCardinality, bound);
    // an atomic map is replaced as a whole on apply, yet its properties still pair by name (MapIsCorrelatable: only
    // a map type upstream does not know loses the pairing; it is refused on its own too)
    const mapType = schema['x-kubernetes-map-type'];
    const correlatable = mapType === undefined || mapType === 'granular' || mapType === 'atomic';
    const propsLost = uncorrelated ?? (correlatable ? undefined : path);
    if (schema.properties) {
      for (const name of Object.keys(schema.properties)) {
        go(schema.properties[name], { parent: path, property: name }, false, propsLost, childCardinality);
      }
    }
    const ap = schema.additionalProperties;
    if (ap && typeof ap === 'object') {
      go(ap, { parent: path, segment: '.additionalProperties' }, false, uncorrelated, childCardinality);
    }
    if (schema.items) {
      const isMapList = schema['x-kubernetes-list-type'] === 'map';
      const lost = uncorrelated ?? (isMapList ? undefined : path);
      go(schema.items, { parent: path, segment: '.items' }, false, lost, childCardinality);
    }
  };
  go(root, { segment: basePath }, true, undefined, 1n);
}

/** A field path as a chain to its parent: a property name or a literal segment. */
interface Path {
  readonly parent?: Path;
  readonly segment?: string;
  readonly property?: string;
}

function joinPath(p: Path): string {
  const own = p.property !== undefined ? `.properties[${p.property}]` : p.segment!;
  return p.parent ? joinPath(p.parent) + own : own;
}

/**
 * `extractMaxElements`: how many children a value of this schema has at most (1 for objects with
 * properties and scalars), or undefined for a list or map without maxItems / maxProperties.
 */
function maxElements(schema: JSONSchemaProps): bigint | undefined {
  switch (schema.type) {
    case 'object':
      if (schema.additionalProperties !== undefined) {
        return schema.maxProperties !== undefined ? nonNegative(schema.maxProperties) : undefined;
      }
      return 1n;
    case 'array':
      return schema.maxItems !== undefined ? nonNegative(schema.maxItems) : undefined;
    default:
      return 1n;
  }
}

function nonNegative(n: number): bigint {
  return BigInt(Math.max(0, n));
}

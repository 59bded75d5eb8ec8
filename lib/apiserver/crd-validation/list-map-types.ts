import { child, forbidden, invalid, isObject, key, notSupported, required } from '../../apimachinery/field';
import { Issue } from '../../apimachinery/issue';
import { JSONSchemaProps } from '../schema/json-schema-props';

const LIST_TYPES = ['atomic', 'set', 'map'];
const MAP_TYPES = ['atomic', 'granular'];

/**
 * `x-kubernetes-list-type`, `x-kubernetes-list-map-keys` and `x-kubernetes-map-type` on every node of a
 * schema, as the apiserver checks them (server-side apply relies on them to merge lists and maps).
 *
 * @see https://kubernetes.io/docs/reference/using-api/server-side-apply/#merge-strategy
 */
export function checkListAndMapTypes(schema: JSONSchemaProps, basePath: string): Issue[] {
  const issues: Issue[] = [];
  walk(schema, basePath, issues);
  return issues;
}

const JUNCTORS = ['allOf', 'anyOf', 'oneOf'];

/** Every node, appending to one list (schemas of megabytes: no array or closure per node). */
function walk(s: any, path: string, issues: Issue[]): void {
  if (!isObject(s)) return;
  if (
    s['x-kubernetes-map-type'] !== undefined ||
    s['x-kubernetes-list-type'] !== undefined ||
    s['x-kubernetes-list-map-keys'] !== undefined
  ) {
    checkNode(s, path, issues);
  }
  if (isObject(s.properties)) {
    for (const name of Object.keys(s.properties)) walk(s.properties[name], `${path}.properties[${name}]`, issues);
  }
  if (isObject(s.items)) walk(s.items, `${path}.items`, issues);
  if (isObject(s.additionalProperties)) walk(s.additionalProperties, `${path}.additionalProperties`, issues);
  for (const junctor of JUNCTORS) {
    const subs = s[junctor];
    if (Array.isArray(subs)) for (let i = 0; i < subs.length; i++) walk(subs[i], `${path}.${junctor}[${i}]`, issues);
  }
  if (s.not !== undefined) walk(s.not, `${path}.not`, issues);
}

/** A node that declares a list or map type (the others have nothing to check here). */
function checkNode(s: any, path: string, issues: Issue[]): void {
  const mapType = s['x-kubernetes-map-type'];
  const listType = s['x-kubernetes-list-type'];
  const mapKeys: unknown[] = Array.isArray(s['x-kubernetes-list-map-keys']) ? s['x-kubernetes-list-map-keys'] : [];
  const items = isObject(s.items) ? s.items : undefined;

  if (mapType !== undefined && s.type !== 'object') {
    issues.push(
      s.type
        ? invalid(child(path, 'type'), s.type, 'must be object if x-kubernetes-map-type is specified')
        : required(child(path, 'type'), 'must be object if x-kubernetes-map-type is specified'),
    );
  }
  if (mapType !== undefined && !MAP_TYPES.includes(mapType)) {
    issues.push(notSupported(child(path, 'x-kubernetes-map-type'), mapType, MAP_TYPES));
  }

  if (listType !== undefined && s.type !== 'array') {
    issues.push(
      s.type
        ? invalid(child(path, 'type'), s.type, 'must be array if x-kubernetes-list-type is specified')
        : required(child(path, 'type'), 'must be array if x-kubernetes-list-type is specified'),
    );
  } else if (listType === 'set' && items) {
    if (
      items.type === 'array' &&
      items['x-kubernetes-list-type'] !== undefined &&
      items['x-kubernetes-list-type'] !== 'atomic'
    ) {
      issues.push(
        invalid(
          child(path, 'items', 'x-kubernetes-list-type'),
          items['x-kubernetes-list-type'],
          'must be atomic as item of a list with x-kubernetes-list-type=set',
        ),
      );
    }
    if (items.type === 'object' && items['x-kubernetes-map-type'] !== 'atomic') {
      issues.push(
        invalid(
          child(path, 'items', 'x-kubernetes-map-type'),
          items['x-kubernetes-map-type'],
          'must be atomic as item of a list with x-kubernetes-list-type=set',
        ),
      );
    }
  }
  if (listType !== undefined && !LIST_TYPES.includes(listType)) {
    issues.push(notSupported(child(path, 'x-kubernetes-list-type'), listType, LIST_TYPES));
  }

  if (mapKeys.length > 0 && listType !== 'map') {
    issues.push(
      listType === undefined
        ? required(child(path, 'x-kubernetes-list-type'), 'must be map if x-kubernetes-list-map-keys is non-empty')
        : invalid(
            child(path, 'x-kubernetes-list-type'),
            listType,
            'must be map if x-kubernetes-list-map-keys is non-empty',
          ),
    );
  }

  if (listType === 'map') issues.push(...checkMapList(s, path, mapKeys));
  if ((listType === 'set' || listType === 'map') && items?.nullable === true) {
    issues.push(
      forbidden(child(path, 'items', 'nullable'), `cannot be nullable when x-kubernetes-list-type is ${listType}`),
    );
  }
}

/** A `map` list is keyed by scalar, required (or defaulted), non-nullable item properties. */
function checkMapList(s: any, path: string, mapKeys: unknown[]): Issue[] {
  const issues: Issue[] = [];
  if (mapKeys.length === 0) {
    issues.push(
      required(child(path, 'x-kubernetes-list-map-keys'), 'must not be empty if x-kubernetes-list-type is map'),
    );
  }
  if (s.items === undefined) {
    issues.push(required(child(path, 'items'), 'must have a schema if x-kubernetes-list-type is map'));
    return issues;
  }
  if (!isObject(s.items)) {
    issues.push(
      invalid(child(path, 'items'), s.items, 'must only have a single schema if x-kubernetes-list-type is map'),
    );
    return issues;
  }
  if (s.items.type !== 'object') {
    issues.push(
      invalid(
        child(path, 'items', 'type'),
        s.items.type,
        "must be object if parent array's x-kubernetes-list-type is map",
      ),
    );
    return issues;
  }
  const props = isObject(s.items.properties) ? s.items.properties : {};
  const requiredKeys: unknown[] = Array.isArray(s.items.required) ? s.items.required : [];
  const seen = new Set<unknown>();
  for (const k of mapKeys) {
    const prop = props[String(k)];
    const propPath = key(child(path, 'items', 'properties'), String(k));
    if (prop === undefined) {
      issues.push(
        invalid(
          child(path, 'x-kubernetes-list-map-keys'),
          mapKeys,
          `entries must all be names of item properties (${JSON.stringify(k)} is not)`,
        ),
      );
    } else {
      if (prop?.type === 'array' || prop?.type === 'object') {
        issues.push(
          invalid(
            child(propPath, 'type'),
            prop.type,
            "must be a scalar type if parent array's x-kubernetes-list-type is map",
          ),
        );
      }
      if (!requiredKeys.includes(k) && prop?.default === undefined) {
        issues.push(
          required(
            child(propPath, 'default'),
            'this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property',
          ),
        );
      }
      if (prop?.nullable === true) {
        issues.push(
          forbidden(
            child(propPath, 'nullable'),
            'this property is in x-kubernetes-list-map-keys, so it cannot be nullable',
          ),
        );
      }
    }
    if (seen.has(k)) {
      issues.push(invalid(child(path, 'x-kubernetes-list-map-keys'), mapKeys, 'must not contain duplicate entries'));
    }
    seen.add(k);
  }
  return issues;
}

import { objectMetaDecodeError } from './object-meta';
import { fieldValue } from '../../apimachinery/field-value';
import { KubernetesVersion } from '../../apimachinery/kubernetes-versions';
import { JSONSchemaProps } from '../schema/json-schema-props';

/**
 * The decode-time check of embedded resources (apiextensions' objectmeta coercer, run while the apiserver decodes the
 * request): an embedded resource's apiVersion or kind that is no string, or metadata that does not decode as
 * ObjectMeta, refuses the whole object before any validation, with that one error (`spec.template.kind: Invalid
 * value: 5: must be a string`). Go walks maps in random order: with several such errors, which one the apiserver
 * names varies; ours is the first in document order.
 *
 * @internal
 */
export function embeddedDecodeError(
  schema: JSONSchemaProps | undefined,
  value: unknown,
  path: string,
  version: KubernetesVersion,
): string | undefined {
  if (!schema || value === null || typeof value !== 'object') return undefined;
  const child = (p: string, k: string) => (p ? `${p}.${k}` : k);
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = schema.items && embeddedDecodeError(schema.items, value[i], `${path}[${i}]`, version);
      if (found) return found;
    }
    return undefined;
  }
  const object = value as Record<string, unknown>;
  for (const [k, v] of Object.entries(object)) {
    if (v === undefined) continue;
    if (schema['x-kubernetes-embedded-resource'] === true && path !== '') {
      if ((k === 'apiVersion' || k === 'kind') && typeof v !== 'string') {
        return `${child(path, k)}: Invalid value: ${fieldValue(v, version)}: must be a string`;
      }
      if (k === 'metadata') {
        const error = objectMetaDecodeError(v);
        if (error) return `${child(path, k)}: Invalid value: ${fieldValue(v, version)}: ${error}`;
      }
    }
    const ap = schema.additionalProperties;
    const sub = schema.properties?.[k] ?? (ap && typeof ap === 'object' ? ap : undefined);
    const found =
      sub && embeddedDecodeError(sub, v, schema.properties?.[k] ? child(path, k) : `${path}[${k}]`, version);
    if (found) return found;
  }
  return undefined;
}

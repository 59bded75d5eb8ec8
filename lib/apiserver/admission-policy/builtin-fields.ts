import { BUILTIN_FIELDS_MISSING } from './builtin-fields-by-version';
import { builtinRawSchemas } from './builtin-openapi';

/**
 * The fields of a built-in object that Kubernetes `version` does not know: properties the vendored v1.32.13 schema
 * has and that version's OpenAPI v3 lacks (`builtin-fields-by-version.ts`, read from the real 1.28 and 1.36
 * apiservers), as field paths (`spec.template.spec.securityContext.appArmorProfile`). Empty for versions without a
 * measured difference, for kinds without a vendored schema and for values the schema does not describe. A field
 * a version knows but keeps behind a feature gate that is off by default is not found here.
 *
 * @internal
 */
export function fieldsUnknownTo(object: any, version: string): string[] {
  const missing = BUILTIN_FIELDS_MISSING[version]?.missing;
  if (!missing || typeof object?.apiVersion !== 'string' || typeof object?.kind !== 'string') return [];
  const [group, v] = object.apiVersion.includes('/') ? object.apiVersion.split('/') : ['', object.apiVersion];
  const { name, schemas } = builtinRawSchemas({ group, version: v, kind: object.kind });
  // a whole kind a version lacks is the served API versions' concern, not a field's
  if (!name || missing[name]?.includes('*')) return [];
  const found: string[] = [];
  const refOf = (s: any): string | undefined => {
    const ref: unknown = s?.$ref ?? s?.allOf?.[0]?.$ref;
    return typeof ref === 'string' ? ref.replace('#/components/schemas/', '') : undefined;
  };
  const walk = (value: any, schema: any, path: string): void => {
    const ref = refOf(schema);
    if (ref) {
      if (missing[ref]?.includes('*')) {
        found.push(path);
        return;
      }
      schema = { ...schemas[ref], _name: ref };
    }
    if (Array.isArray(value)) {
      if (schema?.items) value.forEach((item, i) => walk(item, schema.items, `${path}[${i}]`));
      return;
    }
    if (value === null || typeof value !== 'object') return;
    for (const [key, sub] of Object.entries(value)) {
      const at = path ? `${path}.${key}` : key;
      if (schema?._name && missing[schema._name]?.includes(key)) found.push(at);
      else if (schema?.properties?.[key]) walk(sub, schema.properties[key], at);
      else if (schema?.additionalProperties && typeof schema.additionalProperties === 'object') walk(sub, schema.additionalProperties, at);
    }
  };
  walk(object, { $ref: `#/components/schemas/${name}` }, '');
  return found;
}

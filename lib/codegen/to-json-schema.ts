import type { JSONSchema4, JSONSchema4TypeName } from 'json-schema';
import { JSONSchemaProps } from '../apiserver/schema/json-schema-props';

const UNKNOWN_MAP = '{ [key: string]: unknown }';

/**
 * Converts a Kubernetes structural schema into plain JSON Schema that json-schema-to-typescript
 * understands, keeping the Kubernetes meaning: int-or-string is `number | string`, preserved unknown
 * fields become an open map, `nullable` adds `null`, and declared objects are closed.
 *
 * @internal
 */
export function toJsonSchema(schema: JSONSchemaProps): JSONSchema4 {
  const out: JSONSchema4 = {};
  if (schema.description || schema.default !== undefined) out.description = describe(schema);

  if (schema['x-kubernetes-int-or-string']) {
    out.tsType = schema.nullable ? 'number | string | null' : 'number | string';
    return out;
  }
  if (schema.enum) out.enum = [...schema.enum] as JSONSchema4['enum'];

  switch (schema.type) {
    case 'object':
      Object.assign(out, objectSchema(schema));
      break;
    case 'array':
      out.type = 'array';
      out.items = schema.items ? toJsonSchema(schema.items) : { tsType: 'unknown' };
      break;
    case 'string':
    case 'integer':
    case 'number':
    case 'boolean':
      out.type = schema.type;
      break;
    default:
      out.tsType = 'unknown';
      return out;
  }
  if (schema.nullable && !out.tsType) out.type = [out.type as JSONSchema4TypeName, 'null'];
  else if (schema.nullable && out.tsType) out.tsType = `${out.tsType} | null`;
  return out;
}

function objectSchema(schema: JSONSchemaProps): JSONSchema4 {
  const preserve = schema['x-kubernetes-preserve-unknown-fields'] === true;
  const props = schema.properties ?? {};
  const names = Object.keys(props);
  if (names.length === 0 && schema.additionalProperties === undefined) {
    // Without preserve-unknown-fields the apiserver prunes every field of such an object.
    return { tsType: preserve || schema['x-kubernetes-embedded-resource'] ? UNKNOWN_MAP : '{ [key: string]: never }' };
  }
  const out: JSONSchema4 = { type: 'object' };
  if (names.length > 0) {
    out.properties = Object.fromEntries(names.map((n) => [n, toJsonSchema(props[n])]));
    if (schema.required?.length) out.required = [...schema.required];
  }
  if (typeof schema.additionalProperties === 'object') {
    out.additionalProperties = toJsonSchema(schema.additionalProperties);
  } else {
    out.additionalProperties = preserve || schema.additionalProperties === true;
  }
  return out;
}

function describe(schema: JSONSchemaProps): string {
  const lines = schema.description ? [schema.description] : [];
  if (schema.default !== undefined) lines.push(`@default ${JSON.stringify(schema.default)}`);
  return lines.join('\n\n');
}

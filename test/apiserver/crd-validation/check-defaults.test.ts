import { checkDefaults } from '../../../lib/apiserver/crd-validation/check-defaults';
import { JSONSchemaProps } from '../../../lib/apiserver/schema/json-schema-props';

const BASE = 'spec.versions[0].schema.openAPIV3Schema';
const withSpec = (spec: JSONSchemaProps, root: Record<string, JSONSchemaProps> = {}): JSONSchemaProps => ({
  type: 'object',
  properties: { spec, ...root },
});

describe('checkDefaults', () => {
  test('accepts valid defaults, including nested and list-item defaults', () => {
    const schema = withSpec({
      type: 'object',
      default: {},
      properties: {
        replicas: { type: 'integer', minimum: 1, default: 1 },
        mode: { type: 'string', enum: ['a', 'b'], default: 'a' },
        ports: {
          type: 'array',
          default: [{ port: 80 }],
          items: { type: 'object', properties: { port: { type: 'integer', default: 80 } } },
        },
        labels: { type: 'object', additionalProperties: { type: 'string', default: '' } },
      },
    });
    expect(checkDefaults(schema, BASE)).toStrictEqual([]);
  });

  test('fails a default that violates its own schema', () => {
    const issues = checkDefaults(
      withSpec({ type: 'object', properties: { replicas: { type: 'integer', minimum: 1, default: 0 } } }),
      BASE,
    );
    expect(issues).toStrictEqual([
      {
        path: `${BASE}.properties[spec].properties[replicas].default`,
        message: `Invalid value: 0: ${BASE}.properties[spec].properties[replicas].default in body should be greater than or equal to 1`,
        value: 0,
      },
    ]);
  });

  test('fails a default of the wrong type and one outside the enum', () => {
    const issues = checkDefaults(
      withSpec({
        type: 'object',
        properties: { n: { type: 'integer', default: 'one' }, m: { type: 'string', enum: ['a'], default: 'z' } },
      }),
      BASE,
    );
    expect(issues.map((i) => i.message)).toEqual([
      expect.stringMatching(/must be of type integer: "string"$/),
      expect.stringMatching(/^Unsupported value: "z": supported values: "a"$/),
    ]);
  });

  test('fails a default with unknown fields', () => {
    const issues = checkDefaults(
      withSpec({
        type: 'object',
        default: { replicas: 1, bogus: true },
        properties: { replicas: { type: 'integer' } },
      }),
      BASE,
    );
    expect(issues).toHaveLength(1);
    expect(issues[0].path).toBe(`${BASE}.properties[spec].default.bogus`);
    expect(issues[0].message).toMatch(/^must not have unknown fields: unknown field/);
  });

  test('checks a default after defaulting it, like the apiserver', () => {
    // the object default {} gets b's default, which breaks the CEL rule on the object
    const schema = withSpec({
      type: 'object',
      default: {},
      'x-kubernetes-validations': [{ rule: "self.b != 'forbidden'", message: 'b must not be forbidden' }],
      properties: { b: { type: 'string', default: 'forbidden' } },
    });
    const issues = checkDefaults(schema, BASE);
    expect(issues.map((i) => i.message)).toContain('Invalid value: "object": b must not be forbidden');
  });

  test('fails a default that breaks a CEL rule of its subschema', () => {
    const schema = withSpec({
      type: 'object',
      properties: {
        name: {
          type: 'string',
          default: 'UPPER',
          'x-kubernetes-validations': [{ rule: 'self.lowerAscii() == self', message: 'must be lower case' }],
        },
      },
    });
    expect(checkDefaults(schema, BASE)).toStrictEqual([
      {
        path: `${BASE}.properties[spec].properties[name].default`,
        message: 'Invalid value: "string": must be lower case',
        value: 'UPPER',
      },
    ]);
  });

  test('fails defaults under the root metadata, apiVersion and kind', () => {
    const schema = withSpec(
      { type: 'object' },
      {
        metadata: { type: 'object', properties: { name: { type: 'string', default: 'x' } } },
        apiVersion: { type: 'string', default: 'a/v1' },
        kind: { type: 'string', default: 'K' },
      },
    );
    expect(checkDefaults(schema, BASE)[0].message).toBe('Forbidden: must not be set in top-level metadata');
    expect(checkDefaults(schema, BASE).map((i) => i.path)).toStrictEqual([
      `${BASE}.properties[metadata].properties[name].default`,
      `${BASE}.properties[apiVersion].default`,
      `${BASE}.properties[kind].default`,
    ]);
  });

  test('allows metadata defaults inside embedded resources below the root', () => {
    const schema = withSpec({
      type: 'object',
      properties: {
        template: {
          type: 'object',
          'x-kubernetes-embedded-resource': true,
          default: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } },
          properties: { data: { type: 'object', additionalProperties: { type: 'string' } } },
        },
      },
    });
    expect(checkDefaults(schema, BASE)).toStrictEqual([]);
  });
});

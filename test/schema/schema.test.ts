import { formatIssue } from '../../lib/apimachinery/issue';
import { JSONSchemaProps } from '../../lib/apiserver/schema/json-schema-props';
import { Schema } from '../../lib/schema/schema';
import { schemaProblems } from '../../lib/schema/schema-problems';

describe('Schema builders', () => {
  test('object with required fields and defaults, in k8s spelling', () => {
    expect(
      Schema.object({
        description: 'desired state',
        properties: {
          replicas: Schema.integer({ minimum: 1, default: 1 }),
          name: Schema.string({ minLength: 1, maxLength: 63 }),
        },
        required: ['name'],
        mapType: 'atomic',
      }),
    ).toStrictEqual({
      type: 'object',
      description: 'desired state',
      properties: {
        replicas: { type: 'integer', minimum: 1, default: 1 },
        name: { type: 'string', minLength: 1, maxLength: 63 },
      },
      required: ['name'],
      'x-kubernetes-map-type': 'atomic',
    });
  });

  test('string options', () => {
    expect(
      Schema.string({ enum: ['a', 'b'], pattern: '^(?i)[a-z]+$', format: 'hostname', nullable: true }),
    ).toStrictEqual({
      type: 'string',
      enum: ['a', 'b'],
      pattern: '^(?i)[a-z]+$',
      format: 'hostname',
      nullable: true,
    });
  });

  test('numbers with exclusive bounds and multipleOf', () => {
    expect(
      Schema.number({ minimum: 0, exclusiveMinimum: true, maximum: 1, multipleOf: 0.25, format: 'double' }),
    ).toStrictEqual({
      type: 'number',
      minimum: 0,
      exclusiveMinimum: true,
      maximum: 1,
      multipleOf: 0.25,
      format: 'double',
    });
    expect(Schema.boolean({ default: false })).toStrictEqual({ type: 'boolean', default: false });
  });

  test('array as a map list: listMapKeys implies listType map', () => {
    const item = Schema.object({ properties: { type: Schema.string(), status: Schema.string() }, required: ['type'] });
    expect(Schema.array(item, { listMapKeys: ['type'], maxItems: 8 })).toStrictEqual({
      type: 'array',
      items: item,
      maxItems: 8,
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['type'],
    });
    expect(Schema.array(Schema.string(), { listType: 'set' })['x-kubernetes-list-type']).toBe('set');
  });

  test('map, int-or-string, preserve-unknown and embedded resources', () => {
    expect(Schema.map(Schema.string(), { maxProperties: 64 })).toStrictEqual({
      type: 'object',
      additionalProperties: { type: 'string' },
      maxProperties: 64,
    });
    expect(Schema.intOrString({ description: 'port' })).toStrictEqual({
      description: 'port',
      anyOf: [{ type: 'integer' }, { type: 'string' }],
      'x-kubernetes-int-or-string': true,
    });
    expect(Schema.preserveUnknown()).toStrictEqual({ type: 'object', 'x-kubernetes-preserve-unknown-fields': true });
    expect(Schema.embeddedResource()).toStrictEqual({
      type: 'object',
      'x-kubernetes-preserve-unknown-fields': true,
      'x-kubernetes-embedded-resource': true,
    });
    expect(Schema.embeddedResource({ properties: { kind: Schema.string() } })).toStrictEqual({
      type: 'object',
      properties: { kind: { type: 'string' } },
      'x-kubernetes-embedded-resource': true,
    });
  });

  test('CEL validations map to x-kubernetes-validations', () => {
    const rule = {
      rule: 'self.minReplicas <= self.maxReplicas',
      message: 'min must not exceed max',
      reason: 'FieldValueInvalid',
      fieldPath: '.minReplicas',
    };
    expect(Schema.object({ validations: [rule] })['x-kubernetes-validations']).toStrictEqual([rule]);
    expect(
      Schema.string({
        validations: [{ rule: 'self == oldSelf', optionalOldSelf: true, messageExpression: '"immutable"' }],
      })['x-kubernetes-validations'],
    ).toStrictEqual([{ rule: 'self == oldSelf', optionalOldSelf: true, messageExpression: '"immutable"' }]);
  });

  test.each<[string, () => unknown, RegExp]>([
    [
      'negative minLength',
      () => Schema.string({ minLength: -1 }),
      /'minLength' must be a non-negative integer, got -1/,
    ],
    [
      'minLength above maxLength',
      () => Schema.string({ minLength: 5, maxLength: 2 }),
      /'minLength' must not exceed 'maxLength', got minLength=5 > maxLength=2/,
    ],
    [
      'invalid pattern',
      () => Schema.string({ pattern: '([a-z' }),
      /'pattern' must be a valid RE2 regular expression, got "\(\[a-z"/,
    ],
    [
      'lookahead pattern (not RE2)',
      () => Schema.string({ pattern: '^(?!x)' }),
      /'pattern' must be a valid RE2 regular expression/,
    ],
    ['empty enum', () => Schema.string({ enum: [] }), /'enum' must list at least one value, got \[\]/],
    ['repeated enum', () => Schema.integer({ enum: [1, 1] }), /'enum' must not repeat a value, got \[1,1\]/],
    [
      'minimum above maximum',
      () => Schema.integer({ minimum: 3, maximum: 1 }),
      /'minimum' must not exceed 'maximum', got minimum=3 > maximum=1/,
    ],
    [
      'fractional integer bound',
      () => Schema.integer({ minimum: 0.5 }),
      /'minimum' of an integer must be an integer, got 0.5/,
    ],
    ['multipleOf zero', () => Schema.number({ multipleOf: 0 }), /'multipleOf' must be greater than 0, got 0/],
    [
      'exclusiveMinimum without minimum',
      () => Schema.number({ exclusiveMinimum: true }),
      /'exclusiveMinimum' needs 'minimum'/,
    ],
    [
      'negative maxItems',
      () => Schema.array(Schema.string(), { maxItems: -2 }),
      /'maxItems' must be a non-negative integer, got -2/,
    ],
    [
      'listMapKeys with listType set',
      () =>
        Schema.array(Schema.object({ properties: { a: Schema.string() } }), { listType: 'set', listMapKeys: ['a'] }),
      /'listMapKeys' needs listType 'map', got "set"/,
    ],
    [
      'map list without keys',
      () => Schema.array(Schema.object(), { listType: 'map' }),
      /listType 'map' needs non-empty 'listMapKeys', got \[\]/,
    ],
    [
      'map key that is not an item property',
      () =>
        Schema.array(Schema.object({ properties: { a: Schema.string() }, required: ['a'] }), { listMapKeys: ['b'] }),
      /'listMapKeys' must name properties of the items, got "b"/,
    ],
    [
      'map key neither required nor defaulted',
      () => Schema.array(Schema.object({ properties: { a: Schema.string() } }), { listMapKeys: ['a'] }),
      /'listMapKeys' entries must be required or defaulted in the items, got "a"/,
    ],
    [
      'required field not declared',
      () => Schema.object({ properties: { a: Schema.string() }, required: ['b'] }),
      /'required' names a field that 'properties' does not declare, got "b"/,
    ],
    [
      'maxProperties fractional',
      () => Schema.map(Schema.string(), { maxProperties: 1.5 }),
      /'maxProperties' must be a non-negative integer, got 1.5/,
    ],
  ])('records, does not throw: %s', (_name, build, expected) => {
    const node = build() as JSONSchemaProps;
    expect(schemaProblems(node, 'x').map(formatIssue)).toEqual([
      expect.stringMatching(new RegExp(`^x: ${expected.source}`)),
    ]);
    expect(JSON.stringify(node)).not.toMatch(/problem/i); // nothing of it in the output
  });

  test('problems of nested nodes are found at their field paths', () => {
    const schema = Schema.object({
      properties: {
        spec: Schema.object({
          properties: {
            name: Schema.string({ pattern: '([a-z' }),
            tags: Schema.array(Schema.integer({ minimum: 2, maximum: 1 })),
          },
        }),
      },
    });
    expect(schemaProblems(schema, 'root').map((i) => i.path)).toStrictEqual([
      'root.properties[spec].properties[name]',
      'root.properties[spec].properties[tags].items',
    ]);
    // a refused pattern is left out of the node, so the CRD checks do not report it again
    expect(schema.properties!.spec.properties!.name.pattern).toBeUndefined();
  });
});

import * as fs from 'fs';
import { parse } from 'yaml';
import { errorsOf } from '../../../lib/apimachinery/issue';
import { JSONSchemaProps } from '../../../lib/apiserver/schema/json-schema-props';
import { applyDefaults } from '../../../lib/apiserver/value-validation/value-defaults';
import { validateValue } from '../../../lib/apiserver/value-validation/value-validator';
import { KUBE_APISERVER_FIXTURES } from '../../fixtures/recorded/paths';

const FIXTURES = KUBE_APISERVER_FIXTURES;
const fixture = (name: string) => JSON.parse(fs.readFileSync(`${FIXTURES}/${name}.json`, 'utf8'));
const sampleDbSchema: JSONSchemaProps = parse(fs.readFileSync(`${FIXTURES}/crd.yaml`, 'utf8')).spec.versions[0].schema
  .openAPIV3Schema;

/** The causes of a recorded 422 as `field: message` lines. */
const causes = (name: string): string[] =>
  fixture(name).response.body.details.causes.map((c: { field: string; message: string }) => `${c.field}: ${c.message}`);

/** The errors (not warnings) as `path: message` lines. */
const lines = (schema: JSONSchemaProps, value: unknown, options = {}) =>
  errorsOf(validateValue(schema, value, options).issues).map((i) => `${i.path}: ${i.message}`);

describe('validateValue against the recorded apiserver responses', () => {
  test('accepts what the apiserver created (create-201)', () => {
    expect(validateValue(sampleDbSchema, fixture('create-201').request.body).issues).toStrictEqual([]);
  });

  test('reproduces the schema 422 (create-422-schema) with the same cause', () => {
    expect(lines(sampleDbSchema, fixture('create-422-schema').request.body)).toStrictEqual(causes('create-422-schema'));
  });

  test('reproduces the CEL 422 (create-422-cel) with the same cause', () => {
    expect(lines(sampleDbSchema, fixture('create-422-cel').request.body)).toStrictEqual(causes('create-422-cel'));
  });

  test('refuses the unknown field the apiserver pruned (create-unknown-field)', () => {
    const f = fixture('create-unknown-field');
    const issues = validateValue(sampleDbSchema, f.request.body).issues;
    expect(issues).toHaveLength(1);
    expect(issues[0]).toMatchObject({ path: 'spec.bogus', value: 1 });
    expect(issues[0].message).toMatch(/^unknown field "spec.bogus"/);
    // the apiserver's warning names the same field
    expect(f.response.headers.Warning).toContain('spec.bogus');
  });

  test('applies defaults like the apiserver: the stored spec of create-201 is the defaulted request', () => {
    const f = fixture('create-201');
    expect((validateValue(sampleDbSchema, f.request.body).value as any).spec).toStrictEqual(f.response.body.spec);
    // and a missing replicas gets its default of 1
    expect((applyDefaults(sampleDbSchema, { spec: { version: '16' } }) as any).spec).toStrictEqual({
      replicas: 1,
      version: '16',
    });
  });
});

describe('validateValue: defaults', () => {
  const schema: JSONSchemaProps = {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        default: {},
        properties: {
          size: { type: 'string', default: 'small' },
          nested: {
            type: 'object',
            default: { a: 1 },
            properties: { a: { type: 'integer' }, b: { type: 'string', default: 'bee' } },
          },
          nullableWithDefault: { type: 'string', nullable: true, default: 'x' },
          plainNull: { type: 'string' },
          list: { type: 'array', items: { type: 'object', properties: { p: { type: 'integer', default: 80 } } } },
        },
      },
    },
  };

  test('defaults absent fields recursively, including inside defaults and list items', () => {
    const out = applyDefaults(schema, { spec: { list: [{}, { p: 1 }] } });
    expect(out).toStrictEqual({
      spec: { size: 'small', nested: { a: 1, b: 'bee' }, nullableWithDefault: 'x', list: [{ p: 80 }, { p: 1 }] },
    });
  });

  test('defaults an absent parent object', () => {
    expect(applyDefaults(schema, {})).toMatchObject({ spec: { size: 'small' } });
  });

  test('keeps null for nullable fields, replaces null by the default otherwise, drops other nulls', () => {
    const out = applyDefaults(schema, { spec: { size: null, nullableWithDefault: null, plainNull: null } }) as any;
    expect(out.spec.size).toBe('small');
    expect(out.spec.nullableWithDefault).toBeNull();
    expect('plainNull' in out.spec).toBe(false);
  });

  test('does not modify its input', () => {
    const input = { spec: {} };
    applyDefaults(schema, input);
    expect(input).toStrictEqual({ spec: {} });
  });
});

describe('validateValue: schema keywords', () => {
  const schema: JSONSchemaProps = {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        required: ['name'],
        properties: {
          name: { type: 'string', minLength: 2, maxLength: 5, pattern: '^[a-z]+$' },
          count: { type: 'integer', minimum: 0, maximum: 10, exclusiveMaximum: true, multipleOf: 2 },
          ratio: { type: 'number' },
          mode: { type: 'string', enum: ['fast', 'safe'] },
          port: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
          note: { type: 'string', nullable: true },
          tags: { type: 'array', maxItems: 3, 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
          ports: {
            type: 'array',
            'x-kubernetes-list-type': 'map',
            'x-kubernetes-list-map-keys': ['name', 'protocol'],
            items: {
              type: 'object',
              required: ['name'],
              properties: {
                name: { type: 'string' },
                protocol: { type: 'string', default: 'TCP' },
                port: { type: 'integer' },
              },
            },
          },
          labels: { type: 'object', maxProperties: 2, additionalProperties: { type: 'string' } },
          extra: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
          template: {
            type: 'object',
            'x-kubernetes-embedded-resource': true,
            'x-kubernetes-preserve-unknown-fields': true,
          },
        },
      },
    },
  };
  const ok = { spec: { name: 'abc' } };
  const withSpec = (spec: object) => ({ spec: { ...ok.spec, ...spec } });

  test('accepts a valid value', () => {
    expect(
      lines(
        schema,
        withSpec({
          count: 4,
          ratio: 1,
          mode: 'fast',
          port: '50%',
          note: null,
          tags: ['a', 'b'],
          labels: { a: 'x' },
          ports: [{ name: 'http' }, { name: 'http', protocol: 'UDP' }],
          extra: { anything: { goes: [1] } },
          template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: {} },
        }),
      ),
    ).toStrictEqual([]);
  });

  test.each([
    [{ name: 'a' }, 'spec.name: Invalid value: "a": spec.name in body should be at least 2 chars long'],
    [{ name: 'abcdef' }, 'spec.name: Too long: may not be more than 5 bytes'],
    [{ name: 'AB' }, 'spec.name: Invalid value: "AB": spec.name in body should match \'^[a-z]+$\''],
    [{ count: -2 }, 'spec.count: Invalid value: -2: spec.count in body should be greater than or equal to 0'],
    [{ count: 10 }, 'spec.count: Invalid value: 10: spec.count in body should be less than 10'],
    [{ count: 3 }, 'spec.count: Invalid value: 3: spec.count in body should be a multiple of 2'],
    [{ count: 'two' }, 'spec.count: Invalid value: "string": spec.count in body must be of type integer: "string"'],
    [{ count: 1.5 }, 'spec.count: Invalid value: "number": spec.count in body must be of type integer: "number"'],
    [{ mode: 'slow' }, 'spec.mode: Unsupported value: "slow": supported values: "fast", "safe"'],
    [
      { port: true },
      'spec.port: Invalid value: "boolean": spec.port in body must be of type integer,string: "boolean"',
    ],
    [{ name: null }, 'spec.name: Required value'],
    [{ tags: ['a', 'b', 'a'] }, 'spec.tags[2]: Duplicate value: "a"'],
    [{ tags: ['a', 'b', 'c', 'd'] }, 'spec.tags: Too many: 4: must have at most 3 items'],
    // Go's %#v of the map-list keys up to 1.33 (JSON from 1.34: messages-by-version.test.ts)
    [
      { ports: [{ name: 'http' }, { name: 'http', protocol: 'TCP' }] },
      'spec.ports[1]: Duplicate value: map[string]interface {}{"name":"http", "protocol":"TCP"}',
    ],
    [{ labels: { a: 'x', b: 'y', c: 'z' } }, 'spec.labels: Too many: 3: must have at most 2 items'],
    [{ template: { metadata: {} } }, 'spec.template.apiVersion: Required value: must not be empty'],
  ])('fails %j', (spec, expected) => {
    expect(lines(schema, withSpec(spec))).toContain(expected);
  });

  test('reads RE2 pattern spellings (inline flags, named groups, \\z)', () => {
    const re2: JSONSchemaProps = {
      type: 'object',
      properties: { a: { type: 'string', pattern: '(?i)^abc\\z' }, b: { type: 'string', pattern: '^(?P<n>[0-9]+)$' } },
    };
    expect(lines(re2, { a: 'ABC', b: '12' }, { resourceRoot: false })).toStrictEqual([]);
    expect(lines(re2, { a: 'ABCD', b: 'x' }, { resourceRoot: false })).toHaveLength(2);
  });

  test('a nullable enum accepts null only when it lists null', () => {
    const nullableEnum = (values: unknown[]): JSONSchemaProps => ({
      type: 'object',
      properties: { m: { type: 'string', nullable: true, enum: values } },
    });
    expect(lines(nullableEnum(['a', null]), { m: null }, { resourceRoot: false })).toStrictEqual([]);
    expect(lines(nullableEnum(['a']), { m: null }, { resourceRoot: false })).toStrictEqual([
      'm: Unsupported value: "null": supported values: "a"',
    ]);
  });

  test('fails a missing required field', () => {
    expect(lines(schema, { spec: {} })).toStrictEqual(['spec.name: Required value']);
  });

  test('fails a nested unknown field but not under preserve-unknown-fields or at the resource root', () => {
    expect(
      lines(schema, {
        apiVersion: 'a/v1',
        kind: 'K',
        metadata: { name: 'x', labels: {} },
        spec: { name: 'ab', extra: { x: 1 }, bogus: { deep: 1 } },
      }),
    ).toStrictEqual(['spec.bogus: unknown field "spec.bogus"']);
  });

  test('a value that is not a whole resource may not carry apiVersion', () => {
    expect(
      lines(
        { type: 'object', properties: { a: { type: 'string' } } },
        { apiVersion: 'v1' },
        { resourceRoot: false },
      )[0],
    ).toMatch(/unknown field "apiVersion"/);
  });
});

describe('validateValue: value-validation branches', () => {
  const schema: JSONSchemaProps = {
    type: 'object',
    properties: {
      either: {
        type: 'object',
        anyOf: [{ required: ['a'] }, { required: ['b'] }],
        properties: { a: { type: 'string' }, b: { type: 'string' } },
      },
      exactly: {
        type: 'object',
        oneOf: [{ required: ['a'] }, { required: ['b'] }],
        properties: { a: { type: 'string' }, b: { type: 'string' } },
      },
      notEmpty: { type: 'string', not: { enum: [''] } },
      both: { type: 'integer', allOf: [{ minimum: 1 }, { maximum: 5 }] },
    },
  };
  test('accepts values matching the branches', () => {
    expect(
      lines(schema, { either: { a: 'x' }, exactly: { b: 'y' }, notEmpty: 'z', both: 3 }, { resourceRoot: false }),
    ).toStrictEqual([]);
  });
  test('fails values that do not', () => {
    expect(
      lines(schema, { either: {}, exactly: { a: 'x', b: 'y' }, notEmpty: '', both: 9 }, { resourceRoot: false }),
    ).toStrictEqual([
      // composite errors are fieldless causes on the apiserver (the path is in the message); a failed anyOf adds
      // the errors of the branch that matched most (measured in test/apiserver/cr-differential.test.ts)
      '<nil>: Invalid value: "": "either" must validate at least one schema (anyOf)',
      'either.a: Required value',
      '<nil>: Invalid value: "": "exactly" must validate one and only one schema (oneOf). Found 2 valid alternatives',
      '<nil>: Invalid value: "": "notEmpty" must not validate the schema (not)',
      'both: Invalid value: 9: both in body should be less than or equal to 5',
    ]);
  });
});

describe('validateValue: formats', () => {
  const schemaFor = (format: string): JSONSchemaProps => ({
    type: 'object',
    properties: { v: { type: 'string', format } },
  });
  test.each([
    ['uuid', '123e4567-e89b-12d3-a456-426614174000', 'not-a-uuid'],
    ['uuid', '123e4567e89b12d3a456426614174000', '123e4567-e89b-12d3-a456'],
    ['email', 'a@example.com', 'not-an-email'],
    ['hostname', 'example.com', '-bad-.com'],
    ['ipv4', '10.0.0.1', '10.0.0.256'],
    ['ipv6', '::1', '10.0.0.1'],
    ['cidr', '10.0.0.0/8', '10.0.0.0/33'],
    ['mac', '00:1a:2b:3c:4d:5e', '00:1a:2b'],
    ['uri', 'https://example.com/x', 'example.com'],
    ['date', '2024-02-29', '2023-02-29'],
    ['date-time', '2024-01-01T10:00:00Z', '2024-01-01'],
    ['date-time', '2024-01-01t10:00:00.5+02:00', '2024-01-01T10:00:00'],
    ['duration', '1h30m', 'soon'],
    ['byte', 'aGVsbG8=', 'not base64!'],
  ])('%s accepts %j and rejects %j', (format, good, bad) => {
    expect(lines(schemaFor(format), { v: good }, { resourceRoot: false })).toStrictEqual([]);
    expect(lines(schemaFor(format), { v: bad }, { resourceRoot: false })).toStrictEqual([
      `v: Invalid value: ${JSON.stringify(bad)}: v in body must be of type ${format}: ${JSON.stringify(bad)}`,
    ]);
  });

  test('does not check formats the apiserver ignores', () => {
    expect(lines(schemaFor('int32'), { v: 'anything' }, { resourceRoot: false })).toStrictEqual([]);
    expect(lines(schemaFor('my-own-format'), { v: 'anything' }, { resourceRoot: false })).toStrictEqual([]);
  });
});

describe('validateValue: CEL rules', () => {
  const schema: JSONSchemaProps = {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        'x-kubernetes-validations': [
          {
            rule: 'self.min <= self.max',
            messageExpression: "'min ' + string(self.min) + ' exceeds max ' + string(self.max)",
            fieldPath: '.min',
          },
          { rule: '!has(self.legacy)', reason: 'FieldValueForbidden', message: 'legacy is no longer supported' },
          { rule: 'self.storage == oldSelf.storage', message: 'storage is immutable' },
          { rule: "quantity(self.storage).isLessThan(quantity('10Gi'))", message: 'storage must be below 10Gi' },
        ],
        properties: {
          min: { type: 'integer', default: 0 },
          max: { type: 'integer', default: 10 },
          legacy: { type: 'boolean' },
          storage: { type: 'string', default: '1Gi' },
          items: {
            type: 'array',
            items: { type: 'string', 'x-kubernetes-validations': [{ rule: "self.matches('^[a-z]+$')" }] },
          },
        },
      },
    },
  };

  test('evaluates rules on the defaulted value', () => {
    expect(lines(schema, { spec: {} })).toStrictEqual([]);
    expect(lines(schema, { spec: { min: 11 } })).toStrictEqual([
      'spec.min: Invalid value: "object": min 11 exceeds max 10',
    ]);
  });

  test('uses reason and message', () => {
    expect(lines(schema, { spec: { legacy: true } })).toStrictEqual(['spec: Forbidden: legacy is no longer supported']);
  });

  test('uses the default message and list item paths', () => {
    expect(lines(schema, { spec: { items: ['ok', 'NOT'] } })).toStrictEqual([
      'spec.items[1]: Invalid value: "string": failed rule: self.matches(\'^[a-z]+$\')',
    ]);
  });

  test('reports a rule failing on a map entry at the map key, and runtime errors with the rule', () => {
    const labels: JSONSchemaProps = {
      type: 'object',
      properties: {
        labels: {
          type: 'object',
          additionalProperties: { type: 'string' },
          'x-kubernetes-validations': [
            { rule: "!has(self.tier) || self.tier != ''", fieldPath: '.tier', message: 'tier must not be empty' },
          ],
        },
        port: { 'x-kubernetes-int-or-string': true, 'x-kubernetes-validations': [{ rule: 'self > 0' }] },
        dup: {
          type: 'object',
          'x-kubernetes-validations': [{ rule: 'false', reason: 'FieldValueDuplicate', message: 'dup' }],
        },
      },
    };
    expect(lines(labels, { labels: { tier: '' } }, { resourceRoot: false })).toStrictEqual([
      'labels[tier]: Invalid value: "object": tier must not be empty',
    ]);
    expect(lines(labels, { port: 'http' }, { resourceRoot: false })).toStrictEqual([
      'port: Invalid value: "": \'no such overload\': call arguments did not match a supported operator, function or macro signature for rule: self > 0',
    ]);
    expect(lines(labels, { dup: {} }, { resourceRoot: false })).toStrictEqual(['dup: Duplicate value: "object"']);
  });

  test('evaluates Kubernetes library functions', () => {
    expect(lines(schema, { spec: { storage: '20Gi' } })).toStrictEqual([
      'spec: Invalid value: "object": storage must be below 10Gi',
    ]);
  });

  // the math extension is no longer an example: no apiserver offers it, so the checker refuses it (environment.ts)
  test('a rule using a function the local library lacks is a warning, not an error', () => {
    const withFormat: JSONSchemaProps = {
      type: 'object',
      properties: {
        v: {
          type: 'integer',
          'x-kubernetes-validations': [{ rule: 'optional.of(self).optMap(x, x + 1).value() < 10' }],
        },
      },
    };
    const issues = validateValue(withFormat, { v: 3 }, { resourceRoot: false }).issues;
    expect(issues).toHaveLength(1);
    expect(issues[0]).toMatchObject({ path: 'v', severity: 'warning' });
    expect(issues[0].message).toMatch(/rule not evaluated locally: optMap not supported by the local CEL library/);
  });

  test('runs optionalOldSelf rules on create too, with oldSelf = optional.none()', () => {
    const optional: JSONSchemaProps = {
      type: 'object',
      properties: {
        v: {
          type: 'string',
          'x-kubernetes-validations': [
            {
              rule: "oldSelf.hasValue() ? self == oldSelf.value() : self != ''",
              optionalOldSelf: true,
              message: 'set once, then immutable',
            },
          ],
        },
      },
    };
    expect(lines(optional, { v: '' }, { resourceRoot: false })).toStrictEqual([
      'v: Invalid value: "string": set once, then immutable',
    ]);
    expect(lines(optional, { v: 'a' }, { resourceRoot: false })).toStrictEqual([]);
    expect(lines(optional, { v: 'b' }, { resourceRoot: false, oldValue: { v: 'a' } })).toStrictEqual([
      'v: Invalid value: "string": set once, then immutable',
    ]);
    expect(lines(optional, { v: 'a' }, { resourceRoot: false, oldValue: { v: 'a' } })).toStrictEqual([]);
  });

  test('evaluates the format library', () => {
    const named: JSONSchemaProps = {
      type: 'object',
      properties: {
        v: {
          type: 'string',
          'x-kubernetes-validations': [
            {
              rule: '!format.dns1123Label().validate(self).hasValue()',
              messageExpression: "format.dns1123Label().validate(self).value().join(', ')",
            },
          ],
        },
      },
    };
    expect(lines(named, { v: 'ok-label' }, { resourceRoot: false })).toStrictEqual([]);
    expect(lines(named, { v: 'Not_A_Label' }, { resourceRoot: false })[0]).toMatch(
      /^v: Invalid value: "string": a lowercase RFC 1123 label must consist of/,
    );
  });

  test('skips rules when the object has blocking schema errors, like the apiserver', () => {
    const issues = validateValue(schema, { spec: { min: 'zero', legacy: true } }).issues;
    expect(errorsOf(issues).map((i) => i.message)).toStrictEqual([
      'Invalid value: "string": spec.min in body must be of type integer: "string"',
    ]);
    expect(issues[issues.length - 1]).toMatchObject({
      severity: 'warning',
      message:
        'Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
    });
    // a non-blocking error (a minimum) does not stop the rules
    expect(lines(schema, { spec: { legacy: true, items: ['NOT'] } }).length).toBe(2);
  });

  test('runs transition rules only when an old value is given', () => {
    expect(lines(schema, { spec: { storage: '2Gi' } })).toStrictEqual([]);
    expect(lines(schema, { spec: { storage: '2Gi' } }, { oldValue: { spec: { storage: '1Gi' } } })).toStrictEqual([
      'spec: Invalid value: "object": storage is immutable',
    ]);
    expect(lines(schema, { spec: { storage: '2Gi' } }, { oldValue: { spec: { storage: '2Gi' } } })).toStrictEqual([]);
  });
});

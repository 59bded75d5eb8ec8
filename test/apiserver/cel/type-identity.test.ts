import { schemaCelType } from '../../../lib/apiserver/cel/cel-types';
import { checkCelRules } from '../../../lib/apiserver/cel/check-rules';
import { typeIdentity } from '../../../lib/apiserver/cel/type-identity';
import { JSONSchemaProps } from '../../../lib/apiserver/schema/json-schema-props';

const spec = (): JSONSchemaProps => ({
  type: 'object',
  required: ['name'],
  properties: {
    name: { type: 'string', maxLength: 63 },
    ports: { type: 'array', maxItems: 8, items: { type: 'object', properties: { port: { type: 'integer' } } } },
    labels: { type: 'object', additionalProperties: { type: 'string' } },
    'x-y': { 'x-kubernetes-int-or-string': true },
  },
});

describe('typeIdentity', () => {
  test('equal types of distinct schema nodes share a number', () => {
    expect(typeIdentity(schemaCelType(spec()))).toBe(typeIdentity(schemaCelType(spec())));
    expect(typeIdentity(schemaCelType(spec(), true))).toBe(typeIdentity(schemaCelType(spec(), true)));
  });

  test.each<[string, (s: any) => void]>([
    [
      'a bound',
      (s) => {
        s.properties.name.maxLength = 64;
      },
    ],
    [
      'a nested bound',
      (s) => {
        s.properties.ports.maxItems = 9;
      },
    ],
    [
      'a nested type',
      (s) => {
        s.properties.ports.items.properties.port.type = 'number';
      },
    ],
    [
      'a field name',
      (s) => {
        s.properties.labels2 = s.properties.labels;
        delete s.properties.labels;
      },
    ],
    [
      'field order',
      (s) => {
        const { name, ...rest } = s.properties;
        s.properties = { ...rest, name };
      },
    ],
    [
      'a map value type',
      (s) => {
        s.properties.labels.additionalProperties = { type: 'integer' };
      },
    ],
    [
      'required (the smallest serialization)',
      (s) => {
        s.required = [];
      },
    ],
  ])('types that differ in %s get different numbers', (_what, change) => {
    const changed = spec();
    change(changed);
    expect(typeIdentity(schemaCelType(changed))).not.toBe(typeIdentity(schemaCelType(spec())));
  });

  test('the resource root (apiVersion, kind, metadata added) differs from the same schema elsewhere', () => {
    expect(typeIdentity(schemaCelType(spec(), true))).not.toBe(typeIdentity(schemaCelType(spec())));
  });
});

describe('checked rules are shared by type, not by text alone', () => {
  test('the same rule on two types: checked against each', () => {
    const rule = { 'x-kubernetes-validations': [{ rule: 'self.port > 0' }] };
    const schema: JSONSchemaProps = {
      type: 'object',
      properties: {
        a: { type: 'object', properties: { port: { type: 'integer' } }, ...rule },
        b: { type: 'object', properties: { host: { type: 'string' } }, ...rule },
        c: { type: 'object', properties: { port: { type: 'integer' } }, ...rule },
      },
    };
    const issues = checkCelRules(schema, 's');
    expect(issues.map((i) => i.path)).toStrictEqual(['s.properties[b].x-kubernetes-validations[0].rule']);
    expect(issues[0].message).toMatch(/undefined field 'port'/);
  });
});

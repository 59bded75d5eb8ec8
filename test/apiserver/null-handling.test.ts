import { errorsOf } from '../../lib/apimachinery/issue';
import { JSONSchemaProps } from '../../lib/apiserver/schema/json-schema-props';
import { validateValue } from '../../lib/apiserver/value-validation/value-validator';
import { describeRealApiServer } from '../envtest';

/**
 * null in custom resources as the apiserver handles it: a non-nullable field's null is replaced by its default or,
 * without one, pruned; a nullable field keeps it; a null list item gets the items' default. Each object is sent
 * as JSON (nulls and all) in a dry-run create; what the apiserver would store must be what `validateValue` says
 * it stores, and the verdicts must agree.
 */
const SPEC: JSONSchemaProps = {
  type: 'object',
  properties: {
    withDefault: { type: 'string', default: 'd' },
    plain: { type: 'string' },
    nullable: { type: 'string', nullable: true },
    nullableWithDefault: { type: 'string', nullable: true, default: 'n' },
    count: { type: 'integer', default: 3 },
    list: { type: 'array', items: { type: 'string', default: 'item' } },
    nullableItems: { type: 'array', items: { type: 'string', nullable: true } },
    plainItems: { type: 'array', items: { type: 'string' } },
    map: { type: 'object', additionalProperties: { type: 'string', default: 'v' } },
    plainMap: { type: 'object', additionalProperties: { type: 'string' } },
    nested: {
      type: 'object',
      default: {},
      properties: { inner: { type: 'string', default: 'i' }, other: { type: 'integer' } },
    },
    nullableObject: { type: 'object', nullable: true, properties: { a: { type: 'string', default: 'a' } } },
  },
};

const CASES: Array<[string, Record<string, unknown>]> = [
  ['null of a field with a default: the default', { withDefault: null }],
  ['null of a field without a default: pruned', { plain: null }],
  ['null of a nullable field: kept', { nullable: null }],
  ['null of a nullable field with a default: kept', { nullableWithDefault: null }],
  ['null of an integer with a default', { count: null }],
  ['null list item with an items default', { list: ['a', null] }],
  ['null list item of nullable items', { nullableItems: ['a', null] }],
  ['null list item without default: refused', { plainItems: ['a', null] }],
  ['null map value with a default', { map: { a: null, b: 'x' } }],
  ['null map value without a default: pruned', { plainMap: { a: null, b: 'x' } }],
  ['null object with a default: the default, then its own defaults', { nested: null }],
  ['null inside a defaulted object', { nested: { inner: null, other: null } }],
  ['null nullable object: kept, no defaults inside', { nullableObject: null }],
  ['absent fields: defaults only', {}],
];

describeRealApiServer(
  'null in custom resources',
  (plane) => {
    beforeAll(async () => {
      await plane().installCrds([
        {
          apiVersion: 'apiextensions.k8s.io/v1',
          kind: 'CustomResourceDefinition',
          metadata: { name: 'nulls.null.example.com' },
          spec: {
            group: 'null.example.com',
            scope: 'Namespaced',
            names: { kind: 'Null', plural: 'nulls' },
            versions: [
              {
                name: 'v1',
                served: true,
                storage: true,
                schema: { openAPIV3Schema: { type: 'object', properties: { spec: SPEC } } },
              },
            ],
          },
        },
      ]);
    }, 60_000);

    test.each(CASES)(
      '%s',
      async (_name, spec) => {
        const object = {
          apiVersion: 'null.example.com/v1',
          kind: 'Null',
          metadata: { name: 'x', namespace: 'default' },
          spec,
        };
        const r = await plane().request(
          'POST',
          '/apis/null.example.com/v1/namespaces/default/nulls?dryRun=All',
          object,
        );
        const ours = validateValue({ type: 'object', properties: { spec: SPEC } }, object);
        expect(errorsOf(ours.issues).length > 0 ? 'refused' : 'accepted').toBe(r.code === 201 ? 'accepted' : 'refused');
        if (r.code === 201) expect((ours.value as any).spec).toStrictEqual(r.body.spec);
      },
      30_000,
    );
  },
  { shared: true },
);

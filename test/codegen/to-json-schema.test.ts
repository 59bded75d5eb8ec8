import { compile } from 'json-schema-to-typescript';
import { JSONSchemaProps } from '../../lib';
import { toJsonSchema } from '../../lib/codegen/to-json-schema';

async function typeOf(schema: JSONSchemaProps): Promise<string> {
  const code = await compile({ ...toJsonSchema({ type: 'object', properties: { f: schema } }), title: 'T' }, 'T', {
    bannerComment: '',
    additionalProperties: false,
    format: false,
    unknownAny: true,
    ignoreMinAndMaxItems: true,
  });
  return /^export interface T \{\nf\?: ([\s\S]*)\n\}\n$/.exec(code)![1].trim();
}

describe('toJsonSchema', () => {
  test.each<[string, JSONSchemaProps, string]>([
    ['string', { type: 'string' }, 'string'],
    ['integer', { type: 'integer' }, 'number'],
    ['boolean', { type: 'boolean' }, 'boolean'],
    ['enum', { type: 'string', enum: ['a', 'b'] }, '("a" | "b")'],
    ['nullable', { type: 'string', nullable: true }, '(string | null)'],
    ['int-or-string', { 'x-kubernetes-int-or-string': true }, 'number | string'],
    [
      'int-or-string with anyOf',
      { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
      'number | string',
    ],
    ['array', { type: 'array', items: { type: 'integer' } }, 'number[]'],
    ['map', { type: 'object', additionalProperties: { type: 'string' } }, '{\n[k: string]: string\n}'],
    [
      'preserve-unknown-fields',
      { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
      '{ [key: string]: unknown }',
    ],
    [
      'embedded resource',
      { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true },
      '{ [key: string]: unknown }',
    ],
    ['object without fields (pruned)', { type: 'object' }, '{ [key: string]: never }'],
  ])('%s', async (_name, schema, expected) => {
    expect((await typeOf(schema)).replace(/\s+/g, ' ')).toEqual(expected.replace(/\s+/g, ' '));
  });

  test('objects are closed and keep required fields', async () => {
    const schema = toJsonSchema({
      type: 'object',
      required: ['a'],
      properties: { a: { type: 'string' }, b: { type: 'string' } },
    });
    expect(schema).toMatchObject({ type: 'object', required: ['a'], additionalProperties: false });
  });

  test('defaults are documented', () => {
    expect(toJsonSchema({ type: 'integer', default: 3, description: 'Count.' }).description).toEqual(
      'Count.\n\n@default 3',
    );
  });
});

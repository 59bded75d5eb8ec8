import { stripDescriptions } from '../../lib/schema/strip-descriptions';

const schema = {
  type: 'object',
  description: 'root',
  properties: {
    spec: {
      type: 'object',
      description: 'spec',
      properties: {
        description: { type: 'string', description: 'a field named description', default: 'keep my description' },
        template: { type: 'object', description: 'template', properties: { a: { type: 'string', description: 'a' } } },
      },
    },
  },
};

describe('stripDescriptions', () => {
  test("'*' drops every description but keeps a field named description and user data", () => {
    expect(stripDescriptions(schema, '*')).toStrictEqual({
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          properties: {
            description: { type: 'string', default: 'keep my description' },
            template: { type: 'object', properties: { a: { type: 'string' } } },
          },
        },
      },
    });
  });

  test('a subtree path drops only that subtree', () => {
    const out: any = stripDescriptions(schema, 'spec.properties.template');
    expect(out.description).toBe('root');
    expect(out.properties.spec.description).toBe('spec');
    expect(out.properties.spec.properties.template).toStrictEqual({
      type: 'object',
      properties: { a: { type: 'string' } },
    });
    expect(schema.properties.spec.properties.template.description).toBe('template'); // input untouched
  });

  test('an unknown path matches nothing', () => {
    expect(stripDescriptions(schema, 'spec.properties.nope')).toBeUndefined();
  });
});

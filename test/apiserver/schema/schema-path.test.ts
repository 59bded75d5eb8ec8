import { JSONSchemaProps } from '../../../lib/apiserver/schema/json-schema-props';
import { parseJsonPath, resolveSchemaPath } from '../../../lib/apiserver/schema/schema-path';
import { Schema } from '../../../lib/schema/schema';

const root: JSONSchemaProps = Schema.object({
  properties: {
    metadata: Schema.object(),
    spec: Schema.object({
      properties: {
        replicas: Schema.integer(),
        labels: Schema.map(Schema.string()),
        raw: Schema.preserveUnknown(),
        template: Schema.embeddedResource(),
        ports: Schema.array(Schema.object({ properties: { name: Schema.string(), port: Schema.integer() } })),
      },
    }),
    status: Schema.object({
      properties: {
        conditions: Schema.array(Schema.object({ properties: { type: Schema.string(), status: Schema.string() } })),
      },
    }),
  },
});

describe('resolveSchemaPath', () => {
  test.each<[string, string | undefined]>([
    ['.spec.replicas', 'integer'],
    ['.spec.ports[0].port', 'integer'],
    ['.spec.ports[*].name', 'string'],
    ['.status.conditions[?(@.type=="Ready")].status', 'string'],
    ["['spec']['replicas']", undefined],
    ['.spec.labels.app\\.kubernetes\\.io/name', 'string'],
    ['.metadata.name', 'string'],
    ['.metadata.creationTimestamp', 'string'],
    ['.metadata.labels.team', 'string'],
    ['.kind', 'string'],
    ['.spec.raw.anything[3].goes', undefined],
    ['.spec.template.metadata.name', 'string'],
    ['{.spec.replicas}', 'integer'],
  ])('finds %s', (path, type) => {
    const result = resolveSchemaPath(root, path);
    if (path.startsWith('[')) {
      expect(result.kind).toBe('unsupported');
      return;
    }
    expect(result.kind).toBe('found');
    expect(result.kind === 'found' ? result.schema?.type : 'x').toBe(type);
  });

  test.each<[string, string]>([
    ['.spec.replica', '.spec.replica'],
    ['.spec.replicas[0]', '.spec.replicas[*]'],
    ['.spec.ports.name', '.spec.ports.name'],
    ['.status.conditions[0].reason', '.status.conditions[*].reason'],
    ['.metadata.colour', '.metadata.colour'],
  ])('reports the first missing segment of %s', (path, missing) => {
    expect(resolveSchemaPath(root, path)).toStrictEqual({ kind: 'missing', missing });
  });

  test('recursive descent is not followed', () => {
    expect(resolveSchemaPath(root, '..name')).toStrictEqual({ kind: 'unsupported' });
    expect(parseJsonPath('.a[foo()]')).toBeUndefined();
  });
});

import { CrdManifest } from '../../../lib/apiserver/crd-manifest';

/**
 * Single random mutations of a whole CustomResourceDefinition (its schemas, names, versions, columns, subresources),
 * for a differential of CRD verdicts: each mutated CRD is created (dry run) on the real kube-apiserver and checked by
 * validateCrdManifest. The mutations are not aimed at a known rule: they change one keyword of one schema node, or one
 * field of the CRD, to a value drawn from a list of plausible mistakes (and of plausible correct values), so that
 * what the apiserver refuses or accepts decides, not what we expected.
 */
export interface CrdMutation {
  /** The kind of change, for the report's counts. */
  readonly kind: string;
  /** Where it was made, as a field path of the CRD, and what it set. */
  readonly description: string;
  /** The mutated manifest (a copy). */
  readonly manifest: CrdManifest;
}

type Rand = () => number;
type Json = any;

const pick = <T>(rand: Rand, xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)];

/** A schema node and the field path the apiserver would name it by. */
interface Node {
  readonly node: Json;
  readonly path: string;
  /** The node is reached through a junctor (allOf, anyOf, oneOf, not). */
  readonly inJunctor: boolean;
}

function schemaNodes(schema: Json, path: string, out: Node[], inJunctor = false): Node[] {
  if (!schema || typeof schema !== 'object' || Array.isArray(schema)) return out;
  out.push({ node: schema, path, inJunctor });
  for (const [name, child] of Object.entries(schema.properties ?? {})) {
    schemaNodes(child, `${path}.properties[${name}]`, out, inJunctor);
  }
  if (schema.items && !Array.isArray(schema.items)) schemaNodes(schema.items, `${path}.items`, out, inJunctor);
  if (schema.additionalProperties && typeof schema.additionalProperties === 'object') {
    schemaNodes(schema.additionalProperties, `${path}.additionalProperties`, out, inJunctor);
  }
  for (const junctor of ['allOf', 'anyOf', 'oneOf'] as const) {
    (schema[junctor] ?? []).forEach((s: Json, i: number) => schemaNodes(s, `${path}.${junctor}[${i}]`, out, true));
  }
  if (schema.not) schemaNodes(schema.not, `${path}.not`, out, true);
  return out;
}

const VALUES: readonly Json[] = ['x', '', 0, 1, -1, 1.5, true, false, null, {}, [], { a: 1 }, ['a'], [1, 'a']];
const TYPES = ['string', 'integer', 'number', 'boolean', 'object', 'array', 'null', '', 'strng'];
const PATTERNS = [
  '(',
  '[a-',
  '^[a-z]+$',
  '\\d+',
  '^\\p{Greek}$',
  '(?=a)',
  'a{2,1}',
  '(?i)abc',
  '\\Z',
  '[[:alpha:]]',
  '\\C',
  '(?P<n>a)',
  'a++',
  '\\1',
];
const FORMATS = [
  'uuid',
  'bogus',
  'int32',
  'int64',
  'date-time',
  'date',
  'byte',
  '',
  'email',
  'cidr',
  'hostname',
  'ipv4',
  'duration',
  'quantity',
];
const RULES = [
  'true',
  '1',
  'bogus(',
  'self == oldSelf',
  'self.size() > 0',
  'has(self.zz)',
  'self.zz > 1',
  "self.matches('[')",
  "self.matches('^a$')",
  'self.all(x, x != null)',
  'self.exists(k, k == "a")',
  'oldSelf == null',
  'self.x.y.z == 1',
  'size(self) < 10',
  "quantity(self).isGreaterThan(quantity('1'))",
  'self.filter(x, true).size() >= 0',
  'type(self) == string',
];
const RULE_EXTRAS: readonly Json[] = [
  {},
  { message: 'm' },
  { message: '' },
  { message: 'line\nbreak' },
  { messageExpression: "'m'" },
  { messageExpression: '1' },
  { messageExpression: 'bogus(' },
  { reason: 'FieldValueInvalid' },
  { reason: 'Bogus' },
  { fieldPath: '.zz' },
  { fieldPath: 'zz' },
  { fieldPath: '.spec' },
  { optionalOldSelf: true },
  { optionalOldSelf: false },
];
const FORBIDDEN: readonly [string, Json][] = [
  ['$ref', '#/definitions/x'],
  ['$schema', 'http://json-schema.org/schema#'],
  ['id', 'x'],
  ['definitions', { x: { type: 'string' } }],
  ['dependencies', { a: ['b'] }],
  ['patternProperties', { '^a': { type: 'string' } }],
  ['uniqueItems', true],
  ['uniqueItems', false],
  ['additionalItems', false],
  ['title', 'A title'],
  ['example', 'e'],
  ['externalDocs', { url: 'https://example.com' }],
  ['exclusiveMinimum', true],
  ['exclusiveMaximum', true],
  ['x-kubernetes-bogus', true],
];
const BOUNDS: readonly Json[] = [
  { minimum: 5, maximum: 1 },
  { minLength: -1 },
  { maxLength: 0 },
  { minLength: 3, maxLength: 1 },
  { minItems: -1 },
  { maxItems: 2, minItems: 3 },
  { minProperties: 5, maxProperties: 1 },
  { maxProperties: -1 },
  { multipleOf: 0 },
  { multipleOf: -2 },
  { multipleOf: 0.5 },
  { maxLength: 5 },
  { pattern: 'a' },
  { minimum: 1 },
  { maxItems: 2 },
  { maxProperties: 1 },
  { minimum: 1.5 },
];
const JUNCTOR_CONTENT: readonly Json[] = [
  { type: 'string' },
  { default: 1 },
  { description: 'd' },
  { nullable: true },
  { properties: { zz: { minimum: 1 } } },
  { properties: { zz: { type: 'integer' } } },
  { required: ['zz'] },
  { minLength: 1 },
  { 'x-kubernetes-validations': [{ rule: 'true' }] },
  { 'x-kubernetes-preserve-unknown-fields': true },
  { 'x-kubernetes-int-or-string': true },
  { items: { minimum: 1 } },
  { additionalProperties: { minLength: 1 } },
  { format: 'uuid' },
  { enum: ['a'] },
];
const JSON_PATHS = [
  '.spec',
  '.spec.zz[*]',
  'spec.zz',
  '.metadata.name',
  '{.spec}',
  '.spec[',
  '',
  '.status.conditions[?(@.type=="Ready")].status',
  '.spec.a\\.b',
  '$.spec',
  '.spec..x',
  '.metadata.labels.app',
];

function schemaMutation(rand: Rand, nodes: readonly Node[]): { kind: string; description: string; apply: () => void } {
  const { node, path, inJunctor } = pick(rand, nodes);
  const set = (kind: string, key: string, value: Json) => ({
    kind,
    description: `${path}.${key} = ${JSON.stringify(value)}${inJunctor ? ' (in a junctor)' : ''}`,
    apply: () => {
      if (value === undefined) delete node[key];
      else node[key] = value;
    },
  });
  const merge = (kind: string, values: Json) => ({
    kind,
    description: `${path} += ${JSON.stringify(values)}${inJunctor ? ' (in a junctor)' : ''}`,
    apply: () => Object.assign(node, values),
  });
  switch (
    pick(rand, [
      'type',
      'drop-type',
      'default',
      'nullable',
      'enum',
      'pattern',
      'format',
      'bounds',
      'list-type',
      'map-type',
      'preserve-unknown-fields',
      'embedded-resource',
      'int-or-string',
      'validations',
      'forbidden',
      'additionalProperties',
      'items',
      'required',
      'junctor',
    ])
  ) {
    case 'type':
      return set('type', 'type', pick(rand, TYPES));
    case 'drop-type':
      return set('drop-type', 'type', undefined);
    case 'default':
      return set('default', 'default', pick(rand, VALUES));
    case 'nullable':
      return rand() < 0.5
        ? set('nullable', 'nullable', pick(rand, [true, false]))
        : merge('nullable', { nullable: true, default: null });
    case 'enum':
      return set('enum', 'enum', pick(rand, [[], ['a'], ['a', 1], [null], ['a', null], [1, 2], [true], [{}], 'a']));
    case 'pattern':
      return set('pattern', 'pattern', pick(rand, PATTERNS));
    case 'format':
      return set('format', 'format', pick(rand, FORMATS));
    case 'bounds':
      return merge('bounds', pick(rand, BOUNDS));
    case 'list-type': {
      const t = pick(rand, ['map', 'set', 'atomic', 'bogus']);
      const keys = pick(rand, [undefined, [], ['name'], ['zz'], ['name', 'name'], ['port', 'protocol']]);
      return merge(
        'list-type',
        keys === undefined
          ? { 'x-kubernetes-list-type': t }
          : { 'x-kubernetes-list-type': t, 'x-kubernetes-list-map-keys': keys },
      );
    }
    case 'map-type':
      return set('map-type', 'x-kubernetes-map-type', pick(rand, ['granular', 'atomic', 'bogus']));
    case 'preserve-unknown-fields':
      return set('preserve-unknown-fields', 'x-kubernetes-preserve-unknown-fields', pick(rand, [true, false]));
    case 'embedded-resource':
      return set('embedded-resource', 'x-kubernetes-embedded-resource', pick(rand, [true, false]));
    case 'int-or-string':
      return set('int-or-string', 'x-kubernetes-int-or-string', pick(rand, [true, false]));
    case 'validations':
      return set('validations', 'x-kubernetes-validations', [{ rule: pick(rand, RULES), ...pick(rand, RULE_EXTRAS) }]);
    case 'forbidden': {
      const [key, value] = pick(rand, FORBIDDEN);
      return set('forbidden', key, value);
    }
    case 'additionalProperties':
      return set(
        'additionalProperties',
        'additionalProperties',
        pick(rand, [false, true, { type: 'string' }, {}, { type: 'object' }]),
      );
    case 'items':
      return set('items', 'items', pick(rand, [undefined, { type: 'string' }, {}, [{ type: 'string' }]]));
    case 'required':
      return set(
        'required',
        'required',
        pick(rand, [
          [],
          ['zz'],
          Object.keys(node.properties ?? {})
            .slice(0, 1)
            .concat(['zz']),
          ['a', 'a'],
          'a',
        ]),
      );
    default: {
      const junctor = pick(rand, ['allOf', 'anyOf', 'oneOf', 'not']);
      const content = pick(rand, JUNCTOR_CONTENT);
      return set('junctor', junctor, junctor === 'not' ? content : [content]);
    }
  }
}

function crdMutation(rand: Rand, m: Json): { kind: string; description: string; apply: () => void } {
  const vi = Math.floor(rand() * m.spec.versions.length);
  const v = m.spec.versions[vi];
  const V = `spec.versions[${vi}]`;
  const at = (kind: string, description: string, apply: () => void) => ({ kind, description, apply });
  switch (pick(rand, ['column', 'names', 'versions', 'scale', 'selectable', 'scope', 'metadata-schema'])) {
    case 'column': {
      const column = {
        name: pick(rand, ['Zz', '', 'Age', 'NAME', 'a b']),
        type: pick(rand, ['string', 'integer', 'number', 'boolean', 'date', 'bogus', '']),
        jsonPath: pick(rand, JSON_PATHS),
        ...pick(rand, [
          {},
          { format: 'int32' },
          { format: 'bogus' },
          { format: 'name' },
          { priority: -1 },
          { priority: 1 },
          { description: 'd' },
        ]),
      };
      return at('column', `${V}.additionalPrinterColumns += ${JSON.stringify(column)}`, () => {
        v.additionalPrinterColumns = [...(v.additionalPrinterColumns ?? []), column];
      });
    }
    case 'names': {
      const [key, value] = pick(rand, [
        ['kind', m.spec.names.kind.toLowerCase()],
        ['kind', 'Zz'],
        ['listKind', m.spec.names.kind],
        ['listKind', 'zzList'],
        ['singular', 'Zz'],
        ['singular', m.spec.names.plural],
        ['shortNames', ['Zz']],
        ['shortNames', ['zz', 'zz']],
        ['shortNames', [m.spec.names.plural]],
        ['categories', ['All']],
        ['categories', ['all', 'all']],
        ['categories', ['a b']],
      ] as [string, Json][]);
      return at('names', `spec.names.${key} = ${JSON.stringify(value)}`, () => {
        m.spec.names[key] = value;
      });
    }
    case 'versions': {
      const [description, apply] = pick(rand, [
        ['storage = false', () => (v.storage = false)],
        ['served = false', () => (v.served = false)],
        ['name = "V1"', () => (v.name = 'V1')],
        ['name = "v1beta0"', () => (v.name = 'v1beta0')],
        ['name = "v1alpha1x"', () => (v.name = 'v1alpha1x')],
        [
          'deprecated = true, deprecationWarning of 300 characters',
          () => Object.assign(v, { deprecated: true, deprecationWarning: 'w'.repeat(300) }),
        ],
        ['deprecationWarning without deprecated', () => (v.deprecationWarning = 'w')],
        ['a copy of the version', () => m.spec.versions.push(JSON.parse(JSON.stringify(v)))],
        ['schema removed', () => delete v.schema],
      ] as [string, () => void][]);
      return at('versions', `${V}: ${description}`, apply);
    }
    case 'scale': {
      const scale = {
        specReplicasPath: pick(rand, ['.spec.replicas', '.status.replicas', 'spec.replicas', '.spec.zz', '.spec[0]']),
        statusReplicasPath: pick(rand, ['.status.replicas', '.spec.replicas', '.status.zz']),
        ...pick(rand, [
          {},
          { labelSelectorPath: '.status.selector' },
          { labelSelectorPath: '.metadata.name' },
          { labelSelectorPath: 'status.selector' },
        ]),
      };
      return at('scale', `${V}.subresources.scale = ${JSON.stringify(scale)}`, () => {
        v.subresources = { ...(v.subresources ?? {}), scale };
      });
    }
    case 'selectable': {
      const jsonPath = pick(rand, [
        '.spec',
        '.spec.zz',
        '.metadata.name',
        '.metadata.namespace',
        'spec.x',
        '.status.phase',
        '.spec.replicas',
      ]);
      return at('selectable', `${V}.selectableFields += ${jsonPath}`, () => {
        v.selectableFields = [...(v.selectableFields ?? []), { jsonPath }];
      });
    }
    case 'scope':
      return at('scope', 'spec.scope = "Bogus"', () => (m.spec.scope = pick(rand, ['Bogus', 'cluster', 'Cluster'])));
    default: {
      const metadata = pick(rand, [
        { type: 'object', properties: { name: { type: 'string', maxLength: 5 } } },
        { type: 'object', properties: { name: { type: 'string', pattern: '^a' } } },
        { type: 'object', properties: { namespace: { type: 'string', maxLength: 5 } } },
        { type: 'object', properties: { labels: { type: 'object' } } },
        { type: 'object', properties: { name: { type: 'string', enum: ['a'] } } },
        { type: 'object', properties: { generateName: { type: 'string', maxLength: 5 } } },
        { type: 'object', required: ['name'] },
        { type: 'object', 'x-kubernetes-validations': [{ rule: 'self.name.size() < 10' }] },
      ]);
      return at(
        'metadata-schema',
        `${V}.schema.openAPIV3Schema.properties[metadata] = ${JSON.stringify(metadata)}`,
        () => {
          if (v.schema?.openAPIV3Schema) {
            v.schema.openAPIV3Schema.properties = { ...(v.schema.openAPIV3Schema.properties ?? {}), metadata };
          }
        },
      );
    }
  }
}

/** `count` single mutations of `crd`, each on its own copy, drawn by `rand` (a seeded generator replays them). */
export function crdMutationsOf(crd: CrdManifest, rand: Rand, count: number): CrdMutation[] {
  const out: CrdMutation[] = [];
  for (let i = 0; i < count; i++) {
    const manifest = JSON.parse(JSON.stringify(crd));
    const vi = Math.floor(rand() * manifest.spec.versions.length);
    const schema = manifest.spec.versions[vi].schema?.openAPIV3Schema;
    const nodes = schema ? schemaNodes(schema, `spec.versions[${vi}].schema.openAPIV3Schema`, []) : [];
    const mutation = nodes.length && rand() < 0.75 ? schemaMutation(rand, nodes) : crdMutation(rand, manifest);
    mutation.apply();
    out.push({ kind: mutation.kind, description: mutation.description, manifest });
  }
  return out;
}

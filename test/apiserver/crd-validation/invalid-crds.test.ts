import { errorsOf, formatIssue, warningsOf } from '../../../lib/apimachinery/issue';
import { CrdManifest } from '../../../lib/apiserver/crd-manifest';
import { validateCrdManifest } from '../../../lib/apiserver/crd-validation/validate-crd';
import { describeRealApiServer } from '../../envtest';

/** A valid CRD exercising most features; each corpus entry breaks exactly one rule. */
function base(): any {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.example.com' },
    spec: {
      group: 'example.com',
      names: {
        kind: 'Widget',
        listKind: 'WidgetList',
        plural: 'widgets',
        singular: 'widget',
        shortNames: ['wd'],
        categories: ['all'],
      },
      scope: 'Namespaced',
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                apiVersion: { type: 'string' },
                kind: { type: 'string' },
                metadata: { type: 'object' },
                spec: {
                  type: 'object',
                  properties: {
                    replicas: { type: 'integer', minimum: 0 },
                    port: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
                    labels: { type: 'object', additionalProperties: { type: 'string' } },
                    template: {
                      type: 'object',
                      'x-kubernetes-embedded-resource': true,
                      'x-kubernetes-preserve-unknown-fields': true,
                    },
                    extra: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
                    tags: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' },
                    ports: {
                      type: 'array',
                      'x-kubernetes-list-type': 'map',
                      'x-kubernetes-list-map-keys': ['name'],
                      items: {
                        type: 'object',
                        required: ['name'],
                        properties: { name: { type: 'string' }, protocol: { type: 'string', default: 'TCP' } },
                      },
                    },
                    mode: { type: 'string', pattern: '^(?i)(fast|slow)$' },
                    size: { type: 'string', oneOf: [{ pattern: '^[0-9]+Gi$' }, { pattern: '^[0-9]+Mi$' }] },
                  },
                },
                status: {
                  type: 'object',
                  properties: {
                    replicas: { type: 'integer' },
                    selector: { type: 'string' },
                    conditions: {
                      type: 'array',
                      'x-kubernetes-list-type': 'map',
                      'x-kubernetes-list-map-keys': ['type'],
                      items: {
                        type: 'object',
                        required: ['type', 'status'],
                        properties: { type: { type: 'string' }, status: { type: 'string' } },
                      },
                    },
                  },
                },
              },
            },
          },
          subresources: {
            status: {},
            scale: {
              specReplicasPath: '.spec.replicas',
              statusReplicasPath: '.status.replicas',
              labelSelectorPath: '.status.selector',
            },
          },
          additionalPrinterColumns: [
            { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' },
            { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
            { name: 'First', type: 'string', jsonPath: '.spec.ports[0].name' },
            { name: 'App', type: 'string', jsonPath: '.metadata.labels.app\\.kubernetes\\.io/name' },
            { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
          ],
        },
      ],
    },
  };
}

const V0 = 'spec.versions[0]';
const ROOT = `${V0}.schema.openAPIV3Schema`;
const SPEC = `${ROOT}.properties[spec]`;
const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const root = (m: any) => m.spec.versions[0].schema.openAPIV3Schema;
/** A served copy of the first version named v2 (its schema a deep copy), changed by `change`. */
const secondVersionOf = (m: any, change: (v2: any) => void) => {
  const v2 = { ...structuredClone(m.spec.versions[0]), name: 'v2', storage: false };
  change(v2);
  return v2;
};
const spec = (m: any) => root(m).properties.spec;
const props = (m: any) => spec(m).properties;

type Case = [rule: string, mutate: (m: any) => void, expected: RegExp];

const NAMES: Case[] = [
  [
    'metadata.name is plural.group',
    (m) => {
      m.metadata.name = 'widget.example.com';
    },
    /^metadata\.name: Invalid value: must be spec\.names\.plural\+"\."\+spec\.group \(got "widget\.example\.com"\)$/,
  ],
  [
    'group needs a dot',
    (m) => {
      m.spec.group = 'example';
      m.metadata.name = 'widgets.example';
    },
    /^spec\.group: Invalid value: should be a domain with at least one dot \(got "example"\)$/,
  ],
  [
    'group is a DNS-1123 subdomain',
    (m) => {
      m.spec.group = 'Example.com';
      m.metadata.name = 'widgets.Example.com';
    },
    /^spec\.group: Invalid value: a lowercase RFC 1123 subdomain/,
  ],
  [
    'group is required',
    (m) => {
      m.spec.group = '';
    },
    /^spec\.group: Required value$/,
  ],
  [
    'protected group needs approval',
    (m) => {
      m.spec.group = 'widgets.k8s.io';
      m.metadata.name = 'widgets.widgets.k8s.io';
    },
    /^metadata\.annotations\[api-approved\.kubernetes\.io\]: Required value: protected groups must have approval annotation/,
  ],
  [
    'protected group approval is a URL or "unapproved…"',
    (m) => {
      m.spec.group = 'x.kubernetes.io';
      m.metadata.name = 'widgets.x.kubernetes.io';
      m.metadata.annotations = { 'api-approved.kubernetes.io': 'yes please' };
    },
    /^metadata\.annotations\[api-approved\.kubernetes\.io\]: Invalid value: .*either a URL or a reason starting with "unapproved" \(got "yes please"\)/,
  ],
  [
    'plural is a DNS-1035 label',
    (m) => {
      m.spec.names.plural = 'Widgets';
      m.metadata.name = 'Widgets.example.com';
    },
    /^spec\.names\.plural: Invalid value: a DNS-1035 label/,
  ],
  [
    'plural has at most 63 characters',
    (m) => {
      m.spec.names.plural = 'w'.repeat(64);
      m.metadata.name = `${'w'.repeat(64)}.example.com`;
    },
    /^spec\.names\.plural: Invalid value: must be no more than 63 characters/,
  ],
  [
    'plural is required',
    (m) => {
      delete m.spec.names.plural;
    },
    /^spec\.names\.plural: Required value$/,
  ],
  [
    'singular is a DNS-1035 label',
    (m) => {
      m.spec.names.singular = 'wid_get';
    },
    /^spec\.names\.singular: Invalid value: a DNS-1035 label/,
  ],
  [
    'kind is required',
    (m) => {
      m.spec.names.kind = '';
    },
    /^spec\.names\.kind: Required value$/,
  ],
  [
    'kind may have mixed case only',
    (m) => {
      m.spec.names.kind = '1Widget';
    },
    /^spec\.names\.kind: Invalid value: may have mixed case, but should otherwise match: a DNS-1035 label/,
  ],
  [
    'listKind may have mixed case only',
    (m) => {
      m.spec.names.listKind = 'Widget-List-';
    },
    /^spec\.names\.listKind: Invalid value: may have mixed case/,
  ],
  [
    'kind and listKind differ',
    (m) => {
      m.spec.names.listKind = 'Widget';
    },
    /^spec\.names\.listKind: Invalid value: kind and listKind may not be the same \(got "Widget"\)$/,
  ],
  [
    'shortNames are DNS-1035 labels',
    (m) => {
      m.spec.names.shortNames = ['wd', 'W D'];
    },
    /^spec\.names\.shortNames\[1\]: Invalid value: a DNS-1035 label.* \(got "W D"\)$/,
  ],
  [
    'categories are DNS-1035 labels',
    (m) => {
      m.spec.names.categories = ['All'];
    },
    /^spec\.names\.categories\[0\]: Invalid value: a DNS-1035 label/,
  ],
  [
    'scope is Cluster or Namespaced',
    (m) => {
      m.spec.scope = 'Global';
    },
    /^spec\.scope: Unsupported value: supported values: "Cluster", "Namespaced" \(got "Global"\)$/,
  ],
  [
    'scope is required',
    (m) => {
      delete m.spec.scope;
    },
    /^spec\.scope: Required value$/,
  ],
];

const VERSIONS: Case[] = [
  [
    'version names are DNS-1035 labels',
    (m) => {
      m.spec.versions[0].name = 'V1';
    },
    /^spec\.versions\[0\]\.name: Invalid value: a DNS-1035 label/,
  ],
  [
    'exactly one storage version (none)',
    (m) => {
      m.spec.versions[0].storage = false;
    },
    /^spec\.versions: Invalid value: must have exactly one version marked as storage version/,
  ],
  [
    'exactly one storage version (two)',
    (m) => {
      m.spec.versions.push({ ...m.spec.versions[0], name: 'v2' });
    },
    /^spec\.versions: Invalid value: must have exactly one version marked as storage version \(got \["v1","v2"\]\)$/,
  ],
  [
    'unique version names',
    (m) => {
      m.spec.versions.push({ ...m.spec.versions[0], storage: false });
    },
    /^spec\.versions: Invalid value: must contain unique version names/,
  ],
  [
    'at least one version',
    (m) => {
      m.spec.versions = [];
    },
    /^spec\.versions: Required value: must have at least one version$/,
  ],
  [
    'every version has a schema',
    (m) => {
      delete m.spec.versions[0].schema;
    },
    /^spec\.versions\[0\]\.schema\.openAPIV3Schema: Required value: schemas are required$/,
  ],
  [
    'spec.preserveUnknownFields is rejected in v1',
    (m) => {
      m.spec.preserveUnknownFields = true;
    },
    /^spec\.preserveUnknownFields: Invalid value: cannot set to true, set x-kubernetes-preserve-unknown-fields to true/,
  ],
  [
    'storedVersions is a list (the object cannot be decoded otherwise)',
    (m) => {
      m.status = { storedVersions: 'v1' };
    },
    /^status\.storedVersions: Invalid value: must be a list: the apiserver cannot decode it/,
  ],
  [
    'deprecationWarning only for deprecated versions',
    (m) => {
      m.spec.versions[0].deprecationWarning = 'old';
    },
    /^spec\.versions\[0\]\.deprecationWarning: Invalid value: can only be set for deprecated versions/,
  ],
  [
    'deprecationWarning at most 256 characters',
    (m) => {
      m.spec.versions[0].deprecated = true;
      m.spec.versions[0].deprecationWarning = 'x'.repeat(257);
    },
    /^spec\.versions\[0\]\.deprecationWarning: Invalid value: must be <= 256 characters long/,
  ],
  [
    'conversion strategy is None or Webhook',
    (m) => {
      m.spec.conversion = { strategy: 'Magic' };
    },
    /^spec\.conversion\.strategy: Unsupported value/,
  ],
  [
    'webhook conversion needs a client config',
    (m) => {
      m.spec.conversion = { strategy: 'Webhook', webhook: { conversionReviewVersions: ['v1'] } };
    },
    /^spec\.conversion\.webhook\.clientConfig: Required value: required when strategy is set to Webhook/,
  ],
];

const STRUCTURAL: Case[] = [
  [
    'fields have a type',
    (m) => {
      props(m).replicas = { minimum: 0 };
    },
    new RegExp(
      `^${esc(SPEC)}\\.properties\\[replicas\\]\\.type: Required value: must not be empty for specified object fields$`,
    ),
  ],
  [
    'array items have a type',
    (m) => {
      props(m).tags.items = { minLength: 1 };
    },
    /\.properties\[tags\]\.items\.type: Required value: must not be empty for specified array items$/,
  ],
  [
    'the root has a type',
    (m) => {
      delete root(m).type;
    },
    new RegExp(`^${esc(ROOT)}\\.type: Required value: must not be empty at the root$`),
  ],
  [
    'the root is an object',
    (m) => {
      root(m).type = 'array';
      root(m).items = { type: 'string' };
    },
    new RegExp(`^${esc(ROOT)}\\.type: Invalid value: must be object at the root`),
  ],
  [
    'the root is not nullable',
    (m) => {
      root(m).nullable = true;
    },
    new RegExp(`^${esc(ROOT)}\\.nullable: Forbidden: nullable cannot be true at the root$`),
  ],
  [
    'types are OpenAPI types',
    (m) => {
      props(m).replicas.type = 'int';
    },
    /\.properties\[replicas\]\.type: Unsupported value: supported values: "array", "boolean", "integer", "number", "object", "string" \(got "int"\)$/,
  ],
  [
    'type null is forbidden',
    (m) => {
      props(m).replicas.type = 'null';
    },
    /\.properties\[replicas\]\.type: Forbidden: type cannot be set to null, use nullable as an alternative$/,
  ],
  [
    'arrays have items',
    (m) => {
      delete props(m).tags.items;
    },
    /\.properties\[tags\]\.items: Required value: must be specified$/,
  ],
  [
    'items is a single schema',
    (m) => {
      props(m).tags.items = [{ type: 'string' }];
    },
    /\.properties\[tags\]\.items: Forbidden: items must be a schema object and not an array$/,
  ],
  [
    '$ref is forbidden',
    (m) => {
      props(m).replicas.$ref = '#/definitions/x';
    },
    /\.properties\[replicas\]\.\$ref: Forbidden: \$ref is not supported$/,
  ],
  [
    'definitions are forbidden',
    (m) => {
      spec(m).definitions = { x: { type: 'string' } };
    },
    /properties\[spec\]\.definitions: Forbidden: definitions is not supported$/,
  ],
  [
    'dependencies are forbidden',
    (m) => {
      spec(m).dependencies = { replicas: ['port'] };
    },
    /properties\[spec\]\.dependencies: Forbidden: dependencies is not supported$/,
  ],
  [
    'patternProperties are forbidden',
    (m) => {
      props(m).labels.patternProperties = { '^a': { type: 'string' } };
    },
    /\.properties\[labels\]\.patternProperties: Forbidden: patternProperties is not supported$/,
  ],
  [
    'additionalItems is forbidden',
    (m) => {
      props(m).tags.additionalItems = false;
    },
    /\.properties\[tags\]\.additionalItems: Forbidden: additionalItems is not supported$/,
  ],
  [
    'id is forbidden',
    (m) => {
      props(m).replicas.id = 'replicas';
    },
    /\.properties\[replicas\]\.id: Forbidden: id is not supported$/,
  ],
  [
    'uniqueItems is forbidden',
    (m) => {
      props(m).tags.uniqueItems = true;
    },
    /\.properties\[tags\]\.uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic$/,
  ],
  [
    'properties and additionalProperties are exclusive',
    (m) => {
      props(m).labels.properties = { a: { type: 'string' } };
    },
    /\.properties\[labels\]\.additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive$/,
  ],
  [
    'no additionalProperties at the root',
    (m) => {
      delete root(m).properties;
      root(m).additionalProperties = { type: 'string' };
      delete m.spec.versions[0].subresources;
      delete m.spec.versions[0].additionalPrinterColumns;
    },
    new RegExp(`^${esc(ROOT)}\\.additionalProperties: Forbidden: must not be used at the root$`),
  ],
  [
    'no type inside allOf',
    (m) => {
      props(m).replicas.allOf = [{ type: 'integer', minimum: 1 }];
    },
    /\.properties\[replicas\]\.allOf\[0\]\.type: Forbidden: must be empty to be structural$/,
  ],
  [
    'no default inside anyOf',
    (m) => {
      props(m).replicas.anyOf = [{ minimum: 1, default: 1 }, { maximum: 0 }];
    },
    /\.properties\[replicas\]\.anyOf\[0\]\.default: Forbidden: must be undefined to be structural$/,
  ],
  [
    'no description inside oneOf',
    (m) => {
      props(m).size.oneOf[0].description = 'gigabytes';
    },
    /\.properties\[size\]\.oneOf\[0\]\.description: Forbidden: must be empty to be structural$/,
  ],
  [
    'no nullable inside not',
    (m) => {
      props(m).replicas.not = { nullable: true, maximum: 0 };
    },
    /\.properties\[replicas\]\.not\.nullable: Forbidden: must be false to be structural$/,
  ],
  [
    'no x-kubernetes-* inside junctors',
    (m) => {
      props(m).tags.allOf = [{ 'x-kubernetes-list-type': 'atomic' }];
    },
    /\.properties\[tags\]\.allOf\[0\]\.x-kubernetes-list-type: Forbidden: must be undefined to be structural$/,
  ],
  [
    'no CEL rules inside junctors',
    (m) => {
      props(m).replicas.anyOf = [{ 'x-kubernetes-validations': [{ rule: 'self > 0' }] }];
    },
    /\.properties\[replicas\]\.anyOf\[0\]\.x-kubernetes-validations: Forbidden: must be empty to be structural$/,
  ],
  [
    'no additionalProperties inside junctors',
    (m) => {
      props(m).labels.allOf = [{ additionalProperties: { maxLength: 3 } }];
    },
    /\.properties\[labels\]\.allOf\[0\]\.additionalProperties: Forbidden: must be undefined to be structural$/,
  ],
  [
    'fields named in a root junctor are declared outside',
    (m) => {
      root(m).anyOf = [{ properties: { spec: { properties: { flavour: { minLength: 1 } } } } }];
    },
    new RegExp(
      `^${esc(SPEC)}\\.properties\\[flavour\\]: Required value: because it is defined in ${esc(ROOT)}\\.anyOf\\[0\\]\\.properties\\[spec\\]\\.properties\\[flavour\\]$`,
    ),
  ],
  [
    'items named in a root junctor are declared outside',
    (m) => {
      root(m).allOf = [{ properties: { spec: { items: { minLength: 1 } } } }];
    },
    /\.properties\[spec\]\.items: Required value: because it is defined in .*openAPIV3Schema\.allOf\[0\]\.properties\[spec\]\.items$/,
  ],
  [
    'root metadata restricts only name and generateName',
    (m) => {
      root(m).properties.metadata = { type: 'object', properties: { labels: { type: 'object' } } };
    },
    new RegExp(
      `^${esc(ROOT)}\\.properties\\[metadata\\]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified`,
    ),
  ],
  [
    'root metadata is an object',
    (m) => {
      root(m).properties.metadata = { type: 'string' };
    },
    /properties\[metadata\]\.type: Invalid value: must be object \(got "string"\)$/,
  ],
  [
    'no metadata in a nested context',
    (m) => {
      spec(m).allOf = [{ properties: { metadata: { properties: { name: { maxLength: 3 } } } } }];
      spec(m).properties.metadata = { type: 'object' };
    },
    /properties\[spec\]\.allOf\[0\]\.properties\[metadata\]: Forbidden: must not be specified in a nested context$/,
  ],
  [
    'root kind is a string',
    (m) => {
      root(m).properties.kind = { type: 'integer' };
    },
    /properties\[kind\]\.type: Invalid value: must be string \(got "integer"\)$/,
  ],
  [
    'int-or-string anyOf is exactly integer|string',
    (m) => {
      props(m).port.anyOf.push({ type: 'boolean' });
    },
    /\.properties\[port\]\.anyOf\[0\]\.type: Forbidden: must be empty to be structural$/,
  ],
  [
    'int-or-string is not preserve-unknown-fields',
    (m) => {
      props(m).port['x-kubernetes-preserve-unknown-fields'] = true;
    },
    /\.properties\[port\]\.x-kubernetes-preserve-unknown-fields: Invalid value: must be false if x-kubernetes-int-or-string is true \(got true\)$/,
  ],
  [
    'int-or-string is not an embedded resource',
    (m) => {
      props(m).port['x-kubernetes-embedded-resource'] = true;
    },
    /\.properties\[port\]\.x-kubernetes-embedded-resource: Invalid value: must be false if x-kubernetes-int-or-string is true \(got true\)$/,
  ],
  [
    'embedded resources are objects',
    (m) => {
      props(m).template.type = 'string';
    },
    /\.properties\[template\]\.type: Invalid value: must be object if x-kubernetes-embedded-resource is true/,
  ],
  [
    'embedded resources declare properties or preserve unknown fields',
    (m) => {
      delete props(m).template['x-kubernetes-preserve-unknown-fields'];
    },
    /\.properties\[template\]\.properties: Required value: must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields$/,
  ],
  [
    'embedded resources have no additionalProperties',
    (m) => {
      props(m).template.additionalProperties = { type: 'string' };
    },
    /\.properties\[template\]\.additionalProperties: Forbidden: must not be used if x-kubernetes-embedded-resource is set$/,
  ],
  [
    'preserve-unknown-fields is true or absent',
    (m) => {
      props(m).extra['x-kubernetes-preserve-unknown-fields'] = false;
    },
    /\.properties\[extra\]\.x-kubernetes-preserve-unknown-fields: Invalid value: must be true or undefined \(got false\)$/,
  ],
  [
    'no embedded resource inside resource metadata',
    (m) => {
      props(m).template = {
        type: 'object',
        'x-kubernetes-embedded-resource': true,
        properties: {
          metadata: {
            type: 'object',
            properties: {
              owner: {
                type: 'object',
                'x-kubernetes-embedded-resource': true,
                'x-kubernetes-preserve-unknown-fields': true,
              },
            },
          },
        },
      };
    },
    /\.properties\[template\]\.properties\[metadata\]\.properties\[owner\]\.x-kubernetes-embedded-resource: Forbidden: must not be used inside of resource meta$/,
  ],
  [
    'patterns are valid RE2',
    (m) => {
      props(m).mode.pattern = '^(?=a)b$';
    },
    /\.properties\[mode\]\.pattern: Invalid value: must be a valid regular expression, but isn't/,
  ],
];

/**
 * Rules the CRD mutation differential found us missing (bench/crd-differential.ts, 1.28 to 1.36), and the per-version
 * tests of optionalOldSelf (test/app/kubernetes-versions.test.ts).
 */
const FOUND_BY_MUTATION: Case[] = [
  [
    '$schema is not supported',
    (m) => {
      props(m).mode.$schema = 'http://json-schema.org/schema#';
    },
    /\.properties\[mode\]\.\$schema: Forbidden: \$schema is not supported/,
  ],
  [
    'root metadata with additionalProperties: false',
    (m) => {
      root(m).properties.metadata = { type: 'object', additionalProperties: false };
    },
    /\.properties\[metadata\]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified \(found additionalProperties\)/,
  ],
  [
    'root metadata with required: []',
    (m) => {
      root(m).properties.metadata = { type: 'object', required: [] };
    },
    /\.properties\[metadata\]: Forbidden: must not specify anything other than name and generateName/,
  ],
  [
    "root metadata with required: [] in the first version, the second's without it (the first's is the one checked)",
    (m) => {
      root(m).properties.metadata = { type: 'object', required: [] };
      m.spec.versions.push(secondVersionOf(m, (v2) => delete v2.schema.openAPIV3Schema.properties.metadata.required));
    },
    /^spec\.versions\[0\]\.schema\.openAPIV3Schema\.properties\[metadata\]: Forbidden: must not specify anything other than name and generateName/,
  ],
  [
    'root metadata with required: [] in a second version that differs from the first in more than zero values (not lifted: its own schema is checked)',
    (m) => {
      m.spec.versions.push(
        secondVersionOf(m, (v2) => {
          v2.schema.openAPIV3Schema.properties.metadata = { type: 'object', required: [] };
          v2.schema.openAPIV3Schema.properties.spec.properties.mode.maxLength = 0;
        }),
      );
    },
    /^spec\.versions\[1\]\.schema\.openAPIV3Schema\.properties\[metadata\]: Forbidden: must not specify anything other than name and generateName/,
  ],
  [
    'a default of the whole object names its apiVersion and kind',
    (m) => {
      root(m).default = {};
    },
    /^spec\.versions\[0\]\.schema\.openAPIV3Schema\.default\.apiVersion: Required value: must not be empty$/,
  ],
  [
    "an int-or-string node's default is checked by its type",
    (m) => {
      props(m).size = { type: 'integer', 'x-kubernetes-int-or-string': true, default: 'x' };
    },
    /\.properties\[size\]\.default: Invalid value: "string": .* must be of type integer/,
  ],
  [
    'optionalOldSelf: false on a rule that does not use oldSelf (set is set)',
    (m) => {
      props(m).mode['x-kubernetes-validations'] = [{ rule: "self != ''", optionalOldSelf: false }];
    },
    /\.properties\[mode\]\.x-kubernetes-validations\[0\]\.optionalOldSelf: Invalid value: may not be set if oldSelf is not used in rule \(got false\)$/,
  ],
  [
    'a rule comparing a string with null does not compile',
    (m) => {
      props(m).mode['x-kubernetes-validations'] = [{ rule: 'self != null' }];
    },
    /found no matching overload for '_!=_' applied to '\(string, null\)'/,
  ],
  [
    'a rule on an untyped node (x-kubernetes-preserve-unknown-fields alone): CEL has no type for it',
    (m) => {
      props(m).free = { 'x-kubernetes-preserve-unknown-fields': true, 'x-kubernetes-validations': [{ rule: 'true' }] };
    },
    /\.properties\[free\]\.x-kubernetes-validations: Internal error: internal error: failed to construct type information for x-kubernetes-validations rules: unable to convert structural schema to CEL declarations$/,
  ],
];

const LISTS_AND_MAPS: Case[] = [
  [
    'list-type is atomic, set or map',
    (m) => {
      props(m).tags['x-kubernetes-list-type'] = 'bag';
    },
    /\.properties\[tags\]\.x-kubernetes-list-type: Unsupported value: supported values: "atomic", "set", "map" \(got "bag"\)$/,
  ],
  [
    'list-type only on arrays',
    (m) => {
      props(m).replicas['x-kubernetes-list-type'] = 'atomic';
    },
    /\.properties\[replicas\]\.type: Invalid value: must be array if x-kubernetes-list-type is specified/,
  ],
  [
    'set items are atomic',
    (m) => {
      props(m).tags.items = { type: 'object', properties: { a: { type: 'string' } } };
    },
    /\.properties\[tags\]\.items\.x-kubernetes-map-type: Invalid value: must be atomic as item of a list with x-kubernetes-list-type=set$/,
  ],
  [
    'map lists have keys',
    (m) => {
      delete props(m).ports['x-kubernetes-list-map-keys'];
    },
    /\.properties\[ports\]\.x-kubernetes-list-map-keys: Required value: must not be empty if x-kubernetes-list-type is map$/,
  ],
  [
    'map keys name item properties',
    (m) => {
      props(m).ports['x-kubernetes-list-map-keys'] = ['port'];
    },
    /\.properties\[ports\]\.x-kubernetes-list-map-keys: Invalid value: entries must all be names of item properties/,
  ],
  [
    'map keys are unique',
    (m) => {
      props(m).ports['x-kubernetes-list-map-keys'] = ['name', 'name'];
    },
    /\.properties\[ports\]\.x-kubernetes-list-map-keys: Invalid value: must not contain duplicate entries/,
  ],
  [
    'map keys are scalar',
    (m) => {
      props(m).ports.items.properties.name = { type: 'object' };
    },
    /\.properties\[ports\]\.items\.properties\[name\]\.type: Invalid value: must be a scalar type if parent array's x-kubernetes-list-type is map/,
  ],
  [
    'map keys are required or defaulted',
    (m) => {
      props(m).ports.items.required = [];
    },
    /\.properties\[ports\]\.items\.properties\[name\]\.default: Required value: this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property$/,
  ],
  [
    'map keys are not nullable',
    (m) => {
      props(m).ports.items.properties.name.nullable = true;
    },
    /\.properties\[ports\]\.items\.properties\[name\]\.nullable: Forbidden: this property is in x-kubernetes-list-map-keys, so it cannot be nullable$/,
  ],
  [
    'map list items are objects',
    (m) => {
      props(m).ports.items = { type: 'string' };
    },
    /\.properties\[ports\]\.items\.type: Invalid value: must be object if parent array's x-kubernetes-list-type is map/,
  ],
  [
    'set and map items are not nullable',
    (m) => {
      props(m).tags.items.nullable = true;
    },
    /\.properties\[tags\]\.items\.nullable: Forbidden: cannot be nullable when x-kubernetes-list-type is set$/,
  ],
  [
    'list-map-keys need list-type map',
    (m) => {
      props(m).ports['x-kubernetes-list-type'] = 'atomic';
    },
    /\.properties\[ports\]\.x-kubernetes-list-type: Invalid value: must be map if x-kubernetes-list-map-keys is non-empty/,
  ],
  [
    'map-type is atomic or granular',
    (m) => {
      props(m).labels['x-kubernetes-map-type'] = 'merge';
    },
    /\.properties\[labels\]\.x-kubernetes-map-type: Unsupported value/,
  ],
  [
    'map-type only on objects',
    (m) => {
      props(m).tags['x-kubernetes-map-type'] = 'atomic';
    },
    /\.properties\[tags\]\.type: Invalid value: must be object if x-kubernetes-map-type is specified/,
  ],
];

const SUBRESOURCES_AND_COLUMNS: Case[] = [
  [
    'status subresource allows only some root keys',
    (m) => {
      root(m).maxProperties = 10;
    },
    new RegExp(
      `^${esc(ROOT)}: Invalid value: only .* are allowed at the root of the schema if the status subresource is enabled \\(got \\["maxProperties"\\]\\)$`,
    ),
  ],
  [
    'status subresource needs an object root',
    (m) => {
      root(m).type = 'array';
      root(m).items = { type: 'string' };
    },
    new RegExp(
      `^${esc(ROOT)}\\.type: Invalid value: only "object" is allowed as the type at the root of the schema if the status subresource is enabled`,
    ),
  ],
  [
    'specReplicasPath is under .spec',
    (m) => {
      m.spec.versions[0].subresources.scale.specReplicasPath = '.status.replicas';
    },
    /^spec\.versions\[0\]\.subresources\.scale\.specReplicasPath: Invalid value: should be a json path under \.spec \(got "\.status\.replicas"\)$/,
  ],
  [
    'statusReplicasPath is under .status',
    (m) => {
      m.spec.versions[0].subresources.scale.statusReplicasPath = '.spec.replicas';
    },
    /^spec\.versions\[0\]\.subresources\.scale\.statusReplicasPath: Invalid value: should be a json path under \.status/,
  ],
  [
    'labelSelectorPath is under .spec or .status',
    (m) => {
      m.spec.versions[0].subresources.scale.labelSelectorPath = '.metadata.labels';
    },
    /^spec\.versions\[0\]\.subresources\.scale\.labelSelectorPath: Invalid value: should be a json path under either \.spec or \.status/,
  ],
  [
    'specReplicasPath is required',
    (m) => {
      m.spec.versions[0].subresources.scale.specReplicasPath = '';
    },
    /^spec\.versions\[0\]\.subresources\.scale\.specReplicasPath: Required value$/,
  ],
  [
    'scale paths start with a dot',
    (m) => {
      m.spec.versions[0].subresources.scale.statusReplicasPath = 'status.replicas';
    },
    /^spec\.versions\[0\]\.subresources\.scale\.statusReplicasPath: Invalid value: must be a simple json path starting with \./,
  ],
  [
    'columns have a name',
    (m) => {
      delete m.spec.versions[0].additionalPrinterColumns[0].name;
    },
    /^spec\.versions\[0\]\.additionalPrinterColumns\[0\]\.name: Required value$/,
  ],
  [
    'columns have a type',
    (m) => {
      delete m.spec.versions[0].additionalPrinterColumns[0].type;
    },
    /^spec\.versions\[0\]\.additionalPrinterColumns\[0\]\.type: Required value: must be one of boolean,date,integer,number,string$/,
  ],
  [
    'column types are enumerated',
    (m) => {
      m.spec.versions[0].additionalPrinterColumns[0].type = 'int';
    },
    /^spec\.versions\[0\]\.additionalPrinterColumns\[0\]\.type: Invalid value: must be one of boolean,date,integer,number,string \(got "int"\)$/,
  ],
  [
    'column formats are enumerated',
    (m) => {
      m.spec.versions[0].additionalPrinterColumns[0].format = 'uuid';
    },
    /^spec\.versions\[0\]\.additionalPrinterColumns\[0\]\.format: Invalid value: must be one of byte,date,date-time,double,float,int32,int64,password \(got "uuid"\)$/,
  ],
  [
    'columns have a jsonPath',
    (m) => {
      delete m.spec.versions[0].additionalPrinterColumns[1].jsonPath;
    },
    /^spec\.versions\[0\]\.additionalPrinterColumns\[1\]\.jsonPath: Required value$/,
  ],
  [
    'column jsonPath starts with a dot',
    (m) => {
      m.spec.versions[0].additionalPrinterColumns[0].jsonPath = 'spec.replicas';
    },
    /^spec\.versions\[0\]\.additionalPrinterColumns\[0\]\.jsonPath: Invalid value: must be a simple json path starting with \./,
  ],
  [
    'selectable fields point to scalar fields',
    (m) => {
      m.spec.versions[0].selectableFields = [{ jsonPath: '.spec.labels' }];
    },
    /^spec\.versions\[0\]\.selectableFields\[0\]\.jsonPath: Invalid value: must point to a field of type string, boolean or integer/,
  ],
  [
    'selectable fields exist in the schema',
    (m) => {
      m.spec.versions[0].selectableFields = [{ jsonPath: '.spec.colour' }];
    },
    /^spec\.versions\[0\]\.selectableFields\[0\]\.jsonPath: Invalid value: is an invalid path: no \.spec\.colour in the schema/,
  ],
  [
    'selectable fields are not under metadata',
    (m) => {
      m.spec.versions[0].selectableFields = [{ jsonPath: '.metadata.name' }];
    },
    /^spec\.versions\[0\]\.selectableFields\[0\]\.jsonPath: Invalid value: must not point to fields in metadata/,
  ],
  [
    'selectable fields are unique',
    (m) => {
      m.spec.versions[0].selectableFields = [{ jsonPath: '.spec.mode' }, { jsonPath: '.spec.mode' }];
    },
    /^spec\.versions\[0\]\.selectableFields\[1\]\.jsonPath: Duplicate value/,
  ],
];

/**
 * What the apiserver cannot decode into apiextensions.k8s.io/v1 (400 before any validation), or strict field
 * validation (kubectl apply's default) refuses. Found by the CRD mutation differential (bench/crd-differential.ts).
 */
const DECODING: Case[] = [
  [
    'required is a list of strings',
    (m) => {
      spec(m).required = 'replicas';
    },
    /^spec\.versions\[0\]\.schema\.openAPIV3Schema\.properties\[spec\]\.required: Invalid value: must be a list: the apiserver cannot decode it \(json: cannot unmarshal string into \[\]string\)/,
  ],
  [
    'enum is a list',
    (m) => {
      props(m).mode.enum = 'fast';
    },
    /^spec\.versions\[0\]\.schema\.openAPIV3Schema\.properties\[spec\]\.properties\[mode\]\.enum: Invalid value: must be a list: the apiserver cannot decode it/,
  ],
  [
    'maxLength is an integer',
    (m) => {
      props(m).tags.items.maxLength = 1.5;
    },
    /\.items\.maxLength: Invalid value: must be an integer: the apiserver cannot decode it \(json: cannot unmarshal number 1\.5 into int64\)/,
  ],
  [
    'a column priority fits 32 bits',
    (m) => {
      m.spec.versions[0].additionalPrinterColumns[0].priority = 3_000_000_000;
    },
    /^spec\.versions\[0\]\.additionalPrinterColumns\[0\]\.priority: Invalid value: must be an integer of 32 bits/,
  ],
  [
    'additionalProperties is a boolean or a schema',
    (m) => {
      props(m).labels.additionalProperties = 'string';
    },
    /\.properties\[labels\]\.additionalProperties: Invalid value: must be true, false or a schema: the apiserver cannot decode it \(boolean or JSON schema expected\)/,
  ],
  [
    'a label value is a string',
    (m) => {
      m.metadata.labels = { tier: 1 };
    },
    /^metadata\.labels\[tier\]: Invalid value: must be a string/,
  ],
  [
    'a time is RFC 3339',
    (m) => {
      m.metadata.creationTimestamp = 'yesterday';
    },
    /^metadata\.creationTimestamp: Invalid value: must be a time in RFC 3339/,
  ],
  [
    'a misspelt schema keyword is an unknown field',
    (m) => {
      props(m).mode.maxlength = 5;
    },
    /^spec\.versions\[0\]\.schema\.openAPIV3Schema\.properties\[spec\]\.properties\[mode\]\.maxlength: Forbidden: unknown field "maxlength": v1\.JSONSchemaProps has no such field, and kubectl apply refuses it \(strict field validation\) \(did you mean maxLength\?\)$/,
  ],
  [
    'an unknown field is refused whatever its value, null too',
    (m) => {
      props(m).mode.maxlength = null;
    },
    /\.properties\[mode\]\.maxlength: Forbidden: unknown field "maxlength"/,
  ],
  [
    'an unknown field of the CRD spec',
    (m) => {
      m.spec.version = 'v1';
    },
    /^spec\.version: Forbidden: unknown field "version": v1\.CustomResourceDefinitionSpec has no such field/,
  ],
];

const SIZE: Case[] = [
  [
    'the whole CRD is below 1.5 MiB',
    (m) => {
      props(m).replicas.description = 'x'.repeat(1572864);
    },
    /^spec: Too long: the CustomResourceDefinition serializes to \d+ bytes, etcd rejects objects of 1572864 bytes \(1\.5 MiB\) or more/,
  ],
];

/** What the apiserver accepts but looks like a mistake: a warning naming the field, never an error. */
const WARNINGS: Case[] = [
  [
    'a boolean default of an int-or-string node typed boolean (defaults are checked by the type)',
    (m) => {
      props(m).flag = { type: 'boolean', 'x-kubernetes-int-or-string': true, default: false };
    },
    /\.properties\[flag\]\.type: ignored: x-kubernetes-int-or-string accepts both integers and strings/,
  ],
  [
    'an invalid default below additionalProperties (the apiserver does not check it)',
    (m) => {
      props(m).labels.additionalProperties.default = 0;
    },
    /^spec\.versions\[0\]\.schema\.openAPIV3Schema\.properties\[spec\]\.properties\[labels\]\.additionalProperties\.default: Invalid value: .*\(kube-apiserver does not check defaults below additionalProperties and accepts the CRD; a default of the map values themselves is never applied/,
  ],
  [
    'no served version',
    (m) => {
      m.spec.versions[0].served = false;
    },
    /^spec\.versions: Invalid value: no version is served, so the API serves nothing/,
  ],
  [
    "a stored version missing from spec.versions (status is not the apiserver's input)",
    (m) => {
      m.status = { storedVersions: ['v1', 'v1beta1'] };
    },
    /^status\.storedVersions\[1\]: Invalid value: missing from spec\.versions; v1beta1 was previously a storage version/,
  ],
  [
    'int-or-string with a type',
    (m) => {
      props(m).port.type = 'string';
    },
    /\.properties\[port\]\.type: ignored: x-kubernetes-int-or-string accepts both integers and strings/,
  ],
  [
    'specReplicasPath not in the schema',
    (m) => {
      m.spec.versions[0].subresources.scale.specReplicasPath = '.spec.replicaz';
    },
    /^spec\.versions\[0\]\.subresources\.scale\.specReplicasPath: names no field declared in the schema \(no \.spec\.replicaz\)/,
  ],
  [
    'replicas path to a string',
    (m) => {
      m.spec.versions[0].subresources.scale.statusReplicasPath = '.status.selector';
    },
    /^spec\.versions\[0\]\.subresources\.scale\.statusReplicasPath: names a field the schema declares as string, the scale subresource reads an integer there/,
  ],
  [
    'labelSelectorPath to an integer',
    (m) => {
      m.spec.versions[0].subresources.scale.labelSelectorPath = '.status.replicas';
    },
    /^spec\.versions\[0\]\.subresources\.scale\.labelSelectorPath: names a field the schema declares as integer, the scale subresource reads a string there/,
  ],
  [
    'column path not in the schema',
    (m) => {
      m.spec.versions[0].additionalPrinterColumns[0].jsonPath = '.spec.replicas.count';
    },
    /^spec\.versions\[0\]\.additionalPrinterColumns\[0\]\.jsonPath: names no field declared in the schema \(no \.spec\.replicas\.count\): the column is always empty/,
  ],
  [
    'column indexing a non-array',
    (m) => {
      m.spec.versions[0].additionalPrinterColumns[0].jsonPath = '.spec.replicas[0]';
    },
    /^spec\.versions\[0\]\.additionalPrinterColumns\[0\]\.jsonPath: names no field declared in the schema \(no \.spec\.replicas\[\*\]\)/,
  ],
  [
    'column [*] to a missing item field',
    (m) => {
      m.spec.versions[0].additionalPrinterColumns[2].jsonPath = '.spec.ports[*].nam';
    },
    /^spec\.versions\[0\]\.additionalPrinterColumns\[2\]\.jsonPath: names no field declared in the schema \(no \.spec\.ports\[\*\]\.nam\)/,
  ],
  [
    'column jsonPath is kubectl JSONPath (a filter missing its ])',
    (m) => {
      m.spec.versions[0].additionalPrinterColumns[1].jsonPath = '.status.conditions[?(@.type=="Ready").status';
    },
    /^spec\.versions\[0\]\.additionalPrinterColumns\[1\]\.jsonPath: kubectl's JSONPath parser refuses it \(unclosed array expect \]\): the apiserver accepts the CRD but drops this column and every later one from kubectl get \(got "\.status\.conditions\[\?\(@\.type==\\"Ready\\"\)\.status"\)$/,
  ],
  [
    'column jsonPath is kubectl JSONPath (an unclosed bracket)',
    (m) => {
      m.spec.versions[0].additionalPrinterColumns[2].jsonPath = '.spec.ports[0.name';
    },
    /^spec\.versions\[0\]\.additionalPrinterColumns\[2\]\.jsonPath: kubectl's JSONPath parser refuses it \(unterminated array\)/,
  ],
];

describe('accepted by the apiserver, but warned about', () => {
  test.each(WARNINGS)('warns: %s', (_rule, mutate, expected) => {
    const manifest = base();
    mutate(manifest);
    const issues = validateCrdManifest(manifest);
    expect(errorsOf(issues).map(formatIssue)).toStrictEqual([]);
    expect(warningsOf(issues).map(formatIssue)).toEqual([expect.stringMatching(expected)]);
  });
});

describe('a valid CRD', () => {
  test('passes every check', () => {
    expect(validateCrdManifest(base() as CrdManifest).map(formatIssue)).toStrictEqual([]);
  });
});

describe.each([
  ['names', NAMES],
  ['versions', VERSIONS],
  ['structural schema', STRUCTURAL],
  ['decoding', DECODING],
  ['found by the CRD mutation differential', FOUND_BY_MUTATION],
  ['lists and maps', LISTS_AND_MAPS],
  ['subresources and printer columns', SUBRESOURCES_AND_COLUMNS],
  ['size', SIZE],
])('invalid CRDs: %s', (_section, cases) => {
  test.each(cases)('fails: %s', (_rule, mutate, expected) => {
    // GIVEN a valid CRD with one rule broken
    const manifest = base();
    mutate(manifest);
    // WHEN
    const messages = errorsOf(validateCrdManifest(manifest)).map(formatIssue);
    // THEN
    const found = messages.some((m) => expected.test(m));
    if (!found) console.error(`${expected} not among:\n${messages.join('\n')}`);
    expect(found).toBe(true);
  });
});

describe('size warnings', () => {
  test('warns (but accepts) when client-side apply would overflow the annotation limit', () => {
    const manifest = base();
    props(manifest).replicas.description = 'x'.repeat(300_000);
    const issues = validateCrdManifest(manifest);
    expect(errorsOf(issues)).toStrictEqual([]);
    const warnings = warningsOf(issues).map(formatIssue);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(
      /^metadata\.annotations: Too long: client-side "kubectl apply" would store \d+ bytes.*kubectl apply --server-side.*stripDescriptions/,
    );
  });

  test('does not warn just below the annotation limit', () => {
    const manifest = base();
    props(manifest).replicas.description = 'x'.repeat(200_000);
    expect(validateCrdManifest(manifest)).toStrictEqual([]);
  });
});

const ACCEPTED: Array<[string, (m: any) => void]> = [
  [
    'a junctor below the root naming an undeclared field (only root junctors are checked for completeness)',
    (m) => {
      spec(m).anyOf = [{ required: ['flavour'], properties: { flavour: { minLength: 1 } } }];
    },
  ],
  [
    'int-or-string written as allOf[0].anyOf',
    (m) => {
      props(m).port = {
        'x-kubernetes-int-or-string': true,
        allOf: [{ anyOf: [{ type: 'integer' }, { type: 'string' }] }, { pattern: '^[0-9]+%?$' }],
      };
    },
  ],
  [
    'root metadata restricting name',
    (m) => {
      root(m).properties.metadata = { type: 'object', properties: { name: { type: 'string', maxLength: 20 } } };
    },
  ],
  [
    'map key with a default instead of required',
    (m) => {
      props(m).ports.items.required = [];
      props(m).ports.items.properties.name.default = 'http';
    },
  ],
  [
    'junctor constraining a declared field',
    (m) => {
      spec(m).anyOf = [{ required: ['replicas'] }, { properties: { replicas: { minimum: 1 } } }];
    },
  ],
  [
    'additionalProperties: true beside properties',
    (m) => {
      props(m).labels = { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: true };
    },
  ],
  [
    'a protected group with an "unapproved" annotation',
    (m) => {
      m.spec.group = 'x.k8s.io';
      m.metadata.name = 'widgets.x.k8s.io';
      m.metadata.annotations = { 'api-approved.kubernetes.io': 'unapproved, experimental-only' };
    },
  ],
  [
    'an empty status.storedVersions, as generated manifests carry it',
    (m) => {
      m.status = { storedVersions: [], conditions: [] };
    },
  ],
  [
    'selectable fields on scalar spec fields',
    (m) => {
      m.spec.versions[0].selectableFields = [{ jsonPath: '.spec.mode' }, { jsonPath: '.spec.replicas' }];
    },
  ],
  [
    'a column below preserve-unknown-fields',
    (m) => {
      m.spec.versions[0].additionalPrinterColumns[0].jsonPath = '.spec.extra.anything.goes';
    },
  ],
  [
    'default: null (the decoder leaves no default), even on kind',
    (m) => {
      props(m).mode.default = null;
      root(m).properties.kind = { type: 'string', nullable: true, default: null };
    },
  ],
  [
    "an unknown field below items (decoded by items' own, lenient decoder)",
    (m) => {
      props(m).tags.items.maxlength = 5;
    },
  ],
  [
    'root metadata with example, externalDocs, enum: [] and description: ""',
    (m) => {
      root(m).properties.metadata = {
        type: 'object',
        example: {},
        externalDocs: { url: 'https://x' },
        enum: [],
        description: '',
      };
    },
  ],
  [
    'any default of an int-or-string node without a type',
    (m) => {
      props(m).size = { 'x-kubernetes-int-or-string': true, default: true };
    },
  ],
  [
    'enum: [] (no enum) beside a default',
    (m) => {
      props(m).mode.enum = [];
      props(m).mode.default = 'fast';
    },
  ],
  [
    "int-or-string's anyOf with Go zero values in its branches",
    (m) => {
      props(m).port.anyOf = [
        { type: 'integer', nullable: false, enum: [] },
        { type: 'string', 'x-kubernetes-int-or-string': false },
      ];
    },
  ],
  [
    'a rule comparing an object with null',
    (m) => {
      spec(m)['x-kubernetes-validations'] = [{ rule: 'self != null' }];
    },
  ],
  [
    'an empty messageExpression (as good as none)',
    (m) => {
      props(m).mode['x-kubernetes-validations'] = [{ rule: "self != ''", messageExpression: '' }];
    },
  ],
  [
    "a second version whose root metadata says required: [] beside a first without it: equal up to Go's zero values, the schemas are lifted into one and only the first is checked",
    (m) => {
      root(m).properties.metadata = { type: 'object' };
      m.spec.versions.push(
        secondVersionOf(m, (v2) => {
          v2.schema.openAPIV3Schema.properties.metadata = { type: 'object', required: [], description: '' };
          v2.schema.openAPIV3Schema.properties.spec.properties.mode.enum = [];
        }),
      );
    },
  ],
  [
    'oldSelf below an atomic object (its properties still pair by name: MapIsCorrelatable)',
    (m) => {
      props(m).selector = {
        type: 'object',
        'x-kubernetes-map-type': 'atomic',
        properties: {
          app: { type: 'string', 'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'm' }] },
        },
      };
    },
  ],
  [
    'a rule message of 5000 characters (1.32 sets no length limit)',
    (m) => {
      spec(m)['x-kubernetes-validations'] = [{ rule: 'self.replicas >= 0', message: 'x'.repeat(5000) }];
    },
  ],
];

describe('accepted corner cases', () => {
  test.each(ACCEPTED)('%s', (_name, mutate) => {
    const manifest = base();
    mutate(manifest);
    expect(validateCrdManifest(manifest).map(formatIssue)).toStrictEqual([]);
  });
});

/** Every verdict above is the real apiserver's (dry-run creates; the size case needs etcd and is left out). */
describeRealApiServer(
  'the same CRDs on kube-apiserver',
  (plane) => {
    const verdict = async (mutate: (m: any) => void): Promise<string> => {
      const manifest = base();
      mutate(manifest);
      const r = await plane().request(
        'POST',
        // strict field validation, as kubectl apply sends it
        '/apis/apiextensions.k8s.io/v1/customresourcedefinitions?dryRun=All&fieldValidation=Strict',
        manifest,
      );
      // 422: invalid; 400: not even decodable as a CustomResourceDefinition
      return r.code === 201
        ? 'accepted'
        : r.code === 422 || r.code === 400
          ? 'refused'
          : `${r.code}: ${JSON.stringify(r.body)}`;
    };
    test('the valid CRD: accepted', async () => expect(await verdict(() => {})).toBe('accepted'));
    test.each([
      ...NAMES,
      ...VERSIONS,
      ...STRUCTURAL,
      ...DECODING,
      ...FOUND_BY_MUTATION,
      ...LISTS_AND_MAPS,
      ...SUBRESOURCES_AND_COLUMNS,
    ])('refused: %s', async (_rule, mutate) => {
      expect(await verdict(mutate)).toBe('refused');
    });
    test.each([...WARNINGS.map(([name, mutate]) => [name, mutate] as [string, (m: any) => void]), ...ACCEPTED])(
      'accepted: %s',
      async (_name, mutate) => {
        expect(await verdict(mutate)).toBe('accepted');
      },
    );
  },
  { shared: true },
);

import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { Testing } from 'cdk8s';
import * as yaml from 'yaml';
import { ResourceScope } from '../../lib/apiserver/crd-manifest';
import { CustomResourceDefinition, findCustomResourceDefinitions } from '../../lib/crd/custom-resource-definition';
import { Schema } from '../../lib/schema/schema';
import { Warnings } from '../../lib/synth-metadata/warnings';
import { SAMPLE_CONTROLLER_FIXTURES } from '../fixtures/recorded/paths';

const VENDORED = path.join(__dirname, '..', '..', 'vendor', 'crds');
const SAMPLE_CONTROLLER = path.join(SAMPLE_CONTROLLER_FIXTURES, 'crd.yaml');

function sampleDbProps() {
  return {
    group: 'database.example.com',
    kind: 'SampleDB',
    shortNames: ['sdb'],
    versions: [
      {
        name: 'v1alpha1',
        spec: Schema.object({
          properties: {
            replicas: Schema.integer({ minimum: 1, default: 1 }),
            version: Schema.string({ enum: ['15', '16'] }),
          },
          required: ['version'],
        }),
        status: Schema.object({ properties: { readyReplicas: Schema.integer(), selector: Schema.string() } }),
        printerColumns: [{ name: 'Ready', type: 'integer' as const, jsonPath: '.status.readyReplicas' }],
        subresources: {
          scale: {
            specReplicasPath: '.spec.replicas',
            statusReplicasPath: '.status.readyReplicas',
            labelSelectorPath: '.status.selector',
          },
        },
      },
    ],
  };
}

describe('CustomResourceDefinition (built from props)', () => {
  test('renders one apiextensions.k8s.io/v1 object with derived names and defaults', () => {
    // GIVEN
    const chart = Testing.chart();
    // WHEN
    new CustomResourceDefinition(chart, 'SampleDB', sampleDbProps());
    const manifests = Testing.synth(chart);
    // THEN
    expect(manifests).toHaveLength(1);
    const crd = manifests[0];
    expect(crd.apiVersion).toBe('apiextensions.k8s.io/v1');
    expect(crd.kind).toBe('CustomResourceDefinition');
    expect(crd.metadata.name).toBe('sampledbs.database.example.com');
    expect(crd.spec.names).toStrictEqual({
      kind: 'SampleDB',
      listKind: 'SampleDBList',
      plural: 'sampledbs',
      singular: 'sampledb',
      shortNames: ['sdb'],
    });
    expect(crd.spec.scope).toBe('Namespaced');
    expect(crd.spec.versions[0].served).toBe(true);
    expect(crd.spec.versions[0].storage).toBe(true);
    expect(crd.spec.versions[0].subresources.status).toStrictEqual({});
    expect(crd.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.replicas).toStrictEqual({
      type: 'integer',
      minimum: 1,
      default: 1,
    });
    expect(crd.spec.versions[0].schema.openAPIV3Schema.properties.metadata).toStrictEqual({ type: 'object' });
    expect(crd).toMatchSnapshot();
  });

  test('exposes names, storage version, apiVersion and schema for other constructs', () => {
    const chart = Testing.chart();
    const crd = new CustomResourceDefinition(chart, 'SampleDB', { ...sampleDbProps(), scope: ResourceScope.CLUSTER });
    expect(crd.group).toBe('database.example.com');
    expect(crd.scope).toBe('Cluster');
    expect(crd.names.plural).toBe('sampledbs');
    expect(crd.storageVersion).toBe('v1alpha1');
    expect(crd.apiVersionFor()).toBe('database.example.com/v1alpha1');
    expect(crd.schemaFor().properties?.spec?.required).toStrictEqual(['version']);
    expect(() => crd.apiVersionFor('v9')).toThrow(/unknown version "v9".*known: v1alpha1/);
    expect(CustomResourceDefinition.isCustomResourceDefinition(crd)).toBe(true);
    expect(CustomResourceDefinition.isCustomResourceDefinition(chart)).toBe(false);
    expect(findCustomResourceDefinitions(chart)).toStrictEqual([crd]);
  });

  test('addVersion() grows the versions lazily and the storage flag decides storageVersion', () => {
    const chart = Testing.chart();
    const crd = new CustomResourceDefinition(chart, 'Proxy', { group: 'net.example.com', kind: 'Proxy' });
    crd.addVersion({ name: 'v1', storage: true, spec: Schema.object({ properties: { port: Schema.integer() } }) });
    crd.addVersion({
      name: 'v2',
      storage: false,
      deprecated: false,
      spec: Schema.object({ properties: { port: Schema.intOrString() } }),
    });
    const [out] = Testing.synth(chart);
    expect(out.metadata.name).toBe('proxies.net.example.com');
    expect(out.spec.versions.map((v: any) => [v.name, v.storage])).toStrictEqual([
      ['v1', true],
      ['v2', false],
    ]);
    expect(crd.storageVersion).toBe('v1');
    expect(crd.apiVersionFor('v2')).toBe('net.example.com/v2');
  });

  test('selectable fields render as jsonPath entries and are checked', () => {
    const chart = Testing.chart();
    new CustomResourceDefinition(chart, 'SampleDB', {
      ...sampleDbProps(),
      versions: [{ ...sampleDbProps().versions[0], selectableFields: ['.spec.version'] }],
    });
    expect(Testing.synth(chart)[0].spec.versions[0].selectableFields).toStrictEqual([{ jsonPath: '.spec.version' }]);

    const bad = Testing.chart();
    new CustomResourceDefinition(bad, 'SampleDB', {
      ...sampleDbProps(),
      versions: [{ ...sampleDbProps().versions[0], selectableFields: ['.spec.nope'] }],
    });
    expect(() => Testing.synth(bad)).toThrow(
      /spec\.versions\[0\]\.selectableFields\[0\]\.jsonPath: Invalid value: is an invalid path/,
    );
  });

  test('a printer column kubectl cannot parse is reported at synth, naming construct, field and value', () => {
    const chart = Testing.chart();
    const version = sampleDbProps().versions[0];
    new CustomResourceDefinition(chart, 'SampleDB', {
      ...sampleDbProps(),
      versions: [
        {
          ...version,
          printerColumns: [
            ...version.printerColumns,
            { name: 'Phase', type: 'string' as const, jsonPath: '.status.conditions[?(@.type=="Ready").status' },
          ],
        },
      ],
    });
    Testing.synth(chart); // a warning: the apiserver accepts the CRD
    expect(Warnings.collect(chart).filter((w) => w.includes('JSONPath'))).toStrictEqual([
      "[test/SampleDB] spec.versions[0].additionalPrinterColumns[1].jsonPath: kubectl's JSONPath parser refuses it (unclosed array expect ]): " +
        'the apiserver accepts the CRD but drops this column and every later one from kubectl get (got ".status.conditions[?(@.type==\\"Ready\\").status")',
    ]);
  });

  test('a full openAPIV3Schema is used as given', () => {
    const chart = Testing.chart();
    const schema = Schema.object({ properties: { spec: Schema.object({ preserveUnknownFields: true }) } });
    new CustomResourceDefinition(chart, 'Thing', {
      group: 'example.com',
      kind: 'Thing',
      versions: [{ name: 'v1', schema }],
    });
    expect(Testing.synth(chart)[0].spec.versions[0].schema.openAPIV3Schema).toStrictEqual(schema);
  });

  test('fails synth when a version gives both schema and spec', () => {
    const chart = Testing.chart();
    new CustomResourceDefinition(chart, 'Thing', {
      group: 'example.com',
      kind: 'Thing',
      versions: [{ name: 'v1', schema: Schema.object(), spec: Schema.object() }],
    });
    expect(() => Testing.synth(chart)).toThrow(/either 'schema' or 'spec'\/'status', got both/);
  });

  test('fails when several versions leave storage unset, naming construct and field path', () => {
    const chart = Testing.chart();
    new CustomResourceDefinition(chart, 'Thing', {
      group: 'example.com',
      kind: 'Thing',
      versions: [
        { name: 'v1', spec: Schema.object() },
        { name: 'v2', spec: Schema.object() },
      ],
    });
    expect(() => Testing.synth(chart)).toThrow(
      /\[test\/Thing\] spec\.versions: Invalid value: must have exactly one version marked as storage version/,
    );
  });

  test('runs the default and CEL checks on every version', () => {
    const chart = Testing.chart();
    new CustomResourceDefinition(chart, 'Thing', {
      group: 'example.com',
      kind: 'Thing',
      versions: [
        {
          name: 'v1',
          storage: true,
          spec: Schema.object({ properties: { replicas: Schema.integer({ minimum: 1, default: 0 }) } }),
        },
        {
          name: 'v2',
          storage: false,
          spec: Schema.object({
            validations: [{ rule: 'self.replicas >' }],
            properties: { replicas: Schema.integer() },
          }),
        },
      ],
    });
    let message = '';
    try {
      Testing.synth(chart);
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toMatch(
      /\[test\/Thing\] spec\.versions\[0\]\.schema\.openAPIV3Schema\.properties\[spec\]\.properties\[replicas\]\.default: /,
    );
    expect(message).toMatch(
      /\[test\/Thing\] spec\.versions\[1\]\.schema\.openAPIV3Schema\.properties\[spec\]\.x-kubernetes-validations\[0\]\.rule: /,
    );
  });

  test('reports many errors of one app together', () => {
    const chart = Testing.chart();
    new CustomResourceDefinition(chart, 'A', {
      group: 'nodot',
      kind: 'Thing',
      shortNames: ['Bad_Name'],
      versions: [{ name: 'V1', spec: Schema.object({ properties: { replicas: {} as any } }) }],
    });
    new CustomResourceDefinition(chart, 'B', { group: 'example.com', kind: 'Other' });
    let message = '';
    try {
      Testing.synth(chart);
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toMatch(
      /\[test\/A\] spec\.group: Invalid value: should be a domain with at least one dot \(got "nodot"\)/,
    );
    expect(message).toMatch(/\[test\/A\] spec\.names\.shortNames\[0\]: Invalid value: .*DNS-1035/);
    expect(message).toMatch(/\[test\/A\] spec\.versions\[0\]\.name: Invalid value: .*DNS-1035/);
    expect(message).toMatch(
      /\[test\/A\] spec\.versions\[0\]\.schema\.openAPIV3Schema\.properties\[spec\]\.properties\[replicas\]\.type: Required value: must not be empty for specified object fields/,
    );
    expect(message).toMatch(/\[test\/B\] spec\.versions: Required value: must have at least one version/);
  });
});

describe('CustomResourceDefinition (raw manifests)', () => {
  const files = [
    path.join(VENDORED, 'monitoring.coreos.com_servicemonitors.yaml'),
    path.join(VENDORED, 'monitoring.coreos.com_prometheusrules.yaml'),
    path.join(VENDORED, 'monitoring.coreos.com_prometheuses.yaml'),
    path.join(VENDORED, 'cert-manager.io_certificates.yaml'),
    SAMPLE_CONTROLLER,
  ];
  test.each(files)('%s is accepted, emitted unchanged and exposes its names', (file) => {
    const chart = Testing.chart();
    const crd = CustomResourceDefinition.fromFile(chart, 'Crd', file);
    const parsed = yaml.parse(fs.readFileSync(file, 'utf8'));
    const [out] = Testing.synth(chart);
    expect(out).toStrictEqual(parsed);
    expect(crd.group).toBe(parsed.spec.group);
    expect(crd.names.kind).toBe(parsed.spec.names.kind);
    expect(crd.names.plural).toBe(parsed.spec.names.plural);
    expect(crd.names.listKind).toBe(parsed.spec.names.listKind ?? `${parsed.spec.names.kind}List`);
    expect(crd.scope).toBe(parsed.spec.scope);
    expect(crd.storageVersion).toBe(parsed.spec.versions.find((v: any) => v.storage).name);
  });

  test('a two-version Prometheus CRD warns about client-side apply until its descriptions are stripped', () => {
    // GIVEN the real Prometheus CRD (207 KB as JSON) served in a second version: 415 KB, over the 256 KiB annotation limit
    const prometheus: any = yaml.parse(
      fs.readFileSync(path.join(VENDORED, 'monitoring.coreos.com_prometheuses.yaml'), 'utf8'),
    );
    prometheus.spec.versions.push({ ...prometheus.spec.versions[0], name: 'v2', storage: false });
    const plain = Testing.chart();
    CustomResourceDefinition.fromManifest(plain, 'Prometheus', prometheus);
    Testing.synth(plain);
    expect(Warnings.collect(plain)).toStrictEqual([
      expect.stringMatching(
        /^\[test\/Prometheus\] metadata\.annotations: Too long: .*--server-side.*stripDescriptions/,
      ),
    ]);

    // WHEN descriptions are stripped
    const stripped = Testing.chart();
    CustomResourceDefinition.fromManifest(stripped, 'Prometheus', prometheus, { stripDescriptions: ['*'] });
    const [out] = Testing.synth(stripped);

    // THEN the warning is gone and the manifest shrank
    expect(Warnings.collect(stripped)).toStrictEqual([]);
    expect(JSON.stringify(out).length).toBeLessThan(JSON.stringify(prometheus).length / 3);
  });

  test.each(files)('%s needs no size warning', (file) => {
    const chart = Testing.chart();
    CustomResourceDefinition.fromFile(chart, 'Crd', file);
    Testing.synth(chart);
    expect(Warnings.collect(chart)).toStrictEqual([]);
  });

  test('keeps null values and empty maps of the original manifest', () => {
    const chart = Testing.chart();
    const manifest: any = yaml.parse(fs.readFileSync(SAMPLE_CONTROLLER, 'utf8'));
    manifest.metadata.creationTimestamp = null;
    manifest.metadata.labels = {};
    CustomResourceDefinition.fromManifest(chart, 'Foo', manifest);
    expect(Testing.synth(chart)[0]).toStrictEqual(manifest);
  });

  test('validates imported manifests with the same checks', () => {
    const chart = Testing.chart();
    const manifest: any = yaml.parse(fs.readFileSync(SAMPLE_CONTROLLER, 'utf8'));
    delete manifest.metadata.annotations;
    manifest.spec.versions[0].storage = false;
    CustomResourceDefinition.fromManifest(chart, 'Foo', manifest);
    expect(() => Testing.synth(chart)).toThrow(
      /metadata\.annotations\[api-approved\.kubernetes\.io\]: Required value: protected groups must have approval annotation/,
    );
    expect(() => Testing.synth(chart)).toThrow(
      /spec\.versions: Invalid value: must have exactly one version marked as storage version/,
    );
  });

  test('fromFile rejects a file with several documents', () => {
    const file = path.join(os.tmpdir(), `two-docs-${process.pid}.yaml`);
    fs.writeFileSync(file, '---\na: 1\n---\nb: 2\n');
    expect(() => CustomResourceDefinition.fromFile(Testing.chart(), 'X', file)).toThrow(
      /exactly one CustomResourceDefinition document, got 2/,
    );
    fs.rmSync(file);
  });
});

describe('CustomResourceDefinition size budget', () => {
  /** A CRD whose descriptions push client-side apply over the 256 KiB annotation limit. */
  function bigProps(stripDescriptions?: string[]) {
    const properties: Record<string, any> = {};
    for (let i = 0; i < 300; i++) {
      properties[`field${i}`] = Schema.string({ description: `field ${i} `.padEnd(1000, 'x') });
    }
    return {
      group: 'big.example.com',
      kind: 'Big',
      stripDescriptions,
      versions: [
        {
          name: 'v1',
          spec: Schema.object({
            properties: { small: Schema.string({ description: 'kept' }), big: Schema.object({ properties }) },
          }),
        },
      ],
    };
  }

  test('warns about client-side apply, naming --server-side and stripDescriptions', () => {
    const chart = Testing.chart();
    new CustomResourceDefinition(chart, 'Big', bigProps());
    Testing.synth(chart);
    const warnings = Warnings.collect(chart);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(
      /^\[test\/Big\] metadata\.annotations: Too long: .*kubectl apply --server-side.*stripDescriptions/,
    );
  });

  test.each([[['*']], [['spec.properties.big']]])(
    'stripDescriptions %j shrinks the manifest and clears the warning',
    (selectors) => {
      const plain = Testing.chart();
      new CustomResourceDefinition(plain, 'Big', bigProps());
      const before = JSON.stringify(Testing.synth(plain)[0]).length;

      const chart = Testing.chart();
      const crd = new CustomResourceDefinition(chart, 'Big', bigProps(selectors));
      const [out] = Testing.synth(chart);
      expect(JSON.stringify(out).length).toBeLessThan(before / 5);
      expect(Warnings.collect(chart)).toStrictEqual([]);
      expect(
        out.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.big.properties.field7,
      ).toStrictEqual({ type: 'string' });
      expect(crd.schemaFor().properties?.spec?.properties?.big?.properties?.field7.description).toMatch(/^field 7/); // declared schema keeps them
      const small = out.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.small;
      expect(small.description).toBe(selectors[0] === '*' ? undefined : 'kept');
    },
  );

  test('imported manifests can be stripped too, and nothing else changes', () => {
    const file = path.join(VENDORED, 'monitoring.coreos.com_servicemonitors.yaml');
    const chart = Testing.chart();
    CustomResourceDefinition.fromFile(chart, 'Smon', file, { stripDescriptions: ['*'] });
    const [out] = Testing.synth(chart);
    const original = yaml.parse(fs.readFileSync(file, 'utf8'));
    expect(JSON.stringify(out).length).toBeLessThan(JSON.stringify(original).length / 2);
    expect(JSON.stringify(out)).not.toMatch(/"description"/);
    expect(out.spec.names).toStrictEqual(original.spec.names);
    expect(out.metadata).toStrictEqual(original.metadata);
  });

  test('fails for a selector that names no schema node', () => {
    const chart = Testing.chart();
    new CustomResourceDefinition(chart, 'Big', { ...bigProps(['spec.properties.nothing']) });
    expect(() => Testing.synth(chart)).toThrow(
      /\[test\/Big\] stripDescriptions: Invalid value: names no schema node in any version \(got "spec\.properties\.nothing"\)/,
    );
  });

  test('fails when the whole CRD reaches 1.5 MiB', () => {
    const chart = Testing.chart();
    new CustomResourceDefinition(chart, 'Huge', {
      group: 'huge.example.com',
      kind: 'Huge',
      versions: [
        {
          name: 'v1',
          spec: Schema.object({ properties: { a: Schema.string({ description: 'x'.repeat(1_600_000) }) } }),
        },
      ],
    });
    expect(() => Testing.synth(chart)).toThrow(
      /\[test\/Huge\] spec: Too long: the CustomResourceDefinition serializes to \d+ bytes, etcd rejects/,
    );
  });
});

import { App, Chart, Testing } from 'cdk8s';
import { SampleDB } from '../../imports/database.example.com';
import { sampleDbCrd } from '../../apps/sampledb/sampledb-crd';
import { SampleDbChart } from '../../apps/sampledb/sampledb-chart';

function chartWithCrd(): Chart {
  const chart = new Chart(Testing.app(), 'test');
  sampleDbCrd(chart);
  return chart;
}

describe('SampleDB app', () => {
  test('synthesizes the CRD and both examples', () => {
    const manifests = Testing.synth(new SampleDbChart(Testing.app(), 'sampledb'));
    expect(manifests.map(m => `${m.kind}/${m.metadata.name}`)).toEqual([
      'CustomResourceDefinition/sampledbs.database.example.com',
      'SampleDB/my-db',
      'SampleDB/scratch-db',
    ]);
    const crd = manifests[0];
    expect(crd.spec.names).toMatchObject({ kind: 'SampleDB', plural: 'sampledbs', shortNames: ['sdb'] });
    const v1 = crd.spec.versions[0];
    expect(v1.additionalPrinterColumns.map((c: any) => c.name)).toEqual(['Version', 'Replicas', 'Ready', 'Phase', 'Age']);
    expect(v1.subresources).toEqual({
      status: {},
      scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.labelSelector' },
    });
    expect(v1.schema.openAPIV3Schema.properties.status.properties.conditions).toMatchObject({
      'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['type'],
    });
    // The example is emitted as written: defaults are the apiserver's job.
    expect(manifests[2].spec).toEqual({ version: '17' });
  });

  test.each<[string, any, RegExp]>([
    ['replicas below the minimum', { version: '16', replicas: 0 }, /spec\.replicas.*greater than or equal to 1/],
    ['a field the CRD does not declare', { version: '16', replica: 2 }, /spec\.replica.*unknown field/i],
    ['a version that is not a version', { version: 'latest' }, /spec\.version.*should match/],
    ['backupRetention without a schedule', { version: '16', backupRetention: 3 }, /spec\.backupRetention.*backupRetention needs a backupSchedule/],
    ['no version', { replicas: 1 }, /spec\.version.*Required value/],
  ])('fails synth for %s', (_name, spec, message) => {
    const chart = chartWithCrd();
    new SampleDB(chart, 'bad', { metadata: { name: 'bad' }, spec });
    expect(() => Testing.synth(chart)).toThrow(message);
  });

  test('fails synth for a major version downgrade (transition rule with previous)', () => {
    const chart = chartWithCrd();
    new SampleDB(chart, 'db', { metadata: { name: 'db' }, spec: { version: '15.2' }, previous: { spec: { version: '16.1' } } });
    expect(() => Testing.synth(chart)).toThrow(/\[test\/db\].*spec\.version.*major version downgrades are not supported/);
  });

  test('accepts a minor upgrade over the previous version', () => {
    const chart = chartWithCrd();
    new SampleDB(chart, 'db', { metadata: { name: 'db' }, spec: { version: '16.4' }, previous: { spec: { version: '16.1' } } });
    expect(() => Testing.synth(chart)).not.toThrow();
  });

  test('reports every bad example of an app together', () => {
    const app = new App({ outdir: '/tmp/unused' });
    const chart = new Chart(app, 'c');
    sampleDbCrd(chart);
    new SampleDB(chart, 'a', { metadata: { name: 'Bad_Name' }, spec: { version: '16' } });
    new SampleDB(chart, 'b', { metadata: { name: 'b' }, spec: { version: '16', replicas: 10 } });
    let message = '';
    try { app.synthYaml(); } catch (e) { message = (e as Error).message; }
    expect(message).toMatch(/\[c\/a\].*metadata\.name.*Bad_Name/);
    expect(message).toMatch(/\[c\/b\].*spec\.replicas/);
  });
});

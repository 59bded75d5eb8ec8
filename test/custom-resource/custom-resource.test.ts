import * as path from 'path';
import { Chart, Testing } from 'cdk8s';
import { Construct } from 'constructs';
import { FakeCrd } from './_fake-crd';
import { CustomResource, TypedCustomResourceProps } from '../../lib/custom-resource/custom-resource';
import { Warnings } from '../../lib/synth-metadata/warnings';
import { KUBE_APISERVER_FIXTURES, SAMPLE_CONTROLLER_FIXTURES } from '../fixtures/recorded/paths';
import { validationErrors } from '../support/synth-errors';

// the shared fixtures live beside the repository
const SAMPLE_DB_CRD = path.join(KUBE_APISERVER_FIXTURES, 'crd.yaml');
const FOO_CRD = path.join(SAMPLE_CONTROLLER_FIXTURES, 'crd.yaml');

function setup(patch?: (m: any) => void) {
  const app = Testing.app();
  const chart = new Chart(app, 'test');
  const crd = FakeCrd.fromFile(chart, 'Crd', SAMPLE_DB_CRD, patch);
  return { app, chart, crd };
}

interface SampleDbSpec {
  readonly replicas?: number;
  readonly version?: string;
}

/** What `imports/db.example.com.ts` would contain: a typed subclass with a fixed GVK. */
class SampleDb extends CustomResource<SampleDbSpec> {
  public static readonly GVK = { apiVersion: 'db.example.com/v1', kind: 'SampleDB' } as const;
  constructor(scope: Construct, id: string, props: TypedCustomResourceProps<SampleDbSpec>) {
    super(scope, id, { ...props, ...SampleDb.GVK });
  }
}

describe('CustomResource', () => {
  test('an accepted example synthesizes as given, without injected defaults', () => {
    const { app, chart, crd } = setup();
    new CustomResource(chart, 'Db', { crd, metadata: { name: 'db' }, spec: { version: '16' } });
    expect(validationErrors(app)).toBe('');
    expect(Testing.synth(chart)).toStrictEqual([
      { apiVersion: 'db.example.com/v1', kind: 'SampleDB', metadata: { name: 'db' }, spec: { version: '16' } },
    ]);
  });

  test('the emitted object is the child "Resource"', () => {
    const { chart, crd } = setup();
    const db = new CustomResource(chart, 'Db', { crd, metadata: { name: 'db' } });
    expect(db.node.findChild('Resource')).toBe(db.apiObject);
  });

  test('fails a schema violation with construct path, field path and bad value', () => {
    const { app, chart, crd } = setup();
    new CustomResource(chart, 'Db', { crd, metadata: { name: 'bad' }, spec: { replicas: 0, version: '16' } });
    const errors = validationErrors(app);
    expect(errors).toContain(
      '[test/Db] spec.replicas: Invalid value: 0: spec.replicas in body should be greater than or equal to 1',
    );
  });

  test('fails a CEL rule with its message', () => {
    const { app, chart, crd } = setup();
    new CustomResource(chart, 'Db', { crd, metadata: { name: 'bad' }, spec: { replicas: 9 } });
    expect(validationErrors(app)).toMatch(/\[test\/Db\] spec: Invalid value: "object": at most 7$/m); // the path names the object: no whole-object (got {…})
  });

  test('fails an unknown field', () => {
    const { app, chart, crd } = setup();
    new CustomResource(chart, 'Db', { crd, metadata: { name: 'db' }, spec: { replicas: 2, bogus: 1 } });
    expect(validationErrors(app)).toMatch(/\[test\/Db\] spec\.bogus: unknown field "spec\.bogus"/);
  });

  test('fails an unknown top-level field given through the extra props', () => {
    const { app, chart, crd } = setup();
    new CustomResource(chart, 'Db', { crd, metadata: { name: 'db' }, specc: { replicas: 2 } });
    expect(validationErrors(app)).toMatch(/\[test\/Db\] specc: unknown field "specc"/);
  });

  test('fails a name that is not a DNS-1123 subdomain', () => {
    const { app, chart, crd } = setup();
    new CustomResource(chart, 'Db', { crd, metadata: { name: 'Bad_Name' } });
    expect(validationErrors(app)).toMatch(
      /\[test\/Db\] metadata\.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain/,
    );
  });

  test('fails unknown metadata fields and malformed labels', () => {
    const { app, chart, crd } = setup();
    new CustomResource(chart, 'Db', {
      crd,
      metadata: { name: 'db', labels: { 'bad key!': 'x' }, ...({ lables: {} } as object) },
    });
    const errors = validationErrors(app);
    expect(errors).toMatch(/\[test\/Db\] metadata\.lables: unknown field "metadata\.lables"/);
    expect(errors).toMatch(
      /\[test\/Db\] metadata\.labels: Invalid value: "bad key!": name part must consist of alphanumeric characters/,
    );
  });

  // the apiserver clears a cluster-scoped object's namespace, whatever its value (message-wording.test.ts measures it)
  test('warns of a namespace on a cluster-scoped kind (the apiserver drops it), accepts it on a namespaced one', () => {
    const cluster = setup((m) => {
      m.spec.scope = 'Cluster';
    });
    const db = new CustomResource(cluster.chart, 'Db', {
      crd: cluster.crd,
      metadata: { name: 'db', namespace: 'Not_A_Label' },
    });
    expect(validationErrors(cluster.app)).toBe('');
    expect(Warnings.collect(db).join('\n')).toMatch(
      /metadata\.namespace: ignored: SampleDB is cluster-scoped, so the apiserver stores it without a namespace/,
    );

    const namespaced = setup();
    new CustomResource(namespaced.chart, 'Db', { crd: namespaced.crd, metadata: { name: 'db', namespace: 'prod' } });
    expect(validationErrors(namespaced.app)).toBe('');
  });

  test('fails a version the CRD does not serve, and one it does not have', () => {
    const notServed = setup((m) => {
      m.spec.versions[0].served = false;
    });
    new CustomResource(notServed.chart, 'Db', { crd: notServed.crd, metadata: { name: 'db' } });
    expect(validationErrors(notServed.app)).toMatch(/\[test\/Db\] apiVersion: version "v1" is not served by the CRD/);

    const unknown = setup();
    new CustomResource(unknown.chart, 'Db', {
      apiVersion: 'db.example.com/v2',
      kind: 'SampleDB',
      metadata: { name: 'db' },
    });
    expect(validationErrors(unknown.app)).toMatch(/no matches for kind "SampleDB" in version "db.example.com\/v2"/);
  });

  test('checks a transition rule on the declared before/after pair', () => {
    const immutable = (m: any) => {
      m.spec.versions[0].schema.openAPIV3Schema.properties.spec['x-kubernetes-validations'].push({
        rule: 'self.version == oldSelf.version',
        message: 'version is immutable',
      });
    };
    const changed = setup(immutable);
    new CustomResource(changed.chart, 'Db', {
      crd: changed.crd,
      metadata: { name: 'db' },
      spec: { version: '17' },
      previous: { spec: { version: '16' } },
    });
    expect(validationErrors(changed.app)).toMatch(/\[test\/Db\] spec: Invalid value: "object": version is immutable/);

    const same = setup(immutable);
    new CustomResource(same.chart, 'Db', {
      crd: same.crd,
      metadata: { name: 'db' },
      spec: { version: '16' },
      previous: { spec: { version: '16' } },
    });
    expect(validationErrors(same.app)).toBe('');
  });

  test('also checks the previous object on its own', () => {
    const { app, chart, crd } = setup();
    new CustomResource(chart, 'Db', {
      crd,
      metadata: { name: 'db' },
      spec: { replicas: 1 },
      previous: { spec: { replicas: 0 } },
    });
    expect(validationErrors(app)).toMatch(/\[test\/Db\] previous\.spec\.replicas: Invalid value: 0/);
  });

  test('a typed subclass finds its CRD in the app by group and kind, wherever it is declared', () => {
    const app = Testing.app();
    const chart = new Chart(app, 'test');
    new SampleDb(chart, 'Good', { metadata: { name: 'good' }, spec: { replicas: 3 } });
    new SampleDb(chart, 'Bad', { metadata: { name: 'bad' }, spec: { replicas: 8 } });
    FakeCrd.fromFile(new Chart(app, 'crds'), 'Crd', SAMPLE_DB_CRD); // declared after the resources, in another chart
    const errors = validationErrors(app);
    expect(errors).toMatch(/\[test\/Bad\] spec: Invalid value: "object": at most 7/);
    expect(errors).not.toMatch(/test\/Good/);
  });

  test('fails clearly when no CRD for the kind is in the app', () => {
    const app = Testing.app();
    const chart = new Chart(app, 'test');
    new SampleDb(chart, 'Db', { metadata: { name: 'db' } });
    expect(validationErrors(app)).toMatch(
      /\[test\/Db\] apiVersion: no CustomResourceDefinition for kind SampleDB in group db.example.com found in the app/,
    );
  });

  test('fails synth without a crd, apiVersion or kind', () => {
    expect(() =>
      Testing.synth(new CustomResource(Testing.chart(), 'Db', { metadata: { name: 'db' } }).node.scope as Chart),
    ).toThrow(/'apiVersion' and 'kind' are required when 'crd' is not given/);
    expect(() =>
      Testing.synth(
        new CustomResource(Testing.chart(), 'Db', { apiVersion: 'v1', kind: 'X', metadata: { name: 'db' } }).node
          .scope as Chart,
      ),
    ).toThrow(/'apiVersion' must be '<group>\/<version>'/);
  });

  test('with the status subresource, status is dropped (warned, not validated) as by the apiserver', () => {
    const { app, chart, crd } = setup();
    const db = new CustomResource(chart, 'Db', { crd, metadata: { name: 'db' }, status: { replicas: 'one' } });
    expect(validationErrors(app)).toBe('');
    expect(Warnings.collect(db).join('\n')).toMatch(/status: the apiserver drops status on create/);
  });

  test('without the status subresource, status is validated like the rest', () => {
    const { app, chart, crd } = setup((m) => {
      delete m.spec.versions[0].subresources;
    });
    new CustomResource(chart, 'Db', { crd, metadata: { name: 'db' }, status: { replicas: 'one' } });
    expect(validationErrors(app)).toMatch(
      /\[test\/Db\] status\.replicas: Invalid value: "string": status\.replicas in body must be of type integer/,
    );
  });

  test('accepts the upstream sample-controller example', () => {
    const app = Testing.app();
    const chart = new Chart(app, 'test');
    const crd = FakeCrd.fromFile(chart, 'Foo', FOO_CRD);
    new CustomResource(chart, 'Example', {
      crd,
      metadata: { name: 'example-foo' },
      spec: { deploymentName: 'example-foo', replicas: 1 },
    });
    expect(validationErrors(app)).toBe('');
  });
});

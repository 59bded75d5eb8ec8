/**
 * Version-level (whole-object) CEL rules: `self` is the object, `self.metadata.name` usable. Checked at synth as every
 * other rule, and on the real apiserver: the CRD is accepted and the rule enforced on create.
 */
import { Chart, Testing } from 'cdk8s';
import { CustomResource, CustomResourceDefinition, ResourceScope, Schema } from '../../lib';
import { describeRealApiServer } from '../envtest';

function tenantCrd(chart: Chart, rule = "self.metadata.name.startsWith(self.spec.prefix + '-')") {
  return new CustomResourceDefinition(chart, 'Tenant', {
    group: 'rules.example.com',
    kind: 'Tenant',
    scope: ResourceScope.CLUSTER,
    versions: [
      {
        name: 'v1',
        spec: Schema.object({ properties: { prefix: Schema.string({ maxLength: 20 }) }, required: ['prefix'] }),
        validations: [{ rule, message: 'the name must start with spec.prefix and a dash' }],
      },
    ],
  });
}

describe('whole-object rules (CrdVersionProps.validations)', () => {
  test('emitted on the root schema; metadata stays { type: object }', () => {
    const chart = new Chart(Testing.app(), 'c');
    tenantCrd(chart);
    const [crd] = Testing.synth(chart);
    const root = crd.spec.versions[0].schema.openAPIV3Schema;
    expect(root['x-kubernetes-validations']).toEqual([
      {
        rule: "self.metadata.name.startsWith(self.spec.prefix + '-')",
        message: 'the name must start with spec.prefix and a dash',
      },
    ]);
    expect(root.properties.metadata).toEqual({ type: 'object' });
  });

  test("a custom resource that breaks the rule fails synth, naming the object and the rule's message", () => {
    const chart = new Chart(Testing.app(), 'c');
    const crd = tenantCrd(chart);
    new CustomResource(chart, 'good', { crd, metadata: { name: 'acme-prod' }, spec: { prefix: 'acme' } });
    new CustomResource(chart, 'bad', { crd, metadata: { name: 'other' }, spec: { prefix: 'acme' } });
    expect(() => Testing.synth(chart)).toThrow(/the name must start with spec\.prefix and a dash/);
    let message = '';
    try {
      Testing.synth(chart);
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toContain('c/bad');
    expect(message).not.toContain('c/good');
  });

  test('a rule that does not compile fails synth like any other (metadata holds only name and generateName)', () => {
    const chart = new Chart(Testing.app(), 'c');
    tenantCrd(chart, "self.metadata.labels['team'] == self.spec.prefix");
    expect(() => Testing.synth(chart)).toThrow(/x-kubernetes-validations\[0\]\.rule.*undefined field 'labels'/s);
  });

  test('refused beside a complete schema', () => {
    const chart = new Chart(Testing.app(), 'c');
    new CustomResourceDefinition(chart, 'X', {
      group: 'rules.example.com',
      kind: 'X',
      versions: [{ name: 'v1', schema: { type: 'object' }, validations: [{ rule: 'true' }] }],
    });
    expect(() => Testing.synth(chart)).toThrow(/versions: "v1"\.validations: only with 'spec'\/'status'/);
  });
});

describeRealApiServer(
  'whole-object rules on the apiserver',
  (plane) => {
    test('the CRD is accepted and the rule enforced on create, with self.metadata.name', async () => {
      const chart = new Chart(Testing.app(), 'c');
      tenantCrd(chart);
      const [crd] = Testing.synth(chart);
      await plane().installCrds([crd]);
      const path = '/apis/rules.example.com/v1/tenants';
      const bad = await plane().request('POST', path, {
        apiVersion: 'rules.example.com/v1',
        kind: 'Tenant',
        metadata: { name: 'other' },
        spec: { prefix: 'acme' },
      });
      expect([bad.code, bad.body.message]).toEqual([
        422,
        'Tenant.rules.example.com "other" is invalid: <nil>: Invalid value: "object": the name must start with spec.prefix and a dash',
      ]);
      const good = await plane().request('POST', path, {
        apiVersion: 'rules.example.com/v1',
        kind: 'Tenant',
        metadata: { name: 'acme-prod' },
        spec: { prefix: 'acme' },
      });
      expect(good.code).toBe(201);
    });

    test('as synth says, the apiserver gives the rules no metadata but name and generateName', async () => {
      const chart = new Chart(Testing.app(), 'c');
      tenantCrd(chart);
      const [crd] = Testing.synth(chart);
      const version = crd.spec.versions[0];
      const root = {
        ...version.schema.openAPIV3Schema,
        'x-kubernetes-validations': [{ rule: "self.metadata.labels['team'] == self.spec.prefix" }],
      };
      const labels = {
        ...crd,
        metadata: { name: 'tenants.labels.example.com' },
        spec: {
          ...crd.spec,
          group: 'labels.example.com',
          versions: [{ ...version, schema: { openAPIV3Schema: root } }],
        },
      };
      await expect(plane().installCrds([labels])).rejects.toThrow(/undefined field 'labels'/);
    });
  },
  { shared: true, controllerManager: false },
);

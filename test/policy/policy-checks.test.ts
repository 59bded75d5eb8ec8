import { ApiObject, Chart, Testing } from 'cdk8s';
import * as kplus from 'cdk8s-plus-28';
import { PolicyChecks, Warnings } from '../../lib';

describe('PolicyChecks', () => {
  test('fails synth for a cdk8s-plus Deployment with its defaults (not "restricted"), naming the object and field', () => {
    const chart = new Chart(Testing.app(), 'test');
    new kplus.Deployment(chart, 'web', { metadata: { name: 'web' }, containers: [{ image: 'nginx:1.27' }] });
    PolicyChecks.enable(chart);
    expect(() => Testing.synth(chart)).toThrow(/policy: \[test\/web\/Resource\] Deployment web: spec\.template\.spec\.containers\[0\]\.securityContext\.seccompProfile\.type: must be RuntimeDefault or Localhost/);
  });

  test('checks objects added after enabling, in any chart of the app', () => {
    const app = Testing.app();
    const a = new Chart(app, 'a');
    PolicyChecks.enable(a);
    PolicyChecks.enable(a); // idempotent: one validation
    const b = new Chart(app, 'b');
    new ApiObject(b, 'pod', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { hostPID: true, containers: [] } });
    const errors = PolicyChecks.run(app);
    expect(errors).toStrictEqual(['policy: [b/pod] Pod p: spec.hostPID: host namespaces are forbidden (got true)']);
    expect(app.node.validate()).toStrictEqual(errors);
  });

  test('warnings do not fail synth and are collected', () => {
    const chart = new Chart(Testing.app(), 'test');
    new ApiObject(chart, 'r', {
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'r' },
      rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }, { apiGroups: [''], resources: ['pods'], verbs: ['list'] }],
    });
    PolicyChecks.enable(chart);
    expect(() => Testing.synth(chart)).not.toThrow();
    expect(Warnings.collect(chart)).toStrictEqual(['[test/r] policy: Role r: rules[1].resources: duplicate rule: core/pods is also granted by rules[0]; merge them (got "pods")']);
  });
});

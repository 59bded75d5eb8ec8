import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { ApiObject, Chart, Testing } from 'cdk8s';
import * as kplus from 'cdk8s-plus-28';
import { lintRbac, OperatorApp, OperatorAppProps, Warnings } from '../../lib';

function app(props: OperatorAppProps = {}): OperatorApp {
  return new OperatorApp({
    outdir: fs.mkdtempSync(path.join(os.tmpdir(), 'policy-')),
    report: false,
    descriptionCheck: false,
    ...props,
  });
}

/** A container Pod Security "restricted" accepts (a pod needs one: the apiserver refuses `containers: []`). */
const RESTRICTED_CONTAINER = {
  name: 'c',
  image: 'nginx:1.27',
  securityContext: {
    allowPrivilegeEscalation: false,
    capabilities: { drop: ['ALL'] },
    runAsNonRoot: true,
    seccompProfile: { type: 'RuntimeDefault' },
  },
};

describe('OperatorApp policy option', () => {
  test('on by default: fails synth for a cdk8s-plus Deployment with its defaults (not "restricted"), naming the object and field', () => {
    const chart = new Chart(app(), 'test');
    new kplus.Deployment(chart, 'web', { metadata: { name: 'web' }, containers: [{ image: 'nginx:1.27' }] });
    expect(() => Testing.synth(chart)).toThrow(
      /policy: \[test\/web\/Resource\] Deployment web: spec\.template\.spec\.containers\[0\]\.securityContext\.seccompProfile\.type: must be RuntimeDefault or Localhost/,
    );
  });

  test('checks every object of every chart, once', () => {
    const root = app();
    new Chart(root, 'a');
    const b = new Chart(root, 'b');
    new ApiObject(b, 'pod', {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p' },
      spec: { hostPID: true, containers: [RESTRICTED_CONTAINER] },
    });
    expect(root.node.validate()).toStrictEqual([
      'policy: [b/pod] Pod p: spec.hostPID: host namespaces are forbidden (got true)',
    ]);
  });

  test('policy: false turns it off; checks: [...] chooses the checks', () => {
    const off = app({ policy: false });
    new ApiObject(new Chart(off, 'b'), 'pod', {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p' },
      spec: { hostPID: true, containers: [RESTRICTED_CONTAINER] },
    });
    expect(off.node.validate()).toStrictEqual([]);
    const rbacOnly = app({ policy: { checks: [lintRbac] } });
    new ApiObject(new Chart(rbacOnly, 'b'), 'pod', {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p' },
      spec: { hostPID: true, containers: [RESTRICTED_CONTAINER] },
    });
    expect(rbacOnly.node.validate()).toStrictEqual([]);
  });

  test('warnings do not fail synth and are collected', () => {
    const chart = new Chart(app(), 'test');
    new ApiObject(chart, 'r', {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: 'r' },
      rules: [
        { apiGroups: [''], resources: ['pods'], verbs: ['get'] },
        { apiGroups: [''], resources: ['pods'], verbs: ['list'] },
      ],
    });
    expect(() => Testing.synth(chart)).not.toThrow();
    expect(Warnings.collect(chart)).toStrictEqual([
      '[test/r] policy: Role r: rules[1].resources: duplicate rule: core/pods is also granted by rules[0]; merge them (got "pods")',
    ]);
  });

  test('a plain cdk8s App runs no policy (the app, not a construct, decides)', () => {
    const chart = new Chart(Testing.app(), 'test');
    new kplus.Deployment(chart, 'web', { metadata: { name: 'web' }, containers: [{ image: 'nginx:1.27' }] });
    expect(() => Testing.synth(chart)).not.toThrow();
  });
});

import { basePodSpec } from './pod-spec-cases';
import { errorsOf, formatIssue } from '../../../lib/apimachinery/issue';
import { KubernetesVersion } from '../../../lib/apimachinery/kubernetes-versions';
import { podSpecIssues, podTemplateIssues } from '../../../lib/apiserver/builtin-validation/pod-spec';
import { POD_VALIDATORS } from '../../../lib/apiserver/builtin-validation/pods';

/** The pod template checks without an apiserver: wording, version differences, options (the differential suite measures them). */

const lines = (spec: any, version: KubernetesVersion = '1.32') =>
  errorsOf(podSpecIssues(spec, 'spec', version, { pod: false })).map((i) => formatIssue(i));
const withSpec = (mutate: (s: any) => void) => {
  const s = basePodSpec();
  mutate(s);
  return s;
};

describe('pod spec checks', () => {
  test('the valid base has no issue on any version', () => {
    for (const v of ['1.28', '1.30', '1.32', '1.34', '1.36', '1.37'] as const) {
      expect(lines(basePodSpec(), v)).toEqual([]);
    }
  });

  test('container name and port, in the apiserver words, with the values', () => {
    const s = withSpec((x) => {
      x.containers[0].name = 'UPPER';
      x.containers[0].ports[0].containerPort = 99999;
    });
    expect(lines(s)).toEqual([
      expect.stringMatching(
        /^spec\.containers\[0\]\.name: Invalid value: a lowercase RFC 1123 label must .* \(got "UPPER"\)$/,
      ),
      'spec.containers[0].ports[0].containerPort: Invalid value: must be between 1 and 65535, inclusive (got 99999)',
    ]);
  });

  test('no containers', () => {
    expect(lines({ containers: [] })).toEqual(['spec.containers: Required value']);
  });

  test('env names: strict on 1.28 to 1.31, any printable ASCII but = from 1.32', () => {
    const s = withSpec((x) => (x.containers[0].env[0].name = 'MY VAR'));
    expect(lines(s, '1.28')).toEqual([
      expect.stringMatching(
        /^spec\.containers\[0\]\.env\[0\]\.name: Invalid value: a valid environment variable name must consist of alphabetic/,
      ),
    ]);
    expect(lines(s, '1.31')).toHaveLength(1);
    expect(lines(s, '1.32')).toEqual([]);
    const eq = withSpec((x) => (x.containers[0].env[0].name = 'A=B'));
    expect(lines(eq, '1.36')).toEqual([
      `spec.containers[0].env[0].name: Invalid value: a valid environment variable name must consist only of printable ASCII characters other than '=' (got "A=B")`,
    ]);
  });

  test('sidecars: probes on an init container with restartPolicy Always from 1.29', () => {
    const s = withSpec(
      (x) =>
        (x.initContainers = [
          { name: 'side', image: 'x', restartPolicy: 'Always', livenessProbe: { exec: { command: ['true'] } } },
        ]),
    );
    expect(lines(s, '1.28')).toEqual([
      'spec.initContainers[0].livenessProbe: Forbidden: may not be set for init containers without restartPolicy=Always',
    ]);
    expect(lines(s, '1.29')).toEqual([]);
    expect(lines(s, '1.36')).toEqual([]);
  });

  test('a template is defaulted to restartPolicy Always: a Job template without one is refused', () => {
    const t = { metadata: { labels: { app: 'a' } }, spec: basePodSpec() };
    const job = podTemplateIssues(t, 'spec.template', '1.32', { restartPolicies: ['OnFailure', 'Never'] });
    expect(job.map((i) => formatIssue(i))).toEqual([
      'spec.template.spec.restartPolicy: Unsupported value: supported values: "OnFailure", "Never" (got "Always")',
    ]);
    expect(podTemplateIssues(t, 'spec.template', '1.32', { restartPolicies: ['Always'] })).toEqual([]);
  });

  test('activeDeadlineSeconds is refused only where the kind says so', () => {
    const t = { metadata: {}, spec: withSpec((x) => (x.activeDeadlineSeconds = 10)) };
    expect(podTemplateIssues(t, 'spec.template', '1.32', { restartPolicies: [] })).toEqual([]);
    const rs = podTemplateIssues(t, 'spec.template', '1.32', {
      restartPolicies: [],
      activeDeadlineSecondsUnsupportedIn: 'ReplicaSet',
    });
    expect(rs.map((i) => formatIssue(i))).toEqual([
      'spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in ReplicaSet is not Supported',
    ]);
  });

  test('template labels and annotations at upstream paths (spec.template.labels)', () => {
    const t = { metadata: { labels: { 'bad key': 'x' }, annotations: { 'a/b/c': '' } }, spec: basePodSpec() };
    expect(podTemplateIssues(t, 'spec.template', '1.32', { restartPolicies: [] }).map((i) => i.path)).toEqual([
      'spec.template.labels',
      'spec.template.annotations',
    ]);
  });

  test('a mount of a refused volume is not found too (upstream keeps only valid volumes)', () => {
    const s = withSpec((x) => (x.volumes[0].configMap = { name: 'cm' }));
    expect(lines(s)).toEqual([
      'spec.volumes[0].configMap: Forbidden: may not specify more than 1 volume type',
      'spec.containers[0].volumeMounts[0].name: Not found (got "data")',
    ]);
  });

  test("an ephemeral volume's claim: named after the Pod (a generated name stood in for), not in a template", () => {
    const claim = { spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } };
    const spec = withSpec((x) => x.volumes.push({ name: 'vol', ephemeral: { volumeClaimTemplate: claim } }));
    const pod = (metadata: any) => ({ apiVersion: 'v1', kind: 'Pod', metadata, spec });
    const podLines = (metadata: any) => errorsOf(POD_VALIDATORS['v1/Pod'](pod(metadata), '1.32')).map(formatIssue);
    expect(podLines({ name: 'a'.repeat(248) })).toEqual([]);
    expect(podLines({ name: 'a'.repeat(250) })).toEqual([
      `spec.volumes[1].name: Invalid value: PVC name "${'a'.repeat(250)}-vol": must be no more than 253 characters (got "vol")`,
    ]);
    expect(podLines({ generateName: 'a'.repeat(250) })).toEqual([]);
    expect(podLines({ generateName: 'Foo-' })).toEqual([
      expect.stringMatching(/^spec\.volumes\[1\]\.name: Invalid value: PVC name "Foo-x2b4z-vol": a lowercase RFC 1123/),
    ]);
    expect(lines(spec)).toEqual([]);
  });

  test("an ephemeral volume's claim template: labels and annotations only (Go's zero values unset)", () => {
    const meta = {
      name: 'x',
      uid: 'u',
      generation: 0,
      finalizers: [],
      deletionGracePeriodSeconds: 0,
      labels: { a: 'b' },
    };
    const spec = withSpec((x) =>
      x.volumes.push({
        name: 'vol',
        ephemeral: { volumeClaimTemplate: { metadata: meta, spec: { accessModes: ['ReadWriteOnce'] } } },
      }),
    );
    expect(lines(spec)).toEqual([
      'spec.volumes[1].ephemeral.volumeClaimTemplate.metadata.name: Forbidden: cannot be set',
      'spec.volumes[1].ephemeral.volumeClaimTemplate.metadata.uID: Forbidden: cannot be set',
      'spec.volumes[1].ephemeral.volumeClaimTemplate.metadata.deletionGracePeriodSeconds: Forbidden: cannot be set',
      'spec.volumes[1].ephemeral.volumeClaimTemplate.metadata.finalizers: Forbidden: cannot be set',
      'spec.volumes[1].ephemeral.volumeClaimTemplate.spec.resources[storage]: Required value',
    ]);
  });

  test('requests over limits, and a Pod defaults missing requests from its limits', () => {
    const s = withSpec((x) => (x.containers[0].resources.requests.memory = '1Gi'));
    expect(lines(s)).toEqual([
      'spec.containers[0].resources.requests: Invalid value: must be less than or equal to memory limit of 128Mi (got "1Gi")',
    ]);
    const gpu = withSpec((x) => (x.containers[0].resources.limits['example.com/gpu'] = '1.5'));
    expect(lines(gpu).map((l) => l.split(':')[0])).toEqual(['spec.containers[0].resources.limits[example.com/gpu]']);
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: gpu };
    expect(POD_VALIDATORS['v1/Pod'](pod, '1.32').map((i) => i.path)).toEqual([
      'spec.containers[0].resources.limits[example.com/gpu]',
      'spec.containers[0].resources.requests[example.com/gpu]',
    ]);
  });

  test('probes: one handler, successThreshold 1 for liveness, ports by number or IANA name', () => {
    const s = withSpec((x) => {
      x.containers[0].livenessProbe = { httpGet: { port: 'HTTP_X' }, tcpSocket: { port: 80 }, successThreshold: 2 };
    });
    expect(lines(s).map((l) => l.split(': ')[0])).toEqual([
      'spec.containers[0].livenessProbe.tcpSocket',
      'spec.containers[0].livenessProbe.httpGet.port',
      'spec.containers[0].livenessProbe.httpGet.port',
      'spec.containers[0].livenessProbe.successThreshold',
    ]);
  });

  test('hostAliases: 1.28 reports without indices', () => {
    const s = withSpec((x) => (x.hostAliases = [{ ip: 'nope', hostnames: ['a'] }]));
    expect(lines(s, '1.28')).toEqual(['spec.hostAliases.ip: Invalid value: must be valid IP address (got "nope")']);
    expect(lines(s, '1.32')).toEqual([
      'spec.hostAliases[0].ip: Invalid value: must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff) (got "nope")',
    ]);
  });

  test('a PodTemplate accepts any restart policy', () => {
    const o = {
      apiVersion: 'v1',
      kind: 'PodTemplate',
      metadata: { name: 't' },
      template: { spec: withSpec((x) => (x.restartPolicy = 'Never')) },
    };
    expect(POD_VALIDATORS['v1/PodTemplate'](o, '1.32')).toEqual([]);
  });

  test('objects that are no pods do not throw', () => {
    expect(() => podSpecIssues(undefined, 'spec', '1.32', { pod: true })).not.toThrow();
    expect(() =>
      podSpecIssues({ containers: [null, 3, { ports: [null], env: 'x' }] }, 'spec', '1.32', { pod: true }),
    ).not.toThrow();
  });
  test('pod-specific annotations and their profiles: a Pod copies its AppArmor annotations, a template does not', () => {
    const aa = 'container.apparmor.security.beta.kubernetes.io/';
    const annotations = {
      [aa + 'x']: 'foo',
      [aa + 'c']: 'localhost/bar',
      'seccomp.security.alpha.kubernetes.io/pod': 'unconfined',
      'container.seccomp.security.alpha.kubernetes.io/c': 'localhost/../p',
      'controller.kubernetes.io/pod-deletion-cost': '+5',
    };
    const spec = {
      containers: [{ name: 'c', image: 'i' }],
      securityContext: {
        seccompProfile: { type: 'RuntimeDefault' },
        appArmorProfile: { type: 'Localhost', localhostProfile: 'foo' },
      },
    };
    const pod = POD_VALIDATORS['v1/Pod']({ metadata: { annotations }, spec }, '1.32');
    const template = podTemplateIssues({ metadata: { annotations }, spec }, 'spec.template', '1.32', {
      restartPolicies: [],
    });
    const shared = (prefix: string, specPath: string) => [
      `${prefix}[controller.kubernetes.io/pod-deletion-cost]: Invalid value: must be a 32bit integer (got "+5")`,
      `${prefix}.container.seccomp.security.alpha.kubernetes.io/c: Invalid value: must not contain '..' (got "../p")`,
      `${prefix}[${aa}x]: Invalid value: container not found (got "x")`,
      `${prefix}[${aa}x]: Invalid value: invalid AppArmor profile name: "foo"`,
      `${specPath}.securityContext.seccompProfile.type: Forbidden: seccomp type in annotation and field must match`,
    ];
    expect(errorsOf(pod).map((i) => formatIssue(i))).toEqual(shared('metadata.annotations', 'spec'));
    expect(errorsOf(template).map((i) => formatIssue(i))).toEqual([
      ...shared('spec.template.annotations', 'spec.template.spec'),
      'spec.template.spec.containers[0].securityContext.appArmorProfile.localhostProfile: Forbidden: apparmor profile ' +
        'in annotation and field must match',
    ]);
    // 1.28 has no AppArmor field to compare
    const old = podTemplateIssues({ metadata: { annotations }, spec }, 'spec.template', '1.28', {
      restartPolicies: [],
    });
    expect(errorsOf(old).map((i) => i.path)).not.toContain(
      'spec.template.spec.containers[0].securityContext.appArmorProfile.localhostProfile',
    );
  });
});

import { Chart, Testing } from 'cdk8s';
import * as kplus from 'cdk8s-plus-28';
import { checkPodSecurityRestricted, OperatorDeployment, OperatorDeploymentProps } from '../../lib';
import { imagePinningProblem } from '../../lib/operator/image-reference';

function synth(props: Partial<OperatorDeploymentProps> = {}) {
  const chart = new Chart(Testing.app(), 'test');
  const sa = new kplus.ServiceAccount(chart, 'sa', { metadata: { name: 'op' }, automountToken: true });
  new OperatorDeployment(chart, 'ctl', {
    name: 'op',
    namespace: 'op-system',
    image: 'ghcr.io/acme/op:1.2.3',
    serviceAccount: sa,
    ...props,
  });
  const out = Testing.synth(chart);
  const deployment = out.find((o) => o.kind === 'Deployment');
  return {
    out,
    deployment,
    pod: deployment.spec.template.spec,
    container: deployment.spec.template.spec.containers[0],
  };
}

describe('OperatorDeployment', () => {
  test('meets Pod Security "restricted"', () => {
    const { out, container, pod } = synth();
    expect(checkPodSecurityRestricted(out)).toStrictEqual([]);
    expect(container.securityContext).toStrictEqual({
      allowPrivilegeEscalation: false,
      capabilities: { drop: ['ALL'] },
      privileged: false,
      readOnlyRootFilesystem: true,
      runAsGroup: 65532,
      runAsNonRoot: true,
      runAsUser: 65532,
      seccompProfile: { type: 'RuntimeDefault' },
    });
    expect(pod.securityContext.seccompProfile).toStrictEqual({ type: 'RuntimeDefault' });
    expect(pod.securityContext.runAsNonRoot).toBe(true);
  });

  test('mounts its ServiceAccount token and a writable /tmp', () => {
    const { pod, container } = synth();
    expect(pod.automountServiceAccountToken).toBe(true);
    expect(pod.serviceAccountName).toBe('op');
    expect(container.volumeMounts).toStrictEqual([{ mountPath: '/tmp', name: 'tmp' }]);
    expect(pod.volumes).toStrictEqual([{ name: 'tmp', emptyDir: { sizeLimit: '64Mi' } }]);
  });

  test('probes /healthz and /readyz on the health port; metrics port exposed by a Service', () => {
    const { out, container } = synth();
    expect(container.livenessProbe.httpGet).toStrictEqual({ path: '/healthz', port: 8081, scheme: 'HTTP' });
    expect(container.readinessProbe.httpGet).toStrictEqual({ path: '/readyz', port: 8081, scheme: 'HTTP' });
    // a starved operator answers slowly: 5 s per probe, 2 minutes to start, before the kubelet restarts it
    for (const probe of [container.livenessProbe, container.readinessProbe, container.startupProbe]) {
      expect(probe.timeoutSeconds).toBe(5);
    }
    expect(container.startupProbe.failureThreshold * container.startupProbe.periodSeconds).toBe(120);
    expect(container.ports).toStrictEqual([
      { containerPort: 8081, name: 'health' },
      { containerPort: 8080, name: 'metrics' },
    ]);
    const service = out.find((o) => o.kind === 'Service');
    expect(service.metadata.name).toBe('op-metrics');
    expect(service.spec.ports).toStrictEqual([{ name: 'metrics', port: 8080, targetPort: 8080 }]);
    const deployment = out.find((o) => o.kind === 'Deployment');
    expect(service.spec.selector).toStrictEqual(deployment.spec.selector.matchLabels);
  });

  test('POD_NAMESPACE from the downward API; WATCH_NAMESPACE from the watch scope', () => {
    const env = (props: Partial<OperatorDeploymentProps>) =>
      Object.fromEntries(synth(props).container.env.map((e: any) => [e.name, e.value ?? e.valueFrom]));
    expect(env({})).toStrictEqual({
      POD_NAMESPACE: { fieldRef: { fieldPath: 'metadata.namespace' } },
      POD_NAME: { fieldRef: { fieldPath: 'metadata.name' } },
      WATCH_NAMESPACE: '',
    });
    expect(env({ watchNamespaces: ['a', 'b'], env: { LOG_LEVEL: 'debug' } })).toMatchObject({
      WATCH_NAMESPACE: 'a,b',
      LOG_LEVEL: 'debug',
    });
  });

  test('sensible resource defaults', () => {
    expect(synth().container.resources).toStrictEqual({
      requests: { cpu: '10m', memory: '64Mi' },
      limits: { cpu: '500m', memory: '128Mi' },
    });
  });

  test('one replica: no leader-election flag, no PDB, no anti-affinity', () => {
    const { out, container, pod } = synth();
    expect(container.args).toStrictEqual(['--health-probe-bind-address=:8081', '--metrics-bind-address=:8080']);
    expect(out.find((o) => o.kind === 'PodDisruptionBudget')).toBeUndefined();
    expect(pod.affinity).toBeUndefined();
  });

  test('two replicas: --leader-elect, preferred anti-affinity across nodes, a PodDisruptionBudget', () => {
    const { out, container, pod, deployment } = synth({
      replicas: 2,
      leaderElection: true,
      args: ['--zap-log-level=info'],
    });
    expect(container.args).toStrictEqual([
      '--health-probe-bind-address=:8081',
      '--metrics-bind-address=:8080',
      '--leader-elect',
      '--zap-log-level=info',
    ]);
    const term = pod.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0];
    expect(term.podAffinityTerm.topologyKey).toBe('kubernetes.io/hostname');
    const pdb = out.find((o) => o.kind === 'PodDisruptionBudget');
    expect(pdb.apiVersion).toBe('policy/v1');
    expect(pdb.spec).toStrictEqual({
      maxUnavailable: 1,
      selector: { matchLabels: deployment.spec.selector.matchLabels },
    });
  });

  test('accepts a digest-pinned image', () => {
    const image = `registry.local:5000/op@sha256:${'a'.repeat(64)}`;
    expect(synth({ image }).container.image).toBe(image);
  });

  describe('bad input', () => {
    test('fails for the latest tag', () => {
      expect(() => synth({ image: 'ghcr.io/acme/op:latest' })).toThrow(
        /\[test\/ctl\] image: must not use the 'latest' tag; pin a version or a digest, got 'ghcr.io\/acme\/op:latest'/,
      );
    });
    test('fails for an untagged image (a registry port is not a tag)', () => {
      expect(() => synth({ image: 'registry.local:5000/op' })).toThrow(
        /\[test\/ctl\] image: must be pinned to a tag or digest/,
      );
    });
    test('fails for two replicas without leader election', () => {
      expect(() => synth({ replicas: 2 })).toThrow(/\[test\/ctl\] replicas: 2 replicas need leader election/);
    });
    test('fails for a privileged port or equal health/metrics ports', () => {
      expect(() => synth({ healthPort: 80 })).toThrow(
        /\[test\/ctl\] healthPort: must be an unprivileged port \(1024-65535\), got 80/,
      );
      expect(() => synth({ metricsPort: 8081 })).toThrow(
        /\[test\/ctl\] metricsPort: must differ from healthPort, got 8081/,
      );
    });
    test('fails for env that overrides what the operator sets', () => {
      expect(() => synth({ env: { WATCH_NAMESPACE: 'x' } })).toThrow(
        /\[test\/ctl\] env\.WATCH_NAMESPACE: is set by the operator, got 'x'/,
      );
    });
    test('fails for root', () => {
      expect(() => synth({ runAsUser: 0 })).toThrow(/runAsUser: must be a non-root user id/);
    });
  });
});

describe('imagePinningProblem', () => {
  test.each([
    ['ghcr.io/acme/op:1.2.3', undefined],
    ['op:v1', undefined],
    [`op@sha256:${'0'.repeat(64)}`, undefined],
    [`op:1.0@sha256:${'f'.repeat(64)}`, undefined],
  ])('accepts %s', (image, expected) => expect(imagePinningProblem(image)).toBe(expected));

  test.each([
    ['op', /untagged/],
    ['op:latest', /latest/],
    ['localhost:5000/op', /untagged/],
    ['op@sha256:abc', /digest must be sha256/],
    ['op:bad tag', /container image reference/],
    ['', /container image reference/],
  ])('rejects %s', (image, problem) => expect(imagePinningProblem(image)).toMatch(problem));
});

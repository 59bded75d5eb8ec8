import { checkPodSecurityRestricted } from '../../lib';
import { podSpecPath } from '../../lib/policy/pod-security-restricted';

/** A pod spec that meets "restricted"; tests break one thing at a time. */
function goodSpec(): any {
  return {
    securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } },
    containers: [
      {
        name: 'c',
        image: 'x:1',
        securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } },
      },
    ],
    volumes: [{ name: 'tmp', emptyDir: {} }],
  };
}
const deployment = (spec: any) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'd', namespace: 'ns' },
  spec: { template: { spec } },
});
const paths = (spec: any) =>
  checkPodSecurityRestricted([deployment(spec)]).map((i) => i.path.replace('Deployment ns/d: spec.template.spec.', ''));

describe('checkPodSecurityRestricted', () => {
  test('passes a restricted pod spec', () => {
    expect(checkPodSecurityRestricted([deployment(goodSpec())])).toStrictEqual([]);
  });

  test('fails when allowPrivilegeEscalation is unset', () => {
    const s = goodSpec();
    delete s.containers[0].securityContext.allowPrivilegeEscalation;
    expect(paths(s)).toStrictEqual(['containers[0].securityContext.allowPrivilegeEscalation']);
  });

  test('fails without seccompProfile on the pod or the container', () => {
    const s = goodSpec();
    delete s.securityContext.seccompProfile;
    expect(paths(s)).toStrictEqual(['containers[0].securityContext.seccompProfile.type']);
    s.containers[0].securityContext.seccompProfile = { type: 'RuntimeDefault' };
    expect(paths(s)).toStrictEqual([]);
  });

  test('fails for seccomp Unconfined', () => {
    const s = goodSpec();
    s.containers[0].securityContext.seccompProfile = { type: 'Unconfined' };
    const issues = checkPodSecurityRestricted([deployment(s)]);
    expect(issues.map((i) => [i.path, i.value])).toStrictEqual([
      ['Deployment ns/d: spec.template.spec.containers[0].securityContext.seccompProfile.type', 'Unconfined'],
    ]);
  });

  test('fails without runAsNonRoot, or with it false on a container, or with user 0', () => {
    const s = goodSpec();
    delete s.securityContext.runAsNonRoot;
    expect(paths(s)).toStrictEqual(['containers[0].securityContext.runAsNonRoot']);
    const t = goodSpec();
    t.containers[0].securityContext.runAsNonRoot = false;
    t.containers[0].securityContext.runAsUser = 0;
    expect(paths(t)).toStrictEqual([
      'containers[0].securityContext.runAsNonRoot',
      'containers[0].securityContext.runAsUser',
    ]);
  });

  test('fails when capabilities do not drop ALL or add more than NET_BIND_SERVICE', () => {
    const s = goodSpec();
    s.containers[0].securityContext.capabilities = { drop: ['NET_RAW'], add: ['NET_BIND_SERVICE', 'SYS_ADMIN'] };
    const issues = checkPodSecurityRestricted([deployment(s)]);
    expect(issues.map((i) => [i.path.split(': ')[1], i.value])).toStrictEqual([
      ['spec.template.spec.containers[0].securityContext.capabilities.drop', ['NET_RAW']],
      ['spec.template.spec.containers[0].securityContext.capabilities.add', ['SYS_ADMIN']],
    ]);
  });

  test('fails for baseline violations: host namespaces, privileged, hostPort, hostPath', () => {
    const s = goodSpec();
    s.hostNetwork = true;
    s.containers[0].securityContext.privileged = true;
    s.containers[0].ports = [{ containerPort: 80, hostPort: 80 }];
    s.volumes.push({ name: 'h', hostPath: { path: '/' } });
    expect(paths(s)).toStrictEqual([
      'hostNetwork',
      'volumes[1]',
      'containers[0].securityContext.privileged',
      'containers[0].ports[0].hostPort',
    ]);
  });

  test('checks init containers too, and every workload kind', () => {
    const s = goodSpec();
    s.initContainers = [{ name: 'i', image: 'x:1' }];
    expect(paths(s)).toStrictEqual([
      'initContainers[0].securityContext.allowPrivilegeEscalation',
      'initContainers[0].securityContext.capabilities.drop',
    ]);
    const cron = {
      kind: 'CronJob',
      metadata: { name: 'c' },
      spec: { jobTemplate: { spec: { template: { spec: { containers: [{ name: 'x' }] } } } } },
    };
    expect(checkPodSecurityRestricted([cron]).length).toBeGreaterThan(0);
    expect(podSpecPath('ConfigMap')).toBeUndefined();
    expect(checkPodSecurityRestricted([{ kind: 'ConfigMap', data: {} }])).toStrictEqual([]);
  });

  test('fails for the remaining baseline checks: SELinux, AppArmor, procMount, unsafe sysctls', () => {
    const s = goodSpec();
    s.securityContext.seLinuxOptions = { type: 'spc_t' };
    s.securityContext.sysctls = [
      { name: 'net.ipv4.tcp_syncookies', value: '1' },
      { name: 'kernel.msgmax', value: '1' },
    ];
    s.containers[0].securityContext.appArmorProfile = { type: 'Unconfined' };
    s.containers[0].securityContext.procMount = 'Unmasked';
    s.containers[0].securityContext.seLinuxOptions = { type: 'container_t', user: 'system_u' };
    expect(paths(s)).toStrictEqual([
      'securityContext.seLinuxOptions.type',
      'securityContext.sysctls[1].name',
      'containers[0].securityContext.seLinuxOptions.user',
      'containers[0].securityContext.appArmorProfile.type',
      'containers[0].securityContext.procMount',
    ]);
  });
});

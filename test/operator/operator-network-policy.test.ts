import { Chart, Testing } from 'cdk8s';
import * as kplus from 'cdk8s-plus-28';
import { OperatorNetworkPolicy, OperatorNetworkPolicyProps } from '../../lib';

function synth(props: Partial<OperatorNetworkPolicyProps> = {}) {
  const chart = new Chart(Testing.app(), 'test');
  const deployment = new kplus.Deployment(chart, 'd', { containers: [{ image: 'x:1' }] });
  new OperatorNetworkPolicy(chart, 'np', {
    name: 'op',
    namespace: 'op-system',
    selector: deployment,
    healthPort: 8081,
    metricsPort: 8080,
    ...props,
  });
  const out = Testing.synth(chart);
  return { policy: out.find((o) => o.kind === 'NetworkPolicy'), deployment: out.find((o) => o.kind === 'Deployment') };
}
const ports = (rule: any) => rule.ports.map((p: any) => `${p.protocol}/${p.port}`);

describe('OperatorNetworkPolicy', () => {
  test('selects the controller pods and denies everything else in both directions', () => {
    const { policy, deployment } = synth();
    expect(policy.metadata).toStrictEqual({ name: 'op', namespace: 'op-system' });
    expect(policy.spec.podSelector).toStrictEqual({ matchLabels: deployment.spec.selector.matchLabels });
    expect(policy.spec.policyTypes.sort()).toStrictEqual(['Egress', 'Ingress']);
  });

  test('ingress only to the health and metrics ports', () => {
    const { policy } = synth();
    expect(policy.spec.ingress.map(ports)).toStrictEqual([
      ['TCP/8081', 'TCP/8080'],
      ['TCP/8081', 'TCP/8080'],
    ]);
  });

  test('egress only to the apiserver (443/6443/8443/16443) and cluster DNS (53)', () => {
    const { policy } = synth();
    expect(policy.spec.egress.map(ports)).toStrictEqual([
      ['TCP/443', 'TCP/6443', 'TCP/8443', 'TCP/16443'],
      ['UDP/53', 'TCP/53'],
    ]);
    expect(policy.spec.egress[0].to).toStrictEqual([{ ipBlock: { cidr: '0.0.0.0/0' } }]);
    expect(policy.spec.egress[1].to).toStrictEqual([
      {
        namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'kube-system' } },
        podSelector: { matchLabels: { 'k8s-app': 'kube-dns' } },
      },
    ]);
  });

  test('narrows apiserver egress to the given CIDRs', () => {
    const { policy } = synth({ apiServerCidrs: ['10.0.0.1/32', '10.0.0.2/32'], apiServerPorts: [6443] });
    expect(policy.spec.egress.slice(0, 2).map((r: any) => [r.to[0].ipBlock.cidr, ports(r)])).toStrictEqual([
      ['10.0.0.1/32', ['TCP/6443']],
      ['10.0.0.2/32', ['TCP/6443']],
    ]);
  });

  test('an apiserver on another port gets egress to that port', () => {
    const { policy } = synth({ apiServerPorts: [7443] });
    expect(ports(policy.spec.egress[0])).toStrictEqual(['TCP/7443']);
  });

  test('egress to managed pods in the given namespaces only', () => {
    const { policy } = synth({
      egressToPods: [{ labels: { app: 'db' }, ports: [5432], namespaces: ['team-a', 'team-b'] }],
    });
    expect(policy.spec.egress[2].to).toStrictEqual(
      ['team-a', 'team-b'].map((ns) => ({
        namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': ns } },
        podSelector: { matchLabels: { app: 'db' } },
      })),
    );
  });

  test('egress to managed pods in any namespace on their ports', () => {
    const { policy } = synth({ egressToPods: [{ labels: { 'app.kubernetes.io/name': 'sampledb' }, ports: [5432] }] });
    const rule = policy.spec.egress[2];
    expect(ports(rule)).toStrictEqual(['TCP/5432']);
    expect(rule.to).toStrictEqual([
      { namespaceSelector: {}, podSelector: { matchLabels: { 'app.kubernetes.io/name': 'sampledb' } } },
    ]);
  });

  test('bad ports fail with their field', () => {
    expect(() => synth({ apiServerPorts: [] })).toThrow(
      /\[test\/np\] apiServerPorts: must name at least one port, got \[\]/,
    );
    expect(() => synth({ egressToPods: [{ labels: { a: 'b' }, ports: [70000] }] })).toThrow(
      /egressToPods\[0\]\.ports\[0\]: must be a port number 1-65535, got 70000/,
    );
  });

  test('fails for a CIDR that is not IPv4', () => {
    expect(() => synth({ apiServerCidrs: ['apiserver'] })).toThrow(
      /\[test\/np\] apiServerCidrs\[0\]: must be an IPv4 CIDR, got 'apiserver'/,
    );
  });
});

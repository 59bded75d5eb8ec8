import * as kplus from 'cdk8s-plus-28';
import { Construct } from 'constructs';
import { constructError } from './_construct-error';

/** Props of `OperatorNetworkPolicy`. */
export interface OperatorNetworkPolicyProps {
  readonly name: string;
  readonly namespace: string;
  /** The controller's pods. */
  readonly selector: kplus.IPodSelector;
  readonly healthPort: number;
  readonly metricsPort: number;
  /**
   * Where the kube-apiserver's endpoints are (the `kubernetes` Service is DNAT'd to them, and
   * policies see the endpoint address). Narrow it to your control plane's addresses when known.
   * @default ['0.0.0.0/0'] on ports 443 and 6443 only
   */
  readonly apiServerCidrs?: readonly string[];
  /** @default [443, 6443] */
  readonly apiServerPorts?: readonly number[];
  /**
   * Labels of the cluster DNS pods in `kube-system`.
   * @default { 'k8s-app': 'kube-dns' }
   */
  readonly dnsPodLabels?: Record<string, string>;
}

/**
 * Default-deny for the controller's pods, except: ingress to the health port (kubelet probes)
 * and the metrics port (scrapers), egress to the apiserver and to cluster DNS.
 *
 * @see https://kubernetes.io/docs/concepts/services-networking/network-policies/
 */
export class OperatorNetworkPolicy extends Construct {
  public readonly policy: kplus.NetworkPolicy;

  constructor(scope: Construct, id: string, props: OperatorNetworkPolicyProps) {
    super(scope, id);
    this.policy = new kplus.NetworkPolicy(this, 'Resource', {
      metadata: { name: props.name, namespace: props.namespace },
      selector: props.selector,
      ingress: { default: kplus.NetworkPolicyTrafficDefault.DENY },
      egress: { default: kplus.NetworkPolicyTrafficDefault.DENY },
    });
    const anywhere = kplus.NetworkPolicyIpBlock.anyIpv4(this, 'Anywhere');
    const allPods = kplus.Pods.all(this, 'AllPods', { namespaces: kplus.Namespaces.all(this, 'AllNamespaces') });
    // Kubelet probes come from node addresses; scrapers from pods in any namespace.
    this.policy.addIngressRule(anywhere, [kplus.NetworkPolicyPort.tcp(props.healthPort), kplus.NetworkPolicyPort.tcp(props.metricsPort)]);
    this.policy.addIngressRule(allPods, [kplus.NetworkPolicyPort.tcp(props.healthPort), kplus.NetworkPolicyPort.tcp(props.metricsPort)]);

    const apiPorts = (props.apiServerPorts ?? [443, 6443]).map(p => kplus.NetworkPolicyPort.tcp(p));
    (props.apiServerCidrs ?? ['0.0.0.0/0']).forEach((cidr, i) => {
      if (!/^\d{1,3}(\.\d{1,3}){3}\/\d{1,2}$/.test(cidr)) throw constructError(this, `apiServerCidrs[${i}]: must be an IPv4 CIDR, got '${cidr}'`);
      this.policy.addEgressRule(kplus.NetworkPolicyIpBlock.ipv4(this, `ApiServer${i}`, cidr), apiPorts);
    });
    const dns = kplus.Pods.select(this, 'ClusterDns', {
      labels: props.dnsPodLabels ?? { 'k8s-app': 'kube-dns' },
      namespaces: kplus.Namespaces.select(this, 'KubeSystem', { labels: { 'kubernetes.io/metadata.name': 'kube-system' } }),
    });
    this.policy.addEgressRule(dns, [kplus.NetworkPolicyPort.udp(53), kplus.NetworkPolicyPort.tcp(53)]);
  }
}

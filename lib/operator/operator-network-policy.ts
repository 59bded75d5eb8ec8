import * as kplus from 'cdk8s-plus-28';
import { Construct } from 'constructs';
import { isPort } from '../apimachinery/controller-contract';
import { Problems } from '../synth-metadata/problems';

/**
 * The ports kube-apiservers commonly listen on behind the `kubernetes` Service: 443 (managed
 * control planes such as GKE, EKS, AKS), 6443 (kubeadm, k3s, kind, OpenShift), 8443 (minikube)
 * and 16443 (MicroK8s, and the single-node test cluster in `../shared/k8s/node`).
 * Find yours with `kubectl get endpointslices -n default -l kubernetes.io/service-name=kubernetes`.
 */
export const DEFAULT_API_SERVER_PORTS: readonly number[] = [443, 6443, 8443, 16443];

/** Egress from the controller to pods it manages. */
export interface PodEgress {
  /** Labels of the pods. */
  readonly labels: Record<string, string>;
  /** TCP ports. */
  readonly ports: readonly number[];
  /**
   * Namespaces the pods may be in.
   * @default - every namespace
   */
  readonly namespaces?: readonly string[];
}

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
   * @default ['0.0.0.0/0'] on the {@link DEFAULT_API_SERVER_PORTS}
   */
  readonly apiServerCidrs?: readonly string[];
  /**
   * Ports of the apiserver endpoints. A NetworkPolicy sees the endpoint's port, not the
   * `kubernetes` Service's 443, so this must name the port the apiserver listens on.
   * @default DEFAULT_API_SERVER_PORTS
   */
  readonly apiServerPorts?: readonly number[];
  /**
   * Pods the controller connects to, e.g. the databases it manages (the `Operator` construct
   * derives them from its contract's `connectsTo`).
   * @default []
   */
  readonly egressToPods?: readonly PodEgress[];
  /**
   * The webhook server's port (conversion and admission webhooks): ingress from the apiserver, whose
   * address is the `apiServerCidrs` (it calls webhooks from the control plane, not from a pod).
   * @default - no webhook server
   */
  readonly webhookPort?: number;
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
    const allNamespaces = kplus.Namespaces.all(this, 'AllNamespaces');
    const allPods = kplus.Pods.all(this, 'AllPods', { namespaces: allNamespaces });
    // Kubelet probes come from node addresses; scrapers from pods in any namespace.
    this.policy.addIngressRule(anywhere, [
      kplus.NetworkPolicyPort.tcp(props.healthPort),
      kplus.NetworkPolicyPort.tcp(props.metricsPort),
    ]);
    this.policy.addIngressRule(allPods, [
      kplus.NetworkPolicyPort.tcp(props.healthPort),
      kplus.NetworkPolicyPort.tcp(props.metricsPort),
    ]);

    const apiPorts = checkPorts(this, 'apiServerPorts', props.apiServerPorts ?? DEFAULT_API_SERVER_PORTS).map((p) =>
      kplus.NetworkPolicyPort.tcp(p),
    );
    (props.apiServerCidrs ?? ['0.0.0.0/0']).forEach((cidr, i) => {
      if (!/^\d{1,3}(\.\d{1,3}){3}\/\d{1,2}$/.test(cidr)) {
        Problems.of(this).add(`apiServerCidrs[${i}]: must be an IPv4 CIDR, got '${cidr}'`);
        return;
      }
      const apiServer = kplus.NetworkPolicyIpBlock.ipv4(this, `ApiServer${i}`, cidr);
      this.policy.addEgressRule(apiServer, apiPorts);
      if (props.webhookPort !== undefined) {
        this.policy.addIngressRule(apiServer, [kplus.NetworkPolicyPort.tcp(props.webhookPort)]);
      }
    });
    const dns = kplus.Pods.select(this, 'ClusterDns', {
      labels: props.dnsPodLabels ?? { 'k8s-app': 'kube-dns' },
      namespaces: kplus.Namespaces.select(this, 'KubeSystem', {
        labels: { 'kubernetes.io/metadata.name': 'kube-system' },
      }),
    });
    this.policy.addEgressRule(dns, [kplus.NetworkPolicyPort.udp(53), kplus.NetworkPolicyPort.tcp(53)]);
    (props.egressToPods ?? []).forEach((to, i) => {
      const ports = checkPorts(this, `egressToPods[${i}].ports`, to.ports).map((p) => kplus.NetworkPolicyPort.tcp(p));
      const namespaces = to.namespaces
        ? kplus.Namespaces.select(this, `EgressNamespaces${i}`, { names: [...to.namespaces] })
        : allNamespaces;
      const pods = kplus.Pods.select(this, `EgressPods${i}`, { labels: to.labels, namespaces });
      this.policy.addEgressRule(pods, ports);
    });
  }
}

function checkPorts(scope: Construct, field: string, ports: readonly number[]): readonly number[] {
  if (ports.length === 0) Problems.of(scope).add(`${field}: must name at least one port, got []`);
  ports.forEach((p, i) => {
    if (!isPort(p)) Problems.of(scope).add(`${field}[${i}]: must be a port number 1-65535, got ${JSON.stringify(p)}`);
  });
  return ports.filter(isPort);
}

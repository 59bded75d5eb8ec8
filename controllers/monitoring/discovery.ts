/**
 * Service discovery done by the operator, for Prometheus builds without Kubernetes discovery.
 *
 * Debian's `prometheus` package (the only Prometheus available to the real node here, 2.42.0+ds) is built
 * without `kubernetes_sd_configs` (its NEWS: "Kubernetes support has been completely removed"); its promtool
 * refuses a configuration that has one. With `discovery: 'file'` the operator resolves each ServiceMonitor
 * endpoint itself, from the Services and Endpoints it watches, into `file_sd_configs` target groups that carry
 * the labels Prometheus' Kubernetes discovery (role `endpoints`) would set, so upstream's relabelings apply
 * unchanged and give the same labels (`job` = the Service name, `namespace`, `service`, `pod`, `endpoint`).
 *
 * Labels set per target, as Prometheus' `discovery/kubernetes/endpoints.go` names them: `__address__`,
 * `__meta_kubernetes_namespace`, `__meta_kubernetes_endpoints_name`, `__meta_kubernetes_endpoint_port_name`,
 * `__meta_kubernetes_endpoint_port_protocol`, `__meta_kubernetes_endpoint_ready`,
 * `__meta_kubernetes_endpoint_node_name`, `__meta_kubernetes_endpoint_hostname`,
 * `__meta_kubernetes_endpoint_address_target_kind` / `_name`, `__meta_kubernetes_service_name`,
 * `__meta_kubernetes_service_label_<name>` / `_labelpresent_<name>`, and `__meta_kubernetes_pod_name` for pod
 * addresses. Not set (they need the Pod objects, which this operator does not watch): the other
 * `__meta_kubernetes_pod_*` labels, so targets carry no `container` label and the Failed/Succeeded filter has
 * nothing to drop (an Endpoints object lists no address of such a pod anyway).
 *
 * The target groups go into the ConfigMap `prometheus-<name>-targets`, which Prometheus' file discovery
 * re-reads by itself when the kubelet updates it (no reload).
 */
import { sanitizeLabelName } from './labels';
import { AlertmanagerEndpoints, Endpoint, Endpoints, InNamespace, Service, ServiceMonitor } from './types';
import { labelSelectorMatches, Store } from '../../runtime';

/** A `file_sd_configs` target group. */
export interface TargetGroup {
  readonly targets: readonly string[];
  readonly labels: Readonly<Record<string, string>>;
}

/** Where the discovered targets come from. */
export interface DiscoverySource {
  readonly services: Store<Service>;
  readonly endpoints: Store<Endpoints>;
  /** Namespaces that exist (for `namespaceSelector.any`). */
  namespaceNames(): string[];
}

function serviceLabels(svc: Service): Record<string, string> {
  const out: Record<string, string> = { __meta_kubernetes_service_name: svc.metadata?.name ?? '' };
  for (const [k, v] of Object.entries(svc.metadata?.labels ?? {})) {
    out[`__meta_kubernetes_service_label_${sanitizeLabelName(k)}`] = v;
    out[`__meta_kubernetes_service_labelpresent_${sanitizeLabelName(k)}`] = 'true';
  }
  return out;
}

/** Target groups of every Endpoints object in `namespaces` whose Service `keep` accepts (one group per address and port). */
export function endpointsTargets(
  source: DiscoverySource,
  namespaces: readonly string[],
  keep: (svc: Service) => boolean,
): TargetGroup[] {
  const groups: TargetGroup[] = [];
  for (const ns of [...namespaces].sort()) {
    const eps = [...source.endpoints.list(ns)].sort((a, b) =>
      (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''),
    );
    for (const ep of eps) {
      const svc = source.services.get({ namespace: ns, name: ep.metadata?.name ?? '' });
      if (!svc || !keep(svc)) continue;
      const common = {
        __meta_kubernetes_namespace: ns,
        __meta_kubernetes_endpoints_name: ep.metadata?.name ?? '',
        ...serviceLabels(svc),
      };
      for (const subset of ep.subsets ?? []) {
        const addresses = [
          ...(subset.addresses ?? []).map((a) => ({ a, ready: 'true' })),
          ...(subset.notReadyAddresses ?? []).map((a) => ({ a, ready: 'false' })),
        ];
        for (const port of subset.ports ?? []) {
          for (const { a, ready } of addresses) {
            const labels: Record<string, string> = {
              ...common,
              __meta_kubernetes_endpoint_port_name: port.name ?? '',
              __meta_kubernetes_endpoint_port_protocol: port.protocol ?? 'TCP',
              __meta_kubernetes_endpoint_ready: ready,
            };
            if (a.nodeName) labels.__meta_kubernetes_endpoint_node_name = a.nodeName;
            if (a.hostname) labels.__meta_kubernetes_endpoint_hostname = a.hostname;
            if (a.targetRef?.kind) {
              labels.__meta_kubernetes_endpoint_address_target_kind = a.targetRef.kind;
              labels.__meta_kubernetes_endpoint_address_target_name = a.targetRef.name ?? '';
              if (a.targetRef.kind === 'Pod' && a.targetRef.name) labels.__meta_kubernetes_pod_name = a.targetRef.name;
            }
            groups.push({ targets: [a.ip.includes(':') ? `[${a.ip}]:${port.port}` : `${a.ip}:${port.port}`], labels });
          }
        }
      }
    }
  }
  return groups;
}

/** The namespaces a ServiceMonitor's discovery covers (upstream `getNamespacesFromNamespaceSelector`); [] = every namespace. */
export function monitoredNamespaces(sm: InNamespace<ServiceMonitor>): string[] {
  const sel = sm.spec.namespaceSelector;
  if (sel?.any) return [];
  if (!sel?.matchNames || sel.matchNames.length === 0) return [sm.metadata.namespace];
  return [...sel.matchNames];
}

/** Targets of one ServiceMonitor endpoint: the Services its selector picks (the relabelings filter ports). */
export function serviceMonitorTargets(
  source: DiscoverySource,
  sm: InNamespace<ServiceMonitor>,
  _ep: Endpoint,
): TargetGroup[] {
  const listed = monitoredNamespaces(sm);
  const namespaces = listed.length > 0 ? listed : source.namespaceNames();
  return endpointsTargets(source, namespaces, (svc) => labelSelectorMatches(sm.spec.selector, svc.metadata?.labels));
}

/** Targets of one `alerting.alertmanagers` entry: the named Service's endpoints. */
export function alertmanagerTargets(
  source: DiscoverySource,
  am: AlertmanagerEndpoints,
  defaultNamespace: string,
): TargetGroup[] {
  return endpointsTargets(source, [am.namespace ?? defaultNamespace], (svc) => svc.metadata?.name === am.name);
}

/** ConfigMap key (and file name) of a scrape job's targets. */
export function targetsFileName(jobName: string): string {
  return `${jobName.replace(/[^-._a-zA-Z0-9]/g, '_')}.json`;
}

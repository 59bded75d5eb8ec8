/**
 * Which ServiceMonitors and PrometheusRules a Prometheus selects, with prometheus-operator's
 * semantics, and the cross-resource mapping that re-reconciles a Prometheus when any of them, a
 * Service they select, or a namespace's labels change (through the runtime's `SelectorIndex`).
 *
 * Semantics (upstream's): `serviceMonitorSelector` / `ruleSelector` absent selects nothing, `{}` selects
 * all; `serviceMonitorNamespaceSelector` / `ruleNamespaceSelector` absent means the Prometheus object's own
 * namespace, `{}` every namespace. A namespace is matched by its labels (every namespace carries
 * `kubernetes.io/metadata.name`, which is how "own namespace" is expressed as a selector).
 */
import { DiscoverySource } from './discovery';
import {
  Endpoints,
  InNamespace,
  inNamespace,
  Namespace,
  Prometheus,
  PrometheusRule,
  Service,
  ServiceMonitor,
} from './types';
import {
  KubeObject,
  LabelSelector,
  labelSelectorMatches,
  Labels,
  ObjectKeyRef,
  objectKey,
  SelectorIndex,
  SharedInformer,
  Store,
} from '../../runtime';

const NAME_LABEL = 'kubernetes.io/metadata.name';

/** The selector that matches exactly one namespace by name. */
export function namespaceNamed(name: string): LabelSelector {
  return { matchLabels: { [NAME_LABEL]: name } };
}

/** The slots of a Prometheus object's selectors in the index. */
export function prometheusSelectors(
  p: KubeObject & { spec?: Prometheus['spec'] },
): Record<string, LabelSelector | null | undefined> {
  const own = namespaceNamed(p.metadata?.namespace ?? '');
  return {
    serviceMonitors: p.spec?.serviceMonitorSelector,
    serviceMonitorNamespaces: p.spec?.serviceMonitorNamespaceSelector ?? own,
    rules: p.spec?.ruleSelector,
    ruleNamespaces: p.spec?.ruleNamespaceSelector ?? own,
  };
}

/** The Services a ServiceMonitor's discovery covers, as selectors: its `selector` and its namespaces. */
export function serviceMonitorSelectors(
  sm: KubeObject & { spec?: ServiceMonitor['spec'] },
): Record<string, LabelSelector | null | undefined> {
  const ns = sm.spec?.namespaceSelector;
  const namespaces: LabelSelector = ns?.any
    ? {}
    : ns?.matchNames?.length
      ? { matchExpressions: [{ key: NAME_LABEL, operator: 'In', values: [...ns.matchNames] }] }
      : namespaceNamed(sm.metadata?.namespace ?? '');
  return { services: sm.spec?.selector, serviceNamespaces: namespaces };
}

/** Reads what a Prometheus selects from the caches. */
export class Selection implements DiscoverySource {
  constructor(
    private readonly namespaces: Store<Namespace>,
    private readonly serviceMonitors: Store<ServiceMonitor>,
    private readonly rules: Store<PrometheusRule>,
    readonly services: Store<Service>,
    readonly endpoints: Store<Endpoints>,
  ) {}

  /** Every namespace in the cache. */
  namespaceNames(): string[] {
    return this.namespaces
      .list()
      .map((ns) => ns.metadata.name)
      .sort();
  }

  /** The labels of a namespace (from the cache; just its name label while the cache has not seen it). */
  namespaceLabels(name: string): Labels {
    return this.namespaces.get({ name })?.metadata.labels ?? { [NAME_LABEL]: name };
  }

  /** ServiceMonitors selected by `p`, in `namespace/name` order. */
  selectedServiceMonitors(p: InNamespace<Prometheus>): InNamespace<ServiceMonitor>[] {
    const s = prometheusSelectors(p);
    return this.select(this.serviceMonitors, s.serviceMonitors, s.serviceMonitorNamespaces);
  }

  /** PrometheusRules selected by `p`, in `namespace/name` order. */
  selectedRules(p: InNamespace<Prometheus>): InNamespace<PrometheusRule>[] {
    const s = prometheusSelectors(p);
    return this.select(this.rules, s.rules, s.ruleNamespaces);
  }

  /** A ServiceMonitor from the cache. */
  serviceMonitorOf(ref: ObjectKeyRef): KubeObject | undefined {
    return this.serviceMonitors.get(ref);
  }

  /** The Services a ServiceMonitor selects now. */
  servicesOf(sm: InNamespace<ServiceMonitor>): number {
    const s = serviceMonitorSelectors(sm);
    return this.services
      .list()
      .filter(
        (svc) =>
          labelSelectorMatches(s.services, svc.metadata.labels) &&
          labelSelectorMatches(s.serviceNamespaces, { [NAME_LABEL]: svc.metadata.namespace ?? '' }),
      ).length;
  }

  private select<T extends KubeObject>(
    store: Store<T>,
    selector: LabelSelector | null | undefined,
    namespaceSelector: LabelSelector | null | undefined,
  ): InNamespace<T>[] {
    if (!selector) return [];
    // A matchLabels pair narrows the candidates through the cache's label index.
    const pair = Object.entries(selector.matchLabels ?? {})[0];
    const candidates = pair ? store.byIndex('label', `${pair[0]}=${pair[1]}`) : store.list();
    const out: InNamespace<T>[] = [];
    for (const obj of candidates) {
      const o = inNamespace(obj);
      if (
        o &&
        labelSelectorMatches(selector, o.metadata.labels) &&
        labelSelectorMatches(namespaceSelector, this.namespaceLabels(o.metadata.namespace))
      ) {
        out.push(o);
      }
    }
    return out.sort((a, b) => objectKey(a).localeCompare(objectKey(b)));
  }
}

/** The map functions of the Prometheus controller's `watches`: each an index lookup, never a scan of every Prometheus. */
export class PrometheusMapping {
  /** Prometheus objects by their selectors. */
  readonly prometheuses: SelectorIndex;
  /** ServiceMonitors by the Services they select. */
  readonly monitors: SelectorIndex;

  constructor(
    prometheusInformer: SharedInformer,
    serviceMonitorInformer: SharedInformer,
    private readonly selection: Selection,
  ) {
    this.prometheuses = new SelectorIndex(prometheusInformer, { selectors: prometheusSelectors });
    this.monitors = new SelectorIndex(serviceMonitorInformer, { selectors: serviceMonitorSelectors });
  }

  /** A ServiceMonitor → the Prometheus objects selecting it (by its labels and its namespace's). */
  fromServiceMonitor = (sm: KubeObject): ObjectKeyRef[] =>
    this.prometheuses.matchingAll({
      serviceMonitors: sm.metadata?.labels ?? {},
      serviceMonitorNamespaces: this.selection.namespaceLabels(sm.metadata?.namespace ?? ''),
    });

  /** A PrometheusRule → the Prometheus objects selecting it. */
  fromRule = (rule: KubeObject): ObjectKeyRef[] =>
    this.prometheuses.matchingAll({
      rules: rule.metadata?.labels ?? {},
      ruleNamespaces: this.selection.namespaceLabels(rule.metadata?.namespace ?? ''),
    });

  /** A Namespace → the Prometheus objects whose namespace selectors match its labels (old and new labels both come here). */
  fromNamespace = (ns: KubeObject): ObjectKeyRef[] => {
    const labels = ns.metadata?.labels ?? { [NAME_LABEL]: ns.metadata?.name ?? '' };
    return unique([
      ...this.prometheuses.matching('serviceMonitorNamespaces', labels),
      ...this.prometheuses.matching('ruleNamespaces', labels),
    ]);
  };

  /** Endpoints → their Service (same name) → as {@link fromService}: file discovery's targets come from them. */
  fromEndpoints = (ep: KubeObject): ObjectKeyRef[] => {
    const svc = this.selection.services.get({ namespace: ep.metadata?.namespace, name: ep.metadata?.name ?? '' });
    return svc ? this.fromService(svc) : [];
  };

  /** A Service → the ServiceMonitors selecting it → the Prometheus objects selecting those. */
  fromService = (svc: KubeObject): ObjectKeyRef[] => {
    const monitors = this.monitors.matchingAll({
      services: svc.metadata?.labels ?? {},
      serviceNamespaces: { [NAME_LABEL]: svc.metadata?.namespace ?? '' },
    });
    return unique(
      monitors.flatMap((ref) => {
        const sm = this.selection.serviceMonitorOf(ref);
        return sm ? this.fromServiceMonitor(sm) : [];
      }),
    );
  };
}

function unique(refs: readonly ObjectKeyRef[]): ObjectKeyRef[] {
  const seen = new Map<string, ObjectKeyRef>();
  for (const r of refs) seen.set(objectKey(r), r);
  return [...seen.values()];
}

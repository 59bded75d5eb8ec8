/**
 * The Prometheus reconciler: one Prometheus object's result depends on every ServiceMonitor and
 * PrometheusRule it selects (selection.ts maps their changes, their Services' and their namespaces' to it).
 *
 * Expected flow for `namespace/name`:
 * 1. Gone, or being deleted → nothing (every child carries its ownerReference: the garbage collector removes them).
 * 2. A spec field outside the supported subset (subset.ts) → condition `Reconciled=False`, reason
 *    `UnsupportedFields`, naming each field; the running children are left as they are.
 * 3. Select ServiceMonitors and PrometheusRules; each one with a field outside the subset (or an invalid
 *    selector) is rejected: left out of the configuration, with `Accepted=False` in its `status.bindings`.
 * 4. Apply the configuration Secret, the rule files ConfigMap, the Service and the StatefulSet (server-side
 *    apply, no request when the live object already matches: steady state makes zero writes).
 * 5. Status: replicas from the StatefulSet, `Available`, `Reconciled` (with what was selected), and the
 *    bindings of the selected objects (and of those no longer selected, removed).
 */
import { recordBinding, Verdict } from './bindings';
import {
  ChildOptions,
  prometheusConfigSecret,
  prometheusRulesConfigMap,
  prometheusService,
  prometheusStatefulSet,
  prometheusTargetsConfigMap,
} from './children';
import { DiscoverySource } from './discovery';
import { generateConfig, generateTargets } from './promcfg';
import { RULES_CONFIGMAP_LIMIT, ruleFiles } from './rules';
import { Selection } from './selection';
import { PROMETHEUS_SUBSET, PROMETHEUSRULE_SUBSET, SERVICEMONITOR_SUBSET, unsupportedFields } from './subset';
import {
  CONFIGMAP,
  inNamespace,
  InNamespace,
  names,
  Prometheus,
  PROMETHEUS,
  PrometheusRule,
  PROMETHEUSRULE,
  SECRET,
  SERVICE,
  Service,
  ServiceMonitor,
  SERVICEMONITOR,
  StatefulSet,
} from './types';
import { ReconciledCondition, workloadStatus } from './workload-status';
import {
  applyOwned,
  isNotFound,
  KubeClient,
  KubeObject,
  labelSelectorProblems,
  Reconciler,
  Request,
  Result,
  Store,
  updateStatus,
} from '../../runtime';

/** Dependencies of {@link PrometheusReconciler}. */
export interface PrometheusReconcilerDeps extends ChildOptions {
  readonly client: KubeClient;
  readonly prometheuses: Store<Prometheus>;
  readonly statefulSets: Store<StatefulSet>;
  readonly configMaps: Store<KubeObject>;
  readonly services: Store<Service>;
  readonly serviceMonitors: Store<ServiceMonitor>;
  readonly rules: Store<PrometheusRule>;
  readonly selection: Selection;
  /** Services and Endpoints for file discovery. */
  readonly discoverySource: DiscoverySource;
  /** @default 'monitoring-controller' */
  readonly fieldManager?: string;
}

/** Why a ServiceMonitor is rejected, or undefined when it is accepted. */
export function serviceMonitorProblems(sm: InNamespace<ServiceMonitor>): string[] {
  return [
    ...unsupportedFields(sm.spec, SERVICEMONITOR_SUBSET),
    ...labelSelectorProblems(sm.spec.selector, 'spec.selector'),
  ];
}

/** Why a PrometheusRule is rejected. */
export function ruleProblems(rule: InNamespace<PrometheusRule>): string[] {
  return unsupportedFields(rule.spec, PROMETHEUSRULE_SUBSET);
}

function verdict(problems: readonly string[]): Verdict {
  return problems.length === 0
    ? { accepted: true, reason: 'Accepted', message: '' }
    : {
        accepted: false,
        reason: 'UnsupportedFields',
        message: `outside the supported subset (controllers/monitoring/README.md), so left out of the configuration: ${problems.join(', ')}`,
      };
}

/** See module docs. */
export class PrometheusReconciler implements Reconciler {
  private readonly fieldManager: string;

  constructor(private readonly deps: PrometheusReconcilerDeps) {
    this.fieldManager = deps.fieldManager ?? 'monitoring-controller';
  }

  async reconcile(request: Request): Promise<Result | void> {
    const stored = this.deps.prometheuses.get(request);
    const p = stored ? inNamespace(stored) : undefined;
    if (!p || p.metadata.deletionTimestamp) return;
    const generation = p.metadata.generation;

    const unsupported = [
      ...unsupportedFields(p.spec, PROMETHEUS_SUBSET),
      ...(
        ['serviceMonitorSelector', 'serviceMonitorNamespaceSelector', 'ruleSelector', 'ruleNamespaceSelector'] as const
      ).flatMap((f) => labelSelectorProblems(p.spec[f], `spec.${f}`)),
    ];
    if (unsupported.length > 0) {
      await this.writeStatus(
        p,
        {
          status: 'False',
          reason: 'UnsupportedFields',
          message: `not reconciled: outside the supported subset (controllers/monitoring/README.md): ${unsupported.join(', ')}`,
        },
        generation,
      );
      return;
    }

    const monitors = this.deps.selection
      .selectedServiceMonitors(p)
      .map((sm) => ({ obj: sm, verdict: verdict(serviceMonitorProblems(sm)) }));
    const rules = this.deps.selection.selectedRules(p).map((r) => ({ obj: r, verdict: verdict(ruleProblems(r)) }));
    const acceptedMonitors = monitors.filter((m) => m.verdict.accepted).map((m) => m.obj);
    const acceptedRules = rules.filter((r) => r.verdict.accepted).map((r) => r.obj);

    const files = ruleFiles(acceptedRules);
    const size = Object.entries(files).reduce((n, [k, v]) => n + k.length + Buffer.byteLength(v), 0);
    if (size > RULES_CONFIGMAP_LIMIT) {
      await this.writeStatus(
        p,
        {
          status: 'False',
          reason: 'RulesTooLarge',
          message: `the selected rule files take ${size} bytes, more than one ConfigMap holds (${RULES_CONFIGMAP_LIMIT})`,
        },
        generation,
      );
      return;
    }

    const { client } = this.deps;
    const fieldManager = this.fieldManager;
    // The Secret is not cached (least privilege: get by name only), so its live state comes from one GET.
    const secretName = names.prometheusConfigSecret(p.metadata.name);
    const liveSecret = await client.get(SECRET, secretName, p.metadata.namespace).catch((err: unknown) => {
      if (isNotFound(err)) return undefined;
      throw err;
    });
    const discovery = this.deps.discovery ?? 'kubernetes';
    await applyOwned(client, prometheusConfigSecret(p, generateConfig(p, acceptedMonitors, { discovery })), {
      fieldManager,
      live: liveSecret,
      resource: SECRET,
    });
    const key = (name: string) => ({ namespace: p.metadata.namespace, name });
    if (discovery === 'file') {
      const targets = prometheusTargetsConfigMap(p, generateTargets(p, acceptedMonitors, this.deps.discoverySource));
      await applyOwned(client, targets, {
        fieldManager,
        live: this.deps.configMaps.get(key(names.prometheusTargetsConfigMap(p.metadata.name))),
        resource: CONFIGMAP,
        createWhenAbsent: true,
      });
    }
    await applyOwned(client, prometheusRulesConfigMap(p, files), {
      fieldManager,
      live: this.deps.configMaps.get(key(names.prometheusRulesConfigMap(p.metadata.name))),
      resource: CONFIGMAP,
      createWhenAbsent: true,
    });
    await applyOwned(client, prometheusService(p), {
      fieldManager,
      live: this.deps.services.get(key(names.prometheusService(p.metadata.name))),
      resource: SERVICE,
      createWhenAbsent: true,
    });
    await applyOwned(client, prometheusStatefulSet(p, this.deps), {
      fieldManager,
      live: this.deps.statefulSets.get(key(names.prometheusStatefulSet(p.metadata.name))),
      createWhenAbsent: true,
    });

    for (const m of monitors) await recordBinding(client, m.obj, p, m.verdict, fieldManager);
    for (const r of rules) await recordBinding(client, r.obj, p, r.verdict, fieldManager);
    await this.dropStaleBindings(
      p,
      new Set(monitors.map((m) => m.obj.metadata.uid)),
      new Set(rules.map((r) => r.obj.metadata.uid)),
    );

    const services = acceptedMonitors.reduce((n, sm) => n + this.deps.selection.servicesOf(sm), 0);
    const rejected = monitors.length - acceptedMonitors.length + rules.length - acceptedRules.length;
    await this.writeStatus(
      p,
      {
        status: 'True',
        reason: rejected > 0 ? 'SomeRejected' : 'Reconciled',
        message:
          `${acceptedMonitors.length} ServiceMonitors (selecting ${services} Services) and ${acceptedRules.length} PrometheusRules in the configuration` +
          (rejected > 0 ? `; ${rejected} rejected (see their status.bindings)` : ''),
      },
      generation,
    );
  }

  /** Removes this Prometheus' binding from objects it no longer selects. */
  private async dropStaleBindings(
    p: InNamespace<Prometheus>,
    monitorUids: Set<string>,
    ruleUids: Set<string>,
  ): Promise<void> {
    const mine = (o: { status?: { bindings?: { name: string; namespace: string; resource: string }[] } }) =>
      (o.status?.bindings ?? []).some(
        (b) => b.resource === 'prometheuses' && b.name === p.metadata.name && b.namespace === p.metadata.namespace,
      );
    for (const sm of this.deps.serviceMonitors.list()) {
      if (!monitorUids.has(sm.metadata.uid) && mine(sm)) {
        await recordBinding(this.deps.client, sm, p, undefined, this.fieldManager);
      }
    }
    for (const r of this.deps.rules.list()) {
      if (!ruleUids.has(r.metadata.uid) && mine(r)) {
        await recordBinding(this.deps.client, r, p, undefined, this.fieldManager);
      }
    }
  }

  private async writeStatus(
    p: InNamespace<Prometheus>,
    reconciled: ReconciledCondition,
    generation: number | undefined,
  ): Promise<void> {
    const sts = this.deps.statefulSets.get({
      namespace: p.metadata.namespace,
      name: names.prometheusStatefulSet(p.metadata.name),
    });
    const status = workloadStatus(p.status, sts, p.spec.replicas ?? 1, reconciled, generation);
    await updateStatus(this.deps.client, p, status, { fieldManager: this.fieldManager, resource: PROMETHEUS });
  }
}

/** Kinds whose status this reconciler writes (the contract's `status: true` covers them: they are watched custom kinds). */
export const STATUS_KINDS = [PROMETHEUS, SERVICEMONITOR, PROMETHEUSRULE];

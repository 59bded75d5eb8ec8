/**
 * Wires the monitoring operator's two controllers into a manager, exactly as MONITORING_CONTRACT grants:
 * `prometheus` (for Prometheus; owns StatefulSet, ConfigMap, Service; watches ServiceMonitor, PrometheusRule,
 * Service and Namespace through the selector index of selection.ts) and `alertmanager`.
 */
import { AlertmanagerReconciler } from './alertmanager-reconciler';
import { DiscoveryMode } from './promcfg';
import { PrometheusReconciler } from './prometheus-reconciler';
import { PrometheusMapping, Selection } from './selection';
import {
  ALERTMANAGER,
  CONFIGMAP,
  ENDPOINTS,
  NAMESPACE,
  PROMETHEUS,
  PROMETHEUSRULE,
  SERVICE,
  SERVICEMONITOR,
  STATEFULSET,
} from './types';
import { Controller, ControllerBuilder, DEFAULT_CONCURRENCY, Manager } from '../../runtime';

/** Options of {@link setupMonitoringControllers}. */
export interface MonitoringControllerOptions {
  /** Image of the config-reloader sidecar: this operator's own image (it holds reloader.js). */
  readonly reloaderImage: string;
  /**
   * How Prometheus discovers targets: `kubernetes` (upstream's `kubernetes_sd_configs`) or `file` (the operator
   * resolves Endpoints into `file_sd_configs`, for Prometheus builds without Kubernetes discovery, such as Debian's).
   * @default 'kubernetes'
   */
  readonly discovery?: DiscoveryMode;
  /** Parallel reconciles per controller. @default DEFAULT_CONCURRENCY (8) */
  readonly concurrency?: number;
}

/** The controllers and the mapping (its indexes are inspectable in tests). */
export interface MonitoringControllers {
  readonly prometheus: Controller;
  readonly alertmanager: Controller;
  readonly mapping: PrometheusMapping;
}

/** Registers both controllers with `manager`. */
export function setupMonitoringControllers(
  manager: Manager,
  options: MonitoringControllerOptions,
): MonitoringControllers {
  const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
  const selection = new Selection(
    manager.getStore(NAMESPACE),
    manager.getStore(SERVICEMONITOR),
    manager.getStore(PROMETHEUSRULE),
    manager.getStore(SERVICE),
    manager.getStore(ENDPOINTS),
  );
  const mapping = new PrometheusMapping(
    manager.getInformer(PROMETHEUS),
    manager.getInformer(SERVICEMONITOR),
    selection,
  );
  const prometheus = new ControllerBuilder(manager, { name: 'prometheus' })
    .for(PROMETHEUS)
    .owns(STATEFULSET)
    .owns(CONFIGMAP)
    .owns(SERVICE)
    .watches(SERVICEMONITOR, mapping.fromServiceMonitor)
    .watches(PROMETHEUSRULE, mapping.fromRule)
    .watches(NAMESPACE, mapping.fromNamespace)
    .watches(SERVICE, mapping.fromService)
    .watches(ENDPOINTS, mapping.fromEndpoints)
    .withConcurrency(concurrency)
    .complete(
      new PrometheusReconciler({
        client: manager.readYourWritesClient,
        prometheuses: manager.getStore(PROMETHEUS),
        statefulSets: manager.getStore(STATEFULSET),
        configMaps: manager.getStore(CONFIGMAP),
        services: manager.getStore(SERVICE),
        serviceMonitors: manager.getStore(SERVICEMONITOR),
        rules: manager.getStore(PROMETHEUSRULE),
        selection,
        discoverySource: selection,
        discovery: options.discovery,
        reloaderImage: options.reloaderImage,
      }),
    );
  const alertmanager = new ControllerBuilder(manager, { name: 'alertmanager' })
    .for(ALERTMANAGER)
    .owns(STATEFULSET)
    .owns(SERVICE)
    .withConcurrency(concurrency)
    .complete(
      new AlertmanagerReconciler({
        client: manager.readYourWritesClient,
        alertmanagers: manager.getStore(ALERTMANAGER),
        statefulSets: manager.getStore(STATEFULSET),
        services: manager.getStore(SERVICE),
        reloaderImage: options.reloaderImage,
      }),
    );
  return { prometheus, alertmanager, mapping };
}

/**
 * What the monitoring operator does against the API, declared once: the controllers are wired from it
 * (the manager refuses anything beyond it) and the chart (apps/monitoring) derives RBAC from it.
 * Cluster-wide: a Prometheus selects ServiceMonitors and PrometheusRules in any namespace, by the
 * namespaces' labels.
 */
import {
  ALERTMANAGER,
  CONFIGMAP,
  ENDPOINTS,
  NAMESPACE,
  PROMETHEUS,
  PROMETHEUSRULE,
  SECRET,
  SERVICE,
  SERVICEMONITOR,
  STATEFULSET,
} from './types';
import { defineContract } from '../../runtime';

export const MONITORING_CONTRACT = defineContract({
  // Endpoints: the targets of file discovery (discovery.ts).
  watches: [PROMETHEUS, ALERTMANAGER, SERVICEMONITOR, PROMETHEUSRULE, NAMESPACE, ENDPOINTS],
  // The configuration Secrets are written by the names the operator gives them: no list/watch of Secrets,
  // and Alertmanager's configuration Secret is mounted, never read.
  ownsByName: [SECRET],
  // Services: the ones it creates, and the ones ServiceMonitors select (mapped to the Prometheus objects).
  owns: [STATEFULSET, CONFIGMAP, SERVICE],
  // status of Prometheus, Alertmanager, and the bindings of ServiceMonitors and PrometheusRules
  status: true,
  events: true,
  leaderElection: true,
});

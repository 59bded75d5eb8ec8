/**
 * Defaulting and the most common validation of built-in kinds, so a controller that compares its desired
 * object with the stored one sees the same server-filled fields as against a real apiserver.
 */
import { randomInt } from 'node:crypto';
import { isObject } from './json-util';
import { StatusCause, fieldInvalid, fieldRequired } from './status';

function setDefault(obj: any, key: string, value: any): void {
  if (obj[key] === undefined || obj[key] === null) obj[key] = value;
}

export function defaultContainer(c: any): void {
  if (!isObject(c)) return;
  setDefault(c, 'terminationMessagePath', '/dev/termination-log');
  setDefault(c, 'terminationMessagePolicy', 'File');
  if (c.imagePullPolicy === undefined && typeof c.image === 'string') {
    const tagged = /:[^/]+$/.test(c.image.split('@')[0]);
    c.imagePullPolicy = !tagged || c.image.split('@')[0].endsWith(':latest') ? 'Always' : 'IfNotPresent';
  }
  setDefault(c, 'resources', {});
  for (const p of c.ports ?? []) if (isObject(p)) setDefault(p, 'protocol', 'TCP');
}

export function defaultPodSpec(spec: any): void {
  if (!isObject(spec)) return;
  setDefault(spec, 'restartPolicy', 'Always');
  setDefault(spec, 'terminationGracePeriodSeconds', 30);
  setDefault(spec, 'dnsPolicy', 'ClusterFirst');
  setDefault(spec, 'securityContext', {});
  setDefault(spec, 'schedulerName', 'default-scheduler');
  for (const c of [...(spec.containers ?? []), ...(spec.initContainers ?? [])]) defaultContainer(c);
}

function defaultTemplate(t: any): void {
  if (!isObject(t)) return;
  t.metadata = t.metadata ?? {};
  if (t.metadata.creationTimestamp === undefined) t.metadata.creationTimestamp = null;
  defaultPodSpec(t.spec);
}

function nextClusterIp(): string {
  return `10.96.${randomInt(0, 255)}.${randomInt(1, 254)}`;
}

/** Defaults applied on create (and, for spec fields, on update) — mirrors the apiserver's SetDefaults_*. */
export function applyBuiltinDefaults(kind: string, obj: any, isCreate: boolean): void {
  const spec = isObject(obj.spec) ? obj.spec : undefined;
  switch (kind) {
    case 'Namespace':
      obj.metadata.labels = { ...(obj.metadata.labels ?? {}), 'kubernetes.io/metadata.name': obj.metadata.name };
      obj.spec = obj.spec ?? {};
      setDefault(obj.spec, 'finalizers', ['kubernetes']);
      if (isCreate) obj.status = { phase: 'Active' };
      break;
    case 'Secret':
      setDefault(obj, 'type', 'Opaque');
      if (isObject(obj.stringData)) {
        obj.data = obj.data ?? {};
        for (const [k, v] of Object.entries(obj.stringData)) obj.data[k] = Buffer.from(String(v)).toString('base64');
        delete obj.stringData;
      }
      break;
    case 'Service':
      obj.spec = obj.spec ?? {};
      setDefault(obj.spec, 'type', 'ClusterIP');
      setDefault(obj.spec, 'sessionAffinity', 'None');
      for (const p of obj.spec.ports ?? []) {
        if (!isObject(p)) continue;
        setDefault(p, 'protocol', 'TCP');
        setDefault(p, 'targetPort', p.port);
      }
      if (obj.spec.clusterIP === undefined && isCreate) obj.spec.clusterIP = nextClusterIp();
      if (obj.spec.clusterIP && obj.spec.clusterIPs === undefined) obj.spec.clusterIPs = [obj.spec.clusterIP];
      setDefault(obj.spec, 'ipFamilies', ['IPv4']);
      setDefault(obj.spec, 'ipFamilyPolicy', 'SingleStack');
      setDefault(obj.spec, 'internalTrafficPolicy', 'Cluster');
      if (isCreate) obj.status = { loadBalancer: {} };
      break;
    case 'PersistentVolumeClaim':
      if (spec) setDefault(spec, 'volumeMode', 'Filesystem');
      if (isCreate) obj.status = { phase: 'Pending' };
      break;
    case 'Pod':
      defaultPodSpec(spec);
      if (spec) {
        setDefault(spec, 'enableServiceLinks', true);
        setDefault(spec, 'preemptionPolicy', 'PreemptLowerPriority');
        setDefault(spec, 'priority', 0);
      }
      if (isCreate) obj.status = { phase: 'Pending', qosClass: 'BestEffort' };
      break;
    case 'Deployment':
      if (spec) {
        setDefault(spec, 'replicas', 1);
        setDefault(spec, 'revisionHistoryLimit', 10);
        setDefault(spec, 'progressDeadlineSeconds', 600);
        setDefault(spec, 'strategy', { type: 'RollingUpdate' });
        if (spec.strategy.type === 'RollingUpdate') {
          spec.strategy.rollingUpdate = { maxUnavailable: '25%', maxSurge: '25%', ...(spec.strategy.rollingUpdate ?? {}) };
        }
        defaultTemplate(spec.template);
      }
      if (isCreate) obj.status = {};
      break;
    case 'StatefulSet':
      if (spec) {
        setDefault(spec, 'replicas', 1);
        setDefault(spec, 'podManagementPolicy', 'OrderedReady');
        setDefault(spec, 'updateStrategy', { type: 'RollingUpdate' });
        if (spec.updateStrategy.type === 'RollingUpdate') spec.updateStrategy.rollingUpdate = { partition: 0, ...(spec.updateStrategy.rollingUpdate ?? {}) };
        setDefault(spec, 'revisionHistoryLimit', 10);
        setDefault(spec, 'persistentVolumeClaimRetentionPolicy', { whenDeleted: 'Retain', whenScaled: 'Retain' });
        defaultTemplate(spec.template);
      }
      if (isCreate) obj.status = { replicas: 0, availableReplicas: 0 };
      break;
    case 'Job':
      if (spec) {
        setDefault(spec, 'parallelism', 1);
        setDefault(spec, 'completions', spec.parallelism === 1 ? 1 : undefined);
        setDefault(spec, 'backoffLimit', 6);
        setDefault(spec, 'completionMode', 'NonIndexed');
        setDefault(spec, 'suspend', false);
        setDefault(spec, 'podReplacementPolicy', 'TerminatingOrFailed');
        if (isCreate && !spec.manualSelector && obj.metadata.uid) {
          const uid = obj.metadata.uid;
          spec.selector = { matchLabels: { 'batch.kubernetes.io/controller-uid': uid } };
          if (isObject(spec.template)) {
            spec.template.metadata = spec.template.metadata ?? {};
            spec.template.metadata.labels = {
              ...(spec.template.metadata.labels ?? {}),
              'batch.kubernetes.io/controller-uid': uid, 'batch.kubernetes.io/job-name': obj.metadata.name,
              'controller-uid': uid, 'job-name': obj.metadata.name,
            };
          }
        }
        defaultTemplate(spec.template);
      }
      if (isCreate) obj.status = {};
      break;
    case 'CronJob':
      if (spec) {
        setDefault(spec, 'concurrencyPolicy', 'Allow');
        setDefault(spec, 'suspend', false);
        setDefault(spec, 'successfulJobsHistoryLimit', 3);
        setDefault(spec, 'failedJobsHistoryLimit', 1);
        if (isObject(spec.jobTemplate)) {
          spec.jobTemplate.metadata = spec.jobTemplate.metadata ?? {};
          if (spec.jobTemplate.metadata.creationTimestamp === undefined) spec.jobTemplate.metadata.creationTimestamp = null;
          defaultTemplate(spec.jobTemplate.spec?.template);
        }
      }
      if (isCreate) obj.status = {};
      break;
    case 'PodDisruptionBudget':
      if (isCreate) obj.status = { currentHealthy: 0, desiredHealthy: 0, disruptionsAllowed: 0, expectedPods: 0 };
      break;
    default:
      break;
  }
}

function selectorMatches(selector: any, labels: Record<string, string>): boolean {
  for (const [k, v] of Object.entries<string>(selector?.matchLabels ?? {})) if (labels[k] !== v) return false;
  for (const e of selector?.matchExpressions ?? []) {
    const has = e.key in labels;
    if (e.operator === 'In' && !(has && e.values.includes(labels[e.key]))) return false;
    if (e.operator === 'NotIn' && has && e.values.includes(labels[e.key])) return false;
    if (e.operator === 'Exists' && !has) return false;
    if (e.operator === 'DoesNotExist' && has) return false;
  }
  return true;
}

function goMap(m: Record<string, string>): string {
  return `map[string]string{${Object.entries(m).sort().map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(', ')}}`;
}

function validateContainers(containers: any, path: string, causes: StatusCause[]): void {
  if (!Array.isArray(containers) || containers.length === 0) {
    causes.push(fieldRequired(path));
    return;
  }
  containers.forEach((c: any, i: number) => {
    if (!c?.name) causes.push(fieldRequired(`${path}[${i}].name`));
    if (!c?.image) causes.push(fieldRequired(`${path}[${i}].image`));
  });
}

function validateWorkload(spec: any, causes: StatusCause[], withSelector: boolean): void {
  if (!isObject(spec)) {
    causes.push(fieldRequired('spec'));
    return;
  }
  if (withSelector) {
    if (!isObject(spec.selector)) causes.push(fieldRequired('spec.selector'));
    else {
      const labels = spec.template?.metadata?.labels ?? {};
      if (Object.keys(spec.selector.matchLabels ?? {}).length + (spec.selector.matchExpressions ?? []).length === 0) {
        causes.push(fieldInvalid('spec.selector', 'null', 'empty selector is invalid for deployment'));
      } else if (!selectorMatches(spec.selector, labels)) {
        causes.push({ reason: 'FieldValueInvalid', message: `Invalid value: ${goMap(labels)}: \`selector\` does not match template \`labels\``, field: 'spec.template.metadata.labels' });
      }
    }
  }
  validateContainers(spec.template?.spec?.containers, 'spec.template.spec.containers', causes);
  if (typeof spec.replicas === 'number' && spec.replicas < 0) causes.push(fieldInvalid('spec.replicas', spec.replicas, 'must be greater than or equal to 0'));
}

/** The validation errors most often hit by operators' generated objects. */
export function validateBuiltin(kind: string, obj: any): StatusCause[] {
  const causes: StatusCause[] = [];
  switch (kind) {
    case 'Deployment':
    case 'StatefulSet':
      validateWorkload(obj.spec, causes, true);
      break;
    case 'Job':
      validateWorkload(obj.spec, causes, false);
      if (obj.spec?.template?.spec?.restartPolicy === 'Always') {
        causes.push({ reason: 'FieldValueNotSupported', message: 'Unsupported value: "Always": supported values: "OnFailure", "Never"', field: 'spec.template.spec.restartPolicy' });
      }
      break;
    case 'Pod':
      validateContainers(obj.spec?.containers, 'spec.containers', causes);
      break;
    case 'Service':
      if (obj.spec?.type !== 'ExternalName' && obj.spec?.clusterIP !== 'None' && !(obj.spec?.ports?.length)) causes.push(fieldRequired('spec.ports'));
      break;
    case 'RoleBinding':
    case 'ClusterRoleBinding':
      if (!isObject(obj.roleRef)) causes.push(fieldRequired('roleRef'));
      break;
    default:
      break;
  }
  return causes;
}

/**
 * Update rules of built-in kinds that operators trip over in real clusters: immutable fields (Deployment and Job
 * selectors, Job templates, StatefulSet spec outside the mutable set, PVC spec, RoleBinding roleRef, immutable
 * ConfigMaps/Secrets, Service clusterIP) and the Service strategy that keeps allocated values a PUT omits.
 * Messages follow the apiserver's wording; Go-formatted struct values are abbreviated.
 */
import { deepEqual, isObject } from './json-util';
import { StatusCause, fieldForbidden, formatValue } from './status';

function immutable(field: string, value: unknown): StatusCause {
  return { reason: 'FieldValueInvalid', message: `Invalid value: ${formatValue(value)}: field is immutable`, field };
}

/** Service PrepareForUpdate (patchAllocatedValues): omitted clusterIP(s), ipFamilies and nodePorts keep their old values. */
export function keepAllocatedServiceValues(next: any, old: any): void {
  if (!isObject(next.spec) || !isObject(old.spec)) return;
  for (const k of ['clusterIP', 'clusterIPs', 'ipFamilies', 'ipFamilyPolicy']) {
    if ((next.spec[k] === undefined || next.spec[k] === '') && old.spec[k] !== undefined) next.spec[k] = old.spec[k];
  }
  for (const p of next.spec.ports ?? []) {
    if (!isObject(p) || p.nodePort !== undefined) continue;
    const before = (old.spec.ports ?? []).find((o: any) => o.port === p.port && (o.protocol ?? 'TCP') === (p.protocol ?? 'TCP'));
    if (before?.nodePort !== undefined && next.spec.type !== 'ClusterIP') p.nodePort = before.nodePort;
  }
}

const STS_MUTABLE = ['replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy', 'minReadySeconds'];

export function validateBuiltinUpdate(kind: string, old: any, next: any): StatusCause[] {
  const causes: StatusCause[] = [];
  switch (kind) {
    case 'Deployment':
      if (!deepEqual(old.spec?.selector, next.spec?.selector)) causes.push(immutable('spec.selector', next.spec?.selector));
      break;
    case 'StatefulSet': {
      const strip = (spec: any) => Object.fromEntries(Object.entries(spec ?? {}).filter(([k]) => !STS_MUTABLE.includes(k)));
      if (!deepEqual(strip(old.spec), strip(next.spec))) {
        causes.push(fieldForbidden('spec', 'updates to statefulset spec for fields other than \'replicas\', \'ordinals\', \'template\', \'updateStrategy\', \'persistentVolumeClaimRetentionPolicy\' and \'minReadySeconds\' are forbidden'));
      }
      break;
    }
    case 'Job':
      if (!deepEqual(old.spec?.selector, next.spec?.selector)) causes.push(immutable('spec.selector', next.spec?.selector));
      if (!deepEqual(old.spec?.template, next.spec?.template) && !old.spec?.suspend) causes.push(immutable('spec.template', next.spec?.template));
      if (old.spec?.completions !== next.spec?.completions && !(next.spec?.completionMode === 'Indexed')) causes.push(immutable('spec.completions', next.spec?.completions));
      break;
    case 'PersistentVolumeClaim': {
      const strip = (spec: any) => ({ ...(spec ?? {}), resources: { ...(spec?.resources ?? {}), requests: undefined }, volumeAttributesClassName: undefined });
      if (!deepEqual(strip(old.spec), strip(next.spec))) {
        causes.push(fieldForbidden('spec', 'spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims'));
      }
      break;
    }
    case 'RoleBinding':
    case 'ClusterRoleBinding':
      if (!deepEqual(old.roleRef, next.roleRef)) causes.push({ reason: 'FieldValueInvalid', message: `Invalid value: ${formatValue(next.roleRef)}: cannot change roleRef`, field: 'roleRef' });
      break;
    case 'ConfigMap':
    case 'Secret':
      if (old.immutable === true) {
        if (!deepEqual(old.data, next.data)) causes.push(fieldForbidden('data', 'field is immutable when `immutable` is set'));
        if (!deepEqual(old.binaryData, next.binaryData) && kind === 'ConfigMap') causes.push(fieldForbidden('binaryData', 'field is immutable when `immutable` is set'));
        if (next.immutable !== true) causes.push(fieldForbidden('immutable', 'field is immutable when `immutable` is set'));
      }
      if (kind === 'Secret' && (old.type ?? 'Opaque') !== (next.type ?? 'Opaque')) causes.push(immutable('type', next.type));
      break;
    case 'Service':
      if (old.spec?.clusterIP && old.spec.clusterIP !== 'None' && next.spec?.clusterIP !== old.spec.clusterIP && next.spec?.type !== 'ExternalName') {
        causes.push({ reason: 'FieldValueInvalid', message: `Invalid value: []string{${JSON.stringify(next.spec?.clusterIP ?? '')}}: may not change once set`, field: 'spec.clusterIPs[0]' });
      }
      break;
    default:
      break;
  }
  return causes;
}

import { posix } from 'path';
import { hasBacksteps } from './pod-spec-common';
import { inTreeSourceIssues, PERSISTENT_VOLUME_SHARED } from './pod-spec-volume-sources';
import { HOST_PATH_TYPES } from './pod-spec-volumes';
import { canonicalQuantity, quantityText } from './resource-policy-quantity';
import { invalidValue, isRecord, stringsOf, unsupportedValue } from './services-field-errors';
import { checksVolumeAttributesClass } from './storage-claims';
import { mountOptionIssues } from './storage-pv-mount-options';
import { volumeNodeAffinityIssues } from './storage-pv-node-affinity';
import { persistentVolumeSourceIssues } from './storage-pv-sources';
import { child, forbidden, key, required } from '../../apimachinery/field';
import { fieldValue } from '../../apimachinery/field-value';
import { Issue } from '../../apimachinery/issue';
import { KubernetesVersion, since } from '../../apimachinery/kubernetes-versions';
import { isDns1123Subdomain } from '../../apimachinery/names';
import { Quantity } from '../../apimachinery/quantity';

/*
 * A v1 PersistentVolume's spec as the apiserver checks it on create (pkg/apis/core/validation's
 * ValidatePersistentVolumeSpec), after its defaults (reclaim policy Retain, volumeMode Filesystem): access modes,
 * capacity (storage only, positive), class name, volume mode, reclaim policy (not Recycle for a hostPath of `/`), the
 * node affinity (storage-pv-node-affinity.ts), one volume source exactly (a flexVolume aside, counted but never
 * refused), a hostPath source's path and type, the sources whose checks pod volumes share (pod-spec-volume-sources.ts:
 * nfs, cloud disks, a flexVolume's driver and options...), those a PersistentVolume checks its own way
 * (storage-pv-sources.ts: glusterfs, iscsi, cinder, azureFile, storageos, csi, local), and from 1.34 the
 * volumeAttributesClassName; then the strategy's mount options annotation (storage-pv-mount-options.ts). Measured on
 * 1.28, 1.32 and 1.36 (storage-differential.test.ts).
 */

const ACCESS_MODES = ['ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOnce', 'ReadWriteOncePod'] as const;
const VOLUME_MODES = ['Block', 'Filesystem'] as const;
const RECLAIM_POLICIES = ['Delete', 'Recycle', 'Retain'] as const;

/**
 * The volume sources in the order ValidatePersistentVolumeSpec counts them: the second and later are forbidden, but
 * for a flexVolume, whose branch counts it without the check (measured: a hostPath and a flexVolume accepted by 1.28,
 * 1.32 and 1.36).
 */
const SOURCES = [
  'hostPath',
  'gcePersistentDisk',
  'awsElasticBlockStore',
  'glusterfs',
  'flocker',
  'nfs',
  'rbd',
  'quobyte',
  'cephfs',
  'iscsi',
  'cinder',
  'fc',
  'flexVolume',
  'azureFile',
  'vsphereVolume',
  'photonPersistentDisk',
  'portworxVolume',
  'azureDisk',
  'scaleIO',
  'local',
  'storageos',
  'csi',
] as const;

/** The capacity as printed in its NotSupported error: JSON of the ResourceList from 1.34, a Go dump before. */
function shownCapacity(value: unknown, version: KubernetesVersion): string {
  if (!isRecord(value)) return since(version, 'fieldValuesAsJson') ? 'null' : 'core.ResourceList(nil)';
  const capacity = value;
  if (!since(version, 'fieldValuesAsJson')) return 'core.ResourceList{…}';
  const entries = Object.keys(capacity)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${JSON.stringify(canonicalQuantity(quantityText(capacity[k]) ?? ''))}`);
  return `{${entries.join(',')}}`;
}

function capacityIssues(value: unknown, version: KubernetesVersion): Issue[] {
  const capacity = isRecord(value) ? value : {};
  const names = Object.keys(capacity);
  const issues: Issue[] = [];
  if (names.length === 0) issues.push(required('spec.capacity'));
  if (!names.includes('storage') || names.length > 1) {
    issues.push({
      path: 'spec.capacity',
      message: `Unsupported value: ${shownCapacity(value, version)}: supported values: "storage"`,
      value: capacity,
    });
  }
  for (const name of names) {
    const text = quantityText(capacity[name]);
    if (text === undefined || Quantity.parse(text).sign() > 0n) continue;
    const at = key('spec.capacity', name);
    if (Quantity.parse(text).sign() < 0n) {
      // validateBasicResource: Value() of the negative quantity (rounded away from zero)
      issues.push({
        path: at,
        message: `Invalid value: ${negativeValue(text)}: must be a valid resource quantity`,
        value: text,
      });
    }
    issues.push(...invalidValue(at, canonicalQuantity(text), ['must be greater than zero'], version));
  }
  return issues;
}

function negativeValue(text: string): string {
  const q = Quantity.parse(text);
  const abs = Quantity.parse(text.replace(/^-/, ''));
  // Value() rounds up in magnitude: -1.5 is -2
  const integer = abs.isInteger() ? abs.asInteger() : BigInt(Math.ceil(abs.asApproximateFloat()));
  return String(q.sign() < 0n ? -integer : integer);
}

function persistentVolumeIssues(object: any, version: KubernetesVersion): Issue[] {
  const spec = isRecord(object?.spec) ? object.spec : {};
  const issues: Issue[] = [];
  const modes = stringsOf(spec.accessModes);
  if (modes.length === 0) issues.push(required('spec.accessModes'));
  const supported = (m: unknown) => (ACCESS_MODES as readonly unknown[]).includes(m);
  for (const mode of modes) {
    if (!supported(mode)) issues.push(unsupportedValue('spec.accessModes', mode, ACCESS_MODES, version));
  }
  if (modes.includes('ReadWriteOncePod') && modes.some((m) => m !== 'ReadWriteOncePod' && supported(m))) {
    issues.push(forbidden('spec.accessModes', 'may not use ReadWriteOncePod with other access modes'));
  }
  issues.push(...capacityIssues(spec.capacity, version));
  if (typeof spec.storageClassName === 'string' && spec.storageClassName !== '') {
    issues.push(
      ...invalidValue(
        'spec.storageClassName',
        spec.storageClassName,
        isDns1123Subdomain(spec.storageClassName),
        version,
      ),
    );
  }
  const volumeMode = spec.volumeMode ?? 'Filesystem';
  if (!(VOLUME_MODES as readonly unknown[]).includes(volumeMode)) {
    issues.push(unsupportedValue('spec.volumeMode', volumeMode, VOLUME_MODES, version));
  }
  const policy = spec.persistentVolumeReclaimPolicy || 'Retain';
  if (!(RECLAIM_POLICIES as readonly unknown[]).includes(policy)) {
    issues.push(unsupportedValue('spec.persistentVolumeReclaimPolicy', policy, RECLAIM_POLICIES, version));
  }
  const sources = SOURCES.filter((s) => spec[s] !== undefined && spec[s] !== null);
  sources.forEach((source, i) => {
    if (i > 0 && source !== 'flexVolume') {
      // the forbidden error names the Go field of CephFS (`cephFS`)
      issues.push(
        forbidden(child('spec', source === 'cephfs' ? 'cephFS' : source), 'may not specify more than 1 volume type'),
      );
    }
  });
  if (sources.length === 0) issues.push(required('spec', 'must specify a volume type'));
  issues.push(...recycleIssues(spec, policy));
  // in the pod spec's words (inOwnWords): the node affinity, and the counted source's insides but hostPath's, those
  // pod volumes share (pod-spec-volume-sources.ts; a flexVolume is checked wherever it is) or a PersistentVolume's own
  // (storage-pv-sources.ts)
  const inPodWords = [...volumeNodeAffinityIssues(spec, sources[0] === 'local', version)];
  if (sources[0] === 'hostPath') issues.push(...hostPathIssues(spec.hostPath, version));
  const shared = sources.filter((s, i) => PERSISTENT_VOLUME_SHARED.has(s) && (i === 0 || s === 'flexVolume'));
  for (const s of shared) inPodWords.push(...(inTreeSourceIssues('spec', s, spec[s]) ?? []));
  if (sources[0] !== undefined) {
    const name = typeof object?.metadata?.name === 'string' ? object.metadata.name : '';
    inPodWords.push(...(persistentVolumeSourceIssues(sources[0], spec[sources[0]], name, version) ?? []));
  }
  issues.push(...inPodWords.map((i) => inOwnWords(i, version)));
  issues.push(...attributesClassIssues(spec, version));
  issues.push(...mountOptionIssues(object));
  return issues;
}

/** A hostPath of `/` (once Go's path.Clean has it) may not be recycled, whichever source is counted. */
function recycleIssues(spec: Record<string, any>, policy: unknown): Issue[] {
  const hostPath = isRecord(spec.hostPath) ? spec.hostPath : undefined;
  if (hostPath === undefined || policy !== 'Recycle') return [];
  const path = typeof hostPath.path === 'string' ? hostPath.path : '';
  if (!path.startsWith('/') || posix.normalize(path) !== '/') return [];
  return [forbidden('spec.persistentVolumeReclaimPolicy', "may not be 'recycle' for a hostPath mount of '/'")];
}

/** A pod volume's issue in this area's words: the value inside an Invalid or Unsupported message, as the server. */
function inOwnWords(issue: Issue, version: KubernetesVersion): Issue {
  const m = /^(Invalid value|Unsupported value): (.*)$/.exec(issue.message);
  if (m === null || !('value' in issue)) return issue;
  return { ...issue, message: `${m[1]}: ${fieldValue(issue.value, version)}: ${m[2]}` };
}

/**
 * The volumeAttributesClassName where the VolumeAttributesClass gate is on (1.34, as for a claim; before, the field is
 * dropped): not empty, a DNS subdomain, and on a CSI volume only. Measured on 1.32 (accepted) and 1.36.
 */
function attributesClassIssues(spec: Record<string, any>, version: KubernetesVersion): Issue[] {
  const name = spec.volumeAttributesClassName;
  if (typeof name !== 'string' || !checksVolumeAttributesClass(version)) return [];
  const path = 'spec.volumeAttributesClassName';
  return [
    ...(name === ''
      ? [required(path, 'an empty string is disallowed')]
      : invalidValue(path, name, isDns1123Subdomain(name), version)),
    ...(isRecord(spec.csi) ? [] : [required('spec.csi', 'has to be specified when using volumeAttributesClassName')]),
  ];
}

/** validateHostPathVolumeSource, in this area's words (the value inside the message, as the server prints it). */
function hostPathIssues(source: unknown, version: KubernetesVersion): Issue[] {
  const s = isRecord(source) ? source : {};
  const path = typeof s.path === 'string' ? s.path : '';
  const issues: Issue[] = [];
  if (path === '') {
    issues.push(required('spec.hostPath.path'));
  } else if (hasBacksteps(path)) {
    issues.push(...invalidValue('spec.hostPath.path', path, ["must not contain '..'"], version));
  }
  if (s.type != null && !(HOST_PATH_TYPES as readonly unknown[]).includes(s.type)) {
    issues.push(unsupportedValue('spec.hostPath.type', s.type, HOST_PATH_TYPES, version));
  }
  return issues;
}

/** @internal */
export const PERSISTENT_VOLUME_VALIDATORS = {
  'v1/PersistentVolume': persistentVolumeIssues,
} as const;

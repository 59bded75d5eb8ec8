import { arr, dnsLabelIssues, localDescendingPathIssues, obj, str } from './pod-spec-common';
import { child, invalid, key, notSupported, required } from '../../apimachinery/field';
import { tooLongBytes } from '../../apimachinery/field-error-details';
import { Issue } from '../../apimachinery/issue';
import { KubernetesVersion, minorOf } from '../../apimachinery/kubernetes-versions';
import { isDns1123Subdomain } from '../../apimachinery/names';

/*
 * The checks of the in-tree drivers' volume sources a pod's volume may hold (validateVolumeSource's
 * validateXxxVolumeSource of pkg/apis/core/validation), one function a source, at the source's path: what each
 * requires, its ranges and formats. Measured on 1.28, 1.32 and 1.36 (pod-container-cases.ts): the same there.
 */

/** validation.InclusiveRangeError. */
const inclusiveRange = (lo: number, hi: number) => `must be between ${lo} and ${hi}, inclusive`;

const requiredIfEmpty = (path: string, value: unknown): Issue[] => (str(value) === '' ? [required(path)] : []);

/** A number outside [lo, hi] (a partition, a LUN). */
function rangeIssues(path: string, value: unknown, lo: number, hi: number): Issue[] {
  return typeof value === 'number' && (value < lo || value > hi) ? [invalid(path, value, inclusiveRange(lo, hi))] : [];
}

/** pdPartitionErrorMsg: the range its message gives starts at 1, the test lets 0 through (unset). */
function partitionIssues(path: string, value: unknown): Issue[] {
  return typeof value === 'number' && (value < 0 || value > 255) ? [invalid(path, value, inclusiveRange(1, 255))] : [];
}

/** validateGCEPersistentDiskVolumeSource: reported under `persistentDisk`, not `gcePersistentDisk` (upstream's). */
function gcePersistentDiskIssues(path: string, s: any): Issue[] {
  return [
    ...requiredIfEmpty(child(path, 'pdName'), s.pdName),
    ...partitionIssues(child(path, 'partition'), s.partition),
  ];
}

/** validateAWSElasticBlockStoreVolumeSource. */
function awsElasticBlockStoreIssues(path: string, s: any): Issue[] {
  return [
    ...requiredIfEmpty(child(path, 'volumeID'), s.volumeID),
    ...partitionIssues(child(path, 'partition'), s.partition),
  ];
}

/** validateNFSVolumeSource: a server, an absolute path (an empty one is both Required and not absolute). */
function nfsIssues(path: string, s: any): Issue[] {
  const p = str(s.path);
  return [
    ...requiredIfEmpty(child(path, 'server'), s.server),
    ...requiredIfEmpty(child(path, 'path'), p),
    ...(p.startsWith('/') ? [] : [invalid(child(path, 'path'), p, 'must be an absolute path')]),
  ];
}

const IQN = /iqn\.\d{4}-\d{2}\.([A-Za-z0-9\-.]+)(:[^,;*&$|\s]+)$/;
const EUI = /^eui.[A-Za-z0-9]{16}$/;
const NAA = /^naa.[A-Za-z0-9]{32}$/;
const ISCSI_PREFIXES = ['iqn', 'eui', 'naa'];

/** An iSCSI name's format error (iscsiInitiatorIqnRegex and the others), if any. */
function iscsiFormatBad(name: string): boolean {
  return (
    (name.startsWith('iqn') && !IQN.test(name)) ||
    (name.startsWith('eui') && !EUI.test(name)) ||
    (name.startsWith('naa') && !NAA.test(name))
  );
}

/**
 * validateISCSIVolumeSource, and what validateISCSIPersistentVolumeSource shares with it: `unprefixed` is the message
 * of a name that starts with none of iqn, eui and naa (a PersistentVolume's is `must be valid format`).
 *
 * @internal
 */
export function iscsiIssues(
  path: string,
  s: any,
  unprefixed = 'must be valid format starting with iqn, eui, or naa',
): Issue[] {
  const issues = requiredIfEmpty(child(path, 'targetPortal'), s.targetPortal);
  const iqn = str(s.iqn);
  const iqnPath = child(path, 'iqn');
  const prefixed = (n: string) => ISCSI_PREFIXES.some((p) => n.startsWith(p));
  if (iqn === '') issues.push(required(iqnPath));
  else if (!prefixed(iqn)) issues.push(invalid(iqnPath, iqn, unprefixed));
  else if (iscsiFormatBad(iqn)) issues.push(invalid(iqnPath, iqn, 'must be valid format'));
  issues.push(...rangeIssues(child(path, 'lun'), s.lun ?? 0, 0, 255));
  if ((s.chapAuthDiscovery === true || s.chapAuthSession === true) && s.secretRef == null) {
    issues.push(required(child(path, 'secretRef')));
  }
  if (s.initiatorName != null) {
    const initiator = str(s.initiatorName);
    const at = child(path, 'initiatorname');
    if (!prefixed(initiator)) issues.push(invalid(at, initiator, unprefixed));
    if (iscsiFormatBad(initiator)) issues.push(invalid(at, initiator, 'must be valid format'));
  }
  return issues;
}

/**
 * validateVolumeSource's check of an iSCSI source with an initiator name, whether or not it is the volume's counted
 * source: `<volume name>:<target portal>` at most 64 bytes, reported at the volume's `name`.
 *
 * @internal
 */
export function iscsiNameIssues(volumePath: string, volume: any): Issue[] {
  const s = volume.iscsi;
  if (s == null || obj(s).initiatorName == null) return [];
  const name = str(volume.name);
  if (Buffer.byteLength(`${name}:${str(obj(s).targetPortal)}`) <= 64) return [];
  const message =
    'Total length of <volume name>:<iscsi.targetPortal> must be under 64 characters if iscsi.initiatorName is specified.';
  return [invalid(child(volumePath, 'name'), name, message)];
}

/** validateGlusterfsVolumeSource. */
function glusterfsIssues(path: string, s: any): Issue[] {
  return [...requiredIfEmpty(child(path, 'endpoints'), s.endpoints), ...requiredIfEmpty(child(path, 'path'), s.path)];
}

/** validateFlockerVolumeSource: one of the dataset's name and UUID, reported at the source. */
function flockerIssues(path: string, s: any): Issue[] {
  const name = str(s.datasetName);
  const uuid = str(s.datasetUUID);
  const issues: Issue[] = [];
  if (name === '' && uuid === '') issues.push(required(path, 'one of datasetName and datasetUUID is required'));
  if (name !== '' && uuid !== '') {
    issues.push(invalid(path, 'resource', 'datasetName and datasetUUID can not be specified simultaneously'));
  }
  if (name.includes('/')) issues.push(invalid(child(path, 'datasetName'), name, "must not contain '/'"));
  return issues;
}

/** validateRBDVolumeSource. */
function rbdIssues(path: string, s: any): Issue[] {
  return [
    ...(arr(s.monitors).length === 0 ? [required(child(path, 'monitors'))] : []),
    ...requiredIfEmpty(child(path, 'image'), s.image),
  ];
}

/** A secret reference's name, when the reference is there. @internal */
export function secretRefNameIssues(path: string, ref: unknown): Issue[] {
  return ref == null ? [] : requiredIfEmpty(child(path, 'secretRef', 'name'), obj(ref).name);
}

/** validateCinderVolumeSource. */
function cinderIssues(path: string, s: any): Issue[] {
  return [...requiredIfEmpty(child(path, 'volumeID'), s.volumeID), ...secretRefNameIssues(path, s.secretRef)];
}

/** validateCephFSVolumeSource. */
function cephfsIssues(path: string, s: any): Issue[] {
  return arr(s.monitors).length === 0 ? [required(child(path, 'monitors'))] : [];
}

/**
 * Go's net.SplitHostPort's verdict: a `host:port` (a bracketed IPv6 host), one colon outside brackets, no stray
 * bracket.
 */
function isHostPort(value: string): boolean {
  const i = value.lastIndexOf(':');
  if (i < 0) return false;
  let j = 0;
  let k = 0;
  if (value.startsWith('[')) {
    const end = value.indexOf(']');
    if (end < 0 || end + 1 !== i) return false;
    j = 1;
    k = end + 1;
  } else if (value.slice(0, i).includes(':')) {
    return false;
  }
  return !value.slice(j).includes('[') && !value.slice(k).includes(']');
}

/** validateQuobyteVolumeSource: each registry a host:port (one error a bad pair), a tenant of at most 64. */
function quobyteIssues(path: string, s: any): Issue[] {
  const registry = str(s.registry);
  const message = 'must be a host:port pair or multiple pairs separated by commas';
  const issues: Issue[] = [];
  if (registry === '') {
    issues.push(required(child(path, 'registry'), message));
  } else if (str(s.tenant).length >= 65) {
    issues.push(required(child(path, 'tenant'), 'must be a UUID and may not exceed a length of 64 characters'));
  } else {
    for (const pair of registry.split(',')) {
      if (!isHostPort(pair)) issues.push(invalid(child(path, 'registry'), registry, message));
    }
  }
  issues.push(...requiredIfEmpty(child(path, 'volume'), s.volume));
  return issues;
}

/** validateFCVolumeSource: target WWNs (and a LUN) or WWIDs, not both. */
function fcIssues(path: string, s: any): Issue[] {
  const wwns = arr(s.targetWWNs);
  const wwids = arr(s.wwids);
  const issues: Issue[] = [];
  const at = child(path, 'targetWWNs');
  if (wwns.length === 0 && wwids.length === 0) {
    issues.push(required(at, 'must specify either targetWWNs or wwids, but not both'));
  }
  if (wwns.length > 0 && wwids.length > 0) {
    issues.push(invalid(at, wwns, 'targetWWNs and wwids can not be specified simultaneously'));
  }
  if (wwns.length > 0) {
    if (s.lun == null) issues.push(required(child(path, 'lun'), 'lun is required if targetWWNs is specified'));
    else issues.push(...rangeIssues(child(path, 'lun'), s.lun, 0, 255));
  }
  return issues;
}

/** validateFlexVolumeSource (a PersistentVolume's too): a driver, no option in the kubernetes.io or k8s.io namespaces. @internal */
export function flexVolumeIssues(path: string, s: any): Issue[] {
  const issues = requiredIfEmpty(child(path, 'driver'), s.driver);
  for (const k of Object.keys(obj(s.options))) {
    const slash = k.indexOf('/');
    const normalized = `.${(slash < 0 ? k : k.slice(0, slash)).toLowerCase()}`;
    if (normalized.endsWith('.kubernetes.io') || normalized.endsWith('.k8s.io')) {
      issues.push(invalid(key(child(path, 'options'), k), k, 'kubernetes.io and k8s.io namespaces are reserved'));
    }
  }
  return issues;
}

/** validateAzureFile. */
function azureFileIssues(path: string, s: any): Issue[] {
  return [
    ...requiredIfEmpty(child(path, 'secretName'), s.secretName),
    ...requiredIfEmpty(child(path, 'shareName'), s.shareName),
  ];
}

const CACHING_MODES = ['None', 'ReadOnly', 'ReadWrite'];
const DISK_KINDS = ['Dedicated', 'Managed', 'Shared'];

/**
 * validateAzureDisk, after the defaults (SetDefaults_AzureDiskVolumeSource: kind Shared, caching ReadWrite): a
 * managed disk's URI a subscription's path, any other's an https URL.
 */
function azureDiskIssues(path: string, s: any): Issue[] {
  const uri = str(s.diskURI);
  const kind = s.kind ?? 'Shared';
  const caching = s.cachingMode ?? 'ReadWrite';
  const issues = [
    ...requiredIfEmpty(child(path, 'diskName'), s.diskName),
    ...requiredIfEmpty(child(path, 'diskURI'), uri),
  ];
  if (!CACHING_MODES.includes(caching)) issues.push(notSupported(child(path, 'cachingMode'), caching, CACHING_MODES));
  if (!DISK_KINDS.includes(kind)) issues.push(notSupported(child(path, 'kind'), kind, DISK_KINDS));
  if (kind === 'Managed' && !uri.startsWith('/subscriptions/')) {
    const supported = [
      '/subscriptions/{sub-id}/resourcegroups/{group-name}/providers/microsoft.compute/disks/{disk-id}',
    ];
    issues.push(notSupported(child(path, 'diskURI'), uri, supported));
  }
  if (kind !== 'Managed' && !uri.startsWith('https://')) {
    const supported = ['https://{account-name}.blob.core.windows.net/{container-name}/{disk-name}.vhd'];
    issues.push(notSupported(child(path, 'diskURI'), uri, supported));
  }
  return issues;
}

/** validateStorageOSVolumeSource: DNS-label volume name and namespace. */
function storageosIssues(path: string, s: any): Issue[] {
  const name = str(s.volumeName);
  const namespace = str(s.volumeNamespace);
  return [
    ...(name === '' ? [required(child(path, 'volumeName'))] : dnsLabelIssues(child(path, 'volumeName'), name)),
    ...(namespace === '' ? [] : dnsLabelIssues(child(path, 'volumeNamespace'), namespace)),
    ...secretRefNameIssues(path, s.secretRef),
  ];
}

/** validateScaleIOVolumeSource. */
function scaleIOIssues(path: string, s: any): Issue[] {
  return ['gateway', 'system', 'volumeName'].flatMap((f) => requiredIfEmpty(child(path, f), s[f]));
}

/** validateGitRepoVolumeSource: a repository, a relative directory without `..`. */
function gitRepoIssues(path: string, s: any): Issue[] {
  return [
    ...requiredIfEmpty(child(path, 'repository'), s.repository),
    ...localDescendingPathIssues(child(path, 'directory'), str(s.directory)),
  ];
}

/**
 * The in-tree sources' checks by field name (a PersistentVolume's are the same for those `PERSISTENT_VOLUME_SHARED`
 * names).
 */
const IN_TREE_SOURCE_CHECKS: Readonly<Record<string, (path: string, s: any) => Issue[]>> = {
  gitRepo: gitRepoIssues,
  gcePersistentDisk: gcePersistentDiskIssues,
  awsElasticBlockStore: awsElasticBlockStoreIssues,
  nfs: nfsIssues,
  iscsi: (path, s) => iscsiIssues(path, s),
  glusterfs: glusterfsIssues,
  flocker: flockerIssues,
  rbd: rbdIssues,
  cinder: cinderIssues,
  cephfs: cephfsIssues,
  quobyte: quobyteIssues,
  fc: fcIssues,
  flexVolume: flexVolumeIssues,
  azureFile: azureFileIssues,
  vsphereVolume: (path, s) => requiredIfEmpty(child(path, 'volumePath'), s.volumePath),
  photonPersistentDisk: (path, s) => requiredIfEmpty(child(path, 'pdID'), s.pdID),
  portworxVolume: (path, s) => requiredIfEmpty(child(path, 'volumeID'), s.volumeID),
  azureDisk: azureDiskIssues,
  storageos: storageosIssues,
  scaleIO: scaleIOIssues,
};

/** Where upstream checks a source, where that is not its field's name. */
const CHECKED_AT: Readonly<Record<string, string>> = { gcePersistentDisk: 'persistentDisk' };

/**
 * The check of the in-tree source `kind` (`undefined`: not one of them) of the volume at `path` (a pod's volume, a
 * PersistentVolume's spec), at the path upstream reports it under (`persistentDisk` for a gcePersistentDisk source).
 *
 * @internal
 */
export function inTreeSourceIssues(path: string, kind: string, source: unknown): Issue[] | undefined {
  const check = IN_TREE_SOURCE_CHECKS[kind];
  return check === undefined ? undefined : check(child(path, CHECKED_AT[kind] ?? kind), obj(source));
}

/**
 * The sources whose check ValidatePersistentVolumeSpec shares with validateVolumeSource (or whose
 * validateXxxPersistentVolumeSource checks the same); the others' differ (glusterfs, iscsi, cinder, azureFile,
 * storageos: secret namespaces and more) or are not a pod's (csi, local): storage-pv-sources.ts; hostPath's is
 * storage-volumes.ts's.
 *
 * @internal
 */
export const PERSISTENT_VOLUME_SHARED: ReadonlySet<string> = new Set([
  'gcePersistentDisk',
  'awsElasticBlockStore',
  'flocker',
  'nfs',
  'rbd',
  'quobyte',
  'cephfs',
  'fc',
  'flexVolume',
  'vsphereVolume',
  'photonPersistentDisk',
  'portworxVolume',
  'azureDisk',
  'scaleIO',
]);

/**
 * ValidateCSIDriverName: required, at most 63 bytes, a DNS subdomain once lower-cased. An empty name: 1.28 and 1.32 add
 * the subdomain's error to the Required, 1.36 not (measured; from 1.33 assumed). A Pod's csi volume and a
 * PersistentVolume's csi source.
 *
 * @internal
 */
export function csiDriverNameIssues(path: string, driver: string, version: KubernetesVersion): Issue[] {
  const issues: Issue[] = [];
  if (driver === '') issues.push(required(path));
  if (driver === '' && minorOf(version) >= 33) return issues;
  if (Buffer.byteLength(driver) > 63) issues.push({ path, message: tooLongBytes(63, version), value: driver });
  issues.push(...isDns1123Subdomain(driver.toLowerCase()).map((m) => invalid(path, driver, m)));
  return issues;
}

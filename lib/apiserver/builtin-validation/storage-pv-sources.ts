import { dnsLabelIssues, dnsSubdomainIssues, noBackstepsIssues, obj, str } from './pod-spec-common';
import { csiDriverNameIssues, inTreeSourceIssues, iscsiIssues, secretRefNameIssues } from './pod-spec-volume-sources';
import { child, invalid, required } from '../../apimachinery/field';
import { Issue } from '../../apimachinery/issue';
import { KubernetesVersion } from '../../apimachinery/kubernetes-versions';

/*
 * The volume sources a PersistentVolume checks its own way (ValidatePersistentVolumeSpec's
 * validateXxxPersistentVolumeSource of pkg/apis/core/validation): what a pod volume's check of the source has
 * (pod-spec-volume-sources.ts) and the fields only a PersistentVolume has (secret namespaces, glusterfs' endpoints
 * namespace, an iSCSI volume's name with its target portal), and the csi and local sources. Issues in the pod
 * volumes' words (the value beside the message; storage-volumes.ts prints it inside). Measured on 1.28, 1.32 and 1.36
 * (storage-differential.test.ts): the same on the three but for an empty csi driver.
 */

/** A secret reference's namespace, when the reference is there (cinder, storageos). */
function secretNamespaceIssues(path: string, ref: unknown): Issue[] {
  return ref != null && str(obj(ref).namespace) === '' ? [required(child(path, 'secretRef', 'namespace'))] : [];
}

/** validateGlusterfsPersistentVolumeSource: an endpoints namespace, when set, a namespace's name (a DNS label). */
function glusterfsIssues(path: string, s: any): Issue[] {
  if (s.endpointsNamespace == null) return [];
  const namespace = str(s.endpointsNamespace);
  const at = child(path, 'endpointsNamespace');
  if (namespace !== '') return dnsLabelIssues(at, namespace);
  return [invalid(at, namespace, 'if the endpointnamespace is set, it must be a valid namespace name')];
}

/**
 * validateISCSIPersistentVolumeSource: a pod volume's checks but for the message of an unprefixed name, a secret
 * reference's name, and with an initiator name `<volume name>:<target portal>` of at most 64 bytes (the volume's
 * name is the PersistentVolume's), reported at `targetportal`.
 */
function iscsiPersistentIssues(path: string, s: any, name: string): Issue[] {
  const issues = iscsiIssues(path, s, 'must be valid format');
  const portal = str(s.targetPortal);
  if (s.initiatorName != null && Buffer.byteLength(`${name}:${portal}`) > 64) {
    const message =
      'Total length of <volume name>:<iscsi.targetPortal> must be under 64 characters if iscsi.initiatorName is specified.';
    issues.push(invalid(child(path, 'targetportal'), portal, message));
  }
  return [...issues, ...secretRefNameIssues(path, s.secretRef)];
}

/** validateAzureFilePV: a secret namespace, when set, not empty. */
function azureFileIssues(path: string, s: any): Issue[] {
  return s.secretNamespace != null && str(s.secretNamespace) === '' ? [required(child(path, 'secretNamespace'))] : [];
}

/** validateLocalVolumeSource: a path (only then checked for `..`; a relative one is accepted). */
function localIssues(path: string, s: any): Issue[] {
  const p = str(s.path);
  return p === '' ? [required(child(path, 'path'))] : noBackstepsIssues(child(path, 'path'), p);
}

/** The secret references validateCSIPersistentVolumeSource checks (nodeStageSecretRef is not). */
const CSI_SECRET_REFS = [
  'controllerPublishSecretRef',
  'controllerExpandSecretRef',
  'nodePublishSecretRef',
  'nodeExpandSecretRef',
] as const;

/** validatePVSecretReference: a name (a DNS subdomain) and a namespace (a DNS label). */
function secretReferenceIssues(path: string, ref: unknown): Issue[] {
  const name = str(obj(ref).name);
  const namespace = str(obj(ref).namespace);
  return [
    ...(name === '' ? [required(child(path, 'name'))] : dnsSubdomainIssues(child(path, 'name'), name)),
    ...(namespace === '' ? [required(child(path, 'namespace'))] : dnsLabelIssues(child(path, 'namespace'), namespace)),
  ];
}

/** validateCSIPersistentVolumeSource: a driver, a volume handle, the secret references set. */
function csiIssues(path: string, s: any, version: KubernetesVersion): Issue[] {
  return [
    ...csiDriverNameIssues(child(path, 'driver'), str(s.driver), version),
    ...(str(s.volumeHandle) === '' ? [required(child(path, 'volumeHandle'))] : []),
    ...CSI_SECRET_REFS.flatMap((r) => (s[r] == null ? [] : secretReferenceIssues(child(path, r), s[r]))),
  ];
}

/**
 * The check of the PersistentVolume `name`'s counted source `kind` (`undefined`: a source whose check a pod volume's
 * is, or hostPath), at `spec.<kind>`: for glusterfs, cinder, storageos and azureFile a pod volume's check and the
 * PersistentVolume's own fields.
 *
 * @internal
 */
export function persistentVolumeSourceIssues(
  kind: string,
  source: unknown,
  name: string,
  version: KubernetesVersion,
): Issue[] | undefined {
  const s = obj(source);
  const path = child('spec', kind);
  const shared = () => inTreeSourceIssues('spec', kind, s) ?? [];
  switch (kind) {
    case 'glusterfs':
      return [...shared(), ...glusterfsIssues(path, s)];
    case 'cinder':
    case 'storageos':
      return [...shared(), ...secretNamespaceIssues(path, s.secretRef)];
    case 'azureFile':
      return [...shared(), ...azureFileIssues(path, s)];
    case 'iscsi':
      return iscsiPersistentIssues(path, s, name);
    case 'csi':
      return csiIssues(path, s, version);
    case 'local':
      return localIssues(path, s);
    default:
      return undefined;
  }
}

import {
  arr,
  dnsLabelIssues,
  dnsSubdomainIssues,
  localDescendingPathIssues,
  noBackstepsIssues,
  obj,
  str,
} from './pod-spec-common';
import { fieldSelectorIssues, resourceFieldSelectorIssues, VOLUME_FIELD_PATHS } from './pod-spec-env';
import { ephemeralClaimNameIssues, ephemeralSourceIssues } from './pod-spec-ephemeral-volumes';
import { csiDriverNameIssues, inTreeSourceIssues, iscsiNameIssues } from './pod-spec-volume-sources';
import { child, duplicate, forbidden, index, invalid, notSupported, required } from '../../apimachinery/field';
import { Issue } from '../../apimachinery/issue';
import { KubernetesVersion, minorOf } from '../../apimachinery/kubernetes-versions';
import { Quantity } from '../../apimachinery/quantity';

/*
 * A pod's volumes (ValidateVolumes): DNS-label names, unique, one source each (none is defaulted to an emptyDir), and
 * the checks of the sources users write by hand: configMap, secret, projected, downwardAPI, emptyDir, hostPath,
 * persistentVolumeClaim. The other sources (CSI, cloud disks...) are counted but not checked inside.
 */

/**
 * The sources in the order validateVolumeSource counts them (measured, the same on 1.28, 1.32 and 1.36): the first
 * found is checked, each later one is forbidden.
 *
 * @internal
 */
export const VOLUME_SOURCES = [
  'emptyDir',
  'hostPath',
  'gitRepo',
  'gcePersistentDisk',
  'awsElasticBlockStore',
  'secret',
  'nfs',
  'iscsi',
  'glusterfs',
  'flocker',
  'persistentVolumeClaim',
  'rbd',
  'cinder',
  'cephfs',
  'quobyte',
  'downwardAPI',
  'fc',
  'flexVolume',
  'configMap',
  'azureFile',
  'vsphereVolume',
  'photonPersistentDisk',
  'portworxVolume',
  'azureDisk',
  'storageos',
  'projected',
  'scaleIO',
  'csi',
  'ephemeral',
  'image',
] as const;

/** Where upstream reports a source forbidden, where that is not its field's name (upstream's typos). */
const FORBIDDEN_AT: Readonly<Record<string, string>> = { cephfs: 'cephFS', downwardAPI: 'downwarAPI' };

/** @internal */
export const HOST_PATH_TYPES = [
  '',
  'BlockDevice',
  'CharDevice',
  'Directory',
  'DirectoryOrCreate',
  'File',
  'FileOrCreate',
  'Socket',
];

function modeIssues(path: string, mode: unknown): Issue[] {
  return typeof mode === 'number' && (mode < 0 || mode > 0o777)
    ? [invalid(path, mode, 'must be a number between 0 and 0777 (octal), both inclusive')]
    : [];
}

/** validateLocalNonReservedPath. */
function nonReservedPathIssues(path: string, value: string): Issue[] {
  const issues = localDescendingPathIssues(path, value);
  // reported besides a `..` element, unless that is the first (`../`)
  if (value.startsWith('..') && !value.startsWith('../')) issues.push(invalid(path, value, "must not start with '..'"));
  return issues;
}

/** validateKeyToPath. */
function keyToPathIssues(path: string, item: any): Issue[] {
  const p = str(item.path);
  return [
    ...(str(item.key) === '' ? [required(child(path, 'key'))] : []),
    ...(p === '' ? [required(child(path, 'path'))] : nonReservedPathIssues(child(path, 'path'), p)),
    ...modeIssues(child(path, 'mode'), item.mode),
  ];
}

function itemsIssues(path: string, source: any): Issue[] {
  return arr(source.items).flatMap((item, i) => keyToPathIssues(index(child(path, 'items'), i), obj(item)));
}

function downwardApiItemsIssues(path: string, source: any): Issue[] {
  // upstream reports an item's fields under the source's path, without the item's index
  return arr(source.items).flatMap((raw) => {
    const item = obj(raw);
    const p = str(item.path);
    const issues = p === '' ? [required(child(path, 'path'))] : nonReservedPathIssues(child(path, 'path'), p);
    issues.push(...modeIssues(child(path, 'mode'), item.mode));
    if (item.fieldRef != null) {
      issues.push(...fieldSelectorIssues(child(path, 'fieldRef'), obj(item.fieldRef), VOLUME_FIELD_PATHS));
      if (item.resourceFieldRef != null) {
        issues.push(invalid(path, 'resource', 'fieldRef and resourceFieldRef can not be specified simultaneously'));
      }
    } else if (item.resourceFieldRef != null) {
      issues.push(...resourceFieldSelectorIssues(child(path, 'resourceFieldRef'), obj(item.resourceFieldRef), true));
    } else {
      issues.push(required(path, 'one of fieldRef and resourceFieldRef is required'));
    }
    return issues;
  });
}

const PULL_POLICIES = ['Always', 'IfNotPresent', 'Never'];

const PROJECTION_KINDS = [
  'secret',
  'downwardAPI',
  'configMap',
  'serviceAccountToken',
  'clusterTrustBundle',
  'podCertificate',
];

function projectedIssues(path: string, source: any, version: KubernetesVersion): Issue[] {
  const issues: Issue[] = [];
  const paths = new Set<string>();
  const claim = (p: string, name: unknown) => {
    if (paths.has(p)) issues.push(invalid(path, name, 'conflicting duplicate paths'));
    paths.add(p);
  };
  arr(source.sources).forEach((raw, i) => {
    const s = obj(raw);
    const at = index(child(path, 'sources'), i);
    const kinds = PROJECTION_KINDS.filter((k) => s[k] != null);
    if (kinds.length > 1) {
      issues.push(
        forbidden(at, `may not specify more than 1 volume type${minorOf(version) >= 32 ? ' per source' : ''}`),
      );
    }
    for (const kind of ['secret', 'configMap'] as const) {
      if (s[kind] == null) continue;
      const src = obj(s[kind]);
      if (str(src.name) === '') issues.push(required(child(at, kind, 'name')));
      issues.push(...itemsIssues(child(at, kind), src));
      for (const item of arr(src.items)) claim(str(obj(item).path), src.name);
    }
    if (s.downwardAPI != null) {
      issues.push(...downwardApiItemsIssues(child(at, 'downwardAPI'), obj(s.downwardAPI)));
      for (const item of arr(obj(s.downwardAPI).items)) claim(str(obj(item).path), '');
    }
    if (s.serviceAccountToken != null) {
      const t = obj(s.serviceAccountToken);
      const seconds = t.expirationSeconds ?? 3600;
      const secondsPath = child(at, 'serviceAccountToken', 'expirationSeconds');
      if (typeof seconds === 'number' && seconds < 600) {
        issues.push(invalid(secondsPath, seconds, 'may not specify a duration less than 10 minutes'));
      } else if (typeof seconds === 'number' && seconds > 2 ** 32) {
        issues.push(invalid(secondsPath, seconds, 'may not specify a duration larger than 2^32 seconds'));
      }
      if (str(t.path) === '') issues.push(required(child(path, 'path')));
      else claim(str(t.path), t.path);
    }
  });
  return issues;
}

/**
 * ImageVolume (on by default from 1.35): measured, 1.32 drops every volume with an `image` source (whatever else it
 * has) and the containers' mounts of them (dropImageVolumes), 1.36 keeps and checks them.
 */
const imageVolumes = (version: KubernetesVersion) => minorOf(version) >= 35;
/** Where the `image` field is served but its gate off (1.31-1.34: before, the decoding refuses the field). */
const imageVolumesDropped = (version: KubernetesVersion) => minorOf(version) >= 31 && !imageVolumes(version);

/** The names of the volumes `version` drops: those with an image source, where ImageVolume is off. @internal */
export function droppedImageVolumes(volumes: unknown, version: KubernetesVersion): ReadonlySet<string> {
  if (!imageVolumesDropped(version)) return new Set();
  return new Set(
    arr(volumes)
      .filter((v) => obj(v).image != null)
      .map((v) => str(obj(v).name)),
  );
}

/**
 * validateImageVolumeSource: a reference (a Pod's only: templates may leave it out; measured on 1.36), a pull policy
 * when set.
 */
function imageIssues(path: string, s: any, pod: boolean): Issue[] {
  const issues: Issue[] = [];
  if (pod && str(s.reference) === '') issues.push(required(child(path, 'reference')));
  // defaulted when absent or empty (Always for `:latest` or no tag, else IfNotPresent)
  if (s.pullPolicy && !PULL_POLICIES.includes(s.pullPolicy)) {
    issues.push(notSupported(child(path, 'pullPolicy'), s.pullPolicy, PULL_POLICIES));
  }
  return issues;
}

/**
 * validateCSIVolumeSource: the driver's name (`csiDriverNameIssues`), the node publish secret's name (upstream
 * reports a bad one at `csi.name`, not under the reference); 1.33+ stops at an empty driver.
 */
function csiIssues(path: string, s: any, version: KubernetesVersion): Issue[] {
  const driver = str(s.driver);
  const issues = csiDriverNameIssues(child(path, 'driver'), driver, version);
  if (driver === '' && minorOf(version) >= 33) return issues;
  if (s.nodePublishSecretRef != null) {
    const name = str(obj(s.nodePublishSecretRef).name);
    if (name === '') issues.push(required(child(path, 'nodePublishSecretRef', 'name')));
    else issues.push(...dnsSubdomainIssues(child(path, 'name'), name));
  }
  return issues;
}

/** A Pod whose volumes are checked (a template has none), with the name its create validates it with. @internal */
export interface VolumesPod {
  readonly name?: string;
}

/** validateVolumeSource: the first source checked, the later ones forbidden. */
function sourceIssues(path: string, volume: any, version: KubernetesVersion, pod: VolumesPod | undefined): Issue[] {
  // `image` is a field from 1.31: 1.28's decoding refuses it, nothing else to say of it there
  const present = VOLUME_SOURCES.filter((s) => volume[s] != null && (s !== 'image' || minorOf(version) >= 31));
  const issues = present
    .slice(1)
    .map((s) => forbidden(child(path, FORBIDDEN_AT[s] ?? s), 'may not specify more than 1 volume type'));
  issues.push(...iscsiNameIssues(path, volume));
  const kind = present[0];
  // none: defaulted to an emptyDir
  return kind === undefined ? issues : [...firstSourceIssues(path, kind, volume, version, pod), ...issues];
}

function firstSourceIssues(
  path: string,
  kind: (typeof VOLUME_SOURCES)[number],
  volume: any,
  version: KubernetesVersion,
  pod: VolumesPod | undefined,
): Issue[] {
  const inTree = inTreeSourceIssues(path, kind, volume[kind]);
  if (inTree !== undefined) return inTree;
  const at = child(path, kind);
  const s = obj(volume[kind]);
  switch (kind) {
    case 'emptyDir': {
      const limit = s.sizeLimit;
      const text = typeof limit === 'number' ? String(limit) : limit;
      return typeof text === 'string' && Quantity.isValid(text) && Quantity.parse(text).sign() < 0n
        ? [forbidden(child(at, 'sizeLimit'), 'SizeLimit field must be a valid resource quantity')]
        : [];
    }
    case 'hostPath': {
      const p = str(s.path);
      return [
        ...(p === '' ? [required(child(at, 'path'))] : noBackstepsIssues(child(at, 'path'), p)),
        ...(s.type != null && !HOST_PATH_TYPES.includes(s.type)
          ? [notSupported(child(at, 'type'), s.type, HOST_PATH_TYPES)]
          : []),
      ];
    }
    case 'secret':
      return [
        ...(str(s.secretName) === '' ? [required(child(at, 'secretName'))] : []),
        ...modeIssues(child(at, 'defaultMode'), s.defaultMode),
        ...itemsIssues(at, s),
      ];
    case 'configMap':
      return [
        ...(str(s.name) === '' ? [required(child(at, 'name'))] : []),
        ...modeIssues(child(at, 'defaultMode'), s.defaultMode),
        ...itemsIssues(at, s),
      ];
    case 'persistentVolumeClaim':
      return str(s.claimName) === '' ? [required(child(at, 'claimName'))] : [];
    case 'downwardAPI':
      return [...modeIssues(child(at, 'defaultMode'), s.defaultMode), ...downwardApiItemsIssues(at, s)];
    case 'projected':
      return [...modeIssues(child(at, 'defaultMode'), s.defaultMode), ...projectedIssues(at, s, version)];
    case 'image':
      return imageIssues(at, s, pod !== undefined);
    case 'csi':
      return csiIssues(at, s, version);
    case 'ephemeral':
      return [
        ...ephemeralSourceIssues(at, volume[kind], version),
        ...ephemeralClaimNameIssues(path, str(volume.name), pod?.name),
      ];
    default:
      return [];
  }
}

/**
 * ValidateVolumes at `path` (`spec.volumes`), and the volumes a mount may name: only those without errors, as
 * upstream (a mount of a refused volume is also `Not found`). The image volumes `version` drops are left out (the
 * others' indices as the apiserver's then). `pod`: a Pod's, not a template's.
 *
 * @internal
 */
export function volumesIssues(
  path: string,
  volumes: unknown,
  version: KubernetesVersion,
  pod?: VolumesPod,
): { issues: Issue[]; valid: Map<string, any> } {
  const issues: Issue[] = [];
  const valid = new Map<string, any>();
  const seen = new Set<string>();
  const kept = imageVolumesDropped(version) ? arr(volumes).filter((v) => obj(v).image == null) : arr(volumes);
  kept.forEach((raw, i) => {
    const v = obj(raw);
    const at = index(path, i);
    const name = str(v.name);
    const own = [
      ...sourceIssues(at, v, version, pod),
      ...(name === '' ? [required(child(at, 'name'))] : dnsLabelIssues(child(at, 'name'), name)),
      ...(seen.has(name) ? [duplicate(child(at, 'name'), name)] : []),
    ];
    if (own.length === 0) {
      seen.add(name);
      valid.set(name, v);
    }
    issues.push(...own);
  });
  return { issues, valid };
}

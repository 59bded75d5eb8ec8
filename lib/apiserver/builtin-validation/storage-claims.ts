import { canonicalQuantity, quantityText } from './resource-policy-quantity';
import { invalidValue, isRecord, stringsOf, unsupportedValue } from './services-field-errors';
import { child, forbidden, key, required } from '../../apimachinery/field';
import { Issue } from '../../apimachinery/issue';
import { KubernetesVersion, minorOf } from '../../apimachinery/kubernetes-versions';
import { labelSelectorIssues } from '../../apimachinery/label-selector';
import { isDns1123Label, isDns1123Subdomain } from '../../apimachinery/names';
import { Quantity } from '../../apimachinery/quantity';

/*
 * A v1 PersistentVolumeClaim's spec as the apiserver checks it on create (pkg/apis/core/validation's
 * ValidatePersistentVolumeClaimSpec), after its defaults and PrepareForCreate: volumeMode defaults to Filesystem,
 * a `dataSource` other than a claim or a VolumeSnapshot is dropped, and so is a `dataSourceRef` with a namespace
 * (DropDisabledFields: CrossNamespaceVolumeDataSource is an alpha gate; measured: a bad kind beside a namespace is
 * accepted by 1.28, 1.32 and 1.36), and a dataSource without dataSourceRef (or the reverse) is copied into the other
 * (NormalizeDataSources, AnyVolumeDataSource on since 1.24), so a bad one is reported at both paths, as the server
 * does. A StatefulSet's claim template is checked as it is written, none of that done. Measured on 1.28, 1.32 and
 * 1.36 (storage-differential.test.ts, workloads-differential.test.ts).
 */

/** supportedAccessModes, in the sorted order NotSupported lists them. */
const ACCESS_MODES = ['ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOnce', 'ReadWriteOncePod'] as const;
/** supportedVolumeModes. */
const VOLUME_MODES = ['Block', 'Filesystem'] as const;

/**
 * Whether `volumeAttributesClassName` is validated (a claim's, a volume's): the VolumeAttributesClass gate is on by
 * default from 1.34 (GA); before, the field is dropped (1.29 to 1.33: alpha then beta off by default; 1.28 lacks it,
 * a decoding error).
 *
 * @internal
 */
export const checksVolumeAttributesClass = (version: KubernetesVersion) => minorOf(version) >= 34;

/**
 * ValidatePersistentVolumeClaimSpec of the spec at `path`: a claim's `spec` as its PrepareForCreate leaves it, or
 * (`template`) a StatefulSet claim template's `spec` as written.
 *
 * @internal
 */
export function claimSpecIssues(
  value: unknown,
  path: string,
  version: KubernetesVersion,
  opts: { readonly template?: boolean } = {},
): Issue[] {
  const spec = isRecord(value) ? value : {};
  const issues: Issue[] = [];
  const modesPath = child(path, 'accessModes');
  const modes = stringsOf(spec.accessModes);
  if (modes.length === 0) issues.push(required(modesPath, 'at least 1 access mode is required'));
  if (isRecord(spec.selector)) issues.push(...labelSelectorIssues(spec.selector, child(path, 'selector'), version));
  const supported = (m: unknown) => (ACCESS_MODES as readonly unknown[]).includes(m);
  for (const mode of modes) {
    if (!supported(mode)) issues.push(unsupportedValue(modesPath, mode, ACCESS_MODES, version));
  }
  if (modes.includes('ReadWriteOncePod') && modes.some((m) => m !== 'ReadWriteOncePod' && supported(m))) {
    issues.push(forbidden(modesPath, 'may not use ReadWriteOncePod with other access modes'));
  }
  issues.push(...storageRequestIssues(spec, key(child(path, 'resources'), 'storage'), version));
  const className = spec.storageClassName;
  if (typeof className === 'string' && className !== '') {
    issues.push(...invalidValue(child(path, 'storageClassName'), className, isDns1123Subdomain(className), version));
  }
  const volumeMode = spec.volumeMode ?? 'Filesystem';
  if (!(VOLUME_MODES as readonly unknown[]).includes(volumeMode)) {
    issues.push(unsupportedValue(child(path, 'volumeMode'), volumeMode, VOLUME_MODES, version));
  }
  issues.push(...dataSourcesIssues(spec, path, version, !opts.template));
  const attributesClass = spec.volumeAttributesClassName;
  if (checksVolumeAttributesClass(version) && typeof attributesClass === 'string' && attributesClass !== '') {
    issues.push(
      ...invalidValue(
        child(path, 'volumeAttributesClassName'),
        attributesClass,
        isDns1123Subdomain(attributesClass),
        version,
      ),
    );
  }
  return issues;
}

/** The storage request: required, then ValidatePositiveQuantityValue (its canonical text in the message). */
function storageRequestIssues(spec: Record<string, any>, path: string, version: KubernetesVersion): Issue[] {
  const requests = isRecord(spec.resources) && isRecord(spec.resources.requests) ? spec.resources.requests : {};
  if (requests.storage === undefined || requests.storage === null) return [required(path)];
  const text = quantityText(requests.storage);
  if (text === undefined || Quantity.parse(text).sign() > 0n) return [];
  return invalidValue(path, canonicalQuantity(text), ['must be greater than zero'], version);
}

type Reference = Record<string, any>;

/**
 * EnforceDataSourceBackwardsCompatibility: `dataSource` keeps only a claim or a VolumeSnapshot (others belong in
 * `dataSourceRef`); any other is dropped before validation (measured: accepted).
 */
function keptDataSource(source: Reference): boolean {
  const group = typeof source.apiGroup === 'string' ? source.apiGroup : '';
  return (
    (source.kind === 'PersistentVolumeClaim' && group === '') ||
    (source.kind === 'VolumeSnapshot' && group === 'snapshot.storage.k8s.io')
  );
}

/**
 * validateDataSource and validateDataSourceRef, then their agreement, on the references as the claim's PrepareForCreate
 * leaves them (`prepared`: EnforceDataSourceBackwardsCompatibility, DropDisabledFields, NormalizeDataSources) or as
 * written (a claim template: measured on 1.36, a bad dataSourceRef reported alone, its namespace a DNS label, and a
 * dataSource beside a dataSourceRef with a namespace refused).
 */
function dataSourcesIssues(
  spec: Record<string, any>,
  path: string,
  version: KubernetesVersion,
  prepared: boolean,
): Issue[] {
  let source: Reference | undefined = isRecord(spec.dataSource) ? spec.dataSource : undefined;
  let ref: Reference | undefined = isRecord(spec.dataSourceRef) ? spec.dataSourceRef : undefined;
  if (prepared) {
    if (source && !keptDataSource(source)) source = undefined;
    if (ref && namespaceOf(ref) !== '') ref = undefined;
    if (source && !ref) ref = source;
    else if (ref && !source) source = ref;
  }
  const issues: Issue[] = [];
  if (source) issues.push(...referenceIssues(source, child(path, 'dataSource'), version));
  if (ref) {
    issues.push(...referenceIssues(ref, child(path, 'dataSourceRef'), version));
    const namespace = namespaceOf(ref);
    if (namespace !== '') {
      issues.push(
        ...invalidValue(child(path, 'dataSourceRef', 'namespace'), namespace, isDns1123Label(namespace), version),
      );
    }
  }
  // the value is a *field.Path, which the apiserver prints as a Go struct (with a pointer before 1.34)
  const pathValue = (detail: string): Issue => ({
    path,
    message: `Invalid value: ${shownPath(version)}: ${detail}`,
    value: source,
  });
  if (source && ref && namespaceOf(ref) !== '') {
    issues.push(pathValue('may not be specified when dataSourceRef.namespace is specified'));
  } else if (source && ref && !sameReference(source, ref)) {
    issues.push(pathValue('must match dataSourceRef'));
  }
  return issues;
}

function namespaceOf(ref: Reference): string {
  return typeof ref.namespace === 'string' ? ref.namespace : '';
}

function shownPath(version: KubernetesVersion): string {
  return minorOf(version) >= 34 ? '{}' : 'field.Path{…}';
}

function referenceIssues(reference: Reference, path: string, version: KubernetesVersion): Issue[] {
  const issues: Issue[] = [];
  const str = (v: unknown) => (typeof v === 'string' ? v : '');
  if (str(reference.name) === '') issues.push(required(child(path, 'name')));
  const kind = str(reference.kind);
  if (kind === '') issues.push(required(child(path, 'kind')));
  const apiGroup = str(reference.apiGroup);
  if (apiGroup === '' && kind !== 'PersistentVolumeClaim') {
    issues.push(
      ...invalidValue(path, kind, ["must be 'PersistentVolumeClaim' when referencing the default apiGroup"], version),
    );
  }
  // the API group's check came with kubernetes/kubernetes#119091 (1.29; measured: absent on 1.28)
  if (apiGroup !== '' && minorOf(version) >= 29) {
    issues.push(...invalidValue(child(path, 'apiGroup'), apiGroup, isDns1123Subdomain(apiGroup), version));
  }
  return issues;
}

/** isDataSourceEqualDataSourceRef: the same API group (both unset alike), kind and name. */
function sameReference(a: Reference, b: Reference): boolean {
  const group = (r: Reference) => (typeof r.apiGroup === 'string' ? r.apiGroup : undefined);
  return group(a) === group(b) && (a.kind ?? '') === (b.kind ?? '') && (a.name ?? '') === (b.name ?? '');
}

/** ValidatePersistentVolumeClaim (the name is object-meta's). @internal */
export function persistentVolumeClaimIssues(object: any, version: KubernetesVersion): Issue[] {
  return claimSpecIssues(object?.spec, 'spec', version);
}

import {
  duplicateValue,
  invalidValue,
  isRecord,
  recordsOf,
  stringsOf,
  unsupportedValue,
} from './services-field-errors';
import { child, index, required } from '../../apimachinery/field';
import { tooLongBytes } from '../../apimachinery/field-error-details';
import { Issue } from '../../apimachinery/issue';
import { KubernetesVersion } from '../../apimachinery/kubernetes-versions';
import { isQualifiedName } from '../../apimachinery/names';

/*
 * A storage.k8s.io/v1 StorageClass as the apiserver checks it on create (pkg/apis/storage/validation's
 * ValidateStorageClass), after its defaults (reclaimPolicy Delete, volumeBindingMode Immediate, so neither is ever
 * missing). Measured on 1.28, 1.32 and 1.36 (storage-differential.test.ts).
 */

const RECLAIM_POLICIES = ['Delete', 'Retain'] as const;
const BINDING_MODES = ['Immediate', 'WaitForFirstConsumer'] as const;
const MAX_PARAMETERS = 512;
const MAX_PARAMETERS_SIZE = 256 * 1024;

/** validateProvisioner: required, and a qualified name once lower-cased. @internal */
export function provisionerIssues(value: unknown, path: string, version: KubernetesVersion): Issue[] {
  const provisioner = typeof value === 'string' ? value : '';
  if (provisioner === '') return [{ path, message: 'Required value' }];
  const lowered = provisioner.toLowerCase();
  return invalidValue(path, lowered, isQualifiedName(lowered, version), version);
}

/** validateParameters (allowEmpty): at most 512 entries, no empty key, 256 KiB of keys and values. */
function parametersIssues(value: unknown, version: KubernetesVersion): Issue[] {
  const params = isRecord(value) ? value : {};
  const entries = Object.entries(params);
  if (entries.length > MAX_PARAMETERS) return [{ path: 'parameters', message: tooLongBytes(MAX_PARAMETERS, version) }]; // TooLong's words, for a count
  const issues: Issue[] = [];
  let size = 0;
  for (const [k, v] of entries) {
    if (k.length < 1) issues.push(...invalidValue('parameters', k, ['field can not be empty.'], version));
    size += Buffer.byteLength(k) + Buffer.byteLength(typeof v === 'string' ? v : '');
  }
  if (size > MAX_PARAMETERS_SIZE) {
    issues.push({ path: 'parameters', message: tooLongBytes(MAX_PARAMETERS_SIZE, version) });
  }
  return issues;
}

/**
 * validateAllowedTopologies: each term's label requirements (ValidateTopologySelectorTerm), and no two terms alike.
 * Upstream compares each term with a list that starts with as many empty placeholders as there are terms, and an
 * empty term equals them (Semantic.DeepEqual: an empty map is a nil one), so a term without requirements is a
 * duplicate.
 */
function allowedTopologiesIssues(value: unknown, version: KubernetesVersion): Issue[] {
  const terms = recordsOf(value);
  const issues: Issue[] = [];
  const seen: Map<string, readonly string[]>[] = [];
  terms.forEach((term, i) => {
    const at = index('allowedTopologies', i);
    const expressions = new Map<string, readonly string[]>();
    recordsOf(term.matchLabelExpressions).forEach((e, j) => {
      const ePath = index(child(at, 'matchLabelExpressions'), j);
      const values = stringsOf(e.values).map(String);
      if (values.length === 0) issues.push(required(child(ePath, 'values')));
      values.forEach((v, k) => {
        if (values.indexOf(v) < k) issues.push(duplicateValue(index(child(ePath, 'values'), k), v, version));
      });
      const k = typeof e.key === 'string' ? e.key : '';
      issues.push(...invalidValue(child(ePath, 'key'), k, isQualifiedName(k, version), version));
      if (expressions.has(k)) issues.push(duplicateValue(child(ePath, 'key'), k, version));
      expressions.set(k, [...new Set(values)].sort());
    });
    if (expressions.size === 0 || seen.some((s) => sameTerm(s, expressions))) {
      issues.push(duplicateValue(child(at, 'matchLabelExpressions'), '', version));
    }
    seen.push(expressions);
  });
  return issues;
}

function sameTerm(a: Map<string, readonly string[]>, b: Map<string, readonly string[]>): boolean {
  if (a.size !== b.size) return false;
  return [...a].every(([k, v]) => {
    const w = b.get(k);
    return w !== undefined && w.length === v.length && w.every((x, i) => x === v[i]);
  });
}

function storageClassIssues(object: any, version: KubernetesVersion): Issue[] {
  const o = isRecord(object) ? object : {};
  const issues = [
    ...provisionerIssues(o.provisioner, 'provisioner', version),
    ...parametersIssues(o.parameters, version),
  ];
  const reclaimPolicy = o.reclaimPolicy ?? 'Delete';
  if (reclaimPolicy !== '' && !(RECLAIM_POLICIES as readonly unknown[]).includes(reclaimPolicy)) {
    issues.push(unsupportedValue('reclaimPolicy', reclaimPolicy, RECLAIM_POLICIES, version));
  }
  const bindingMode = o.volumeBindingMode ?? 'Immediate';
  if (!(BINDING_MODES as readonly unknown[]).includes(bindingMode)) {
    issues.push(unsupportedValue('volumeBindingMode', bindingMode, BINDING_MODES, version));
  }
  issues.push(...allowedTopologiesIssues(o.allowedTopologies, version));
  return issues;
}

/** @internal */
export const STORAGE_CLASS_VALIDATORS = {
  'storage.k8s.io/v1/StorageClass': storageClassIssues,
} as const;

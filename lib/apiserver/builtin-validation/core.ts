import { configMapIssues, secretIssues } from './core-data';
import { BuiltinValidator, BuiltinValidators } from './validator';
import { invalid } from '../../apimachinery/field';
import { fieldValue } from '../../apimachinery/field-value';
import { Issue } from '../../apimachinery/issue';
import { isQualifiedName } from '../../apimachinery/names';

/** The Kubernetes finalizer names core accepts without a `/` (helper.IsStandardFinalizerName). */
const STANDARD_FINALIZERS: ReadonlySet<string> = new Set(['kubernetes', 'orphan', 'foregroundDeletion']);

/** A Namespace's spec.finalizers: qualified names, standard or fully qualified (ValidateNamespace). */
const namespaceIssues: BuiltinValidator = (object, version) => {
  const finalizers = object.spec?.finalizers;
  if (!Array.isArray(finalizers)) return [];
  const path = 'spec.finalizers';
  const issues: Issue[] = [];
  for (const f of finalizers) {
    if (typeof f !== 'string') continue;
    issues.push(...isQualifiedName(f, version).map((m) => invalid(path, f, `${fieldValue(f, version)}: ${m}`)));
    if (!f.includes('/') && !STANDARD_FINALIZERS.has(f)) {
      issues.push(
        invalid(
          path,
          f,
          `${fieldValue(f, version)}: name is neither a standard finalizer name nor is it fully qualified`,
        ),
      );
    }
  }
  return issues;
};

/** @internal */
export const CORE_VALIDATORS: BuiltinValidators = {
  'v1/ConfigMap': configMapIssues,
  'v1/Secret': secretIssues,
  'v1/Namespace': namespaceIssues,
};

/** The CustomResourceDefinition strategy: validation, defaulted names, status conditions and storedVersions. */
import { isProtectedGroup } from '../../lib/apiserver/crd-validation/crd-names';
import { validateCrdManifest } from '../../lib/apiserver/crd-validation/validate-crd';
import { issueToCause } from './cr-validation';
import { nowTimestamp } from './json-util';
import { invalid } from './status';

/** CRD strategy: validation (lib/validation/validate-crd), defaulted names, conditions, storedVersions. */
export function prepareCrd(crd: any, warnings: string[]): void {
  const spec = crd.spec ?? {};
  const names = spec.names ?? {};
  const issues = validateCrdManifest(crd);
  const errors = issues.filter((i) => (i.severity ?? 'error') === 'error');
  warnings.push(...issues.filter((i) => i.severity === 'warning').map((i) => `${i.path}: ${i.message}`));
  if (errors.length) {
    throw invalid({ group: 'apiextensions.k8s.io', plural: 'customresourcedefinitions', kind: 'CustomResourceDefinition' }, crd.metadata.name,
      errors.map(issueToCause));
  }
  const versions: any[] = spec.versions ?? [];
  names.singular = names.singular ?? String(names.kind).toLowerCase();
  names.listKind = names.listKind ?? `${names.kind}List`;
  spec.conversion = spec.conversion ?? { strategy: 'None' };
  const now = nowTimestamp();
  const storage = versions.find((v) => v.storage)?.name;
  const prior: string[] = crd.status?.storedVersions ?? [];
  crd.status = {
    acceptedNames: { kind: names.kind, listKind: names.listKind, plural: names.plural, singular: names.singular, ...(names.shortNames ? { shortNames: names.shortNames } : {}), ...(names.categories ? { categories: names.categories } : {}) },
    conditions: [
      { type: 'NamesAccepted', status: 'True', lastTransitionTime: now, reason: 'NoConflicts', message: 'no conflicts found' },
      { type: 'Established', status: 'True', lastTransitionTime: now, reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' },
    ],
    storedVersions: prior.includes(storage) ? prior : [...prior, storage],
  };
  const approval = crd.metadata.annotations?.['api-approved.kubernetes.io'];
  if (isProtectedGroup(spec.group)) {
    const unapproved = String(approval).startsWith('unapproved');
    crd.status.conditions.push({
      type: 'KubernetesAPIApprovalPolicyConformant', status: unapproved ? 'False' : 'True', lastTransitionTime: now,
      reason: unapproved ? 'UnapprovedAnnotation' : 'ApprovedAnnotation',
      message: unapproved ? `not approved: ${JSON.stringify(approval)}` : `approved in ${approval}`,
    });
  }
}

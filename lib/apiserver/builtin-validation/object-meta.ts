import { apiServiceNameCheck } from './apiregistration-api-service';
import { nameCheckOf } from './object-meta-names';
import { finalizerIssues, generationIssues, ownerReferenceIssues } from './object-meta-references';
import { forbidden, invalid, warning } from '../../apimachinery/field';
import { fieldValue } from '../../apimachinery/field-value';
import { Issue } from '../../apimachinery/issue';
import { isObject } from '../../apimachinery/json';
import { knownKind, splitApiVersion } from '../../apimachinery/kinds';
import { KubernetesVersion } from '../../apimachinery/kubernetes-versions';
import { isValidLabelValue } from '../../apimachinery/names';
import { checkObjectMeta } from '../value-validation/object-meta';

/** Built-in kinds the kinds table does not name, with their scope (`namespaced`). */
const MORE_SCOPES: Readonly<Record<string, boolean>> = {
  'node.k8s.io/RuntimeClass': false,
  'storage.k8s.io/CSIDriver': false,
  'admissionregistration.k8s.io/ValidatingAdmissionPolicy': false,
  'admissionregistration.k8s.io/ValidatingAdmissionPolicyBinding': false,
  'flowcontrol.apiserver.k8s.io/FlowSchema': false,
  'flowcontrol.apiserver.k8s.io/PriorityLevelConfiguration': false,
};

/** The PriorityClasses the apiserver creates itself: the only names with the reserved `system-` prefix. */
const SYSTEM_PRIORITY_CLASSES: ReadonlySet<string> = new Set(['system-cluster-critical', 'system-node-critical']);

/**
 * The apiserver's ObjectMeta checks of a built-in object on create (ValidateObjectMeta with the kind's name function,
 * and the Kubernetes finalizer names): name (or generateName) as its kind requires, namespace, labels, annotations,
 * finalizers, owner references. Custom resources' `checkObjectMeta` makes the checks both share. Measured on 1.28,
 * 1.32 and 1.36 (test/apiserver/builtin-validation/object-meta-differential.test.ts).
 *
 * @internal
 */
export function builtinObjectMetaIssues(object: any, version: KubernetesVersion): Issue[] {
  const meta = object?.metadata ?? {};
  if (!isObject(meta)) return []; // what decoding refuses
  const { group, version: resourceVersion } = splitApiVersion(String(object.apiVersion ?? ''));
  const kind = String(object.kind ?? '');
  const namespaced = knownKind(group, kind)?.namespaced ?? MORE_SCOPES[`${group}/${kind}`];
  const issues: Issue[] = [];
  const { namespace, ...withoutNamespace } = meta as Record<string, unknown>;
  if (namespaced === false && namespace !== undefined && namespace !== '') {
    // measured on 1.28, 1.32 and 1.36: the create of a cluster-scoped object carries no namespace in its path, and the
    // apiserver clears the body's (EnsureObjectNamespaceMatchesRequestNamespace), whatever its value: not an error
    issues.push(
      warning({
        path: 'metadata.namespace',
        message: `ignored: ${kind} is cluster-scoped, so the apiserver stores it without a namespace (remove the namespace)`,
        value: namespace,
      }),
    );
  }
  // a namespace of a namespaced kind must be a DNS-1123 label (the apiserver answers `namespaces "Bad_NS" not found`
  // first, as no such namespace can exist); a missing one is the current namespace of kubectl
  let checked = namespaced === true ? meta : withoutNamespace;
  // a LimitRange without a name is given a UUID (its strategy's PrepareForCreate, measured on 1.28, 1.32 and 1.36)
  if (group === '' && kind === 'LimitRange' && !meta.name && !meta.generateName) {
    checked = { ...checked, name: '00000000-0000-0000-0000-000000000000' };
  }
  // an APIService's name function depends on its spec (apiServiceNameCheck)
  const nameCheck =
    group === 'apiregistration.k8s.io' && kind === 'APIService'
      ? apiServiceNameCheck(object)
      : nameCheckOf(group, kind, version);
  issues.push(
    ...checkObjectMeta(checked, 'Namespaced', kind, undefined, {
      kubernetesVersion: version,
      resourceVersion,
      nameCheck,
    }),
    ...finalizerIssues(meta.finalizers, version, `${group}/${kind}`),
    ...ownerReferenceIssues(meta.ownerReferences, version),
    ...generationIssues(meta.generation, version, `${group}/${kind}`),
    ...kindNameIssues(group, kind, meta.name, version),
  );
  return issues;
}

/** What a kind requires of its name beyond its name function. */
function kindNameIssues(group: string, kind: string, name: unknown, version: KubernetesVersion): Issue[] {
  if (typeof name !== 'string' || name === '') return [];
  if (group === '' && kind === 'Namespace') {
    // the apiserver labels every namespace `kubernetes.io/metadata.name: <name>` before validating it
    return isValidLabelValue(name, version).map((m) =>
      invalid('metadata.labels', name, `${fieldValue(name, version)}: ${m}`),
    );
  }
  if (group === 'scheduling.k8s.io' && kind === 'PriorityClass' && name.startsWith('system-')) {
    if (SYSTEM_PRIORITY_CLASSES.has(name)) return [];
    return [
      {
        ...forbidden(
          'metadata.name',
          `priority class names with 'system-' prefix are reserved for system use only. error: ${name} is not a known system priority class`,
        ),
        value: name,
      },
    ];
  }
  return [];
}

import { compileAdmissionExpression, resultTypeName } from './compile';
import {
  MutatingAdmissionPolicyBindingManifest,
  MutatingAdmissionPolicyManifest,
  MutationSpec,
} from './mutating-policy-manifest';
import { mutationStructs } from './mutation-types';
import { PolicyVariables } from './policy-environment';
import { MatchResourcesSpec } from './policy-manifest';
import {
  compileVariables,
  invalid,
  matchResources,
  notSupported,
  objectMetaName,
  paramRef,
  policyHeadIssues,
  programFailed,
  required,
} from './validate-policy';
import { Issue } from '../../apimachinery/issue';
import { DEFAULT_KUBERNETES_VERSION, KubernetesVersion } from '../../apimachinery/kubernetes-versions';
import { isDns1123Subdomain } from '../../apimachinery/names';
import { CelType, DYN } from '../cel/cel-types';

/**
 * What kube-apiserver 1.36 refuses when a MutatingAdmissionPolicy is created (`ValidateMutatingAdmissionPolicy`, after
 * defaulting), measured on v1.36.3 (test/apiserver/admission-policy/mutating-corpus.test.ts): every message is the
 * `details.causes[].message` the server answers with, on the same field. Expressions are compiled as for a validating
 * policy (`object`, `oldObject`, `params` dyn) with the mutation types: every `Object…` type is open at create (the
 * server does not know the matched kinds: `Object.spec{replicaz: 'x'}` is accepted), `JSONPatch` is typed. An apply
 * configuration must evaluate to `Object`, a JSON patch to `list(JSONPatch)` (an empty `[]` is `list(dyn)`: refused).
 */
export function validateMutatingPolicyManifest(
  policy: MutatingAdmissionPolicyManifest,
  version: KubernetesVersion = DEFAULT_KUBERNETES_VERSION,
): Issue[] {
  const spec = policy.spec ?? {};
  const issues = policyHeadIssues(policy, version, mutatingMatchResources);
  const hasParams = spec.paramKind !== undefined;
  const environment = (variables: CelType | undefined): PolicyVariables => ({
    object: DYN,
    params: hasParams ? DYN : undefined,
    authorizer: true,
    requestResource: true,
    structs: mutationStructs(),
    variables,
  });
  const variablesType = compileVariables(spec.variables ?? [], environment, version, issues);
  const vars = () => environment(variablesType());

  const mutations = spec.mutations ?? [];
  if (mutations.length === 0) issues.push(required('spec.mutations', 'mutations must contain at least one item'));
  mutations.forEach((m, i) => issues.push(...mutation(m, `spec.mutations[${i}]`, vars(), version)));
  if (spec.reinvocationPolicy === undefined || spec.reinvocationPolicy === '') {
    issues.push(required('spec.reinvocationPolicy'));
  } else if (!REINVOCATION_POLICIES.includes(spec.reinvocationPolicy)) {
    issues.push(notSupported('spec.reinvocationPolicy', spec.reinvocationPolicy, REINVOCATION_POLICIES));
  }
  return issues;
}

/** What kube-apiserver 1.36 refuses when a MutatingAdmissionPolicyBinding is created. */
export function validateMutatingBindingManifest(
  binding: MutatingAdmissionPolicyBindingManifest,
  version: KubernetesVersion = DEFAULT_KUBERNETES_VERSION,
): Issue[] {
  const issues: Issue[] = [];
  const spec = binding.spec ?? {};
  issues.push(...objectMetaName(binding.metadata?.name));
  if (!spec.policyName) issues.push(required('spec.policyName'));
  else for (const e of isDns1123Subdomain(spec.policyName)) issues.push(invalid('spec.policyName', spec.policyName, e));
  if (spec.paramRef) issues.push(...paramRef(spec.paramRef, 'spec.paramRef', version));
  if (spec.matchResources) issues.push(...mutatingMatchResources(spec.matchResources, 'spec.matchResources', version));
  return issues;
}

const REINVOCATION_POLICIES = ['IfNeeded', 'Never'];
const PATCH_TYPES = ['ApplyConfiguration', 'JSONPatch'];
/**
 * What a mutating policy may match: not DELETE, and an operation outside these is refused a second time here
 * (measured: the refusal names the rules' `operations` without an index, after the rule's own check).
 */
const MUTATING_OPERATIONS = ['*', 'CONNECT', 'CREATE', 'UPDATE'];

function mutatingMatchResources(m: MatchResourcesSpec, path: string, version: KubernetesVersion): Issue[] {
  const issues = matchResources(m, path, version);
  for (const r of m.resourceRules ?? []) {
    for (const o of r.operations ?? []) {
      if (!MUTATING_OPERATIONS.includes(o)) {
        issues.push(notSupported(`${path}.resourceRules.operations`, o, MUTATING_OPERATIONS));
      }
    }
  }
  return issues;
}

/** One mutation: its patch type, the expression that type needs (first), then the other one's field, forbidden. */
function mutation(m: MutationSpec, path: string, vars: PolicyVariables, version: KubernetesVersion): Issue[] {
  const issues: Issue[] = [];
  if (!m.patchType) return [required(`${path}.patchType`)];
  if (!PATCH_TYPES.includes(m.patchType)) return [notSupported(`${path}.patchType`, m.patchType, PATCH_TYPES)];
  const applyConfiguration = m.patchType === 'ApplyConfiguration';
  const [field, other] = applyConfiguration
    ? (['applyConfiguration', 'jsonPatch'] as const)
    : (['jsonPatch', 'applyConfiguration'] as const);
  const given = m[field];
  if (!given) {
    issues.push(required(`${path}.${field}`, `must be specified when patchType is ${m.patchType}`));
  } else if (!given.expression || given.expression.trim() === '') {
    issues.push(required(`${path}.${field}.expression`));
  } else {
    const at = `${path}.${field}.expression`;
    const c = compileAdmissionExpression(given.expression, vars, version);
    if (c.errorText) {
      issues.push(invalid(at, given.expression, `compilation failed: ${c.errorText}`));
    } else if (
      applyConfiguration
        ? !isNamedObject(c.type, 'Object')
        : !(c.type.kind === 'list' && isNamedObject(c.type.elem, 'JSONPatch'))
    ) {
      issues.push(
        invalid(
          at,
          given.expression,
          `must evaluate to ${applyConfiguration ? 'Object' : 'list(JSONPatch)'} but got ${resultTypeName(c.type)}`,
        ),
      );
    } else if (c.programError) {
      issues.push(programFailed(at, c.programError));
    }
  }
  if (m[other]) {
    issues.push({
      path: `${path}.${other}`,
      message: `Invalid value: "{${other}}": must not be specified when patchType is ${m.patchType}`,
    });
  }
  return issues;
}

function isNamedObject(t: CelType, name: string): boolean {
  return t.kind === 'object' && t.name === name;
}

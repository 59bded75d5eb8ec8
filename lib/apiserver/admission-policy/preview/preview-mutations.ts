import {
  applyConfigurationErrors,
  customResourceMergeSchema,
  mergeApplyConfiguration,
  pruneUndeclared,
} from './apply-configuration';
import { evaluateAdmissionExpression } from './evaluate-mutation';
import { applyJsonPatch, JsonPatchOperation } from './json-patch';
import { KubernetesVersion } from '../../../apimachinery/kubernetes-versions';
import { toCelValue } from '../../cel/evaluate';
import { JSONSchemaProps } from '../../schema/json-schema-props';
import { applyDefaults } from '../../value-validation/value-defaults';
import { MutatingAdmissionPolicyManifest } from '../mutating-policy-manifest';
import {
  LabelSelectorSpec,
  MatchResourcesSpec,
  NamedRuleWithOperationsSpec,
  ParamKindSpec,
  ParamRefSpec,
} from '../policy-manifest';

/** A custom resource as it reaches mutating admission on create (decoded: pruned, defaults applied). */
export interface MutationTarget {
  readonly object: Record<string, unknown>;
  /** The version's `openAPIV3Schema`. */
  readonly schema: JSONSchemaProps;
  /** The resource the object is created as (`plural`). */
  readonly resource: { readonly group: string; readonly version: string; readonly resource: string };
  readonly kind: string;
  readonly namespaced: boolean;
  /**
   * The Namespace object the resource is created in (its labels for a `namespaceSelector`, the whole object as
   * `namespaceObject`). @default - unknown: a policy that reads it is `undecided`
   */
  readonly namespace?: Record<string, unknown>;
  /** Whether `namespace` is an assumption (then a `namespaceSelector` is not decided by it). @default false */
  readonly namespaceAssumed?: boolean;
}

/** What a policy does to one object on create, as far as synth can tell. */
export type MutationPreview =
  | { readonly outcome: 'not-matched' }
  /** The outcome depends on the cluster (namespace labels, the requesting user, params, the authorizer). */
  | { readonly outcome: 'undecided'; readonly reason: string }
  /**
   * The mutations ran: the object as the apiserver then stores it (undeclared fields pruned, defaults applied), the
   * fields a mutation set that the apiserver drops, and the errors that make admission fail (`failurePolicy: Fail`)
   * or skip the policy (`Ignore`).
   */
  | {
      readonly outcome: 'mutated';
      readonly object: Record<string, unknown>;
      readonly dropped: readonly string[];
      readonly errors: ReadonlyArray<{ readonly path: string; readonly message: string }>;
    };

/** What the preview cannot know at synth (a reference to one makes it `undecided`): the requester, the authorizer,
 * and the params and the namespace unless they are given. */
function clusterInputs(knowsParams: boolean, knowsNamespace: boolean): RegExp {
  const names = ['authorizer', ...(knowsParams ? [] : ['params']), ...(knowsNamespace ? [] : ['namespaceObject'])];
  return new RegExp(`\\b(${names.join('|')})\\b|\\brequest\\s*\\.\\s*userInfo\\b`);
}

/** What one binding adds to the preview of its policy. */
export interface PreviewBinding {
  /** The binding's matchResources: it mutates only what both it and the policy match. @default - no narrowing */
  readonly matchResources?: MatchResourcesSpec;
  /**
   * The object `params` is in the expressions (`null`: the policy has no paramKind or the binding no paramRef).
   * @default - unknown: a policy that reads `params` is `undecided`
   */
  readonly params?: Record<string, unknown> | null;
}

/**
 * The policy's mutations applied to `target` on create as kube-apiserver does with the policy bound (by default one
 * binding with no matchResources and unknown params; `binding` gives its matchResources and params): the match
 * constraints (rules, object selector; a namespace selector depends on
 * the cluster), the match conditions, the variables, then each mutation in order on the result of the one before
 * (an apply configuration merged by structured-merge-diff's rules, a JSON patch applied).
 */
export function previewMutations(
  policy: MutatingAdmissionPolicyManifest,
  target: MutationTarget,
  version: KubernetesVersion,
  binding: PreviewBinding = {},
): MutationPreview {
  const spec = policy.spec ?? {};
  const match = matches(spec.matchConstraints, target);
  if (match !== true) return match;
  // a binding's matchResources with no resourceRules narrows by its selectors only (upstream's generic Matcher)
  const narrowed = binding.matchResources ? matches(binding.matchResources, target, true) : true;
  if (narrowed !== true) return narrowed;
  const expressions = [
    ...(spec.matchConditions ?? []).map((m) => m.expression),
    ...(spec.variables ?? []).map((v) => v.expression),
    ...(spec.mutations ?? []).map((m) => m.applyConfiguration?.expression ?? m.jsonPatch?.expression ?? ''),
  ];
  const inputs = clusterInputs(binding.params !== undefined, !!(target.namespace && target.namespaced));
  const external = expressions.map((e) => inputs.exec(e)).find((m) => m !== null);
  if (external) return { outcome: 'undecided', reason: `the policy reads \`${external[0]}\`, which is the cluster's` };

  const schema = customResourceMergeSchema(target.schema);
  const request = requestOf(target);
  const namespaceObject = target.namespaced && target.namespace ? toCelValue(target.namespace, undefined) : null;
  const params = binding.params ? toCelValue(binding.params, undefined) : null;
  const errors: Array<{ path: string; message: string }> = [];
  let object = structuredClone(target.object);
  const bindings = () => {
    const celObject = toCelValue(object, schema);
    const variables = new Map<string, unknown>();
    for (const v of spec.variables ?? []) {
      const r = evaluateAdmissionExpression(
        v.expression,
        { object: celObject, oldObject: null, request, namespaceObject, params, variables } as never,
        version,
      );
      // a variable is evaluated lazily: an error only matters where it is used (there: no such key)
      if (r.ok) variables.set(v.name, toCelValue(r.value, undefined));
    }
    return { object: celObject, oldObject: null, request, namespaceObject, params, variables } as never;
  };

  for (const [i, m] of (spec.matchConditions ?? []).entries()) {
    const r = evaluateAdmissionExpression(m.expression, bindings(), version);
    if (!r.ok) {
      errors.push({ path: `spec.matchConditions[${i}].expression`, message: r.error });
      return { outcome: 'mutated', object, dropped: [], errors };
    }
    if (r.value !== true) return { outcome: 'not-matched' };
  }
  for (const [i, m] of (spec.mutations ?? []).entries()) {
    const applyConfiguration = m.patchType === 'ApplyConfiguration';
    const path = `spec.mutations[${i}].${applyConfiguration ? 'applyConfiguration' : 'jsonPatch'}.expression`;
    const r = evaluateAdmissionExpression(
      (applyConfiguration ? m.applyConfiguration?.expression : m.jsonPatch?.expression) ?? '',
      bindings(),
      version,
    );
    if (!r.ok) {
      errors.push({ path, message: r.error });
      break;
    }
    if (applyConfiguration) {
      const patch = { ...(r.value as Record<string, unknown>) };
      // the apiserver sets the patch's apiVersion and kind to the object's
      patch.apiVersion = object.apiVersion;
      patch.kind = object.kind;
      const refused =
        r.unconverted.length > 0
          ? [`failed to convert patch object to typed object: ${r.unconverted.join(', ')}`]
          : applyConfigurationErrors(patch, schema);
      if (refused.length > 0) {
        errors.push(...refused.map((message) => ({ path, message: `error applying patch: ${message}` })));
        break;
      }
      object = mergeApplyConfiguration(object, patch, schema) as Record<string, unknown>;
    } else {
      const patched = applyJsonPatch(object, r.value as JsonPatchOperation[]);
      // a failed `test` leaves the object as it was
      if (patched.ok) {
        object = patched.value as Record<string, unknown>;
      } else if (!patched.testFailed) {
        errors.push({ path, message: `JSON Patch: ${patched.error}` });
        break;
      }
    }
  }
  // the apiserver prunes what the schema does not declare, then applies the schema's defaults
  const pruned = pruneUndeclared(object, schema);
  return {
    outcome: 'mutated',
    object: applyDefaults(target.schema, pruned.value) as Record<string, unknown>,
    dropped: pruned.dropped,
    errors,
  };
}

function requestOf(target: MutationTarget): unknown {
  const meta = (target.object.metadata ?? {}) as { name?: string; namespace?: string };
  const gvk = { group: target.resource.group, version: target.resource.version, kind: target.kind };
  return toCelValue(
    {
      kind: gvk,
      resource: target.resource,
      requestKind: gvk,
      requestResource: target.resource,
      name: meta.name ?? '',
      namespace: target.namespaced ? (meta.namespace ?? 'default') : '',
      operation: 'CREATE',
      dryRun: false,
      options: { apiVersion: 'meta.k8s.io/v1', kind: 'CreateOptions' },
    },
    undefined,
  );
}

/** Whether the policy's match constraints select the create of `target` (true), or why not. */
function matches(
  constraints: MatchResourcesSpec | undefined,
  target: MutationTarget,
  noRulesMatchAll = false,
): true | { outcome: 'not-matched' } | { outcome: 'undecided'; reason: string } {
  const notMatched = { outcome: 'not-matched' } as const;
  if (!constraints) return notMatched;
  const name = ((target.object.metadata ?? {}) as { name?: string }).name ?? '';
  const ruleMatches = (r: NamedRuleWithOperationsSpec) =>
    has(r.operations, 'CREATE') &&
    has(r.apiGroups, target.resource.group) &&
    has(r.apiVersions, target.resource.version) &&
    (r.resources ?? []).some((x) => x === '*' || x === '*/*' || x === target.resource.resource) &&
    (!r.resourceNames || r.resourceNames.length === 0 || r.resourceNames.includes(name)) &&
    (r.scope === undefined || r.scope === '*' || r.scope === (target.namespaced ? 'Namespaced' : 'Cluster'));
  const rules = constraints.resourceRules ?? [];
  if (!(noRulesMatchAll && rules.length === 0) && !rules.some(ruleMatches)) {
    // matchPolicy Equivalent (the default): a request in another version of the resource is converted to a
    // version a rule names, by the CRD's conversion, which the preview does not run
    const otherVersion = (r: NamedRuleWithOperationsSpec) => ruleMatches({ ...r, apiVersions: ['*'] });
    if (constraints.matchPolicy !== 'Exact' && rules.some(otherVersion)) {
      return {
        outcome: 'undecided',
        reason: `matched in another version (matchPolicy Equivalent): the apiserver converts the object first, which the preview does not`,
      };
    }
    return notMatched;
  }
  if ((constraints.excludeResourceRules ?? []).some(ruleMatches)) return notMatched;
  const labels = ((target.object.metadata ?? {}) as { labels?: Record<string, string> }).labels ?? {};
  if (!selects(constraints.objectSelector, labels)) return notMatched;
  const ns = constraints.namespaceSelector;
  if (
    target.namespaced &&
    ns &&
    ((ns.matchExpressions ?? []).length > 0 || Object.keys(ns.matchLabels ?? {}).length > 0)
  ) {
    // of an assumed namespace only the name label is known (the apiserver sets it on every namespace)
    const nameOnly = [...Object.keys(ns.matchLabels ?? {}), ...(ns.matchExpressions ?? []).map((e) => e.key)].every(
      (k) => k === 'kubernetes.io/metadata.name',
    );
    if (!target.namespace || (target.namespaceAssumed && !nameOnly)) {
      return { outcome: 'undecided', reason: "the policy's namespaceSelector depends on the namespace's labels" };
    }
    const nsLabels = ((target.namespace.metadata ?? {}) as { labels?: Record<string, string> }).labels ?? {};
    if (!selects(ns, nsLabels)) return notMatched;
  }
  return true;
}

function has(values: readonly string[] | undefined, value: string): boolean {
  return (values ?? []).some((v) => v === '*' || v === value);
}

function selects(selector: LabelSelectorSpec | undefined, labels: Record<string, string>): boolean {
  if (!selector) return true;
  for (const [k, v] of Object.entries(selector.matchLabels ?? {})) if (labels[k] !== v) return false;
  for (const e of selector.matchExpressions ?? []) {
    const present = e.key in labels;
    const values = e.values ?? [];
    const ok =
      e.operator === 'In'
        ? present && values.includes(labels[e.key])
        : e.operator === 'NotIn'
          ? !present || !values.includes(labels[e.key])
          : e.operator === 'Exists'
            ? present
            : !present;
    if (!ok) return false;
  }
  return true;
}

/** A binding as the preview needs it: its matchResources and paramRef. */
export interface BindingForPreview {
  readonly name: string;
  readonly matchResources?: MatchResourcesSpec;
  readonly paramRef?: ParamRefSpec;
}

/**
 * The policy's mutations on `target` through one binding, as kube-apiserver runs them: only where the binding's
 * matchResources match too, and with each parameter object the binding's paramRef selects among `candidates` (the
 * app's objects; one run per object, each on the result of the one before). Where the paramRef selects none of them,
 * the cluster's objects decide (`undecided`); a policy without paramKind, or a binding without paramRef, gets
 * `params` null.
 */
export function previewThroughBinding(
  policy: MutatingAdmissionPolicyManifest,
  target: MutationTarget,
  version: KubernetesVersion,
  binding: BindingForPreview,
  candidates: readonly Record<string, unknown>[],
): MutationPreview {
  const matchResources = binding.matchResources;
  const paramKind = policy.spec?.paramKind;
  if (!paramKind || !binding.paramRef) {
    return previewMutations(policy, target, version, { matchResources, params: null });
  }
  const params = selectParams(paramKind, binding.paramRef, candidates, target);
  if (params.length === 0) {
    const matched = previewMutations(policy, target, version, { matchResources });
    if (matched.outcome === 'not-matched') return matched;
    return {
      outcome: 'undecided',
      reason: `binding ${binding.name}'s paramRef selects no ${paramKind.kind} of the app: the cluster's decide`,
    };
  }
  let result: MutationPreview = { outcome: 'not-matched' };
  const dropped: string[] = [];
  for (const p of params) {
    const object = result.outcome === 'mutated' ? result.object : target.object;
    const next = previewMutations(policy, { ...target, object }, version, { matchResources, params: p });
    if (next.outcome === 'undecided') return next;
    if (next.outcome === 'not-matched') continue;
    dropped.push(...next.dropped);
    result = { ...next, dropped: [...new Set(dropped)] };
    if (next.errors.length > 0) break;
  }
  return result;
}

/** The parameter objects a paramRef selects among `candidates`: by name or selector, in its namespace. */
function selectParams(
  kind: ParamKindSpec,
  ref: ParamRefSpec,
  candidates: readonly Record<string, unknown>[],
  target: MutationTarget,
): Record<string, unknown>[] {
  // a namespaced param in the paramRef's namespace, else in the namespace of the object admitted
  const requestNamespace = target.namespaced
    ? (((target.object.metadata ?? {}) as { namespace?: string }).namespace ?? 'default')
    : undefined;
  return candidates.filter((c) => {
    if (c.apiVersion !== kind.apiVersion || c.kind !== kind.kind) return false;
    const meta = (c.metadata ?? {}) as { name?: string; namespace?: string; labels?: Record<string, string> };
    const inNamespace = meta.namespace
      ? meta.namespace === (ref.namespace ?? requestNamespace)
      : ref.namespace === undefined;
    if (!inNamespace) return false;
    if (ref.name !== undefined) return meta.name === ref.name;
    return selects(ref.selector, meta.labels ?? {});
  });
}
